"""A number a line reader finds has a period too, on statements drawn here: a line shaped like a table
row is read in its asked period's column, a sentence's number is the period its clause names, and a
deferred-tax table's rows (named after the line items they arise from) are no line item's amount."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.table.reader import TableReader
from mdqa_kernel.text.layout import lines_by_page
from mdqa_kernel.text.row_context import closing_total, deferred_tax_block
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import COVER, fld

DATES = row("", "December 31, 2023", "December 31, 2022")
PRIOR = "Inventories at the end of the prior fiscal year (the balance sheet's comparative column), in USD millions"
CURRENT = "Inventories at the end of the fiscal year, in USD millions"


def read(doc, description: str):
    return TableReader().read(doc, fld(description), "")


def _balance_sheet(path: Path, label: str) -> Path:
    sheet = [
        text("CONSOLIDATED BALANCE SHEETS"),
        text("($ in millions)"),
        DATES,
        row("Cash and cash equivalents", "1,874", "2,936"),
        row(label, "5,140", "5,965"),
        row("Total current assets", "8,844", "10,050"),
    ]
    return draw(path, [COVER, sheet])


def test_a_row_shaped_line_is_read_in_the_asked_column(tmp_path: Path) -> None:
    """ "Merchandise inventories 5,140 5,965" names more than the field's head, so it is no table
    reading for "Inventories"; the line reader found it instead and took its first number, the current
    year's, for the prior year's balance. It now reads the column the headers date to the asked year."""
    doc = view(_balance_sheet(tmp_path / "bs.pdf", "Merchandise inventories"), year=2023, doctype="10-K")
    prior = read(doc, PRIOR)
    assert prior.value == 5965, prior
    current = read(doc, CURRENT)
    assert current.value == 5140, current


def test_a_sentence_names_its_own_period(tmp_path: Path) -> None:
    """ "$5.1 billion as of December 31, 2023" is the current balance: never the prior year's; and a
    sentence naming no period is the report's own, so for the prior year it is no sure reading."""
    mdna = [
        text("MANAGEMENT'S DISCUSSION AND ANALYSIS"),
        text("Our inventories were $5.1 billion as of December 31, 2023. We value inventory at the lower"),
        text("of cost or net realizable value."),
    ]
    doc = view(draw(tmp_path / "md.pdf", [COVER, mdna]), year=2023, doctype="10-K")
    assert read(doc, PRIOR).value is None
    assert read(doc, CURRENT).value == 5100
    undated = [text("MANAGEMENT'S DISCUSSION AND ANALYSIS"), text("Our inventories were $5.1 billion.")]
    doc = view(draw(tmp_path / "md2.pdf", [COVER, undated]), year=2023, doctype="10-K")
    prior = read(doc, PRIOR)
    assert prior.value is None or prior.confidence < CONFIDENT, prior


def test_a_deferred_tax_row_is_no_line_item(tmp_path: Path) -> None:
    """A deferred-tax note lists "Inventory (37) (24)" under its liabilities: the tax effect of a
    temporary difference, read for the company's inventories at 0.855 before."""
    note = [
        text("The tax effects of temporary differences that give rise to deferred tax assets and"),
        text("liabilities were comprised of the following ($ in millions):"),
        DATES,
        row("Deferred revenue", "$ 67", "$ 76"),
        row("Total deferred tax assets", "1,117", "1,204"),
        row("Inventory", "(37)", "(24)"),
        row("Property and equipment", "(169)", "(270)"),
        row("Total deferred tax liabilities", "(1,014)", "(1,073)"),
    ]
    path = draw(tmp_path / "tax.pdf", [COVER, note])
    doc = view(path, year=2023, doctype="10-K")
    assert read(doc, CURRENT).value is None
    assert read(doc, PRIOR).value is None
    lines = lines_by_page(doc.words.filter(page=2))[2]
    inventory = next(i for i, line in enumerate(lines) if line.text.startswith("Inventory"))
    assert closing_total(lines, inventory) == "Total deferred tax liabilities"
    assert deferred_tax_block(lines, inventory, CURRENT)
    assert not deferred_tax_block(lines, inventory, "Deferred tax liabilities for inventory, in USD millions")
