"""A column's scale declared in a footnote, on pages drawn here: the column header carries a mark ("Options (a)")
and the footnote under the table with that mark declares the scale ("(a) In thousands."). Decoys: a mark over
another column, a footnote with the mark that declares no scale, and a marked header of the table above the
lead-in."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import REVIEW_BELOW
from mdqa_kernel.readers.table.reader import _lines_by_page
from mdqa_kernel.readers.table.scope import footnoted_scale
from mdqa_kernel.text.layout import Cell
from tests.test_periods import row, text
from tests.test_statement_labels import annual, read

ENDING = (
    "Stock options outstanding at the end of the fiscal year of the report (the option activity table), in"
    " millions of options"
)
COLS = (300.0, 380.0, 460.0, 540.0)


def _options(headers: tuple[str, str], *footnotes: str) -> list:
    """An option activity table whose count and value headers are `headers`, the footnotes under it."""
    return [
        text("NOTE 12. STOCK-BASED COMPENSATION"),
        text("A summary of our stock option activity for the year ended December 31, 2023 is as follows:"),
        row("", "", "Weighted Average", "Remaining", "Aggregate", cols=COLS),
        row("", "", "Exercise", "Contractual Life", "Intrinsic", cols=COLS),
        row("", headers[0], "Price", "(years)", headers[1], cols=COLS),
        row("Outstanding at December 31, 2022", "10,142", "$ 110.54", cols=COLS),
        row("Granted", "2,422", "$ 163.54", cols=COLS),
        row("Exercised", "(1,578)", "$ 87.33", cols=COLS),
        row("Forfeited/expired", "(482)", "$ 146.13", cols=COLS),
        row("Outstanding at December 31, 2023", "10,504", "$ 124.63", "6.08", "$ 588,549", cols=COLS),
        row("Exercisable at December 31, 2023", "4,892", "$ 101.02", "3.50", "$ 389,547", cols=COLS),
        *(text(note) for note in footnotes),
    ]


def test_a_footnote_declares_the_marked_column_s_scale(tmp_path: Path) -> None:
    doc = annual(tmp_path / "marked.pdf", _options(("Options (a)", "Value (a)"), "(a) In thousands."))
    got = read(doc, ENDING, unit="shares")
    assert got.value == 10.504 and got.confidence >= REVIEW_BELOW, got  # found, not held for review


def test_another_column_s_footnote_does_not_scale_the_count(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "other.pdf",
        _options(("Options (a)", "Value (b)"), "(a) In thousands.", "(b) In millions."),
    )
    got = read(doc, ENDING, unit="shares")
    assert got.value == 10.504, got  # the count's own footnote, not the value's
    lines = _lines_by_page(doc)[2]
    index = next(ln.index for ln in lines if ln.text.startswith("Outstanding at December 31, 2023"))
    value = next(w for w in lines[index].words if w.text == "588,549")
    count = next(w for w in lines[index].words if w.text == "10,504")
    assert footnoted_scale(lines, index, Cell("588,549", [value])) == (1e6, "millions")
    assert footnoted_scale(lines, index, Cell("10,504", [count])) == (1e3, "thousands")


def test_a_footnote_that_declares_no_scale_scales_nothing(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "plain.pdf",
        _options(("Options (a)", "Value"), "(a) Includes options granted to directors under the 2019 plan."),
    )
    got = read(doc, ENDING, unit="shares")
    assert got.value != 10.504, got


def test_a_marked_header_of_the_table_above_the_lead_in_is_not_this_table_s(tmp_path: Path) -> None:
    page = [
        row("", "Options (a)", cols=COLS[:1]),
        row("Granted in 2022", "2,422", cols=COLS[:1]),
        text("(a) In thousands."),
        text("A summary of our stock option activity for the year ended December 31, 2023 is as follows:"),
        row("", "Options", "Price", cols=COLS[:2]),
        row("Outstanding at December 31, 2023", "10,504", "$ 124.63", cols=COLS[:2]),
    ]
    doc = annual(tmp_path / "above.pdf", page)
    lines = _lines_by_page(doc)[2]
    index = next(ln.index for ln in lines if ln.text.startswith("Outstanding at December 31, 2023"))
    count = next(w for w in lines[index].words if w.text == "10,504")
    assert footnoted_scale(lines, index, Cell("10,504", [count])) is None
