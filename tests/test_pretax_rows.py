"""Pre-tax income under the names income statements give it, on statements drawn here: "Earnings from
continuing operations before income tax expense" and "INCOME FROM CONTINUING OPERATIONS BEFORE INCOME
TAXES" are the "Income (earnings) before income taxes" line (discontinued operations are reported net of
tax, below it), and so is "Earnings before income tax expense and equity in income of affiliates" (the
affiliates' share is added after the tax line). None was read: "continuing operations" and "equity in
income of affiliates" were taken for restrictions, and "TAXES" and "tax expense" were different words."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import REVIEW_BELOW
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import read

COLS = (455.0, 510.0, 565.0)
PRETAX = "Income (earnings) before income taxes for the fiscal year of the report, in USD millions"


@pytest.mark.parametrize(
    "label",
    [
        "Earnings from continuing operations before income tax expense",
        "INCOME FROM CONTINUING OPERATIONS BEFORE INCOME TAXES",
        # a filer that adds its share of affiliates' earnings after the tax line
        "Earnings before income tax expense and equity in income of affiliates",
        "Income before income taxes and equity in net earnings (loss) of unconsolidated affiliates",
    ],
)
def test_pretax_income_of_continuing_operations(tmp_path: Path, label: str) -> None:
    page = [
        text("CONSOLIDATED STATEMENTS OF EARNINGS"),
        row("($ in millions)", "2023", "2022", "2021", cols=COLS),
        row("Operating income", "1,854", "1,375", "1,420", cols=COLS),
        row("Other income (expense), net", "(38)", "(65)", "(33)", cols=COLS),
        row(label, "1,816", "1,310", "1,387", cols=COLS),
        row("Income tax expense", "609", "503", "141", cols=COLS),
        row("Net earnings from continuing operations", "1,207", "807", "1,246", cols=COLS),
        row("Loss from discontinued operations before income taxes", "(21)", "(90)", "(11)", cols=COLS),
    ]
    doc = view(draw(tmp_path / "is.pdf", [page]), year=2023, doctype="10-K")
    pretax = read(doc, PRETAX)
    assert (pretax.value, pretax.confidence >= REVIEW_BELOW) == (1816, True), pretax
    taxes = read(doc, "Income tax expense (provision for income taxes) for the fiscal year of the report")
    assert (taxes.value, taxes.confidence >= REVIEW_BELOW) == (609, True), taxes


def test_a_pretax_loss_printed_as_loss_before_income_tax(tmp_path: Path) -> None:
    """ "Loss before income tax (169,673)": the pre-tax line of a year with a loss; its "income" is the
    tax's, not a second line item, and the figure keeps its printed sign."""
    page = [
        text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
        row("(In thousands)", "2023", "2022", "2021", cols=COLS),
        row("Operating loss", "(212,019)", "(174,537)", "(151,060)", cols=COLS),
        row("Loss before income tax", "(169,673)", "(176,071)", "(152,653)", cols=COLS),
        row("Provision for income taxes", "1,917", "3,746", "1,440", cols=COLS),
        row("Net loss", "(171,590)", "(179,817)", "(154,093)", cols=COLS),
    ]
    doc = view(draw(tmp_path / "is.pdf", [page]), year=2023, doctype="10-K")
    pretax = read(doc, PRETAX, scale=1e3)
    assert (pretax.value, pretax.confidence >= REVIEW_BELOW) == (-169673, True), pretax
