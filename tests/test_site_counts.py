"""Counts of what a company operates, stated in a sentence, on pages drawn here: "We had 1,138 stores at the end
of fiscal 2023" for a field counting stores. Decoys: stores opened or closed, a bound ("more than 1,200
stores"), another year's count, and a field counting something else."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from tests.test_periods import text
from tests.test_statement_labels import annual, read

STORES = (
    "Number of stores (retail locations) the company operated at the end of the fiscal year of the report"
)


def _count(doc, unit: str = "stores"):
    return read(doc, STORES, type="integer", unit=unit, scale=1.0, name="number_of_stores")


def _business(*sentences: str) -> list:
    return [text("ITEM 1. BUSINESS"), text("General"), *(text(s) for s in sentences)]


def test_the_stores_the_company_says_it_had_at_the_year_end(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "had.pdf",
        _business(
            "During fiscal 2023, we opened 25 stores and closed 19 stores in our Domestic segment.",
            "We had 1,138 stores at the end of fiscal 2023 throughout our Domestic and International segments.",
        ),
    )
    found = _count(doc)
    assert found.status is Status.FOUND and found.value == 1138, found
    assert found.confidence >= REVIEW_BELOW
    # the same sentence for a field counting employees is no reading of it
    other = read(
        doc,
        "Number of employees at the end of the fiscal year of the report",
        type="integer",
        unit="employees",
        scale=1.0,
    )
    assert other.value != 1138, other


def test_stores_opened_a_bound_or_another_year_are_no_count(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "decoys.pdf",
        _business(
            "During fiscal 2023, we opened 25 stores and closed 19 stores in our Domestic segment.",
            "We have more than 1,200 stores in North America.",
            "We had 1,132 stores at the end of fiscal 2022.",
        ),
    )
    found = _count(doc)
    assert found.value is None or found.confidence < REVIEW_BELOW, found
