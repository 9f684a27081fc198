"""A debt note's total, on pages drawn here: "Total long-term debt" that the next row deducts the current portion
from ("Less: current portion") holds every borrowing, current and long-term, so it is the total debt; the same
label with no such deduction under it is the long-term debt only and names no total debt. Debt asked without its current portion is the row after the
deduction ("Total long-term debt, less current portion"), never the one before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from tests.test_periods import row, text
from tests.test_statement_labels import WIDE, annual, read

TOTAL_DEBT = (
    "Total debt (the debt note's total of all borrowings, current and long-term, before unamortized discounts are"
    " subtracted only if the note totals it that way) at the end of the fiscal year of the report, in USD millions"
)
LONG_TERM = "Long-term debt, excluding the current portion, at the end of the fiscal year of the report, in USD millions"


def _debt_note(total: str, deduction: str) -> list:
    lines = [
        text("Long-Term Debt"),
        text("Long-term debt consisted of the following ($ in millions):"),
        row("", "2023", "2022", cols=WIDE),
        row("2026 Notes", "650", "650", cols=WIDE),
        row("2031 Notes", "500", "—", cols=WIDE),
        row("Finance lease obligations", "181", "191", cols=WIDE),
        row(total, "1,331", "841", cols=WIDE),
    ]
    if deduction:
        lines += [
            row(deduction, "56", "44", cols=WIDE),
            row("Total long-term debt, less current portion", "1,275", "797", cols=WIDE),
        ]
    return lines


@pytest.mark.parametrize("total", ["Total long-term debt", "Long-term debt"])
@pytest.mark.parametrize("deduction", ["Less: current portion", "Less current maturities of long-term debt"])
def test_long_term_debt_before_its_current_portion_is_deducted_is_the_total_debt(
    tmp_path: Path, total: str, deduction: str
) -> None:
    doc = annual(tmp_path / "debt.pdf", _debt_note(total, deduction))
    found = read(doc, TOTAL_DEBT)
    assert found.status is Status.FOUND and found.value == 1331, found
    assert found.confidence >= REVIEW_BELOW
    # the non-current part is the row after the deduction ("less current portion" restates "long-term")
    noncurrent = read(doc, LONG_TERM)
    assert noncurrent.value == 1275 and noncurrent.confidence >= REVIEW_BELOW, noncurrent


def test_long_term_debt_with_no_current_portion_deducted_is_no_total_debt(tmp_path: Path) -> None:
    found = read(annual(tmp_path / "plain.pdf", _debt_note("Total long-term debt", "")), TOTAL_DEBT)
    assert found.value is None or found.confidence < REVIEW_BELOW, found
