"""A line item's label wrapped over two lines is one label, its fragments joined with a space; interest
expense under its itemised names ("Interest expense on borrowings", "… from debt and amortization of debt
discount and deferred financing costs") is the interest expense."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from tests.test_periods import row, text
from tests.test_statement_labels import MILLIONS, annual, read

PRIOR_INTEREST = "Interest expense for the prior fiscal year, in USD millions"
INTEREST_INCOME = "Interest income for the fiscal year of the report, in USD millions"
THREE = (420.0, 490.0, 560.0)


def _note(*interest: tuple[str, ...]) -> list:
    return [
        text("18. Interest and Other Expense (Income), Net"),
        MILLIONS,
        row("", "2023", "2022", "2021", cols=THREE),
        row("Interest income", "(79)", "(65)", "(24)", cols=THREE),
        *(row(*r, cols=THREE) for r in interest),
        row("Other expense (income), net", "1", "(4)", "8", cols=THREE),
        row("Interest and other expense (income), net", "(26)", "71", "146", cols=THREE),
    ]


def test_a_wrapped_label_is_joined_with_a_space(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "note.pdf",
        _note(
            ("Interest expense from debt and amortization of debt discount and deferred",),
            ("financing costs", "90", "140", "162"),
        ),
    )
    prior = read(doc, PRIOR_INTEREST)
    assert prior.value == 140 and prior.confidence >= CONFIDENT, prior
    # the interest income row above is not the expense
    assert read(doc, INTEREST_INCOME).value == -79


@pytest.mark.parametrize(
    "label",
    [
        "Interest expense on borrowings",
        "Interest expense from debt",
        "Interest expense, including amortization of debt discount",
    ],
)
def test_itemised_interest_expense_names_the_interest_expense(tmp_path: Path, label: str) -> None:
    doc = annual(tmp_path / "note.pdf", _note((label, "90", "140", "162")))
    prior = read(doc, PRIOR_INTEREST)
    assert prior.value == 140 and prior.confidence >= CONFIDENT, prior


def test_interest_on_short_term_borrowings_is_not_the_interest_expense(tmp_path: Path) -> None:
    doc = annual(tmp_path / "note.pdf", _note(("Interest expense on short-term borrowings", "9", "14", "16")))
    assert read(doc, PRIOR_INTEREST).confidence < CONFIDENT


def test_a_heading_over_a_row_lends_it_no_words(tmp_path: Path) -> None:
    # "Operating Activities" over "Net income" on a cash flow statement is no "operating income"
    doc = annual(
        tmp_path / "cf.pdf",
        [
            text("CONSOLIDATED STATEMENT OF CASH FLOWS"),
            MILLIONS,
            row("", "2023", "2022", cols=THREE[1:]),
            text("Operating Activities"),
            row("Net income", "8,978", "7,679", cols=THREE[1:]),
            row("Depreciation and amortization", "2,763", "2,710", cols=THREE[1:]),
            row("Net Cash Provided by Operating Activities", "10,811", "11,616", cols=THREE[1:]),
        ],
    )
    operating = read(doc, "Operating income (loss) for the fiscal year of the report, in USD millions")
    assert operating.value != 8978 or operating.confidence < CONFIDENT, operating
