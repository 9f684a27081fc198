"""A balance-sheet row named without its section word ("Prepaid expenses and other assets") is read as the
current line when "Total current assets" closes its block, on statements drawn here; the same words below
that total, or in a block no current total closes, are not."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT
from tests.test_statement_labels import annual, millions_page, read

ASKED = (
    "Prepaid expenses and other current assets (the balance sheet's other current assets line) at the end "
    "of the fiscal year of the report, in USD millions"
)
LIABILITY = "Accrued expenses and other current liabilities at the end of the fiscal year of the report, in USD millions"


def _balance(*rows: tuple[str, ...]) -> list:
    return millions_page("CONSOLIDATED BALANCE SHEETS", ("December 31, 2023", "December 31, 2022"), *rows)


CURRENT_BLOCK = _balance(
    ("CURRENT ASSETS",),
    ("Cash and cash equivalents", "$ 6,006", "$ 8,555"),
    ("Inventories", "2,655", "2,675"),
    ("Prepaid expenses and other assets", "2,000", "2,481"),
    ("Assets held for sale", "219", "2,797"),
    ("TOTAL CURRENT ASSETS", "10,880", "16,508"),
    ("OTHER ASSETS", "4,560", "4,248"),
    ("TOTAL ASSETS", "$ 15,440", "$ 20,756"),
    ("CURRENT LIABILITIES",),
    ("Accounts payable", "$ 3,100", "$ 2,900"),
    ("Accrued expenses and other liabilities", "1,210", "1,180"),
    ("TOTAL CURRENT LIABILITIES", "4,310", "4,080"),
    ("Other liabilities", "812", "790"),
    ("TOTAL LIABILITIES", "5,122", "4,870"),
)


def test_a_row_in_the_current_block_is_the_current_line(tmp_path: Path) -> None:
    doc = annual(tmp_path / "b.pdf", CURRENT_BLOCK)
    res = read(doc, ASKED)
    assert (res.status, res.value) == ("found", 2000)
    assert res.confidence >= CONFIDENT
    res = read(doc, LIABILITY)
    assert (res.status, res.value) == ("found", 1210)


def test_the_same_words_below_the_current_total_are_not(tmp_path: Path) -> None:
    page = _balance(
        ("CURRENT ASSETS",),
        ("Cash and cash equivalents", "$ 6,006", "$ 8,555"),
        ("Inventories", "2,655", "2,675"),
        ("TOTAL CURRENT ASSETS", "8,661", "11,230"),
        ("Prepaid expenses and other assets", "2,000", "2,481"),
        ("TOTAL ASSETS", "$ 10,661", "$ 13,711"),
    )
    res = read(annual(tmp_path / "n.pdf", page), ASKED)
    assert res.value != 2000 or res.confidence < CONFIDENT


def test_a_block_without_a_current_total_is_not(tmp_path: Path) -> None:
    page = _balance(
        ("Cash and cash equivalents", "$ 6,006", "$ 8,555"),
        ("Prepaid expenses and other assets", "2,000", "2,481"),
        ("Property and equipment, net", "8,203", "10,635"),
        ("TOTAL ASSETS", "$ 16,209", "$ 21,671"),
    )
    res = read(annual(tmp_path / "t.pdf", page), ASKED)
    assert res.value != 2000 or res.confidence < CONFIDENT
