"""Periods a row or a sentence names itself, on statements drawn here: one quarter of an annual report's
year read from its quarterly-data table (never the year's total), a roll-forward's "at beginning of
year" row (the balance at the start of each column's year, never a change row), a "respectively"
sentence paired year by year, a rounded prose figure held for review when no exact one agrees, and a
field name's period suffix that is no part of the line item's name."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.readers.plausibility import unscaled_fraction
from mdqa_kernel.readers.semantics import change_before
from mdqa_kernel.readers.table.reader import TableReader
from mdqa_kernel.text.labels import field_labels
from mdqa_kernel.text.period_fit import column_periods, fits, opening_of
from mdqa_kernel.text.periods import ReportPeriod, parse_period, wanted_period
from tests.test_periods import row, text
from tests.test_statement_labels import MILLIONS, annual, fld

ANNUAL = ReportPeriod(year=2023, end=dt.date(2023, 12, 31))
FOURTH = (
    "Total revenues of the fiscal fourth quarter only (quarterly financial data, unaudited), in USD millions"
)
EIGHT = (235.0, 280.0, 325.0, 370.0, 430.0, 475.0, 520.0, 565.0)  # right edges of eight quarter columns
INCOME = [
    text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
    MILLIONS,
    row("Years ended December 31,", "2023", "2022"),
    row("Total revenues", "101,127", "93,392"),
    row("Net earnings", "10,460", "8,197"),
]


def indented(label: str, *values: str, cols: tuple[float, ...]) -> list:
    """A row under a heading: its label indented from the heading's."""
    return [(84, label, "l"), *((x, v, "r") for x, v in zip(cols, values, strict=True))]


def read(doc, description: str, **kw):
    return TableReader().read(doc, fld(description, **kw), "")


# -- one quarter of the year -------------------------------------------------------------------------
def test_quarter_words_name_which_quarter() -> None:
    assert parse_period("4th Quarter 2023").quarter == 4
    assert parse_period("Quarter 2nd").quarter == 2  # a spanning "Quarter" stacked over "2nd"
    assert parse_period("Q3 2023").quarter == 3
    assert parse_period("2023年第四季度").quarter == 4
    assert parse_period("Three Months Ended December 31, 2023").quarter is None
    want = wanted_period(FOURTH, ANNUAL)
    assert (want.quarter, want.months, want.offset) == (4, 3, 0)


def test_bare_ordinal_columns_are_quarters() -> None:
    """ "4th 3rd 2nd 1st" under a spanning year: a quarterly-data note's columns, the first the 4th."""
    want = wanted_period(FOURTH, ANNUAL)
    heads = ["2023 4th", "2023 3rd", "2023 2nd", "2023 1st", "2022 4th"]
    assert [fits(p, want, ANNUAL) for p in column_periods(heads)] == [True, False, False, False, False]
    # a column naming only the year is the annual report's year, never one of its quarters
    assert [fits(p, want, ANNUAL) for p in column_periods(["2023", "2022"])] == [False, False]
    dated = ["Dec. 31, 2023", "Sep. 30, 2023", "Jun. 30, 2023", "Mar. 31, 2023", "Dec. 31, 2022"]
    assert [fits(p, want, ANNUAL) for p in column_periods(dated)] == [True, False, False, False, False]


def test_the_fourth_quarter_is_read_from_the_quarterly_data_table(tmp_path: Path) -> None:
    """The income statement's 101,127 is the year's: read for "the fourth quarter" before. The quarterly
    note prints the quarters newest first under a spanning year."""
    quarterly = [
        text("Note 24 - Quarterly Financial Data (Unaudited)"),
        MILLIONS,
        [(300, "2023", "c"), (500, "2022", "c")],
        row("", "4th", "3rd", "2nd", "1st", "4th", "3rd", "2nd", "1st", cols=EIGHT),
        row(
            "Total revenues",
            "28,341",
            "25,146",
            "24,258",
            "23,382",
            "24,770",
            "24,223",
            "23,051",
            "21,961",
            cols=EIGHT,
        ),
    ]
    doc = annual(tmp_path / "q.pdf", INCOME, quarterly)
    assert read(doc, FOURTH).value == 28341
    assert read(doc, "Total revenues for the fiscal year of the report, in USD millions").value == 101127
    alone = annual(tmp_path / "annual.pdf", INCOME)
    assert read(alone, FOURTH).value is None


def test_q_columns_beside_a_total(tmp_path: Path) -> None:
    quarterly = [
        text("Note 15. Quarterly Financial Data (Unaudited)"),
        [(430, "Fiscal Year Ended December 31, 2023", "c")],
        row("(Amounts in millions)", "Q1", "Q2", "Q3", "Q4", "Total", cols=EIGHT[3:]),
        row("Total revenues", "23,382", "24,258", "25,146", "28,341", "101,127", cols=EIGHT[3:]),
    ]
    doc = annual(tmp_path / "q.pdf", quarterly)
    assert read(doc, FOURTH).value == 28341


def test_ordinal_quarters_beside_the_year_column_are_that_year_s(tmp_path: Path) -> None:
    """ "Quarter 1st 2nd 3rd 4th" beside "12-Month 2023": the only year of the table heads its full-year
    column, and the quarters are that year's; the next table, of 2022, holds none of them."""

    def table(year: str, *values: str) -> list:
        return [
            row("", "Quarter", "", "", "", "12-Month", cols=EIGHT[3:]),
            row("", "1st", "2nd", "3rd", "4th", year, cols=EIGHT[3:]),
            row("Revenue", *values, cols=EIGHT[3:]),
        ]

    quarterly = [
        text("13. Quarterly Financial Information (Unaudited)"),
        MILLIONS,
        *table("2023", "23,382", "24,258", "25,146", "28,341", "101,127"),
        *table("2022", "21,961", "23,051", "24,223", "24,770", "94,005"),
    ]
    doc = annual(tmp_path / "q.pdf", quarterly)
    fourth = read(doc, FOURTH)
    assert fourth.value == 28341 and fourth.confidence >= CONFIDENT, fourth
    heads = ["Quarter 1st", "Quarter 2nd", "Quarter 3rd", "Quarter 4th", "12-Month 2023"]
    assert [p.year for p in column_periods(heads)] == [2023] * 5
    # with a second year in the header, which year the quarters belong to is not known
    two_years = column_periods(["Quarter 1st", "Quarter 2nd", "12-Month 2023", "12-Month 2022"])
    assert [p.year for p in two_years[:2]] == [None, None]


def test_a_sentence_about_the_year_is_not_the_quarter(tmp_path: Path) -> None:
    mdna = [
        text("MANAGEMENT'S DISCUSSION AND ANALYSIS"),
        text("Total revenues for 2023 were $101.1 billion."),
    ]
    doc = annual(tmp_path / "md.pdf", mdna)
    assert read(doc, FOURTH).value is None


# -- the balance at the beginning of the year --------------------------------------------------------
BEGINNING = (
    "Cash and cash equivalents at the beginning of the fiscal year of the report, as printed in the cash flow "
    "statement (not the end-of-year balance), in USD millions"
)


def test_an_opening_row_holds_the_year_before_its_column() -> None:
    current, prior = column_periods(["2023", "2022"])
    assert fits(opening_of(current, ANNUAL), wanted_period(BEGINNING, ANNUAL), ANNUAL)
    assert not fits(opening_of(prior, ANNUAL), wanted_period(BEGINNING, ANNUAL), ANNUAL)
    prior_end = wanted_period("Cash at the end of the prior fiscal year, in USD millions", ANNUAL)
    assert fits(opening_of(current, ANNUAL), prior_end, ANNUAL)


def test_cash_at_the_beginning_of_the_year(tmp_path: Path) -> None:
    """Both rows say "cash and cash equivalents": the end-of-year row's current column (785) was read for
    the beginning of the year. The beginning row's current column is the year's opening balance."""
    flows = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        MILLIONS,
        row("Years ended December 31,", "2023", "2022", "2021", cols=(400.0, 470.0, 540.0)),
        row("Net increase (decrease) in cash and cash equivalents", "(20)", "(64)", "320", cols=(400.0, 470.0, 540.0)),
        row("Cash and cash equivalents at beginning of year", "805", "869", "549", cols=(400.0, 470.0, 540.0)),
        row("Cash and cash equivalents at end of year", "$ 785", "$ 805", "$ 869", cols=(400.0, 470.0, 540.0)),
    ]  # fmt: skip
    doc = annual(tmp_path / "cf.pdf", flows)
    assert read(doc, BEGINNING).value == 805
    # the prior year's opening balance is the beginning row's prior column, not this year's opening
    prior_beginning = "Cash and cash equivalents at the beginning of the prior fiscal year, in USD millions"
    assert read(doc, prior_beginning).value == 869
    end = "Cash and cash equivalents at the end of the fiscal year of the report, in USD millions"
    assert read(doc, end).value == 785


def test_an_opening_row_with_a_note_reference_is_read_for_the_prior_year_s_opening(tmp_path: Path) -> None:
    """ "…, beginning of year (Note 1)": the note reference after the balance's date hid the date, so the row
    named no line item; the prior year's opening balance is its prior column (13,985)."""
    cols = (400.0, 470.0, 540.0)
    flows = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        text("(Dollars in Millions) (Note 1)"),
        row("", "2023", "2022", "2021", cols=cols),
        row("(Decrease)/Increase in cash and cash equivalents", "(360)", "502", "(3,320)", cols=cols),
        row("Cash and cash equivalents, beginning of year (Note 1)", "14,487", "13,985", "17,305", cols=cols),
        row("Cash and cash equivalents, end of year (Note 1)", "$ 14,127", "14,487", "13,985", cols=cols),
    ]
    doc = annual(tmp_path / "cf.pdf", flows)
    prior_beginning = "Cash and cash equivalents at the beginning of the prior fiscal year, in USD millions"
    got = read(doc, prior_beginning)
    assert got.value == 13985 and got.confidence >= CONFIDENT, got


def _cash_block(line: Callable[..., list], cols: tuple[float, ...]) -> list[list]:
    """A cash flow statement's closing block: the "CASH AND CASH EQUIVALENTS" line, then its change and
    balance rows drawn by `line` (`indented` under it, or `row`, flush with it)."""
    return [
        text("CASH AND CASH EQUIVALENTS"),
        line("Net increase (decrease) during the year", "(2,549)", "1,246", "(1,649)", cols=cols),
        line("Balance at beginning of year", "8,555", "7,309", "8,958", cols=cols),
        line("Balance at end of year", "$ 6,006", "$ 8,555", "$ 7,309", cols=cols),
    ]


def test_a_change_row_under_the_cash_heading_is_no_balance(tmp_path: Path) -> None:
    """Under a "CASH AND CASH EQUIVALENTS" heading the change row's prior-year column (1,246) was read as
    the opening balance at full confidence."""
    cols = (400.0, 470.0, 540.0)
    flows = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        MILLIONS,
        row("Year Ended December 31,", "2023", "2022", "2021", cols=cols),
        *_cash_block(indented, cols),
    ]
    doc = annual(tmp_path / "cf.pdf", flows)
    got = read(doc, BEGINNING)
    assert got.value == 8555, got


def test_a_balance_row_flush_with_its_heading_is_the_heading_line_item(tmp_path: Path) -> None:
    """ "Balance at beginning of year" flush with the "CASH AND CASH EQUIVALENTS" line opening its block
    names no line item by itself: it is the cash's opening balance, read from the cash flow statement as
    asked, not only from the balance sheet's prior-year column (held for review there)."""
    cols = (400.0, 470.0, 540.0)
    flows = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        MILLIONS,
        row("Year Ended December 31,", "2023", "2022", "2021", cols=cols),
        row("Net cash provided by operating activities", "6,995", "8,796", "10,528", cols=cols),
        *_cash_block(row, cols),
    ]
    balance = [
        text("CONSOLIDATED BALANCE SHEETS"),
        MILLIONS,
        row("December 31,", "2023", "2022", cols=cols[:2]),
        row("Cash and cash equivalents", "$ 6,006", "$ 8,555", cols=cols[:2]),
        row("Total assets", "87,896", "87,270", cols=cols[:2]),
    ]
    doc = annual(tmp_path / "cf.pdf", balance, flows)
    got = read(doc, BEGINNING)
    assert got.value == 8555 and got.confidence >= CONFIDENT and got.evidence.page == 3, got
    end = "Cash and cash equivalents at the end of the fiscal year, as printed in the cash flow statement"
    assert read(doc, end).value == 6006
    # a roll-forward's balance row under another heading is that heading's, not the cash's
    equity = [
        text("CONSOLIDATED STATEMENTS OF SHAREOWNERS' EQUITY"),
        MILLIONS,
        row("Year Ended December 31,", "2023", "2022", "2021", cols=cols),
        text("REINVESTED EARNINGS"),
        row("Balance at beginning of year", "65,502", "65,018", "63,408", cols=cols),
    ]
    other = annual(tmp_path / "eq.pdf", equity)
    assert read(other, BEGINNING).status.value == "not_found"


# -- sentences ---------------------------------------------------------------------------------------
RD_PRIOR = "Research and development expense for the prior fiscal year, in USD millions"
RESPECTIVELY = (
    "During fiscal years 2023, 2022, and 2021, research and development expense was $12.0 billion, "
    "$12.4 billion, and $11.4 billion, respectively."
)


def test_respectively_pairs_years_and_amounts(tmp_path: Path) -> None:
    """The first amount is 2023's: read for the prior year before. Rounded to $0.1 billion for a field in
    millions, with no exact figure beside it, it is held for review."""
    doc = annual(tmp_path / "s.pdf", [text("Research and Development"), text(RESPECTIVELY)])
    got = read(doc, RD_PRIOR)
    assert got.value == 12400 and got.confidence < REVIEW_BELOW, got
    two_before = read(
        doc, "Research and development expense two years before the report's fiscal year, in USD millions"
    )
    assert two_before.value == 11400
    statement = [
        text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
        MILLIONS,
        row("Years ended December 31,", "2023", "2022"),
        row("Research and development expense", "11,988", "12,446"),
    ]
    doc = annual(tmp_path / "t.pdf", [text(RESPECTIVELY)], statement)
    exact = read(doc, RD_PRIOR)
    assert exact.value == 12446 and exact.confidence >= REVIEW_BELOW, exact


def test_a_change_noun_before_the_amount() -> None:
    """ "a reduction in unrecognized tax benefits of $437 million" is a change, not the balance."""
    assert change_before("consisted of a tax expense and a reduction in unrecognized tax benefits of $")
    assert change_before("the balance of unrecognized tax benefits was $") is None


def test_an_unscaled_amount_is_no_fraction_of_a_million() -> None:
    """ "Depreciation expense was $1,556" in notes written in millions without saying so."""
    field = fld("Depreciation expense, in USD millions")
    assert unscaled_fraction(field, 0.001556, None)
    assert unscaled_fraction(field, 1556.0, 1e6) is None
    assert unscaled_fraction(fld("Dividend per share", unit="USD/share", scale=1.0), 0.25, None) is None


def test_a_field_names_period_suffix_is_not_its_line_item() -> None:
    labels = field_labels("research_and_development_prior_year", "R&D for the prior fiscal year")
    assert "researchanddevelopment" in labels.primary
    assert "researchanddevelopmentprioryear" not in labels.primary
    assert "cashandequivalents" in field_labels("cash_and_equivalents_quarter_end", "x").primary
