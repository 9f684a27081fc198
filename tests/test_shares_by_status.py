"""Counts of shares by status, on statements drawn here. In a balance sheet equity line's own label: dated
counts ("1,221 shares outstanding at December 31, 2023"), counts listed after their status and placed by the
column in their place ("outstanding 7,432 and 7,464"), a caption that exempts share amounts, a list wrapped onto
the next line. In an equity statement: a closing balance under the common stock's "Shares" column, placed by
the row's date or the column's year; a roll-forward headed "Number of common shares outstanding". And what is
not the common shares' count: preferred, treasury or repurchased stock, one class of two, an undated count, a
list longer than the columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.table.share_counts import asked_count, stated_counts
from tests.test_periods import row, text
from tests.test_statement_labels import WIDE, annual, read

OUTSTANDING = (
    "Common shares outstanding at the end of the fiscal year of the report (balance sheet, its parenthetical "
    "or the equity statement; not the cover page), in millions of shares"
)
PRIOR = "Common shares outstanding at the end of the prior fiscal year (balance sheet), in millions of shares"
ISSUED = "Common shares issued at the end of the fiscal year of the report, in millions of shares"


SHARES = {"unit": "shares", "scale": 1e6}


def _balance_sheet(*lines: list, header: tuple[str, str] = ("2023", "2022"), caption: str = "") -> list:
    return [
        text("CONSOLIDATED BALANCE SHEETS"),
        text(caption or "(In millions, except per share amounts)"),
        row("", "December 31,", cols=WIDE[1:]),
        row("", *header, cols=WIDE),
        row("Total liabilities", "49,701", "51,683", cols=WIDE),
        text("Equity:"),
        *lines,
        row("Additional paid-in capital", "56,828", "58,723", cols=WIDE),
        row("Total equity", "51,623", "51,657", cols=WIDE),
    ]


def _read(tmp_path: Path, page: list, description: str = OUTSTANDING):
    return read(annual(tmp_path / "bs.pdf", page), description, **SHARES)


DATED = [
    text("Common stock, $0.01 par value (5,000 shares authorized; 1,224 shares issued and"),
    text("1,221 shares outstanding at December 31, 2023; 1,224 shares issued and"),
    row("1,220 shares outstanding at December 31, 2022)", "12", "12", cols=WIDE),
]


def test_a_dated_count_in_the_equity_line_label(tmp_path: Path) -> None:
    got = _read(tmp_path, _balance_sheet(*DATED))
    assert got.value == 1221 and got.confidence >= CONFIDENT, got


def test_the_prior_years_dated_count(tmp_path: Path) -> None:
    got = _read(tmp_path, _balance_sheet(*DATED), PRIOR)
    assert got.value == 1220 and got.confidence >= CONFIDENT, got


def test_issued_is_another_status(tmp_path: Path) -> None:
    got = _read(tmp_path, _balance_sheet(*DATED), ISSUED)
    assert got.value == 1224 and got.confidence >= CONFIDENT, got


LISTED = row(
    "Common stock and paid-in capital - shares authorized 24,000; outstanding 7,432 and 7,464",
    "93,718",
    "86,939",
    cols=WIDE,
)


def test_an_undated_list_is_placed_by_the_columns(tmp_path: Path) -> None:
    got = _read(tmp_path, _balance_sheet(LISTED))
    assert got.value == 7432 and got.confidence >= CONFIDENT, got


def test_an_undated_list_follows_the_column_order_not_the_position(tmp_path: Path) -> None:
    """Columns printed oldest first: the second count is the report's."""
    got = _read(tmp_path, _balance_sheet(LISTED, header=("2022", "2023")))
    assert got.value == 7464 and got.confidence >= CONFIDENT, got


def test_counts_listed_after_their_status_with_their_dates(tmp_path: Path) -> None:
    lines = [
        text("Common stock, par value $0.01; 1,500 shares authorized; shares issued: 806 shares on"),
        text("December 31, 2023 and 788 shares on December 31, 2022; shares outstanding: 776 shares on"),
        row("December 31, 2022 and 792 shares on December 31, 2023", "8", "8", cols=WIDE),
    ]
    got = _read(tmp_path, _balance_sheet(*lines))
    assert got.value == 792 and got.confidence >= CONFIDENT, got


def test_a_caption_exempting_share_amounts_leaves_the_count_as_printed(tmp_path: Path) -> None:
    lines = [
        text("Common stock, $0.10 par value: Authorized - 1.0 billion shares; Issued and outstanding -"),
        row("311,108,000 and 323,779,000 shares, respectively", "31", "32", cols=WIDE),
    ]
    caption = "($ in millions, except per share and share amounts)"
    got = _read(tmp_path, _balance_sheet(*lines, caption=caption))
    assert got.value == pytest.approx(311.108) and got.confidence >= CONFIDENT, got


def test_a_list_wrapped_with_its_second_count_read_as_a_cell(tmp_path: Path) -> None:
    lines = [
        row(
            "Common stock, $0.10 par value: Authorized - 1.0 billion shares; Issued and outstanding - 218.1 million and",
            "227.4",
            cols=WIDE[1:],
        ),
        row("million shares, respectively", "22", "23", cols=WIDE),
    ]
    got = _read(tmp_path, _balance_sheet(*lines))
    assert got.value == pytest.approx(218.1) and got.confidence >= CONFIDENT, got


@pytest.mark.parametrize(
    "lines",
    [
        # another class of stock
        [
            row(
                "Preferred stock, $1.00 par value (400 shares authorized; 10 shares outstanding at December 31, 2023)",
                "1",
                "1",
                cols=WIDE,
            )
        ],
        # one class of two: a part of the common shares
        [
            row(
                "Class B common stock (1,000 shares authorized; 120 shares outstanding at December 31, 2023)",
                "1",
                "1",
                cols=WIDE,
            )
        ],
        # an undated count on a row of two periods: which period is unsaid
        [row("Common stock, $0.01 par value (1,221 shares outstanding)", "12", "12", cols=WIDE)],
        # a list of three counts on a row of two columns
        [row("Common stock - outstanding 7,432, 7,464 and 7,500", "93,718", "86,939", cols=WIDE)],
    ],
    ids=["preferred", "one-class-of-two", "undated", "list-longer-than-columns"],
)
def test_what_is_not_the_common_shares_count(tmp_path: Path, lines: list) -> None:
    got = _read(tmp_path, _balance_sheet(*lines))
    assert got.value is None, got


def test_a_roll_forward_headed_number_of_common_shares_outstanding(tmp_path: Path) -> None:
    equity = [
        text("CONSOLIDATED STATEMENTS OF SHAREOWNERS' EQUITY"),
        row("Year Ended December 31,", "2023", "2022", cols=WIDE),
        text("(In millions except per share data)"),
        text("NUMBER OF COMMON SHARES OUTSTANDING"),
        row("Balance at beginning of year", "4,288", "4,324", cols=WIDE),
        row("Purchases of stock for treasury", "(82)", "(86)", cols=WIDE),
        row("Balance at end of year", "4,259", "4,288", cols=WIDE),
        text("COMMON STOCK"),
        row("Balance at end of year", "1,760", "1,760", cols=WIDE),
    ]
    got = read(annual(tmp_path / "eq.pdf", equity), OUTSTANDING, **SHARES)
    assert got.value == 4259 and got.confidence >= 0.5, got


@pytest.mark.parametrize(
    ("description", "asked"),
    [
        (OUTSTANDING, (True, "outstanding")),
        ("Number of shares outstanding at year end", (False, "outstanding")),
        ("Shares of common stock issued at the end of the year", (True, "issued")),
        ("Weighted-average number of diluted shares outstanding for the fiscal year", None),
        ("Repurchases of common stock for the fiscal year, in USD millions", None),
    ],
)
def test_which_fields_ask_a_count_by_status(description: str, asked: tuple[bool, str] | None) -> None:
    assert asked_count(description) == asked


def test_stated_counts_grammar() -> None:
    got = stated_counts(
        "Common stock (1,221 and 1,220 shares outstanding at June 30, 2023 and 2022)", "outstanding"
    )
    assert got == []  # two counts, one full date and a bare year: not paired, so nothing is read
    listed = stated_counts(
        "Issued and outstanding - 218.1 million and 227.4 million shares, respectively", "outstanding"
    )
    assert [(s.raw, s.scale_word) for s in listed[0]] == [("218.1", "million"), ("227.4", "million")]
    assert stated_counts("Treasury stock, at cost (14 shares on December 31, 2023)", "outstanding") == []


EQUITY_COLS = (300.0, 360.0, 440.0, 520.0)


def _equity_by_row(group: str = "Common Stock") -> list:
    """An equity statement whose rows are dated balances and whose columns are its components, the stock's
    count beside its amount under one group header."""
    return [
        text("CONSOLIDATED STATEMENTS OF SHAREHOLDERS' EQUITY"),
        [(315.0, group, "c"), (440.0, "Retained", "r"), (520.0, "Total", "r")],
        row("(Amounts in millions)", "Shares", "Amount", "Earnings", "Equity", cols=EQUITY_COLS),
        row("Balances as of December 31, 2022", "3,048", "$ 305", "$ 89,354", "$ 89,659", cols=EQUITY_COLS),
        row("Net income", "-", "-", "9,862", "9,862", cols=EQUITY_COLS),
        row("Purchase of Company stock", "(216)", "(21)", "(7,975)", "(7,996)", cols=EQUITY_COLS),
        row("Balances as of December 31, 2023", "2,832", "$ 284", "$ 91,241", "$ 91,525", cols=EQUITY_COLS),
    ]


def test_a_closing_balance_under_the_common_stock_shares_column(tmp_path: Path) -> None:
    got = read(annual(tmp_path / "eq.pdf", _equity_by_row()), OUTSTANDING, **SHARES)
    assert got.value == 2832 and got.found, got


def test_the_shares_column_of_treasury_stock_is_not_the_count_outstanding(tmp_path: Path) -> None:
    got = read(annual(tmp_path / "eq.pdf", _equity_by_row("Treasury Stock")), OUTSTANDING, **SHARES)
    assert got.value is None, got


PAIRS = (300.0, 340.0, 400.0, 440.0, 500.0, 540.0)


def _equity_by_year(*blocks: tuple[str, tuple[str, ...], tuple[str, ...]]) -> list:
    """An equity statement with a "Shares | Amount" pair under each of three years; each block is its heading,
    its opening row's and its closing row's six figures."""
    lines = [
        text("Consolidated Statement of Equity"),
        text("(in millions except per share amounts)"),
        [(305.0, "2023", "c"), (405.0, "2022", "c"), (505.0, "2021", "c")],
        row("", "Shares", "Amount", "Shares", "Amount", "Shares", "Amount", cols=PAIRS),
    ]
    for heading, opening, closing in blocks:
        lines += [
            text(heading),
            row("   Balance, beginning of year", *opening, cols=PAIRS),
            row("   Balance, end of year", *closing, cols=PAIRS),
        ]
    return lines


def test_a_block_balance_under_the_years_shares_column(tmp_path: Path) -> None:
    """The common stock's block and the repurchased stock's block each close with "Balance, end of year": the
    count is the common stock's, in the report's year."""
    equity = _equity_by_year(
        (
            "Common Stock",
            ("1,380", "$ 23", "1,391", "$ 23", "1,409", "$ 23"),
            ("1,383", "23", "1,380", "23", "1,391", "23"),
        ),
        (
            "Repurchased Common Stock",
            ("(487)", "(38,446)", "(476)", "(36,769)", "(458)", "(34,286)"),
            ("(484)", "(38,248)", "(487)", "(38,446)", "(476)", "(36,769)"),
        ),
    )
    got = read(annual(tmp_path / "eq.pdf", equity), OUTSTANDING, **SHARES)
    assert got.value == 1383 and got.found, got


def test_a_repurchased_stock_block_is_not_the_count_outstanding(tmp_path: Path) -> None:
    """Shares held after repurchase, printed as a positive count in their own block, are not outstanding."""
    equity = _equity_by_year(
        (
            "Repurchased Common Stock",
            ("487", "(38,446)", "476", "(36,769)", "458", "(34,286)"),
            ("484", "(38,248)", "487", "(38,446)", "476", "(36,769)"),
        )
    )
    got = read(annual(tmp_path / "eq.pdf", equity), OUTSTANDING, **SHARES)
    assert got.value is None, got
