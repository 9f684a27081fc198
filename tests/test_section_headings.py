"""A section heading printed under a row is no part of that row's name, on statements drawn here: a bank's
balance sheet prints "Total liabilities", then the heading "Stockholders' equity" over the equity lines.
A wrapped tail (lower case, or after an open end such as "attributable to") still joins its row. A
non-operating item is not read from under a "Revenue" heading, nor from rows a revenue total closes."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.table.reader import _lines_by_page
from mdqa_kernel.text.rows import table_rows
from tests.test_statement_labels import annual, millions_page, read

BALANCE = millions_page(
    "CONSOLIDATED BALANCE SHEETS",
    ("December 31, 2023", "December 31, 2022"),
    ("Loans, net of allowance for loan losses", "531,098", "513,493"),
    ("Total assets", "$ 1,463,500", "$ 1,440,237"),
    ("Liabilities",),
    ("Deposits", "$ 1,012,430", "$ 1,003,118"),
    ("Long-term debt", "121,304", "118,742"),
    ("Total liabilities", "1,332,711", "1,312,253"),
    ("Stockholders' equity",),
    ("Common stock", "1,810", "1,810"),
    ("Retained earnings", "140,216", "128,508"),
    ("Total stockholders' equity", "130,789", "127,984"),
    ("Total liabilities and stockholders' equity", "$ 1,463,500", "$ 1,440,237"),
)


def _rows(path: Path, page: list) -> dict[str, list[str]]:
    """Each row's own label → its label variants (its name with the fragments wrapped onto it)."""
    lines = _lines_by_page(annual(path, page))
    return {r.label: r.variants for pl in lines.values() for r in table_rows(pl)}


def test_a_heading_under_a_total_row_is_not_its_name(tmp_path: Path) -> None:
    variants = _rows(tmp_path / "b.pdf", BALANCE)
    assert variants["Total liabilities"] == ["Total liabilities"]
    assert variants["Total assets"] == ["Total assets"]


def test_total_equity_is_read_from_its_own_row_under_the_heading(tmp_path: Path) -> None:
    doc = annual(tmp_path / "b.pdf", BALANCE)
    res = read(doc, "Total shareholders' equity at the end of the fiscal year of the report, in USD millions")
    assert (res.status, res.value) == ("found", 130789)
    assert res.confidence >= CONFIDENT


def test_a_wrapped_tail_still_joins_its_row(tmp_path: Path) -> None:
    page = millions_page(
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("2023", "2022"),
        ("Net income attributable to", "$ 824", "$ 730"),
        ("Acme Inc.",),
        ("Accounts receivable, net", "312", "290"),
        ("of allowance for credit losses",),
    )
    variants = _rows(tmp_path / "w.pdf", page)
    assert "Net income attributable to Acme Inc." in variants["Net income attributable to"]
    assert "Accounts receivable, net of allowance for credit losses" in variants["Accounts receivable, net"]


def test_a_capitalised_tail_hanging_under_its_row_still_joins_it(tmp_path: Path) -> None:
    page = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("2023", "2022"),
        ("Receivables from customers", "312", "290"),
        ("Inventories", "90", "82"),
    )
    page.insert(4, [(84.0, "Under long-term contracts", "l")])  # indented under the row it continues
    variants = _rows(tmp_path / "t.pdf", page)
    assert "Receivables from customersUnder long-term contracts" in variants["Receivables from customers"]


def test_a_title_case_label_keeps_its_flush_tail(tmp_path: Path) -> None:
    """In title case every line starts capitalised: case cannot tell a heading from a wrapped tail."""
    page = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("2023", "2022"),
        ("Total Liabilities And Shareholders'", "$ 27,632", "$ 25,751"),
        ("Equity",),
    )
    variants = _rows(tmp_path / "t.pdf", page)
    assert "Total Liabilities And Shareholders'Equity" in variants["Total Liabilities And Shareholders'"]


def test_a_non_operating_item_is_not_read_from_the_revenue_block(tmp_path: Path) -> None:
    page = millions_page(
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("2023", "2022"),
        ("Revenue",),
        ("Asset management fees", "7,845", "7,412"),
        ("Other income", "1,954", "1,722"),
        ("Total net revenue", "9,799", "9,134"),
        ("Income before income tax expense", "2,321", "1,531"),
    )
    for i in (4, 5):  # the revenue lines indented under their heading
        page[i] = [(84.0, page[i][0][1], "l"), *page[i][1:]]
    doc = annual(tmp_path / "r.pdf", page)
    other = (
        "Other income (expense), net (non-operating) for the fiscal year of the report (income statement), "
        "in USD millions (an expense in parentheses is negative)"
    )
    assert read(doc, other).status == "not_found"
    assert (read(doc, "Other income for the fiscal year of the report, in USD millions").value) == 1954


OTHER_NON_OPERATING = (
    "Other income (expense), net (non-operating) for the fiscal year of the report (income statement), "
    "in USD millions (an expense in parentheses is negative)"
)


def test_a_non_operating_item_is_not_read_from_rows_the_revenue_total_closes(tmp_path: Path) -> None:
    """Flush with their heading, the revenue lines are told by the total that closes them."""
    page = millions_page(
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("2023", "2022"),
        ("Asset management fees", "7,845", "7,412"),
        ("Other income", "1,954", "1,722"),
        ("Noninterest revenue", "9,799", "9,134"),
        ("Net interest income", "3,210", "2,980"),
        ("Total net revenue", "13,009", "12,114"),
        ("Income before income tax expense", "2,321", "1,531"),
    )
    doc = annual(tmp_path / "f.pdf", page)
    assert read(doc, OTHER_NON_OPERATING).status == "not_found"
    assert (read(doc, "Other income for the fiscal year of the report, in USD millions").value) == 1954


def test_other_income_below_operating_income_is_still_read(tmp_path: Path) -> None:
    page = millions_page(
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("2023", "2022"),
        ("Net sales", "25,000", "24,000"),
        ("Cost of sales", "15,000", "14,500"),
        ("Operating income", "3,100", "2,900"),
        ("Other income (expense), net", "(5)", "12"),
        ("Income before income taxes", "3,095", "2,912"),
        ("Net sales by segment",),  # another table: its total closes none of the statement's rows
        ("Americas", "15,000", "14,100"),
        ("Total net sales", "25,000", "24,000"),
    )
    res = read(annual(tmp_path / "o.pdf", page), OTHER_NON_OPERATING)
    assert (res.status, res.value) == ("found", -5)
