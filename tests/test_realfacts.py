"""The real-filings fact set: loader, checker, plan and metadata on a PDF the test draws itself, and the
checker on the committed dev facts against the FinanceBench PDFs when that folder is present."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from mdqa_kernel.benchmarks.financebench import ENV_VAR
from mdqa_kernel.benchmarks.realfacts import (
    RealFactsError,
    check_facts,
    load_facts,
    main,
    metadata_frame,
    parse_number,
    plan_for,
    split_of,
)
from tests._pdfs import text_pdf

REPO = Path(__file__).resolve().parents[1]
FINANCEBENCH = Path(os.environ.get(ENV_VAR) or REPO.parent / "shared" / "financebench")
DEV_FACTS = REPO / "examples" / "realfacts" / "dev.jsonl"
DEV2_FACTS = REPO / "examples" / "realfacts" / "dev2.jsonl"
DEV3_FACTS = REPO / "examples" / "realfacts" / "dev3.jsonl"
DEV4_FACTS = REPO / "examples" / "realfacts" / "dev4.jsonl"
DEV5_FACTS = REPO / "examples" / "realfacts" / "dev5.jsonl"
DEV6_FACTS = REPO / "examples" / "realfacts" / "dev6.jsonl"
DEV7_FACTS = REPO / "examples" / "realfacts" / "dev7.jsonl"
DEV8_FACTS = REPO / "examples" / "realfacts" / "dev8.jsonl"
DEV9_FACTS = REPO / "examples" / "realfacts" / "dev9.jsonl"

COMPANIES = ["Acme", "Bolt", "Crane", "Dune", "Echo", "Flint", "Gale", "Hale", "Iris"]


def _folder(tmp_path: Path) -> Path:
    """A FinanceBench-shaped folder: documents.jsonl naming nine companies, one drawn 10-K PDF."""
    folder = tmp_path / "fb"
    (folder / "pdfs").mkdir(parents=True)
    rows = [
        {
            "doc_name": f"{c.upper()}_2022_10K",
            "company": c,
            "gics_sector": "X",
            "doc_type": "10k",
            "doc_period": 2022,
        }
        for c in COMPANIES
    ]
    (folder / "documents.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    text_pdf(
        folder / "pdfs" / "ACME_2022_10K.pdf",
        [
            ["Item 1. Business", "As of December 31, 2022, we had approximately 12,300 employees."],
            [
                "Consolidated Statements of Income (in millions, except per share data)",
                "Total net revenue 4,567.8 4,012.3",
                "Net income (loss) (123) 456",
            ],
        ],
    )
    return folder


def _fact(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "doc": "ACME_2022_10K",
        "company": "Acme",
        "year": "2022",
        "doctype": "10k",
        "field": "total_revenue",
        "field_description": "Total net revenue for the fiscal year of the report",
        "type": "number",
        "unit": "USD",
        "field_scale": 1e6,
        "value_text": "4,567.8",
        "value": 4567.8,
        "scale": 1e6,
        "page": 2,
        "snippet": "Total net revenue 4,567.8 4,012.3",
        "evidence": "table",
        "period": "FY2022",
        "trap": False,
        "category": "statement",
        "split": split_of("Acme", COMPANIES),
    }
    return {**base, **over}


def _write(path: Path, facts: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(f) + "\n" for f in facts))
    return path


def _good_facts() -> list[dict[str, Any]]:
    return [
        _fact(),
        _fact(
            field="net_income",
            field_description="Net income for the fiscal year",
            value_text="(123)",
            value=-123e6,
            field_scale=1,
            snippet="Net income (loss) (123) 456",
        ),
        _fact(
            field="employees",
            field_description="Number of employees at fiscal year end",
            type="integer",
            unit="persons",
            field_scale=1,
            value_text="12,300",
            value=12300,
            scale=1,
            page=1,
            snippet="we had approximately 12,300 employees",
            evidence="prose",
            period="2022-12-31",
            category="headcount",
        ),
    ]


def test_parse_number_reads_printed_forms() -> None:
    assert parse_number("1,234.5") == 1234.5
    assert parse_number("(12)") == -12
    assert parse_number("$3.40") == 3.4
    assert parse_number("24.6%") == 24.6
    assert parse_number("-0.5") == -0.5
    assert parse_number("n/a") is None


def test_good_facts_load_check_and_make_a_plan(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    path = _write(tmp_path / "facts.jsonl", _good_facts())
    facts = load_facts(path)
    assert [f["line"] for f in facts] == [1, 2, 3]
    assert check_facts(path, folder) == []
    plan = plan_for(facts)
    assert [f.name for f in plan.fields] == ["total_revenue", "net_income", "employees"]
    revenue = plan.fields[0]
    assert revenue.scale == 1e6 and revenue.unit == "USD" and revenue.type == "number"
    assert revenue.applies_to({"doc_id": "ACME_2022_10K"}) and not revenue.applies_to({"doc_id": "OTHER"})
    meta = metadata_frame(facts, folder)
    assert meta.row(0, named=True) == {
        "doc_id": "ACME_2022_10K",
        "path": str(folder / "pdfs" / "ACME_2022_10K.pdf"),
        "entity": "Acme",
        "year": "2022",
        "doctype": "10k",
        "sector": "X",
    }
    question = revenue.render(meta.row(0, named=True))
    assert question.startswith("Total net revenue for the fiscal year of the report") and "Acme" in question


def test_checker_names_wrong_page_missing_value_bad_scale_and_split(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    facts = [
        _fact(page=1),  # the snippet is on page 2
        _fact(field="net_income", field_description="Net income", value_text="457", value=457e6 / 1e6),
        _fact(field="eps", field_description="EPS", value=4567.8 * 1e6),  # value in the wrong scale
        _fact(
            field="cash", field_description="Cash", split="validation" if _fact()["split"] == "dev" else "dev"
        ),
        _fact(doc="BOLT_2022_10K", company="Bolt", split=split_of("Bolt", COMPANIES)),  # no such PDF
        _fact(page=9),
    ]
    path = _write(tmp_path / "bad.jsonl", facts)
    problems = check_facts(path, folder)
    by_line: dict[int, str] = {}
    for p in problems:
        by_line[p.line] = by_line.get(p.line, "") + p.message + " | "
        assert str(p).startswith(f"{path}:{p.line}: ")
    assert "not on page 1" in by_line[1]
    assert "'457' is not in the snippet" in by_line[2]
    assert "field_scale" in by_line[3]
    assert "split rule" in by_line[4]
    assert "is missing" in by_line[5]
    assert "page 9 is not in the PDF" in by_line[6]
    assert main(["check", str(path), "--data", str(folder)]) == 1
    assert main(["check", str(_write(tmp_path / "ok.jsonl", _good_facts())), "--data", str(folder)]) == 0
    assert main(["nonsense"]) == 2


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("{not json", "line 1 is not valid JSON"),
        (json.dumps({k: v for k, v in _fact().items() if k != "page"}), "lacks 'page'"),
        (json.dumps(_fact(page="2")), "'page' must be int"),
        (json.dumps(_fact(category="misc")), "use one of"),
        (json.dumps(_fact(trap="no")), "'trap' must be bool"),
        (json.dumps(_fact(field="Total Revenue")), "snake_case"),
    ],
)
def test_loader_names_file_line_and_fix(tmp_path: Path, line: str, needle: str) -> None:
    path = tmp_path / "facts.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(RealFactsError) as err:
        load_facts(path)
    assert needle in str(err.value) and str(path) in str(err.value)


def test_loader_refuses_one_field_name_with_two_scales(tmp_path: Path) -> None:
    path = _write(tmp_path / "facts.jsonl", [_fact(), _fact(field_scale=1, value=4567.8e6)])
    with pytest.raises(RealFactsError, match=r"line 2: field 'total_revenue' has field_scale=1 but line 1"):
        load_facts(path)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("facts_file", "count"),
    [
        (DEV_FACTS, 390),
        (DEV2_FACTS, 141),
        (DEV3_FACTS, 131),
        (DEV4_FACTS, 100),
        (DEV5_FACTS, 78),
        (DEV6_FACTS, 92),
        (DEV7_FACTS, 105),
        (DEV8_FACTS, 127),
        (DEV9_FACTS, 135),
    ],
    ids=["dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9"],
)
def test_committed_dev_facts_hold_against_the_filings(facts_file: Path, count: int) -> None:
    if not (FINANCEBENCH / "pdfs").is_dir():
        pytest.skip(
            f"FinanceBench PDFs absent at {FINANCEBENCH / 'pdfs'} (../shared/financebench or ${ENV_VAR})"
        )
    t0 = time.perf_counter()
    problems = check_facts(facts_file, FINANCEBENCH)
    assert problems == [], "\n".join(map(str, problems))
    facts = load_facts(facts_file)
    # the count the file was committed with: a truncated or merged file fails here
    assert len(facts) == count and {f["split"] for f in facts} == {"dev"}
    plan_for(facts)  # every field name makes one valid FieldSpec
    assert time.perf_counter() - t0 < 600
