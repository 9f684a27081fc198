"""What is left of a share repurchase authorization, read from an issuer purchases table drawn here: one row per
month of the last quarter under a header whose last column is "Approximate Dollar Value of Shares that May Yet
Be Purchased Under the Plans or Programs (in millions)"; the last row printing that column is the period's
end (a "Total" row when it prints one, else the last month). Decoys: a page footer below the table, a last
column counting shares, and a field asking the prior year. A table printed to the dollar ("$ 7,083,000,000")
without a caption, in a filing whose other tables are in millions, is in units: no scale fits such a figure."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from tests.test_periods import row, text
from tests.test_statement_labels import annual, millions_page, read

REMAINING = (
    "Amount remaining available under the share repurchase authorization at the end of the period of the report,"
    " in USD millions"
)
COLS = (250.0, 330.0, 410.0, 560.0)


def _purchases(last_header: tuple[str, ...], total: tuple[str, ...]) -> list:
    """Item 5's table: the header's words stacked by column, three months, a total row, the page's footer."""
    return [
        text("ITEM 5. MARKET FOR REGISTRANT'S COMMON EQUITY AND ISSUER PURCHASES OF EQUITY SECURITIES"),
        text("Following are our monthly share repurchases for the fourth quarter of fiscal year 2023:"),
        row("", "", "", "Total Number of", last_header[0], cols=COLS),
        row("", "", "", "Shares Purchased as", last_header[1], cols=COLS),
        row("", "Total Number", "Average", "Part of Publicly", last_header[2], cols=COLS),
        row("", "of Shares", "Price Paid", "Announced Plans", last_header[3], cols=COLS),
        row("Period", "Purchased", "per Share", "or Programs", last_header[4], cols=COLS),
        row(
            "October 1, 2023 – October 31, 2023", "23,687,526", "$ 53.72", "23,687,526", "$ 9,410", cols=COLS
        ),
        row("November 1, 2023 – November 30, 2023", "11,691,472", "50.51", "11,691,472", "8,820", cols=COLS),
        row("December 1, 2023 – December 31, 2023", "34,576,695", "50.23", "34,576,695", "7,083", cols=COLS),
        row(*total, cols=COLS[: len(total) - 1]),
        text("All repurchases were made using cash resources under the program announced in 2021."),
        row("2023 FORM 10-K", "25", cols=(590.0,)),
    ]


DOLLARS = (
    "Approximate Dollar Value",
    "of Shares that May Yet",
    "be Purchased under the",
    "Plans or Programs",
    "(in millions)",
)


def test_the_last_row_of_the_column_of_what_may_yet_be_purchased(tmp_path: Path) -> None:
    # the total row prints the counts only: the last month's figure is the period's end
    doc = annual(tmp_path / "months.pdf", _purchases(DOLLARS, ("", "69,955,693", "", "69,955,693")))
    got = read(doc, REMAINING)
    assert got.value == 7083 and got.confidence >= CONFIDENT, got
    assert got.evidence is not None and "December 1, 2023" in got.evidence.snippet
    # a total row printing the column is the period's end
    total = ("Total", "69,955,693", "$ 51.02", "69,955,693", "$ 7,083")
    assert read(annual(tmp_path / "total.pdf", _purchases(DOLLARS, total)), REMAINING).value == 7083


def test_a_column_counting_shares_or_another_year_is_not_the_amount_left(tmp_path: Path) -> None:
    shares = ("Maximum Number", "of Shares that May Yet", "be Purchased under the", "Plans or Programs", "")
    doc = annual(tmp_path / "shares.pdf", _purchases(shares, ("", "69,955,693", "", "69,955,693")))
    got = read(doc, REMAINING)
    assert got.value is None or got.confidence < REVIEW_BELOW, got
    dollars = annual(tmp_path / "dollars.pdf", _purchases(DOLLARS, ("", "69,955,693", "", "69,955,693")))
    prior = read(
        dollars, REMAINING.replace("the end of the period of the report", "the end of the prior fiscal year")
    )
    assert prior.value != 7083, prior


def test_an_amount_printed_to_the_dollar_is_in_units_among_tables_in_millions(tmp_path: Path) -> None:
    dollars = (*DOLLARS[:4], "")
    page = _purchases(dollars, ("", "69,955,693", "", "69,955,693"))
    # the three months' last cells printed to the dollar: "$ 9,410" → "$ 9,410,000,000"
    page[-6:-3] = [[*r[:-1], (r[-1][0], f"$ {r[-1][1].strip('$ ')},000,000", r[-1][2])] for r in page[-6:-3]]
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEETS", ("2023", "2022"), ("Total assets", "45,120", "43,810")
    )
    doc = annual(tmp_path / "units.pdf", page, balance)
    got = read(doc, REMAINING)
    assert got.value == 7083 and got.confidence >= CONFIDENT, got


def test_a_sentence_stating_what_remains_of_the_authorization(tmp_path: Path) -> None:
    """ "As of December 31, 2023, authorization for $5.7 billion of share repurchases remained." Decoys: the same
    sentence dated a year earlier, and one stating the authorized total beside what is left."""
    lead = text("ITEM 5. MARKET FOR REGISTRANT'S COMMON EQUITY AND ISSUER PURCHASES OF EQUITY SECURITIES")
    said = "As of December 31, {year}, authorization for ${left} billion of share repurchases remained."
    doc = annual(tmp_path / "said.pdf", [lead, text(said.format(year=2023, left="5.7"))])
    got = read(doc, REMAINING)
    assert got.value == 5700 and got.confidence >= REVIEW_BELOW, got
    prior = annual(tmp_path / "prior.pdf", [lead, text(said.format(year=2022, left="4.1"))])
    held = read(prior, REMAINING)
    assert held.value is None or held.confidence < REVIEW_BELOW, held
    both = "In 2023 the Board authorized a $20 billion program, of which $5.7 billion remained available."
    total = read(annual(tmp_path / "both.pdf", [lead, text(both)]), REMAINING)
    assert total.value is None or total.confidence < REVIEW_BELOW, total
