"""A field asking a line item's percentage change, on tables drawn here: earnings releases print it in a
"% Change" column of the item's own row ("Reported Sales $23,706 $24,804 (4.4)%"), 10-Qs in a row of
its own ("Revenue % change" under the period columns). Neither was read: the row named the item, not
its change, and the change row's words ("Revenue % change") were not the description's ("percentage
change in total revenue")."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import REVIEW_BELOW
from mdqa_kernel.text.periods import parse_period
from mdqa_kernel.text.statement_context import change_base
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import read

SIX = (250.0, 310.0, 370.0, 430.0, 490.0, 550.0)
FOUR = (300.0, 370.0, 450.0, 520.0)
RELEASE = [
    text("Example Health Reports 2022 Fourth-Quarter Results"),
    text("OVERALL FINANCIAL RESULTS"),
    [(310, "Q4", "c"), (490, "Full Year", "c")],
    row("($ in Millions, except EPS)", "2022", "2021", "% Change", "2022", "2021", "% Change", cols=SIX),
    row("Reported Sales", "$23,706", "$24,804", "(4.4)%", "$94,943", "$93,775", "1.3%", cols=SIX),
    row("Net Earnings", "$3,520", "$4,736", "(25.7)%", "$17,941", "$20,878", "(14.1)%", cols=SIX),
]
TEN_Q = [
    text("Example Stores QUARTERLY REPORT ON FORM 10-Q"),
    text("For the quarterly period ended July 29, 2023"),
]
RESULTS = [
    text("Consolidated Results"),
    text("Selected consolidated financial data was as follows ($ in millions):"),
    [(335, "Three Months Ended", "c"), (485, "Six Months Ended", "c")],
    row("", "July 29, 2023", "July 30, 2022", "July 29, 2023", "July 30, 2022", cols=FOUR),
    row("Revenue", "$ 9,583", "$ 10,329", "$ 19,050", "$ 20,976", cols=FOUR),
    row("Revenue % change", "(7.2)%", "(12.8)%", "(9.2)%", "(10.7)%", cols=FOUR),
    row("Operating income", "$ 348", "$ 371", "$ 659", "$ 833", cols=FOUR),
]
QUARTER = (
    "Reported percentage change in total revenue (sales) for the fiscal quarter of the report versus the year-ago"
    " quarter, in percent"
)


def _percent(doc, description: str):
    return read(doc, description, type="percent", unit="%", scale=1.0)


def test_the_change_of_a_line_item() -> None:
    assert (
        change_base(QUARTER)
        == "total revenue (sales) for the fiscal quarter of the report versus the year-ago quarter, in percent"
    )
    assert change_base("Percentage change in net earnings for the year") == "net earnings for the year"
    assert (
        change_base("Organic percentage change in revenue") is None
    )  # another measure than the reported one
    assert change_base("Total revenue for the quarter") is None


def test_a_change_column_of_the_line_items_row(tmp_path: Path) -> None:
    """ "Reported Sales … (4.4)% … 1.3%": the quarter's change and the year's, each under its span."""
    doc = view(draw(tmp_path / "r.pdf", [RELEASE]), year=2022, doctype="earnings")
    quarter = _percent(doc, QUARTER)
    assert (quarter.value, quarter.confidence) == (-4.4, 0.9), quarter
    year = _percent(
        doc, "Percentage change in net earnings for the full fiscal year versus the prior year, in percent"
    )
    assert year.value == -14.1, year
    level = read(doc, "Total revenue (sales) for the fourth quarter")
    assert level.value == 23706, level  # the level's own column, never its change


def test_a_change_row_under_period_columns(tmp_path: Path) -> None:
    """ "Revenue % change" under "Three Months Ended | Six Months Ended": the quarter's column."""
    doc = view(draw(tmp_path / "q.pdf", [TEN_Q, RESULTS]), year=2024, doctype="10-Q")
    quarter = _percent(doc, QUARTER)
    assert (quarter.value, quarter.confidence) == (-7.2, 0.9), quarter
    half = _percent(doc, "Percentage change in total revenue for the six months year to date, in percent")
    assert half.value == -9.2, half


def test_no_change_printed_is_not_found(tmp_path: Path) -> None:
    """A table of levels only: the change is not found, and no level is read for it."""
    doc = view(draw(tmp_path / "q.pdf", [TEN_Q, RESULTS]), year=2024, doctype="10-Q")
    margin = _percent(
        doc, "Percentage change in operating income for the fiscal quarter versus the year-ago quarter"
    )
    assert margin.value is None, margin


def test_two_changes_of_one_span_are_not_told_apart(tmp_path: Path) -> None:
    """ "Total | Operational | Currency % Change": the reported change is one of three, and which one the
    field asks is not said by the column."""
    cols = (250.0, 310.0, 380.0, 460.0, 540.0)
    table = [
        text("Example Health Reports 2022 Fourth-Quarter Results"),
        text("SALES TO CUSTOMERS ($ in Millions)"),
        [(390, "Fourth Quarter", "c")],
        [(x, "% Change", "r") for x in cols[2:]],
        row("", "2022", "2021", "Total", "Operational", "Currency", cols=cols),
        row("Total sales", "$23,706", "$24,804", "(4.4)%", "1.5%", "(5.9)%", cols=cols),
    ]
    doc = view(draw(tmp_path / "r.pdf", [table]), year=2022, doctype="earnings")
    sales = _percent(doc, QUARTER)
    assert sales.confidence < REVIEW_BELOW, sales  # held for review


def test_a_hyphenated_quarter_heads_a_highlights_block(tmp_path: Path) -> None:
    """ "First-Quarter" over a release's highlights named no period (only "First Quarter" did): the column's
    period was unknown (0.81 here), or the headline's "Full-Year" made it a year's and the reading was held
    for review (a development filing, 0.45)."""
    assert (parse_period("First-Quarter").quarter, parse_period("2022 Fourth-Quarter").months) == (1, 3)
    highlights = [
        [(512, "Example Foods Reports First-Quarter 2023 Results; Raises Full-Year", "r")],
        [(300, "Guidance", "c")],
        [(250, "Reported (GAAP) First-Quarter 2023 Results", "c")],
        [(500, "First-Quarter", "r")],
        row("Net revenue growth", "10.2%", cols=(500.0,)),
        row("Earnings per share (EPS)", "$1.40", cols=(500.0,)),
        row("Organic revenue growth", "14.3%", cols=(500.0,)),
    ]
    doc = view(draw(tmp_path / "r.pdf", [highlights]), year=2023, doctype="earnings")
    growth = _percent(doc, QUARTER)
    assert (growth.value, growth.confidence) == (10.2, 0.9), growth
