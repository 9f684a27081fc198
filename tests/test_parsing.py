"""parse_pdf on real filings (Chinese and English) and on generated bad input; tables on demand."""

from __future__ import annotations

import itertools
import json
import pickle
import re
from pathlib import Path

import pdfplumber
import pytest

from mdqa_kernel.parsing.page import is_table_row
from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.parsing.tables import TableExtractionError, extract_tables
from mdqa_kernel.store import Workspace
from tests._pdfs import bad_corpus, text_pdf

REALDOCS = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdocs"
needs_realdocs = pytest.mark.skipif(
    not (REALDOCS / "gold.jsonl").exists(), reason="../shared/realdocs is absent"
)


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return bad_corpus(tmp_path_factory.mktemp("bad"))


@needs_realdocs
@pytest.mark.parametrize("prefix", ["cn_", "us_"])
def test_gold_snippets_on_their_pages(prefix: str) -> None:
    gold = [
        json.loads(line)
        for line in (REALDOCS / "gold.jsonl").read_text(encoding="utf-8").splitlines()
        if line
    ]
    gold = [g for g in gold if g["doc"].startswith(prefix)]
    parsed: dict[str, object] = {}
    for g in gold:
        result = parsed.setdefault(g["doc"], parse_pdf(REALDOCS / "pdfs" / f"{g['doc']}.pdf"))
        assert result.status == "ok", result.message  # type: ignore[attr-defined]
        text = result.pages.filter(page=g["page"])["text"][0]  # type: ignore[attr-defined]
        assert _norm(g["snippet"]) in _norm(text), (g["doc"], g["page"], g["snippet"])
    expected = "zh" if prefix == "cn_" else "en"
    assert {r.language for r in parsed.values()} == {expected}  # type: ignore[attr-defined]


@needs_realdocs
def test_chinese_table_row_chunk_joins_label_and_numbers() -> None:
    r = parse_pdf(REALDOCS / "pdfs" / "cn_000999_crsanjiu_2025_q3.pdf")
    rows = r.chunks.filter(kind="table_row", page=1)["text"].to_list()
    assert any(row.startswith("营业收入 7,176,243,") for row in rows)


def test_frames_offsets_and_boxes(tmp_path: Path) -> None:
    pdf = text_pdf(
        tmp_path / "a.pdf", [["Annual report 2022", "Total revenue 12,480 11,032"], ["Page two prose."]]
    )
    r = parse_pdf(pdf)
    assert (r.status, r.n_pages, r.language) == ("ok", 2, "en")
    assert r.pages["page"].to_list() == [1, 2] and r.pages["has_text"].all()
    page1 = r.pages["text"][0]
    for w in r.words.filter(page=1).iter_rows(named=True):
        assert page1[w["char_start"] : w["char_end"]] == w["text"]
        assert 0 <= w["x0"] < w["x1"] and 0 <= w["top"] < w["bottom"] <= 842
    first = r.words.row(0, named=True)
    assert first["text"] == "Annual" and first["top"] < 90  # measured from the top of the page
    for c in r.chunks.iter_rows(named=True):
        page_text = r.pages["text"][c["page"] - 1]
        assert page_text[c["char_start"] : c["char_end"]].strip() == c["text"].strip()
    rows = r.chunks.filter(kind="table_row")
    assert rows["text"].to_list() == ["Total revenue 12,480 11,032"]
    assert r.chunks["chunk_id"].to_list() == list(range(r.chunks.height))
    assert pickle.loads(pickle.dumps(r)).chunks.equals(r.chunks)


def test_chunks_stay_on_their_page_and_near_target_size(tmp_path: Path) -> None:
    sentence = "The company reported steady growth across all segments this year. "
    pages = [[sentence * 1 for _ in range(60)], [sentence for _ in range(5)]]
    r = parse_pdf(text_pdf(tmp_path / "long.pdf", pages))
    text_chunks = r.chunks.filter(kind="text")
    assert set(text_chunks["page"].to_list()) == {1, 2}
    sizes = (text_chunks["char_end"] - text_chunks["char_start"]).to_list()
    assert max(sizes) <= 800 and sorted(sizes)[len(sizes) // 2] >= 300
    # text chunks partition each page: contiguous, no gaps or overlaps
    for (_page,), part in text_chunks.group_by("page"):
        spans = sorted(zip(part["char_start"], part["char_end"], strict=True))
        assert all(a[1] < b[0] + 2 for a, b in itertools.pairwise(spans))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Total revenue 12,480 11,032", True),
        ("营业收入（元） 7,176,243, 5,634,27 27.37%", True),
        ("Net loss (1,204) (987)", True),
        ("12,480 11,032", False),
        ("Revenue grew 12% in 2023", False),
        ("Chapter 3", False),
    ],
)
def test_is_table_row(line: str, expected: bool) -> None:
    assert is_table_row(line) is expected


@pytest.mark.parametrize(
    ("kind", "status", "error_kind", "in_message"),
    [
        ("good", "ok", None, ""),
        ("good_zh", "ok", None, ""),
        ("not_pdf", "error", "not_pdf", "is not a PDF"),
        ("empty", "error", "empty", "empty file"),
        ("truncated", "error", "corrupt", "damaged"),
        ("encrypted", "error", "encrypted", "password-protected"),
        ("zero_pages", "error", "no_pages", "zero pages"),
        ("scanned", "error", "scanned_pages", "OCR"),
        ("half_scanned", "partial", "scanned_pages", "page 2"),
    ],
)
def test_bad_input_never_raises(
    bad: dict[str, Path], kind: str, status: str, error_kind: str | None, in_message: str
) -> None:
    r = parse_pdf(bad[kind])
    assert (r.status, r.error_kind) == (status, error_kind), r.message
    assert in_message in r.message
    if status != "ok":
        assert bad[kind].name in r.message  # the message names the file


def test_scanned_pages_are_flagged(bad: dict[str, Path]) -> None:
    r = parse_pdf(bad["half_scanned"])
    assert r.scanned_pages == [2] and r.pages["has_text"].to_list() == [True, False]
    assert parse_pdf(bad["good_zh"]).language == "zh"
    assert "营业收入 5,631,204 4,987,116" in parse_pdf(bad["good_zh"]).pages["text"][0]


def test_missing_file_is_an_error_not_an_exception(tmp_path: Path) -> None:
    r = parse_pdf(tmp_path / "nope.pdf")
    assert (r.status, r.error_kind) == ("error", "missing_file")


def _plumber_tables(path: Path, page: int) -> list[list[list[str | None]]]:
    with pdfplumber.open(path) as pdf:
        return [t.extract() for t in pdf.pages[page - 1].find_tables()]


def test_tables_match_pdfplumber_and_are_cached(tmp_path: Path) -> None:
    from mdqa_kernel.examples import make_example_pdfs

    make_example_pdfs(tmp_path / "ex")
    pdf = tmp_path / "ex" / "pdfs" / "cn_bank_a_2021.pdf"
    ws = Workspace(tmp_path / "ws")
    tables = extract_tables(pdf, 1, workspace=ws)
    assert [t.cells for t in tables] == _plumber_tables(pdf, 1)
    assert tables[0].header_rows == 1 and tables[0].cells[3] == ["资本充足率", "15.44%", "14.80%"]
    assert len(list((ws.path / "parquet" / "tables").rglob("*.parquet"))) == 1
    assert extract_tables(pdf, 1, workspace=ws) == tables  # read back from the cache
    with pytest.raises(TableExtractionError, match="page 9 does not exist"):
        extract_tables(pdf, 9)


@needs_realdocs
def test_real_tables_match_pdfplumber(tmp_path: Path) -> None:
    pdf = REALDOCS / "pdfs" / "cn_000999_crsanjiu_2025_q3.pdf"
    ws = Workspace(tmp_path / "ws")
    expected = _plumber_tables(pdf, 1)
    assert [t.cells for t in extract_tables(pdf, 1, workspace=ws)] == expected
    assert [t.cells for t in extract_tables(pdf, 1, workspace=ws)] == expected
