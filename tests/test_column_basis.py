"""Which of one period's cells is the figure the filing reports, when a table prints the period on
several bases (`text.basis`): a restatement note's "As Previously Reported | Adjustment | As Restated",
an accounting change's "As Reported | Adjustments | Balances without Adoption of Topic 606", on
statements drawn here. Before, such a row gave its first cell, the superseded figure, as found."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.text.basis import Basis, column_basis
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import MILLIONS, read

COVER = [text("Acme Inc. ANNUAL REPORT ON FORM 10-K"), text("For the fiscal year ended December 31, 2023")]
THREE = (330.0, 420.0, 510.0)
SALES = "Total revenue (net sales) for the fiscal year of the report, in USD millions"


def test_header_words_name_a_basis() -> None:
    assert column_basis("As Previously Reported") is Basis.SUPERSEDED
    assert column_basis("Balances without Adoption of Topic 606") is Basis.SUPERSEDED
    assert column_basis("Non-GAAP") is Basis.SUPERSEDED
    assert column_basis("Restatement Adjustments") is Basis.ADJUSTMENT
    assert column_basis("Effect of Change") is Basis.ADJUSTMENT
    assert column_basis("As Restated") is Basis.CURRENT
    assert column_basis("As Reported") is Basis.CURRENT
    assert column_basis("GAAP") is Basis.CURRENT
    assert column_basis("Three Months Ended June 30, 2023") is None
    assert column_basis("Restructuring") is None


def _note(
    path: Path, title: str, year: str, bases: tuple[str, str, str], rows: list[tuple[str, ...]]
) -> Path:
    table = [
        text(title),
        MILLIONS,
        row("", f"Year ended December 31, {year}", cols=(420.0,)),
        row("", *bases, cols=THREE),
        *(row(label, *cells, cols=THREE) for label, *cells in rows),
    ]
    return draw(path, [COVER, table])


def test_the_restated_column_is_the_prior_years_figure(tmp_path: Path) -> None:
    pdf = _note(
        tmp_path / "restated.pdf",
        "NOTE 2. RESTATEMENT OF PREVIOUSLY ISSUED FINANCIAL STATEMENTS",
        "2022",
        ("As Previously Reported", "Adjustment", "As Restated"),
        [("Net sales", "4,450", "(50)", "4,400"), ("Operating income", "640", "(40)", "600")],
    )
    doc = view(pdf, year=2023, doctype="10-K")
    sales = read(
        doc,
        "Total revenue (net sales) for the prior fiscal year (the year before the report's), in USD millions",
    )
    assert sales.found and sales.value == 4400 and sales.confidence >= CONFIDENT, sales
    income = read(doc, "Operating income for the prior fiscal year, in USD millions")
    assert income.found and income.value == 600, income


def test_the_as_reported_column_beside_balances_without_adoption(tmp_path: Path) -> None:
    pdf = _note(
        tmp_path / "adoption.pdf",
        "IMPACT OF ADOPTION OF THE NEW REVENUE STANDARD",
        "2023",
        ("As Reported", "Adjustments", "Balances without Adoption of Topic 606"),
        [("Net sales", "5,000", "120", "5,120")],
    )
    sales = read(view(pdf, year=2023, doctype="10-K"), SALES)
    assert sales.found and sales.value == 5000 and sales.confidence >= CONFIDENT, sales


def test_a_period_over_cells_no_header_tells_apart_is_not_trusted(tmp_path: Path) -> None:
    """Without basis words the cells of one period stay untold apart: the first at low confidence."""
    pdf = _note(
        tmp_path / "plain.pdf",
        "SUPPLEMENTAL INFORMATION",
        "2023",
        ("Americas", "International", "Corporate"),
        [("Net sales", "3,000", "1,900", "100")],
    )
    sales = read(view(pdf, year=2023, doctype="10-K"), SALES)
    assert sales.confidence < CONFIDENT, sales
    assert not (sales.found and sales.value == 3000 and sales.confidence >= REVIEW_BELOW * 2), sales
