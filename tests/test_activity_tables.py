"""A roll-forward of awards (an option activity table), on pages drawn here: the dated balance row names only
the item's state ("Outstanding at December 31, 2023"), the lead-in and the column headers name the item;
the count is the cell under the header naming it, beside an exercise price, a remaining term and an
intrinsic value whose own scale word ("(in millions)") is not the count's; the year header of the table above
a paragraph heads none of this table's columns."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from mdqa_kernel.readers.table.columns import page_rows
from mdqa_kernel.readers.table.naming import field_label_set, row_score
from mdqa_kernel.readers.table.reader import _lines_by_page
from mdqa_kernel.text.headers import column_headers
from tests.test_periods import row, text
from tests.test_statement_labels import annual, fld, read

ENDING = (
    "Stock options outstanding at the end of the fiscal year of the report (the option activity table), in"
    " millions of options"
)
OPENING = (
    "Stock options outstanding at the beginning of the fiscal year of the report (the option activity"
    " table), in millions of options"
)
COLS = (300.0, 380.0, 460.0, 540.0)


def _activity(
    lead_in: str = "A summary of our stock option activity for 2023 is as follows:",
    counted: tuple[str, str] = ("Stock", "Options"),
) -> list:
    return [
        text("NOTE 12. STOCK-BASED COMPENSATION"),
        row("", "2023", "2022", "2021", cols=COLS[1:]),
        row("Expected life", "7 years", "7 years", "6 years", cols=COLS[1:]),
        row("Expected volatility", "16 %", "14 %", "14 %", cols=COLS[1:]),
        text(
            "The expected life is the period over which our employee groups are expected to hold their options; it is"
        ),
        text("based on our historical experience with similar grants."),
        text(lead_in),
        row("", "", "Weighted-Average", "Remaining", "Aggregate", cols=COLS),
        row("", counted[0], "Exercise Price", "Term", "Intrinsic Value", cols=COLS),
        row("", counted[1], "per Share", "(in years)", "(in millions)", cols=COLS),
        row("Outstanding at December 31, 2022", "10,142,000", "$ 110.54", cols=COLS),
        row("Granted", "2,422,000", "$ 163.54", cols=COLS),
        row("Exercised", "(1,578,000)", "$ 87.33", cols=COLS),
        row("Forfeited/expired", "(482,000)", "$ 146.13", cols=COLS),
        row("Outstanding at December 31, 2023", "10,504,000", "$ 124.63", "6.08", "$ 588", cols=COLS),
        row("Exercisable at December 31, 2023", "4,892,000", "$ 101.02", "3.50", "$ 389", cols=COLS),
    ]


def test_the_dated_balance_row_of_an_activity_table_gives_the_count(tmp_path: Path) -> None:
    doc = annual(tmp_path / "options.pdf", _activity())
    ending = read(doc, ENDING, unit="shares")
    # the count in its column, not the price, and not scaled by the intrinsic value's "(in millions)"
    assert ending.status is Status.FOUND and ending.value == 10.504
    assert ending.confidence >= REVIEW_BELOW
    assert read(doc, OPENING, unit="shares").value == 10.142


def test_a_state_row_of_a_table_its_lead_in_does_not_name_is_not_read(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "units.pdf",
        _activity(
            "A summary of restricted stock unit activity for 2023 is as follows:", ("Number of", "Units")
        ),
    )
    found = read(doc, ENDING, unit="shares")
    assert found.value is None or found.confidence < REVIEW_BELOW


def test_a_year_header_above_a_paragraph_heads_another_table(tmp_path: Path) -> None:
    doc = annual(tmp_path / "headers.pdf", _activity())
    lines = _lines_by_page(doc)[2]
    index = next(
        i for i, line in enumerate(lines) if line.text.startswith("Outstanding at December 31, 2023")
    )
    _label, cells, _units = lines[index].split()
    assert column_headers(lines, index, cells) == ["", "", "", ""]
    # the header of the table above is still its own rows'
    index = next(i for i, line in enumerate(lines) if line.text.startswith("Expected volatility"))
    _label, cells, _units = lines[index].split()
    assert column_headers(lines, index, cells) == ["2023", "2022", "2021"]


def test_a_scale_word_heading_another_column_does_not_scale_the_count(tmp_path: Path) -> None:
    page = [
        text("NOTE 12. STOCK-BASED COMPENSATION"),
        row("", "Number of", "Exercise Price", "Intrinsic Value", cols=COLS[:3]),
        row("", "Options", "per Share", "(in millions)", cols=COLS[:3]),
        row("Stock options outstanding at December 31, 2022", "10,142,000", "$ 110.54", cols=COLS[:3]),
        row(
            "Stock options outstanding at December 31, 2023", "10,504,000", "$ 124.63", "$ 588", cols=COLS[:3]
        ),
    ]
    found = read(annual(tmp_path / "scale.pdf", page), ENDING, unit="shares")
    assert found.value == 10.504 and found.scale == 1.0


def test_a_caption_exempting_share_amounts_leaves_the_count_unscaled(tmp_path: Path) -> None:
    """ "(in thousands, except share and per share data)": the options counted are printed one by one,
    while the same caption's thousands still scale the dollar amounts on the page."""
    page = [
        text("NOTE 12. STOCK-BASED COMPENSATION"),
        text("(in thousands, except share and per share data)"),
        row("", "Number of", "Exercise Price", "Intrinsic", cols=COLS[:3]),
        row("", "Options", "per Share", "Value", cols=COLS[:3]),
        row(
            "Stock options outstanding at December 31, 2022", "10,142,000", "$ 110.54", "$ 512", cols=COLS[:3]
        ),
        row(
            "Stock options outstanding at December 31, 2023", "10,504,000", "$ 124.63", "$ 588", cols=COLS[:3]
        ),
    ]
    doc = annual(tmp_path / "exempt.pdf", page)
    found = read(doc, ENDING, unit="shares")
    assert found.value == 10.504 and found.scale == 1.0 and found.confidence >= REVIEW_BELOW, found
    # the caption without the exemption scales the count like any amount under it: the millions asked
    # are then a thousand times more, and a count of 10.5 billion options is not returned as found
    scaled = [page[0], text("(in thousands)"), *page[2:]]
    assert read(annual(tmp_path / "scaled.pdf", scaled), ENDING, unit="shares").value != 10.504
    # "except share price" exempts the price per share, not the count: the options are in millions
    price = [
        page[0],
        text("(In millions, except share price)"),
        *page[2:4],
        row("Stock options outstanding at December 31, 2022", "10.1", "$ 110.54", "$ 512", cols=COLS[:3]),
        row("Stock options outstanding at December 31, 2023", "10.5", "$ 124.63", "$ 588", cols=COLS[:3]),
    ]
    assert read(annual(tmp_path / "price.pdf", price), ENDING, unit="shares").value == 10.5


def test_the_block_heading_names_the_item_and_one_word_left_is_not_enough(tmp_path: Path) -> None:
    headed = [
        text("NOTE 12. STOCK-BASED COMPENSATION"),
        row("", "Number", "Exercise", cols=COLS[:2]),
        row("", "of Shares", "Price", cols=COLS[:2]),
        text("(In millions, except exercise price)"),
        text("Stock options:"),
        row("Outstanding at December 31, 2022", "36", "$ 4.78", cols=COLS[:2]),
        row("Granted", "8", "$ 2.12", cols=COLS[:2]),
        row("Exercised", "(12)", "$ 1.61", cols=COLS[:2]),
        row("Outstanding at December 31, 2023", "32", "$ 4.44", cols=COLS[:2]),
    ]
    doc = annual(tmp_path / "headed.pdf", headed)
    assert read(doc, ENDING, unit="shares").value == 32
    # "Common shares outstanding" leaves only "shares" to the table: "share awards" names it by chance
    awards = [
        text("NOTE 12. STOCK-BASED COMPENSATION"),
        text("A summary of the status of our nonvested market-based share awards is as follows:"),
        row("", "Shares", "Fair Value", cols=COLS[:2]),
        row("Outstanding at December 31, 2022", "1,462,000", "$ 32.33", cols=COLS[:2]),
        row("Outstanding at December 31, 2023", "1,552,000", "$ 32.99", cols=COLS[:2]),
    ]
    common = (
        "Common shares outstanding at the end of the fiscal year of the report (balance sheet), in millions of"
        " shares"
    )
    doc = annual(tmp_path / "awards.pdf", awards)
    field = fld(common, unit="shares")
    lines = _lines_by_page(doc)[2]
    balances = [r for r in page_rows(doc, 2, lines) if r.label.startswith("Outstanding at")]
    assert len(balances) == 2
    assert all(row_score(lines, r, field_label_set(field), field) == 0.0 for r in balances)


def test_a_price_column_naming_the_item_is_not_its_count(tmp_path: Path) -> None:
    page = [
        text("NOTE 12. STOCK-BASED COMPENSATION"),
        text("The following summarizes the stock option transactions under the plan discussed above:"),
        row("", "", "WEIGHTED AVERAGE", cols=COLS[:2]),
        row("", "SHARES(1)", "OPTION PRICE", cols=COLS[:2]),
        text("(In millions)"),
        row("Options outstanding as of December 31, 2022", "68.0", "$ 88.66", cols=COLS[:2]),
        row("Exercised", "(7.5)", "57.11", cols=COLS[:2]),
        row("Granted", "12.0", "107.44", cols=COLS[:2]),
        row("Options outstanding as of December 31, 2023", "71.0", "$ 94.40", cols=COLS[:2]),
    ]
    doc = annual(tmp_path / "price.pdf", page)
    ending = read(doc, ENDING, unit="shares")
    assert ending.status is Status.FOUND and ending.value == 71
    assert ending.confidence >= REVIEW_BELOW
