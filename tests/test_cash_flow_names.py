"""Cash-flow lines under their printed names, on statements drawn here: the effect of exchange rates on cash
("… on cash", "… on cash and cash equivalents", "… on cash, cash equivalents and restricted cash") and the
cash paid for businesses bought ("Acquisitions, net of cash acquired", "Business combinations, …"); a
statement named in a description's parentheses ("(cash-flow statement)") places the line and names nothing;
a sign convention ("(a decrease is negative)") asks no change."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.text.periods import ReportPeriod, wanted_period
from mdqa_kernel.text.statement_context import description_heads, words
from mdqa_kernel.text.statement_titles import statement_title
from tests.test_periods import row, text
from tests.test_statement_labels import annual, millions_page, read

FX = (
    "Effect of exchange rate changes on cash and cash equivalents (cash-flow statement) for the fiscal year of "
    "the report, in USD millions (a decrease is negative)"
)
ACQUIRED = (
    "Acquisitions of businesses, net of cash acquired (cash-flow statement, investing activities) for the "
    "fiscal year of the report, in USD millions (an outflow is negative)"
)


def _cash_flows(*rows: tuple[str, ...]) -> list:
    return millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022"),
        ("Net cash from operations", "33,325", "29,668"),
        ("Purchases of property and equipment", "(8,343)", "(5,944)"),
        *rows,
        ("Net cash used in investing", "(23,950)", "(23,001)"),
        ("Net change in cash and cash equivalents", "915", "(3,074)"),
    )


FX_NAMES = [
    "Effect of exchange rate changes on cash",
    "Effect of foreign exchange rates on cash and cash equivalents",
    "Effect of exchange rates on cash, cash equivalents and restricted cash",
    "Effect of foreign exchange rate on cash and cash equivalents",
    "Foreign currency effect on cash and cash equivalents",
]
ACQUIRED_NAMES = [
    "Acquisitions, net of cash acquired",
    "Business combinations, net of cash acquired",
    "Payments to acquire business, net of cash acquired",
    "Acquisition of businesses, net of cash acquired",
    "Business acquisitions, net of cash acquired",
]


@pytest.mark.parametrize(
    ("description", "label"),
    [(FX, name) for name in FX_NAMES] + [(ACQUIRED, name) for name in ACQUIRED_NAMES],
)
def test_a_cash_flow_line_under_its_printed_names(tmp_path: Path, description: str, label: str) -> None:
    doc = annual(tmp_path / "cf.pdf", _cash_flows((label, "(1,393)", "(3,723)")))
    got = read(doc, description)
    assert got.value == -1393 and got.confidence >= CONFIDENT, got


def test_an_exchange_rate_effect_on_another_balance_is_not_the_cash_line(tmp_path: Path) -> None:
    """A goodwill roll-forward's "Effect of exchange rate changes" moves goodwill, not cash."""
    rollforward = millions_page(
        "GOODWILL",
        ("2023", "2022"),
        ("Balance, beginning of year", "49,711", "44,519"),
        ("Effect of exchange rate changes", "(142)", "(73)"),
        ("Balance, end of year", "49,569", "49,711"),
    )
    got = read(annual(tmp_path / "gw.pdf", rollforward), FX)
    assert got.value is None or got.confidence < CONFIDENT, got


def test_a_statement_named_in_parentheses_names_no_line(tmp_path: Path) -> None:
    """An index line "Cash Flow Statements 55" is no reading of a field placed "(cash-flow statement)"."""
    index = [
        text("INDEX TO FINANCIAL STATEMENTS"),
        text("Income Statements 52"),
        text("Cash Flow Statements 55"),
    ]
    assert statement_title("cash-flow statement, investing activities") == "cash_flow"
    # an MD&A heading is no balance sheet's title
    assert statement_title("Off-Balance-Sheet Arrangements") is None
    assert description_heads(FX) == ["Effect of exchange rate changes on cash and cash equivalents"]
    got = read(annual(tmp_path / "index.pdf", index), FX)
    assert got.value is None, got
    doc = annual(
        tmp_path / "both.pdf", index, _cash_flows(("Effect of exchange rates on cash", "(67)", "(73)"))
    )
    got = read(doc, FX)
    assert got.value == -67 and got.evidence is not None and got.evidence.page == 3, got


def test_acquisitions_combined_with_other_purchases_are_not_the_businesses_alone(tmp_path: Path) -> None:
    label = "Acquisition of companies, net of cash acquired, and purchases of intangible and other assets"
    got = read(annual(tmp_path / "cf.pdf", _cash_flows((label, "(1,393)", "(3,723)"))), ACQUIRED)
    assert got.value is None or got.confidence < CONFIDENT, got


def test_a_plural_in_sses_is_its_singular() -> None:
    assert sorted(words("Acquisition of businesses")) == sorted(words("Business acquisition"))
    assert words("Net losses") == ["net", "loss"]
    assert words("Classes of stock") == ["class", "stock"]


@pytest.mark.parametrize(
    ("description", "change"),
    [
        (FX, False),
        ("Retained earnings (an accumulated deficit is negative) at the end of the fiscal year", False),
        ("Percentage change in total revenue for the fiscal year (a decrease is negative)", True),
        ("Revenue growth for the fiscal year of the report", True),
        ("Net sales (percentage change; a decrease is negative) for the fiscal year", True),
    ],
)
def test_a_sign_convention_asks_no_change(description: str, change: bool) -> None:
    report = ReportPeriod(year=2023, end=None, quarterly=False, quarter=None, year_named=1.0)
    assert wanted_period(description, report).change is change


CAPEX = (
    "Capital expenditures (purchases of property, plant and equipment) for the fiscal year of the report, "
    "in USD millions (an outflow is negative)"
)


def test_a_series_inside_an_alternative_name_keeps_the_name(tmp_path: Path) -> None:
    """ "(purchases of property, plant and equipment)" is one alternative name: the series "property,
    plant and equipment" counts as one word, so the name is not dropped as too long, and the row printed
    "Additions to property and equipment" reads as the capital expenditures."""
    assert "purchases of property, plant and equipment" in description_heads(CAPEX)
    # a six-word parenthesis without a series is still no name
    assert not any("it is" in h for h in description_heads("Revenue (what it is paid for the goods) in 2023"))
    doc = annual(
        tmp_path / "capex.pdf",
        millions_page(
            "CONSOLIDATED STATEMENTS OF CASH FLOWS",
            ("2023", "2022"),
            ("Net cash from operations", "33,325", "29,668"),
            ("Additions to property and equipment", "(8,343)", "(5,944)"),
            ("Purchases of investments", "(129,758)", "(98,729)"),
            ("Net cash used in investing", "(23,950)", "(23,001)"),
        ),
    )
    got = read(doc, CAPEX)
    assert got.value == -8343 and got.confidence >= CONFIDENT, got


NET_CHANGE = (
    "Net increase (decrease) in cash and cash equivalents for the fiscal year of the report, as printed in the "
    "cash flow statement, in USD millions (a decrease in parentheses is negative)"
)


def test_a_change_named_only_by_its_heading_under_years_printed_beside_the_header_s_words(
    tmp_path: Path,
) -> None:
    """ "Year Ended December 31," and the years on one line: each year heads its column (a year after a column
    gap is no part of the date in the label); "Net increase (decrease) during the year" flush with the line
    "CASH AND CASH EQUIVALENTS" is the net change in cash ("during the year" is the column's period)."""
    cols = (430.0, 490.0, 550.0)
    page = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        [
            (72, "Year Ended December 31,", "l"),
            *((x, y, "r") for x, y in zip(cols, ("2023", "2022", "2021"), strict=True)),
        ],
        text("(In millions)"),
        row("Net cash provided by operating activities", "7,638", "12,625", "10,528", cols=cols),
        row("Net cash used in investing activities", "(3,540)", "(2,990)", "(2,000)", cols=cols),
        text("CASH AND CASH EQUIVALENTS"),
        row("Net increase (decrease) during the year", "(2,549)", "1,246", "(1,649)", cols=cols),
        row("Balance at beginning of year", "8,555", "7,309", "8,958", cols=cols),
        row("Balance at end of year", "6,006", "8,555", "7,309", cols=cols),
    ]
    doc = annual(tmp_path / "cf.pdf", page)
    change = read(doc, NET_CHANGE)
    assert change.value == pytest.approx(-2_549) and change.confidence >= CONFIDENT
    prior = read(doc, NET_CHANGE.replace("the fiscal year of the report", "the prior fiscal year"))
    assert prior.value == pytest.approx(1_246)
