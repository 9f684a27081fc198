"""Spans counted in weeks, and column dates printed close together, on statements drawn here. Retailers
and grocers close their quarters on a weekday: a 16-12-12-12 fiscal year's first quarter is sixteen
weeks, its half twenty-eight, its nine months forty. Their 10-Qs print each column's end date in full on
one line, often with less than two characters between one column's date and the next."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.text.headers import _word_groups
from mdqa_kernel.text.layout import Line, Word
from mdqa_kernel.text.periods import parse_period
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import MILLIONS, read

FOUR = (300.0, 370.0, 450.0, 520.0)
TWO = (360.0, 450.0)
Q2_COVER = [
    text("Example Grocers QUARTERLY REPORT ON FORM 10-Q"),
    text("For the quarterly period ended August 12, 2023"),
]
# The dates right-aligned 70 points apart: about 8 points between "2023" and the next "August".
Q2_OPERATIONS = [
    text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
    MILLIONS,
    [(335, "Twelve Weeks Ended", "c"), (485, "Twenty-Eight Weeks Ended", "c")],
    row("", "August 12, 2023", "August 13, 2022", "August 12, 2023", "August 13, 2022", cols=FOUR),
    row("Sales", "33,853", "34,638", "79,304", "79,599", cols=FOUR),
    row("Net earnings", "1,020", "1,049", "3,045", "1,725", cols=FOUR),
]
Q2_CASH_FLOWS = [
    text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
    MILLIONS,
    row("", "Twenty-Eight Weeks Ended", cols=(405.0,)),
    row("", "August 12, 2023", "August 13, 2022", cols=TWO),
    row("Depreciation and amortization", "2,010", "1,910", cols=TWO),
]
Q1_COVER = [
    text("Example Grocers QUARTERLY REPORT ON FORM 10-Q"),
    text("For the quarterly period ended May 20, 2023"),
]
Q1_OPERATIONS = [
    text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
    MILLIONS,
    row("", "Sixteen Weeks Ended", cols=(405.0,)),
    row("", "May 20, 2023", "May 21, 2022", cols=TWO),
    row("Sales", "45,166", "44,600", cols=TWO),
]


@pytest.mark.parametrize(
    ("header", "months"),
    [
        ("Sixteen Weeks Ended", 3),
        ("16 weeks ended", 3),
        ("Twelve Weeks Ended", 3),
        ("Thirteen Weeks Ended", 3),
        ("Twenty-Four Weeks Ended", 6),
        ("Twenty-Eight Weeks Ended", 6),
        ("28 Weeks Ended", 6),
        ("Thirty-Six Weeks Ended", 9),  # was "six weeks": one month
        ("Forty Weeks Ended", 9),
        ("Fifty-Three Weeks Ended", 12),
        ("52 weeks ended", 12),
        ("Four Weeks Ended", 1),
        ("within two weeks", None),
        ("Eleven Months Ended", 11),  # a transition period
        ("Twenty-four months ended", None),  # no span of one report
    ],
)
def test_week_and_month_spans(header: str, months: int | None) -> None:
    assert parse_period(header).months == months


def test_a_sixteen_twelve_week_year(tmp_path: Path) -> None:
    """A 28-week half read as no span: "depreciation for the quarter" took the cash flow statement's
    half-year figure (2,010) at full confidence."""
    doc = view(draw(tmp_path / "q2.pdf", [Q2_COVER, Q2_OPERATIONS, Q2_CASH_FLOWS]), year=2023, doctype="10-Q")
    quarter = read(doc, "Sales for the quarter")
    assert (quarter.value, quarter.confidence) == (33853, 1.0), quarter
    assert read(doc, "Sales year to date").value == 79304
    assert read(doc, "Net earnings for the first half of the year").value == 3045
    assert read(doc, "Sales of the year-ago quarter (three months)").value == 34638
    cash = read(doc, "Depreciation and amortization for the quarter")
    assert cash.value is None, cash
    assert read(doc, "Depreciation and amortization year to date").value == 2010


def test_a_sixteen_week_quarter_is_no_half(tmp_path: Path) -> None:
    """A 16-week first quarter named no span: "the first half" was answered with it (45,166) at full
    confidence."""
    doc = view(draw(tmp_path / "q1.pdf", [Q1_COVER, Q1_OPERATIONS]), year=2023, doctype="10-Q")
    assert read(doc, "Sales for the quarter").value == 45166
    assert read(doc, "Sales of the year-ago quarter").value == 44600
    half = read(doc, "Sales for the first half of the year")
    assert half.value is None, half


def test_close_column_dates_head_their_own_columns(tmp_path: Path) -> None:
    """ "August 12, 2023 August 13, 2022 …" printed 8 points apart was one header over all four columns,
    naming two years: no column fitted, and "Sales" was not found at all."""
    path = draw(tmp_path / "q2.pdf", [Q2_COVER, Q2_OPERATIONS])
    doc = view(path, year=2023, doctype="10-Q")
    sales = read(doc, "Sales for the quarter (twelve weeks)")
    assert (sales.value, sales.confidence) == (33853, 1.0), sales
    assert read(doc, "Net earnings for the year-ago quarter (twelve weeks)").value == 1049


def _line(*words: tuple[str, float]) -> Line:
    return Line(1, 0, [Word(t, x, 0.0, x + 5.0 * len(t), 9.0) for t, x in words])


def test_a_caption_naming_two_years_stays_one_group() -> None:
    """Only a year followed by a month or a year starts a new column's header: "2023 and 2022" is one
    caption; "Dec. 31, 2023 Dec. 31, 2022", three points apart, is two columns' headers."""
    caption = _line(("December", 100), ("31,", 145), ("2023", 163), ("and", 186), ("2022", 206))
    assert [" ".join(w.text for w in g) for g in _word_groups(caption)] == ["December 31, 2023 and 2022"]
    dates = _line(("Dec.", 100), ("31,", 123), ("2023", 141), ("Dec.", 164), ("31,", 187), ("2022", 205))
    assert [" ".join(w.text for w in g) for g in _word_groups(dates)] == ["Dec. 31, 2023", "Dec. 31, 2022"]
