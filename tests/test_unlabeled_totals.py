"""A tax note's subtotals printed without a label, on pages drawn here: the figures-only row closing the rows under
"Current:" ("Federal", "State", "Foreign") is their total when each of its figures adds up its column, and the
measure is the one the table's lead-in sentence names ("Income tax expense was comprised of the following …:",
"The components of income tax expense were as follows ($ in millions):")."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from tests.test_periods import row, text
from tests.test_statement_labels import annual, read

COLS = (380.0, 460.0, 540.0)
CURRENT = (
    "Current income tax expense (the income tax note's total of federal, state and foreign current taxes) for the"
    " fiscal year of the report, in USD millions"
)
DEFERRED = (
    "Deferred income tax expense (the income tax note's total of federal, state and foreign deferred taxes) for"
    " the fiscal year of the report, in USD millions"
)
LEAD_INS = (
    "Income tax expense was comprised of the following in fiscal 2023, 2022 and 2021 ($ in millions):",
    "The components of income tax expense were as follows ($ in millions):",
)


def _tax_note(lead_in: str, current: str = "", current_total: str = "408", deferred: str = "") -> list:
    return [
        text("NOTE 9. INCOME TAXES"),
        text(lead_in),
        row("", "2023", "2022", "2021", cols=COLS),
        text("Current:"),
        row("Federal", "$ 317", "$ 347", "$ 354", cols=COLS),
        row("State", "37", "48", "51", cols=COLS),
        row("Foreign", "54", "60", "33", cols=COLS),
        row(current, current_total, "455", "438", cols=COLS),
        text("Deferred:"),
        row("Federal", "163", "65", "(275)", cols=COLS),
        row("State", "21", "10", "(26)", cols=COLS),
        row("Foreign", "17", "(27)", "4", cols=COLS),
        row(deferred, "201", "48", "(297)", cols=COLS),
        row("Income tax expense", "$ 609", "$ 503", "$ 141", cols=COLS),
    ]


@pytest.mark.parametrize("lead_in", LEAD_INS)
def test_a_figures_only_row_adding_up_its_block_is_the_block_s_total(tmp_path: Path, lead_in: str) -> None:
    doc = annual(tmp_path / "tax.pdf", _tax_note(lead_in))
    current = read(doc, CURRENT)
    assert current.status is Status.FOUND and current.value == 408
    assert current.confidence >= REVIEW_BELOW
    assert read(doc, DEFERRED).value == 201


def test_a_figures_only_row_not_adding_up_is_no_total(tmp_path: Path) -> None:
    doc = annual(tmp_path / "other.pdf", _tax_note(LEAD_INS[0], current_total="412"))
    found = read(doc, CURRENT)
    assert found.value is None or found.confidence < REVIEW_BELOW


def test_a_total_row_reads_under_a_lead_in_naming_the_measure_before_its_verb(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "named.pdf", _tax_note(LEAD_INS[1], current="Total current", deferred="Total deferred")
    )
    current = read(doc, CURRENT)
    assert current.status is Status.FOUND and current.value == 408
    assert current.confidence >= REVIEW_BELOW
