"""OCR of pages without a text layer (parsing.ocr through parsing.pdf): image-only pages we draw, read
back by the installed tesseract, with boxes, flagged per page, and readable by the table reader.

These tests need the tesseract CLI with its English and simplified-Chinese packs (`make sysdeps`):
without it they fail, on purpose, rather than skip."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest

from mdqa_kernel.parsing import cache as parse_cache
from mdqa_kernel.parsing import ocr
from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import Status, view_from_parse
from mdqa_kernel.readers.confidence import CONFIDENT, OCR_DOUBTFUL
from mdqa_kernel.readers.table.reader import TableReader
from mdqa_kernel.store import Workspace
from tests._extract_fixtures import annual_cn, table_pdf
from tests._pdfs import image_only_pdf, text_pdf

INCOME = [
    ("CONSOLIDATED STATEMENTS OF INCOME",),
    ("(in thousands)",),
    ("", "2022", "2021"),
    ("Total revenue", "1,234,567", "1,100,000"),
    ("Net income", "(12,345)", "9,876"),
]


def fld(name: str, description: str, type: str = "number"):
    return SimpleNamespace(name=name, type=type, description=description, question="", unit=None, scale=1.0)


@pytest.fixture(scope="module")
def income(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the text PDF of an income statement, the same page as an image-only PDF)."""
    folder = tmp_path_factory.mktemp("ocr")
    text = table_pdf(folder / "income_text.pdf", [INCOME])
    return text, image_only_pdf(folder / "income_scan.pdf", text)


def test_tesseract_is_installed() -> None:
    assert ocr.executable(), f"no tesseract executable on PATH: {ocr.INSTALL_HINT}"
    assert ocr.languages_for("en") == "eng"
    assert ocr.languages_for("zh") == "chi_sim+eng", ocr.INSTALL_HINT


def test_image_only_page_is_read_with_boxes_and_flagged(income: tuple[Path, Path]) -> None:
    text_pdf_path, scan = income
    r = parse_pdf(scan)
    assert (r.status, r.error_kind) == ("ok", None), r.message
    assert r.scanned_pages == [1] and r.ocr_pages == [1] and not r.ocr_missing
    assert "read by OCR" in r.message and "tesseract" in r.message
    assert r.pages.row(0, named=True) | {"text": ""} == {
        "page": 1,
        "text": "",
        "width": pytest.approx(595.28, abs=0.01),
        "height": pytest.approx(841.89, abs=0.01),
        "has_text": True,
        "source": "ocr",
    }
    assert "Total revenue 1,234,567 1,100,000" in r.pages["text"][0]
    assert "Net income (12,345) 9,876" in r.pages["text"][0]
    assert set(r.words["source"]) == {"ocr"} and r.words["conf"].min() > 50
    assert r.chunks.filter(pl.col("kind") == "table_row").height == 2
    # The OCR boxes are in PDF points, where the text layer of the same page has the words.
    truth = parse_pdf(text_pdf_path).words
    for word in ("1,234,567", "(12,345)", "revenue"):
        got = r.words.filter(pl.col("text") == word).row(0, named=True)
        want = truth.filter(pl.col("text") == word).row(0, named=True)
        for edge in ("x0", "top", "x1", "bottom"):
            assert got[edge] == pytest.approx(want[edge], abs=4.0), (word, edge)


def _text_then_image(path: Path, image_source: Path) -> Path:
    """Page 1 has a text layer; page 2 is `image_source`'s first page as an image."""
    import pypdfium2 as pdfium
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    source = pdfium.PdfDocument(str(image_source))
    image = source[0].render(scale=200 / 72).to_pil()
    source.close()
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 11)
    c.drawString(72, 760, "Management discussion: revenue grew in 2022")
    c.drawImage(ImageReader(image), 300, 100, 200, 280)  # a picture on a text page: not OCR'd
    c.showPage()
    c.drawImage(ImageReader(image), 0, 0, *A4)
    c.showPage()
    c.save()
    return path


def test_text_pages_are_never_ocrd(
    tmp_path: Path, income: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[int] = []
    real = ocr.ocr_page

    def spy(page, lang, **kwargs):  # records what the parse hands to OCR, then OCRs it for real
        seen.append(1)
        return real(page, lang, **kwargs)

    monkeypatch.setattr(ocr, "ocr_page", spy)
    r = parse_pdf(_text_then_image(tmp_path / "mixed.pdf", income[0]))
    assert len(seen) == 1  # one page OCR'd: the image-only one
    assert r.ocr_pages == [2] and r.scanned_pages == [2] and r.status == "ok", r.message
    assert r.pages["source"].to_list() == ["text", "ocr"]
    page1 = r.words.filter(pl.col("page") == 1)
    assert set(page1["source"]) == {"text"} and page1["conf"].null_count() == page1.height
    assert "Management discussion" in r.pages["text"][0] and "1,234,567" not in r.pages["text"][0]
    assert "1,234,567" in r.pages["text"][1]


def test_table_reader_reads_the_ocr_page(income: tuple[Path, Path]) -> None:
    doc = view_from_parse(parse_pdf(income[1]), "scan", {"year": 2022})
    reader = TableReader()
    revenue = reader.read(doc, fld("value_total_revenue_usd", "total revenue."), "")
    assert revenue.status == Status.FOUND, revenue.message
    assert revenue.value == pytest.approx(1_234_567_000) and revenue.evidence.page == 1
    assert revenue.evidence.bbox is not None
    assert revenue.confidence >= CONFIDENT and "read by OCR" in revenue.message  # clean print: trusted
    income_ = reader.read(doc, fld("value_net_income_usd", "net income."), "")
    assert income_.value == pytest.approx(-12_345_000)


def test_a_doubtful_ocr_number_needs_review(income: tuple[Path, Path]) -> None:
    parsed = parse_pdf(income[1])
    # The same page as if tesseract had hesitated over one digit group of the revenue cell.
    doubt = pl.when(pl.col("text") == "1,234,567").then(pl.lit(70.0)).otherwise(pl.col("conf"))
    parsed.words = parsed.words.with_columns(conf=doubt)
    doc = view_from_parse(parsed, "scan", {"year": 2022})
    revenue = TableReader().read(doc, fld("value_total_revenue_usd", "total revenue."), "")
    assert revenue.value == pytest.approx(1_234_567_000)  # still shown to the reviewer ...
    assert revenue.confidence <= OCR_DOUBTFUL < CONFIDENT  # ... but never trusted alone
    assert "word confidence 70" in revenue.message
    net = TableReader().read(doc, fld("value_net_income_usd", "net income."), "")
    assert net.confidence >= CONFIDENT  # the other row's words were read surely


def test_chinese_image_page_is_read(tmp_path: Path) -> None:
    scan = image_only_pdf(tmp_path / "cn_scan.pdf", annual_cn(tmp_path / "cn.pdf"))
    r = parse_pdf(scan)
    assert r.ocr_pages == [1, 2] and r.language == "zh", r.message
    assert "净利润" in r.pages["text"][0] and "246,913.57" in r.pages["text"][0]


def test_without_an_engine_pages_stay_unread_and_say_what_to_install(
    income: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MDQA_OCR", "off")
    r = parse_pdf(income[1])
    assert (r.status, r.error_kind) == ("error", "scanned_pages")
    assert r.ocr_missing and r.ocr_pages == [] and r.words.height == 0
    assert "tesseract-ocr" in r.message and "OCR" in r.message


def test_a_parse_without_engine_is_parsed_again_once_one_is_there(
    tmp_path: Path, income: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(tmp_path / "ws")
    monkeypatch.setenv("MDQA_OCR", "off")
    record = parse_cache.store_result(ws, "a" * 64, parse_pdf(income[1]))
    assert record["ocr_pages"] is None
    parse_cache.commit(ws, record)
    assert "a" * 64 in parse_cache.cached(ws, ["a" * 64])  # still no engine: the cached parse stands
    monkeypatch.delenv("MDQA_OCR")
    assert parse_cache.cached(ws, ["a" * 64]) == {}  # an engine now: parse it again
    record = parse_cache.store_result(ws, "a" * 64, parse_pdf(income[1]))
    parse_cache.commit(ws, record)
    assert json.loads(parse_cache.cached(ws, ["a" * 64])["a" * 64]["ocr_pages"]) == [1]


def test_blank_drawing_stays_a_scanned_page(tmp_path: Path) -> None:
    r = parse_pdf(text_pdf(tmp_path / "rect.pdf", [[]]))  # a filled rectangle, nothing to read
    assert (r.status, r.error_kind) == ("error", "scanned_pages") and r.ocr_pages == []
    assert "OCR" in r.message and r.pages["source"].to_list() == ["none"]


def test_words_from_tsv_scales_boxes_and_joins_chinese() -> None:
    tsv = "\n".join(
        [
            "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
            "4\t1\t1\t1\t1\t0\t100\t100\t700\t40\t-1\t",
            "5\t1\t1\t1\t1\t1\t100\t100\t80\t40\t91.5\t营业",
            "5\t1\t1\t1\t1\t2\t184\t100\t80\t40\t88.0\t收入",
            "5\t1\t1\t1\t1\t3\t500\t100\t200\t40\t95.0\t1,234",
            "5\t1\t1\t1\t1\t4\t720\t100\t10\t40\t95.0\t ",
            "5\t1\t1\t1\t2\t1\t100\t160\t80\t40\t90.0\t利润",
            # chi_sim cuts numbers at their separators; columns further apart stay apart
            "5\t1\t1\t1\t3\t1\t100\t220\t25\t30\t93.0\t7,",
            "5\t1\t1\t1\t3\t2\t147\t220\t50\t30\t95.0\t176.45",
            "5\t1\t1\t1\t3\t3\t300\t220\t25\t30\t95.0\t9,",
            "5\t1\t1\t1\t3\t4\t400\t220\t50\t30\t95.0\t12",
        ]
    )
    words = ocr.words_from_tsv(tsv, 72.0 / 300)
    # another line is not joined
    assert [w.text for w in words] == ["营业收入", "1,234", "利润", "7,176.45", "9,", "12"]
    first = words[0]
    assert (first.x0, first.top, first.x1, first.bottom, first.conf) == pytest.approx(
        (24.0, 24.0, 63.36, 33.6, 88.0)
    )


def test_a_failing_engine_costs_its_page_only(
    tmp_path: Path, income: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "bin" / "tesseract"  # an engine that lists its languages, then crashes on a page
    broken.parent.mkdir()
    broken.write_text(
        '#!/bin/sh\nif [ "$1" = --list-langs ]; then printf "List of languages:\\neng\\n"; exit 0; fi\n'
        'echo "Error in pixReadMem: bad image" >&2; exit 1\n'
    )
    broken.chmod(0o755)
    monkeypatch.setenv("PATH", f"{broken.parent}:{os.environ['PATH']}")
    r = parse_pdf(_text_then_image(tmp_path / "mixed.pdf", income[0]))
    assert (r.status, r.error_kind) == ("partial", "scanned_pages") and r.ocr_pages == []
    assert "OCR failed" in r.message and "bad image" in r.message
    assert "Management discussion" in r.pages["text"][0] and r.pages["source"].to_list() == ["text", "none"]


def test_ink_box_is_the_inked_region_with_a_margin() -> None:
    from PIL import Image, ImageDraw

    dpi = 300
    blank = Image.new("L", (2550, 3300), 255)
    assert ocr.ink_box(blank, dpi) is None  # no ink: nothing to read
    rule = blank.copy()
    ImageDraw.Draw(rule).rectangle((75, 110, 2475, 116), fill=150)  # a page-wide rule, 7 px (1.7 pt) high
    assert ocr.ink_box(rule, dpi) is None  # thinner than any printed text
    block = blank.copy()
    ImageDraw.Draw(block).rectangle((2000, 3000, 2400, 3290), fill=0)
    margin = round(ocr.INK_MARGIN_PT * dpi / 72)
    # widened by the margin on every side, clipped to the page at the bottom
    assert ocr.ink_box(block, dpi) == (2000 - margin, 3000 - margin, 2401 + margin, 3300)


def test_only_the_inked_region_is_read_and_boxes_stay_on_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scanned-style document: page 1 holds a lone ruled line (no text can be there), page 2 a small
    block of text in its bottom-right corner. Only page 2 goes to tesseract, and its words come back
    where the page prints them, not where the crop begins."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    source = tmp_path / "source.pdf"
    c = canvas.Canvas(str(source), pagesize=A4)
    c.setLineWidth(1.0)
    c.line(36, 800, 560, 800)
    c.showPage()
    c.setFont("Helvetica", 12)
    c.drawString(330, 120, "Paper from responsible sources")
    c.drawString(330, 100, "Certificate 2024-117")
    c.showPage()
    c.save()
    truth = parse_pdf(source).words
    calls: list[list[str]] = []
    real_run = ocr.subprocess.run

    def counting_run(command, *args, **kwargs):
        if "--list-langs" not in command:
            calls.append(command)
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(ocr.subprocess, "run", counting_run)
    r = parse_pdf(image_only_pdf(tmp_path / "scan.pdf", source, dpi=300))
    assert len(calls) == 1  # page 2 only
    assert r.scanned_pages == [1, 2] and r.ocr_pages == [2], r.message
    assert r.pages["source"].to_list() == ["none", "ocr"]
    assert "Paper from responsible sources" in r.pages["text"][1]
    for word in ("responsible", "Certificate", "2024-117"):
        got = r.words.filter(pl.col("text") == word).row(0, named=True)
        want = truth.filter(pl.col("text") == word).row(0, named=True)
        for edge in ("x0", "top", "x1", "bottom"):
            assert got[edge] == pytest.approx(want[edge], abs=4.0), (word, edge)
