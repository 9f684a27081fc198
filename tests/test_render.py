"""Rendered MuDABench filings: every gold fact's printed string is on its manifest page (read back with
the project's parser), printed numbers equal the gold values at the stated scale, booleans are
statements or their absence, rendering is deterministic, and the CLI writes a usable folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pdfplumber
import polars as pl
import pytest
from click.testing import CliRunner

from mdqa_kernel.benchmarks.mudabench import DocumentRecord, all_document_records, load_split
from mdqa_kernel.benchmarks.render import (
    DEMO_QUESTION_IDS,
    HONESTY_NOTE_EN,
    DocumentManifest,
    FactManifest,
    RenderOptions,
    index_records,
    judge_equal,
    parse_number,
    render_document,
    render_mudabench,
    select_noise,
)
from mdqa_kernel.benchmarks.render.layouts.esg_cn import TOPICS
from mdqa_kernel.cli.main import main
from mdqa_kernel.parsing.pdf import parse_pdf

_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    return _WS.sub("", text)


@pytest.fixture(scope="module")
def records() -> dict[str, DocumentRecord]:
    return all_document_records("complex")


def sample(records: dict[str, DocumentRecord], per_doctype: int) -> list[DocumentRecord]:
    """The richest records of each doctype first (most fields), deterministic."""
    by: dict[str, list[DocumentRecord]] = {}
    for r in sorted(records.values(), key=lambda r: (-len(r.values), r.doc_id)):
        by.setdefault(r.doctype, []).append(r)
    return [r for rs in by.values() for r in rs[:per_doctype]]


def check_document(record: DocumentRecord, manifest: DocumentManifest, pdf: Path) -> None:
    parsed = parse_pdf(pdf)
    pages = {row["page"]: norm(row["text"]) for row in parsed.pages.iter_rows(named=True)}
    assert parsed.n_pages == manifest.pages
    assert norm(HONESTY_NOTE_EN).lower() in pages[1].lower()
    for fact in manifest.facts:
        value = record.values[fact.field]
        if fact.status == "absent":
            assert value in (None, False), f"{fact.field}={value!r} was not printed"
            continue
        for ev in fact.evidence:
            assert norm(ev.text) in pages[ev.page], f"{fact.field}: {ev.text!r} not on page {ev.page}"
        assert fact.printed and fact.page
        if fact.kind not in ("list", "events"):
            assert norm(fact.printed) in pages[fact.page]
        check_number(record, fact)


def check_number(record: DocumentRecord, fact: FactManifest) -> None:
    value = record.values[fact.field]
    if fact.kind == "money":
        base = 1e4 if fact.field.endswith("_10k_cny") else 1.0
        assert judge_equal(value * base, parse_number(fact.printed) * fact.scale_factor), fact
    elif fact.kind == "percent":
        assert fact.printed.endswith("%") and judge_equal(value, parse_number(fact.printed)), fact
    elif fact.kind == "ratio":
        assert fact.printed.endswith("%") and judge_equal(value, parse_number(fact.printed) / 100), fact
    elif fact.field == "value_pre_tax_dividend_per_share_cny":
        x = float(re.search(r"每10股派发现金红利([\d.]+)元（含税）", fact.printed).group(1))
        assert judge_equal(value, x * fact.scale_factor) and abs(x / 10 - value) < 1e-9, fact
    elif fact.kind in ("count", "shares"):
        assert int(parse_number(fact.printed)) == value
    elif fact.kind == "date":
        y, m, d = (int(p) for p in re.split(r"[年月日/]", fact.printed)[:3])
        assert f"{y:04d}-{m:02d}-{d:02d}" == value
    elif fact.kind == "text" and isinstance(value, str):
        assert norm(fact.printed) == norm(value)
    elif fact.kind == "list" and all(isinstance(v, str) for v in value):
        assert all(v in fact.printed for v in value)


def render_and_check(records: dict[str, DocumentRecord], docs: list[DocumentRecord], tmp: Path) -> int:
    index = index_records(records)
    for i, rec in enumerate(docs):
        opts = RenderOptions(seed=7, current_left=i % 2 == 0, scale_pref="coarse" if i % 4 < 2 else "fine")
        pdf = tmp / f"{rec.doc_id}.pdf"
        manifest = render_document(rec, pdf, opts, index)
        assert manifest.layout["current_left"] == (i % 2 == 0)
        check_document(rec, manifest, pdf)
    return len(docs)


def test_round_trip_fast(records, tmp_path: Path) -> None:
    docs = sample(records, 2)
    assert {d.doctype for d in docs} == {
        "A股年报",
        "US Stock Annual Report",
        "A股ESG报告",
        "A股利润分配权益类公告",
        "A股股东大会类公告",
    }
    assert render_and_check(records, docs, tmp_path) == 10


def test_round_trip_sixty_documents_both_variants(records, tmp_path: Path) -> None:
    docs = sample(records, 12)
    assert render_and_check(records, docs, tmp_path) >= 50


def test_pdfplumber_reads_chinese_exactly(records, tmp_path: Path) -> None:
    index = index_records(records)
    for doctype in ("A股年报", "A股利润分配权益类公告"):
        rec = next(r for r in sample(records, 1) if r.doctype == doctype)
        manifest = render_document(rec, tmp_path / "d.pdf", RenderOptions(seed=3), index)
        with pdfplumber.open(tmp_path / "d.pdf") as pdf:
            wanted = {ev.page for fact in manifest.facts for ev in fact.evidence}
            texts = {n: norm(pdf.pages[n - 1].extract_text() or "") for n in wanted}
            for fact in manifest.facts:
                for ev in fact.evidence:
                    assert norm(ev.text) in texts[ev.page], (fact.field, ev.text)


def test_deterministic_for_a_seed(records, tmp_path: Path) -> None:
    rec = sample(records, 1)[0]
    index = index_records(records)
    a = render_document(rec, tmp_path / "a.pdf", RenderOptions(seed=5), index)
    b = render_document(rec, tmp_path / "b.pdf", RenderOptions(seed=5), index)
    render_document(rec, tmp_path / "c.pdf", RenderOptions(seed=6), index)
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()
    assert a.model_dump() == b.model_dump()
    assert (tmp_path / "a.pdf").read_bytes() != (tmp_path / "c.pdf").read_bytes()


def test_false_booleans_are_absent_statements(records, tmp_path: Path) -> None:
    rec = next(
        r
        for r in records.values()
        if r.doctype == "A股ESG报告" and r.values.get("value_environment_protection_disclosed") is False
    )
    manifest = render_document(rec, tmp_path / "e.pdf", RenderOptions(), index_records(records))
    text = norm(" ".join(parse_pdf(tmp_path / "e.pdf").pages["text"]))
    assert "True" not in text and "False" not in text
    for field, _, statement in TOPICS:
        if field in rec.values:
            assert (norm(statement) in text) == (rec.values[field] is True)
    assert manifest.fact("value_environment_protection_disclosed").status == "absent"


def test_prior_year_comes_from_the_same_company(records, tmp_path: Path) -> None:
    index = index_records(records)
    rec = next(
        r
        for r in records.values()
        if r.doctype == "A股年报"
        and "value_net_profit_cny" in r.values
        and (r.symbol, r.doctype, r.year - 1) in index
        and "value_net_profit_cny" in index[(r.symbol, r.doctype, r.year - 1)].values
    )
    prior = index[(rec.symbol, rec.doctype, rec.year - 1)].values["value_net_profit_cny"]
    manifest = render_document(rec, tmp_path / "p.pdf", RenderOptions(scale_pref="fine"), index)
    fact = manifest.fact("value_net_profit_cny")
    page = parse_pdf(tmp_path / "p.pdf").pages.filter(pl.col("page") == fact.page)["text"][0]
    numbers = [parse_number(n) * fact.scale_factor for n in re.findall(r"-?[\d,]+\.\d\d", page)]
    assert any(judge_equal(prior, n) for n in numbers)


def test_unknown_field_renders_as_key_value(tmp_path: Path) -> None:
    rec = DocumentRecord(
        doc_id="x1",
        symbol="600000",
        year=2022,
        doctype="A股年报",
        values={"value_branch_count": 321, "value_chairman": "张三"},
        schema={"value_branch_count": "营业网点数量。", "value_chairman": "董事长姓名。"},
    )
    manifest = render_document(rec, tmp_path / "x.pdf")
    fact = manifest.fact("value_branch_count")
    assert fact.label == "营业网点数量" and fact.placement == "key_value" and fact.printed == "321"
    check_document(rec, manifest, tmp_path / "x.pdf")
    odd = rec.model_copy(update={"doctype": "A股其他公告"})
    check_document(odd, render_document(odd, tmp_path / "y.pdf"), tmp_path / "y.pdf")


def test_noise_selects_other_years_of_the_same_companies() -> None:
    s = load_split("simple")
    qid = s.question_ids[0]
    docs = s.documents(qid)
    noise = select_noise(s, qid, 0.5)
    assert len(noise) == int(0.5 * docs.height + 0.5)
    recs = s.document_records
    assert not set(noise) & set(docs["doc_id"])
    assert all(recs[d].symbol in set(docs["symbol"]) and recs[d].year not in set(docs["year"]) for d in noise)
    assert select_noise(s, qid, 0.5) == noise
    assert select_noise(s, qid, 0.0) == []


def test_cli_writes_a_collection_folder(tmp_path: Path) -> None:
    out = tmp_path / "r"
    qid = DEMO_QUESTION_IDS[-1]
    result = CliRunner().invoke(
        main,
        [
            "render",
            "mudabench",
            "--questions",
            qid,
            "--out",
            str(out),
            "--noise",
            "0.5",
            "--seed",
            "1",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    meta = pl.read_csv(out / "metadata.csv", infer_schema=False)
    assert {"doc_id", "symbol", "year", "doctype", "question_ids", "noise_for"} <= set(meta.columns)
    assert meta.height == summary["documents"] == len(list((out / "pdfs").glob("*.pdf")))
    questions = json.loads((out / "questions.json").read_text(encoding="utf-8"))
    assert len(questions[qid]["noise_doc_ids"]) == summary["noise_documents"] > 0
    for doc_id in meta["doc_id"]:
        DocumentManifest.model_validate_json(
            (out / "manifests" / f"{doc_id}.json").read_text(encoding="utf-8")
        )
    assert HONESTY_NOTE_EN in (out / "README.md").read_text(encoding="utf-8")
    bad = CliRunner().invoke(main, ["render", "mudabench", "--questions", "q_nope", "--out", str(out)])
    assert bad.exit_code == 2 and "error:" in bad.output


def test_demo_subset_covers_every_doctype_and_language() -> None:
    s = load_split("simple")
    q = s.questions.filter(pl.col("question_id").is_in(list(DEMO_QUESTION_IDS)))
    assert 10 <= q.height == len(DEMO_QUESTION_IDS) <= 15
    assert set(q["language"]) == {"zh", "en"}
    assert {d for ds in q["doctypes"] for d in ds} == {
        "A股年报",
        "US Stock Annual Report",
        "A股ESG报告",
        "A股利润分配权益类公告",
        "A股股东大会类公告",
    }
    assert not q["known_defect"].any()


def test_benchmark_render_refuses_the_fallback_font(monkeypatch, tmp_path: Path) -> None:
    """Without the embedded CJK font a corpus reads back differently: say so and name the fix."""
    from mdqa_kernel.benchmarks.render import fonts

    monkeypatch.setattr(fonts, "CJK_FONT_CANDIDATES", ((str(tmp_path / "absent.ttc"), 0),))
    monkeypatch.delenv("MDQA_ALLOW_CID_FONT", raising=False)
    with pytest.raises(fonts.MissingFontError, match="make sysdeps"):
        render_mudabench("simple", 1, tmp_path / "out", strict_fonts=True)
    assert not (tmp_path / "out").exists()
    # the demo and tutorials render anyway (a workshop laptop without root still runs `make demo`)
    assert render_mudabench("simple", 1, tmp_path / "lenient").documents > 0
    monkeypatch.setenv("MDQA_ALLOW_CID_FONT", "1")
    fonts.require_cjk_truetype()  # the escape hatch renders anyway
