"""A deduction's sign from the statement's own arithmetic (readers/table/arithmetic.py): statements that
print every deduction in parentheses and add down the column give the expense as the figure negated;
statements that subtract give it as printed, so a parenthesised provision there is a benefit. Each
statement is drawn here and read through the real parser and the table reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers import Status
from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.semantics import asks_debit, names_credit, names_debit
from tests.test_periods import draw, read, row, text, view

TAX = "Income tax expense (provision for income taxes) for the fiscal year of the report, in USD millions"
TAX_PRIOR = TAX.replace("for the fiscal year of the report", "for the prior fiscal year")
COST = "Cost of revenue (cost of sales / cost of products sold) for the fiscal year of the report, in USD millions"
SGA = "Selling, general and administrative expenses for the fiscal year of the report, in USD millions"


def _statement(path: Path, tax_row: list, net_row: list) -> Path:
    """An income statement that prints its deductions in parentheses and adds down each column."""
    return draw(
        path,
        [
            [text("FORM 10-K  For the fiscal year ended December 31, 2023")],
            [
                text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
                text("(In millions)"),
                row("", "2023", "2022"),
                row("Net sales", "9,583", "10,329"),
                row("Cost of sales", "(7,363)", "(8,042)"),
                row("Gross profit", "2,220", "2,287"),
                row("Selling, general and administrative expenses", "(1,879)", "(1,882)"),
                row("Income before income taxes", "341", "405"),
                tax_row,
                text("Attributable to the noncontrolling interest, see Note 4."),
                net_row,
            ],
        ],
    )


def test_deductions_added_down_the_column_read_as_the_amount_spent(tmp_path: Path) -> None:
    """341 + (67) = 274: the provision is an expense of 67; the year before, 405 − 99 = 306 with 99
    printed plain, an expense of 99 as printed. Cost of sales and SG&A in parentheses are amounts."""
    pdf = _statement(
        tmp_path / "added.pdf",
        row("Provision for income taxes", "(67)", "99"),
        row("Net earnings", "274", "306"),
    )
    doc = view(pdf, year=2023, doctype="10-K")
    now, prior = read(doc, TAX), read(doc, TAX_PRIOR)
    assert (now.value, prior.value) == pytest.approx((67e6, 99e6))
    assert now.confidence >= CONFIDENT and prior.confidence >= CONFIDENT
    assert read(doc, COST).value == pytest.approx(7_363e6)
    assert read(doc, SGA).value == pytest.approx(1_879e6)


def test_a_subtracting_statement_keeps_a_benefit_negative(tmp_path: Path) -> None:
    """341 − (20) = 361: the statement subtracts, so the parenthesised provision is a benefit of 20,
    an expense of −20, not 20."""
    pdf = _statement(
        tmp_path / "benefit.pdf",
        row("Provision for income taxes", "(20)", "99"),
        row("Net earnings", "361", "306"),
    )
    got = read(view(pdf, year=2023, doctype="10-K"), TAX)
    assert got.value == pytest.approx(-20e6) and got.confidence >= CONFIDENT


def test_a_parenthesised_provision_the_sums_do_not_settle_is_held(tmp_path: Path) -> None:
    """The row below is no running total (a net figure after another item that is not drawn): the
    parenthesised 67 may be an expense or a benefit, so the reading is not given with confidence."""
    pdf = _statement(
        tmp_path / "unsure.pdf",
        row("Provision for income taxes", "(67)", "(99)"),
        row("Net earnings", "250", "290"),
    )
    got = read(view(pdf, year=2023, doctype="10-K"), TAX)
    assert got.status != Status.FOUND or got.confidence < CONFIDENT


def test_deduction_words() -> None:
    assert names_debit("Provision for income taxes") and names_debit("Cost of revenue")
    assert not names_debit("Income tax benefit") and not names_debit("Taxes on income")
    assert names_credit("Gain on sale of assets") and not names_credit("Income taxes")
    assert asks_debit(TAX) and asks_debit(SGA)
    assert not asks_debit("Capital expenditures, an outflow (negative) in the cash flow statement")
    assert not asks_debit("Net income for the fiscal year")
