"""Accounting identities between one document's fields (readers/identities.py): a part found larger
than its whole holds both readings for review; unit tests, then an extraction over balance sheets the
test draws (the table reader, real PDFs, real SQLite)."""

from __future__ import annotations

import polars as pl
import pytest

from mdqa_kernel.collection import Collection
from mdqa_kernel.extract.run import extract
from mdqa_kernel.plan.ir import FieldSpec, Plan
from mdqa_kernel.readers.identities import Reading, line_item, violations
from mdqa_kernel.text.periods import Period
from tests.test_periods import COLS, draw, row, text


@pytest.mark.parametrize(
    ("description", "item"),
    [
        ("Total assets at the end of the fiscal year of the report, in USD millions", "total_assets"),
        ("Cash and cash equivalents at the end of the prior fiscal year", "cash_and_equivalents"),
        ("Total stockholders equity at the end of the fiscal year", "total_equity"),
        ("Total revenue (net sales) (also: sales to customers) for the fiscal year of the report", "revenue"),
        ("Gross profit for fiscal year 2021, in USD millions", "gross_profit"),
        # a part of a line item, a per-share figure, or no line item: never checked
        ("Revenue from products only (the product sub-total, not total revenue) for the fiscal year", None),
        ("Diluted earnings per share for the fiscal year of the report", None),
        ("Number of employees at the end of the fiscal year", None),
    ],
)
def test_a_description_names_its_line_item_by_its_head(description, item):
    assert line_item(description) == item


def test_a_part_larger_than_its_whole_of_the_same_period_flags_both():
    now, prior = Period(offset=0, point=True), Period(offset=-1, point=True)
    readings = [
        Reading("cash", "cash_and_equivalents", now, 5_000e6),
        Reading("assets", "total_assets", now, 4_000e6),
        Reading("inventory", "inventories", now, 900e6),
        Reading("assets_prior", "total_assets", prior, 3_000e6),  # another period: not compared with cash
    ]
    flagged = violations(readings)
    assert set(flagged) == {"cash", "assets"}
    assert "cash (5,000,000,000) is larger than assets (4,000,000,000)" in flagged["cash"]
    # the prior year's cash is compared with the prior year's assets only
    assert violations([Reading("cash", "cash_and_equivalents", prior, 3_500e6), *readings[1:3]]) == {}


def test_separate_parts_add_up_to_no_more_than_their_whole():
    now = Period(offset=0, point=True)
    readings = [
        Reading("cash", "cash_and_equivalents", now, 600.0),
        Reading("inventory", "inventories", now, 500.0),
        Reading("current", "total_current_assets", now, 1_000.0),  # each part fits, their sum does not
        Reading("payables", "accounts_payable", now, 300.0),  # another whole's part: not involved
    ]
    flagged = violations(readings)
    assert set(flagged) == {"cash", "inventory", "current"}
    assert "cash (600) + inventory (500) = 1,100 is larger than current (1,000)" in flagged["current"]
    # parts printed rounded may add up to a little more than the whole printed rounded
    readings[2] = Reading("current", "total_current_assets", now, 1_096.0)
    assert violations(readings) == {}


def _balance_sheet(path, cash: str, assets: str) -> None:
    draw(
        path,
        [
            [text("Acme Widgets Inc."), text("ANNUAL REPORT ON FORM 10-K"), text("For the fiscal year ended December 31, 2023")],
            [text("CONSOLIDATED BALANCE SHEETS"), text("(In millions)"),
             [(x, f"December 31, {y}", "r") for x, y in zip(COLS, ("2023", "2022"), strict=False)],
             row("Cash and cash equivalents", cash, "700"), row("Inventories", "1,500", "1,300"),
             row("Total current assets", "4,200", "3,900"), row("Total assets", assets, "9,000")],
        ],
    )  # fmt: skip


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """Two filings: one whose statements agree, one printing cash above total assets (a misprint, or a
    figure a reader would take from the wrong row): the same plan over both."""
    root = tmp_path_factory.mktemp("identities")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    _balance_sheet(pdfs / "agree.pdf", "800", "9,800")
    _balance_sheet(pdfs / "broken.pdf", "12,800", "9,800")
    meta = pl.DataFrame({"doc_id": ["agree", "broken"], "company": ["Acme", "Acme"], "year": [2023, 2023],
                         "doctype": ["10k", "10k"]})  # fmt: skip
    coll = Collection.build(pdfs, metadata=meta, workspace=root / "ws", name="ids", progress=False)
    fields = [
        FieldSpec(name=name, type="number", unit="USD", scale=1e6, question=f"{head} of {{company}}?",
                  description=f"{head} at the end of the fiscal year of the report, in USD millions")
        for name, head in (("cash", "Cash and cash equivalents"), ("assets", "Total assets"), ("inventory", "Inventories"))
    ]  # fmt: skip
    plan = Plan(question="balance sheet figures", fields=fields)
    return extract(plan, coll, reader="table", progress=False).cells


def test_an_extraction_holds_a_broken_identity_for_review(extracted):
    cells = {(r["doc_id"], r["field"]): r for r in extracted.iter_rows(named=True)}
    assert {cells["agree", f]["status"] for f in ("cash", "assets", "inventory")} == {"found"}
    assert cells["broken", "cash"]["status"] == "needs_review"
    assert cells["broken", "assets"]["status"] == "needs_review"
    assert "larger than assets" in cells["broken", "cash"]["message"]
    assert cells["broken", "inventory"]["status"] == "found"  # 1,500 ≤ 9,800: not involved
