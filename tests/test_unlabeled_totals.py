"""A tax note's subtotals printed without a label, on pages drawn here: the figures-only row closing the rows under
"Current:" ("Federal", "State", "Foreign") is their total when each of its figures adds up its column, and the
measure is the one the table's lead-in sentence names ("Income tax expense was comprised of the following …:",
"The components of income tax expense were as follows ($ in millions):", "The provision for income taxes consisted
of the following:"). A heading under a row of figures only opens the next block: it is never that row's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from mdqa_kernel.readers.table.reader import _lines_by_page
from mdqa_kernel.text.rows import table_rows
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
    # "provision" for "expense": the block's heading ("Deferred:") and the lead-in's "income taxes" name the item
    "The provision for income taxes consisted of the following (in millions):",
)


def _tax_note(
    lead_in: str, current: str = "", current_total: str = "408", deferred: str = "", heading: str = "Current:"
) -> list:
    return [
        text("NOTE 9. INCOME TAXES"),
        text(lead_in),
        row("", "2023", "2022", "2021", cols=COLS),
        text(heading),
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


@pytest.mark.parametrize("total", ["Total", "Total current"])
def test_a_total_closing_its_block_is_named_by_its_heading_and_the_lead_in(
    tmp_path: Path, total: str
) -> None:
    """ "Total" (or "Total current") under "Current:" in "The provision for income taxes consisted of …": the
    heading's "current" with the lead-in's "income taxes" names the current income tax expense."""
    doc = annual(
        tmp_path / "bare.pdf",
        _tax_note(LEAD_INS[2], current=total, deferred=total.replace("current", "deferred")),
    )
    current, deferred = read(doc, CURRENT), read(doc, DEFERRED)
    assert current.status is Status.FOUND and current.value == 408, current
    assert deferred.status is Status.FOUND and deferred.value == 201, deferred


def test_currently_payable_is_the_current_part(tmp_path: Path) -> None:
    """ "Total currently payable" under "Currently payable:": the tax note's current taxes."""
    note = _tax_note(LEAD_INS[2], current="Total currently payable", heading="Currently payable:")
    current = read(annual(tmp_path / "payable.pdf", note), CURRENT)
    assert current.status is Status.FOUND and current.value == 408, current


def test_a_heading_under_a_figures_only_row_is_not_its_name(tmp_path: Path) -> None:
    doc = annual(tmp_path / "rows.pdf", _tax_note(LEAD_INS[2]))
    rows = table_rows(_lines_by_page(doc)[2])
    current = next(r for r in rows if r.cells and r.cells[0].text == "408")
    assert current.label == "" and current.extended_label == "", current


def _indented(label: str, *values: str, x: float) -> list:
    return [(x, label, "l"), *row("", *values, cols=COLS)[1:]]


def _nested(heading: str, federal: tuple, state: tuple, foreign: tuple, total: tuple) -> list:
    """A block whose "United States" sub-heading is indented over "Federal" and "State", "Foreign" at its indent
    and the bare "Total" at the margin."""
    return [
        text(heading),
        [(84, "United States", "l")],
        _indented("Federal", *federal, x=96),
        _indented("State", *state, x=96),
        _indented("Foreign", *foreign, x=84),
        row("Total", *total, cols=COLS),
    ]


def test_a_total_at_the_margin_closes_the_outer_block_not_an_indented_sub_block(tmp_path: Path) -> None:
    """ "Total" at the margin under "Current:", after "United States" (indented, over "Federal" and "State") and
    "Foreign": the sub-heading opens a block inside "Current:"; the total closes "Current:"."""
    note = [
        text("NOTE 9. INCOME TAXES"),
        text(LEAD_INS[2]),
        row("", "2023", "2022", "2021", cols=COLS),
        *_nested(
            "Current:",
            ("$ 317", "$ 347", "$ 354"),
            ("37", "48", "51"),
            ("54", "60", "33"),
            ("408", "455", "438"),
        ),
        *_nested(
            "Deferred:",
            ("163", "65", "(275)"),
            ("21", "10", "(26)"),
            ("17", "(27)", "4"),
            ("201", "48", "(297)"),
        ),
        row("Income tax expense", "$ 609", "$ 503", "$ 141", cols=COLS),
    ]
    doc = annual(tmp_path / "nested.pdf", note)
    current, deferred = read(doc, CURRENT), read(doc, DEFERRED)
    assert current.status is Status.FOUND and current.value == 408, current
    assert deferred.status is Status.FOUND and deferred.value == 201, deferred
