"""Expense lines under their other printed names, on statements drawn here: an income statement's
"Restructuring" line (with a note reference) is the restructuring charges, a restructuring reserve is not;
"Share-based plans expense" and "Equity award compensation expense" are the stock-based compensation expense,
an excess tax benefit from share-based plans is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from tests.test_statement_labels import annual, millions_page, read

RESTRUCTURING = (
    "Restructuring charges (restructuring and related costs) recognised in the fiscal year of the report, "
    "in USD millions"
)
SBC_PRIOR = (
    "Stock-based compensation expense in the cash flow statement for the prior fiscal year, in USD millions"
)


def test_an_income_statements_restructuring_line(tmp_path: Path) -> None:
    income = millions_page(
        "CONSOLIDATED STATEMENTS OF EARNINGS",
        ("2023", "2022"),
        ("Sales to customers", "9,400", "9,100"),
        ("Cost of products sold", "3,100", "3,000"),
        ("Restructuring (Note 20)", "321", "252"),
        ("Earnings before provision for taxes on income", "2,100", "1,900"),
    )
    doc = annual(tmp_path / "r.pdf", income)
    res = read(doc, RESTRUCTURING)
    assert res.value == 321 and res.confidence >= CONFIDENT, res


def test_a_restructuring_reserve_is_not_the_charge(tmp_path: Path) -> None:
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Accounts payable", "1,200", "1,100"),
        ("Restructuring reserve", "87", "64"),
        ("Total current liabilities", "3,400", "3,200"),
    )
    assert read(annual(tmp_path / "b.pdf", balance), RESTRUCTURING).confidence < CONFIDENT


@pytest.mark.parametrize("label", ["Share-based plans expense", "Equity award compensation expense"])
def test_equity_award_expense_is_stock_based_compensation(tmp_path: Path, label: str) -> None:
    cash = millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022", "2021"),
        ("Net earnings", "1,900", "1,700", "1,500"),
        ("Depreciation and amortization", "400", "380", "360"),
        ("Excess tax benefits from share-based plans", "(12)", "(9)", "(7)"),
        (label, "46", "33", "46"),
        ("Net cash provided by operating activities", "2,400", "2,100", "1,900"),
        cols=(390.0, 480.0, 570.0),
    )
    res = read(annual(tmp_path / "c.pdf", cash), SBC_PRIOR)
    assert res.value == 33 and res.confidence >= CONFIDENT, res
