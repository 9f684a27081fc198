"""A field that states its sign convention ("a net expense in parentheses is negative") reads a row named by
both signs ("Other income (expense), net") as printed; a note's row read for a field that names its
statement, where that statement is printed but none of its rows reads the field, is kept for review."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT
from tests.test_periods import row, text
from tests.test_statement_labels import MILLIONS, YEARS, annual, read

STATED = (
    "Other income (expense), net for the fiscal year, as reported in the consolidated income statement, "
    "in USD millions (a net expense in parentheses is negative)"
)


def _income(*rows: list) -> list:
    return [
        text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
        MILLIONS,
        YEARS,
        row("Net revenue", "25,000", "24,000"),
        row("Operating income", "3,100", "2,900"),
        row("Interest expense", "(160)", "(150)"),
        *rows,
        row("Income before income taxes", "2,509", "2,787"),
        row("Net income", "1,935", "2,085"),
    ]


def test_a_stated_sign_convention_reads_a_two_sided_row_as_printed(tmp_path: Path) -> None:
    """ "(431)" under "Other income (expense), net" is a net expense: -431 for a field that says a net
    expense in parentheses is negative. The same row for a field naming both sides and no convention
    stays for review: which side it asks is not known."""
    doc = annual(tmp_path / "is.pdf", _income(row("Other income (expense), net", "(431)", "37")))
    stated = read(doc, STATED)
    assert stated.value == -431 and stated.confidence >= CONFIDENT, stated
    unstated = read(doc, "Other income (expense), net for the fiscal year, in USD millions")
    assert unstated.confidence < CONFIDENT, unstated


def test_a_notes_row_is_kept_for_review_when_the_named_statement_lacks_the_line(tmp_path: Path) -> None:
    """The income statement prints no other income line under the field's names; a hedging note's
    "Other income (expense), net (3)" may be that table's own line, so it is not trusted alone. Where the
    statement prints the line, its row is the answer and is trusted."""
    note = [
        text("NOTE 12 - DERIVATIVE FINANCIAL INSTRUMENTS"),
        MILLIONS,
        YEARS,
        row("Cost of sales", "12", "(4)"),
        row("Other income (expense), net", "(3)", "2"),
    ]
    lacking = annual(tmp_path / "lacking.pdf", _income(row("Loss on debt redemption", "(34)", "(20)")), note)
    kept = read(lacking, STATED)
    assert kept.value == -3 and kept.confidence < CONFIDENT, kept
    printing = annual(
        tmp_path / "printing.pdf", _income(row("Other income (expense), net", "(431)", "37")), note
    )
    trusted = read(printing, STATED)
    assert trusted.value == -431 and trusted.confidence >= CONFIDENT, trusted


def test_the_expense_side_names_an_income_and_expense_line(tmp_path: Path) -> None:
    """ "Other income (expense), net" is printed "Other expense, net" by a filer whose net is an expense:
    "(5)" there is -5 under the field's stated convention. A positive figure on the expense's name may be
    the size of the expense, so it is not trusted; a field about an expense itself is not affected."""
    expense = annual(tmp_path / "exp.pdf", _income(row("Other expense, net", "(5)", "(66)")))
    read_5 = read(expense, STATED)
    assert read_5.value == -5 and read_5.confidence >= CONFIDENT, read_5
    unsigned = annual(tmp_path / "uns.pdf", _income(row("Other expense, net", "5", "66")))
    assert read(unsigned, STATED).confidence < CONFIDENT
    interest = read(unsigned, "Interest expense for the fiscal year, in USD millions")
    assert interest.value == 160 and interest.confidence >= CONFIDENT, interest
