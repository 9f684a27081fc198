"""Compact period codes of earnings releases and banks' supplements, on statements drawn here: a quarter
as "1Q23" / "Q1'23", a half as "1H23" / "H1 2023" / "first half", a year as "FY23"; a quarterly report
whose quarter number only its tables say; a field asking the quarter before the report's, which no
column is known to hold; and "for the quarter" or "the first half", which name a span a year-to-date
column of another length does not hold."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from mdqa_kernel.text.period_fit import asks_sequential_quarter, fits, quarter_of_table
from mdqa_kernel.text.periods import ReportPeriod, parse_period, wanted_period
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import MILLIONS, read

FIVE = (300.0, 360.0, 420.0, 480.0, 540.0)
FOUR = (300.0, 370.0, 440.0, 510.0)
TEN_Q = [
    text("Example Bancorp QUARTERLY REPORT ON FORM 10-Q"),
    text("For the quarterly period ended March 31, 2023"),
]
TEN_K = [
    text("Example Bancorp ANNUAL REPORT ON FORM 10-K"),
    text("For the fiscal year ended December 31, 2023"),
]
HIGHLIGHTS = [
    text("CONSOLIDATED FINANCIAL HIGHLIGHTS"),
    MILLIONS,
    row("", "1Q23", "4Q22", "3Q22", "2Q22", "1Q22", cols=FIVE),
    row("Total net revenue", "39,340", "35,566", "33,491", "31,630", "31,593", cols=FIVE),
    row("Net income", "12,622", "11,008", "9,737", "8,649", "8,282", cols=FIVE),
]
HALVES = [
    text("SUPPLEMENTARY DATA"),
    MILLIONS,
    row("", "1H23", "1H22", "FY23", "FY22", cols=FOUR),
    row("Provision for credit losses", "4,550", "2,564", "9,320", "6,389", cols=FOUR),
]


@pytest.mark.parametrize(
    ("header", "year", "months", "quarter", "span"),
    [
        ("1Q23", 2023, 3, 1, None),
        ("Q4'22", 2022, 3, 4, None),
        ("Q2 ’23", 2023, 3, 2, None),
        ("3Q 2021", 2021, 3, 3, None),
        ("Q1-24", 2024, 3, 1, None),
        ("1H23", 2023, 6, None, None),
        ("H1 2022", 2022, 6, None, None),
        ("First half 2023", 2023, 6, None, None),
        ("2H22", 2022, 6, None, "h2"),
        ("FY23", 2023, 12, None, None),
        ("Q1 FY23", 2023, 3, 1, None),
        ("Q1 23", None, 3, 1, None),  # a two-digit year is joined to its code or marked: not a code
    ],
)
def test_codes_name_their_period(header: str, year, months, quarter, span) -> None:
    p = parse_period(header)
    assert (p.year, p.months, p.quarter, p.span) == (year, months, quarter, span), p


def test_a_half_year_code_is_not_its_year() -> None:
    """ "H1 2023" read as the year 2023 answered a year's field with a half's figure."""
    annual = ReportPeriod(year=2023, end=dt.date(2023, 12, 31))
    want = wanted_period("Provision for credit losses for fiscal year 2023", annual)
    assert fits(parse_period("H1 2023"), want, annual) is False
    assert fits(parse_period("H2 2023"), want, annual) is False
    assert fits(parse_period("FY23"), want, annual) is True


def test_quarter_codes_of_a_10q(tmp_path: Path) -> None:
    """ "1Q23 4Q22 3Q22 2Q22 1Q22" named no period: the first column was taken by position, at a
    confidence held for review, for the quarter and for the year-ago quarter alike (12,622 for 8,282)."""
    doc = view(draw(tmp_path / "q.pdf", [TEN_Q, HIGHLIGHTS]), year=2023, doctype="10-Q")
    now = read(doc, "Total net revenue for the quarter of the report (three months)")
    assert (now.value, now.confidence) == (39340, 1.0), now
    ago = read(doc, "Net income of the year-ago quarter (three months)")
    assert (ago.value, ago.confidence) == (8282, 1.0), ago


def test_the_report_quarter_from_a_table() -> None:
    """A 10-Q cover gives the quarter's end, not which quarter of the fiscal year it is; without that,
    4Q22 fits the year-ago quarter as well as 1Q22."""
    report = ReportPeriod(year=2023, end=dt.date(2023, 3, 31), quarterly=True)
    periods = [parse_period(h) for h in ("1Q23", "4Q22", "3Q22", "2Q22", "1Q22")]
    assert quarter_of_table(periods, report).quarter == 1
    ago = wanted_period("Net income of the year-ago quarter", report)
    table = quarter_of_table(periods, report)
    assert [fits(p, ago, table) for p in periods] == [False, False, False, False, True]
    # two quarters of the report's year: the report is the later one (no report prints a quarter after
    # its own; a fiscal year that starts in October ends its second quarter on March 31)
    mixed = [parse_period(h) for h in ("1Q23", "2Q23")]
    assert quarter_of_table(mixed, report).quarter == 2
    assert quarter_of_table([parse_period("4Q22"), parse_period("3Q22")], report).quarter is None


def test_a_second_quarters_trend_table(tmp_path: Path) -> None:
    """ "2Q22 1Q22 4Q21 3Q21 2Q21" beside "Six months ended June 30, 2022 2021": two quarters of the
    report's year left the report's quarter unknown, so 4Q21 fitted the year-ago quarter as well as 2Q21
    and was read (10,399 for 11,948) at a confidence that still counted as found."""
    cols = (190.0, 240.0, 290.0, 340.0, 390.0, 465.0, 530.0)
    trend = [
        text("CONSOLIDATED FINANCIAL HIGHLIGHTS"),
        MILLIONS,
        [(497.5, "Six months ended", "c")],
        row("", "2Q22", "1Q22", "4Q21", "3Q21", "2Q21", "2022", "2021", cols=cols),
        row("Net income", "8,649", "8,282", "10,399", "11,687", "11,948", "16,931", "26,248", cols=cols),
    ]
    cover = [text("QUARTERLY REPORT ON FORM 10-Q"), text("For the quarterly period ended June 30, 2022")]
    doc = view(draw(tmp_path / "q2.pdf", [cover, trend]), year=2022, doctype="10-Q")
    ago = read(doc, "Net income of the year-ago quarter (three months)")
    assert (ago.value, ago.confidence) == (11948, 1.0), ago
    now = read(doc, "Net income for the quarter of the report (three months)")
    assert (now.value, now.confidence) == (8649, 1.0), now
    ytd = read(doc, "Net income for the year to date (six months)")
    assert ytd.value == 16931, ytd


def test_halves_and_fiscal_years_of_a_10k(tmp_path: Path) -> None:
    """ "1H23 1H22 FY23 FY22": the half was read for "the first half" as the year (9,320), its code
    naming only 2023."""
    doc = view(draw(tmp_path / "k.pdf", [TEN_K, HALVES]), year=2023, doctype="10-K")
    assert read(doc, "Provision for credit losses").value == 9320
    assert read(doc, "Provision for credit losses for the prior fiscal year").value == 6389
    half = read(doc, "Provision for credit losses for the first half of the year")
    assert (half.value, half.confidence) == (4550, 1.0), half


@pytest.mark.parametrize(
    ("description", "asks"),
    [
        ("Total net revenue for the prior quarter", True),
        ("Net income of the preceding fiscal quarter", True),
        ("Sequential revenue growth", True),
        ("Revenue quarter-over-quarter change", True),
        ("Revenue of the prior-year quarter", False),
        ("Revenue for the same quarter of the prior year", False),
        ("Net income for the last quarter of fiscal 2022", False),
        ("Revenue of the year-ago quarter (not the prior quarter)", False),
    ],
)
def test_sequential_quarter_words(description: str, asks: bool) -> None:
    assert asks_sequential_quarter(description) is asks


def test_the_prior_quarter_is_not_found(tmp_path: Path) -> None:
    """ "The prior quarter" named no period, so the report's own quarter (39,340) was read for it."""
    doc = view(draw(tmp_path / "q.pdf", [TEN_Q, HIGHLIGHTS]), year=2023, doctype="10-Q")
    prior = read(doc, "Total net revenue for the prior quarter")
    assert prior.value is None and not prior.found, prior
    assert "quarter before the report's" in prior.message


NINE_MONTHS = [
    text("Example Corp QUARTERLY REPORT ON FORM 10-Q"),
    text("For the quarterly period ended September 30, 2023"),
]
INCOME_Q3 = [
    text("CONSOLIDATED STATEMENTS OF INCOME"),
    MILLIONS,
    [(335, "Three Months Ended", "c"), (485, "Nine Months Ended", "c")],
    [(335, "September 30,", "c"), (485, "September 30,", "c")],
    row("", "2023", "2022", "2023", "2022", cols=(300.0, 370.0, 450.0, 520.0)),
    row("Net income", "1,010", "1,120", "3,050", "3,300", cols=(300.0, 370.0, 450.0, 520.0)),
]
CASH_FLOWS_Q3 = [
    text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
    MILLIONS,
    row("", "Nine Months Ended September 30,", cols=(405.0,)),
    row("", "2023", "2022", cols=(360.0, 450.0)),
    row("Depreciation and amortization", "1,300", "1,250", cols=(360.0, 450.0)),
]


def test_for_the_quarter_is_no_year_to_date(tmp_path: Path) -> None:
    """ "For the quarter" named no span, so a 10-Q's cash flow statement (nine months only) answered a
    quarter's field with its year to date (1,300), at full confidence; and "the first half" of a third
    quarter's report took the nine months' column (3,050)."""
    doc = view(draw(tmp_path / "q.pdf", [NINE_MONTHS, INCOME_Q3, CASH_FLOWS_Q3]), year=2023, doctype="10-Q")
    quarter = read(doc, "Depreciation and amortization for the quarter")
    assert quarter.value is None, quarter
    assert read(doc, "Depreciation and amortization year to date").value == 1300
    assert read(doc, "Net income for the quarter").value == 1010
    half = read(doc, "Net income for the first half of the year")
    assert half.value is None, half
