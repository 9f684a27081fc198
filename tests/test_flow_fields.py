"""A field asking a flow ("Deferred income tax expense for the fiscal year") is not a balance sheet's line
of a like name ("Deferred income taxes", a liability at the year's end): on statements drawn here, the
balance sheet's reading gives way to the cash flow statement's and, alone, is held for review; a field
asking the balance still reads the balance sheet."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.readers.semantics import asks_flow
from tests.test_statement_labels import annual, millions_page, read

FLOW = (
    "Deferred income tax expense (the total of federal, state and foreign deferred taxes) for the fiscal year "
    "of the report, in USD millions (a benefit is negative)"
)
BALANCE = millions_page(
    "CONSOLIDATED BALANCE SHEETS",
    ("December 31, 2023", "December 31, 2022"),
    ("Long-term debt", "41,990", "47,032"),
    ("Deferred income taxes", "433", "230"),
    ("Total liabilities", "205,753", "198,298"),
)
CASH_FLOWS = millions_page(
    "CONSOLIDATED STATEMENTS OF CASH FLOWS",
    ("2023", "2022"),
    ("Net income", "72,361", "72,738"),
    ("Deferred income taxes", "(6,059)", "(5,702)"),
    ("Net cash from operations", "87,582", "89,035"),
)


@pytest.mark.parametrize(
    ("description", "flow"),
    [
        (FLOW, True),
        ("Interest expense for the prior fiscal year, in USD millions", True),
        ("Cash paid for interest during the fiscal year of the report", True),
        ("Diluted earnings per share for the fiscal fourth quarter only", True),
        ("Net income for the three months ended March 31, 2024", True),
        ("Accounts payable at the end of the fiscal year of the report, in USD millions", False),
        ("Cash and cash equivalents on the balance sheet for the fiscal year", False),
        ("Common shares outstanding as of the cover date", False),
        ("Total revenue, in USD millions", False),
    ],
)
def test_a_flow_is_asked_over_a_span_and_at_no_date(description: str, flow: bool) -> None:
    assert asks_flow(description) is flow


def test_a_flow_is_read_from_the_statement_of_the_year_not_the_balance_sheet(tmp_path: Path) -> None:
    """Both statements print "Deferred income taxes": the cash flow statement's is the year's deferred
    tax, the balance sheet's the liability standing at its end."""
    doc = annual(tmp_path / "two.pdf", BALANCE, CASH_FLOWS)
    flow = read(doc, FLOW)
    assert flow.value == -6059 and flow.confidence >= CONFIDENT, flow
    assert flow.evidence is not None and flow.evidence.page == 3, flow  # the cover is page 1


def test_a_balance_sheet_reading_alone_is_held_for_review(tmp_path: Path) -> None:
    doc = annual(tmp_path / "bs.pdf", BALANCE)
    flow = read(doc, FLOW)
    assert flow.value == 433 and flow.confidence < REVIEW_BELOW, flow


def test_a_balance_is_still_read_from_the_balance_sheet(tmp_path: Path) -> None:
    doc = annual(tmp_path / "bs.pdf", BALANCE)
    liability = read(
        doc, "Deferred income taxes (the noncurrent liability) at the end of the fiscal year, in USD millions"
    )
    assert liability.value == 433 and liability.confidence >= CONFIDENT, liability
