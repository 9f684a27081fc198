"""Which cell of a table row holds the field's value: the columns that can (`value_columns`, never a
note reference: `under_note`), and the one of the wanted period (`period_cell`). A column is chosen by the
period its header names against the document's own (`document_period`), never by position; a row whose
label names its own period ("2022 restructuring charges", "Liability as of December 31, 2021") is read by
that period, and its components-and-total row gives the total (`row_total`)."""

from __future__ import annotations

import re
from dataclasses import replace

from mdqa_kernel.readers.base import DocumentView, FieldLike
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.text.basis import Basis, column_basis
from mdqa_kernel.text.fiscal_names import named_report
from mdqa_kernel.text.headers import basis_headers, column_headers, spanning_headers, with_year_heading
from mdqa_kernel.text.label_periods import label_period, opening_row
from mdqa_kernel.text.layout import Cell, Line
from mdqa_kernel.text.period_fit import column_periods, end_of_table, fits, opening_of, quarter_of_table
from mdqa_kernel.text.periods import Period, ReportPeriod
from mdqa_kernel.text.row_context import TOTAL_LABEL, block_heading, lead_in
from mdqa_kernel.text.rows import Row, table_rows
from mdqa_kernel.text.segments import measure_columns, segment_ask
from mdqa_kernel.text.statement_context import (
    balance_words_left,
    bare_balance,
    head_needs,
    head_words_left,
    is_english,
    words,
)
from mdqa_kernel.text.statement_span import with_statement_span
from mdqa_kernel.text.values import decimal_places


def value_columns(percent: bool, row: Row) -> list[Cell]:
    """The row's cells that can hold the field's value, dashes included (a dash holds its column:
    without it the next period's number would take its place). A change printed in points ("120 bps",
    "1.2 pp") is never a value."""
    cells = [c for c in row.cells if not c.points]
    values = [c for c in cells if not c.absent]
    label_has_pct = "%" in row.label or "％" in row.label
    if percent:
        kind = [c for c in values if c.percent] or (values if label_has_pct else [])
    else:
        # A ratio field printed as a percentage ("Gross margin 82.84%") reads as 0.8284.
        kind = [c for c in values if not c.percent] or [c for c in values if c.percent]
    return sorted([*kind, *(c for c in cells if c.absent)], key=lambda c: c.x0) if kind else []


def cell_span(cell: Cell) -> tuple[int, int] | None:
    """The cell's characters in the page text, for its evidence."""
    starts = [w.char_start for w in cell.words if w.char_start >= 0]
    ends = [w.char_end for w in cell.words if w.char_end >= 0]
    return (min(starts), max(ends)) if starts and ends else None


def cell_candidate(
    row: Row, cell: Cell, score: float, scale: float | None, scale_word: str | None
) -> Candidate:
    """A table reading of one cell of a row, with the cell's own box and characters as its evidence."""
    return Candidate(
        "table",
        row.page,
        cell.text,
        row.snippet,
        score,
        cell.bbox,
        cell_span(cell),
        scale=scale,
        scale_word=scale_word,
        number=cell.value,
    )


def under_note(cell: Cell, notes: list[tuple[float, float]]) -> bool:
    """A small number under a "Note" header (a column of note references between the label and the
    periods), never a value."""
    if cell.value is None or "," in cell.text or abs(cell.value) >= 1000:
        return False
    return any(x0 - 6 <= cell.x1 and cell.x0 <= x1 + 6 for x0, x1 in notes)


def document_period(doc: DocumentView) -> ReportPeriod:
    """The period the document reports (its metadata's fiscal year; the end date its cover states:
    "For the fiscal year ended June 30, 2023"; a year ending in January named as the filing names it,
    `text.fiscal_names`), computed once per document."""

    def build() -> ReportPeriod:
        report = doc.cover_period()
        if report.quarter is None:
            report = replace(report, quarter=doc.counted_quarter())
        return named_report(report, doc.fiscal_naming())

    return doc.memo("report_period", build)


def period_cell(
    cells: list[Cell],
    lines: list[Line],
    row: Row,
    want: Period,
    report: ReportPeriod,
    carried: list[str] | None = None,
) -> tuple[Cell, float] | None:
    """The cell of the wanted period and how sure the column is; None when the header names periods
    and none of them is the wanted one.

    Each cell's column header (stacked over the header lines) is parsed into a period and placed
    against the report's: never by position. Two columns that fit with different values are told apart
    only by a sub-header naming the figure reported ("As Restated" beside "As Previously Reported":
    `by_basis`); else (the quarter and the year to date of a field that names neither) low confidence. A row
    whose label names another period ("2020 restructuring charges", "Balance at December 31, 2021")
    holds none of the wanted period's values, whatever its columns say. A row whose header names no
    period gives its only number or, when its label names the wanted period, the cell adding up the
    others, at full confidence; a "Total" row the cell adding up the others at 0.9 (the table's rows are its
    periods, last or first); else its only number at 0.9 or its first one at low confidence."""
    own = row_fits(row, want, report)
    if own is False:
        return None
    headers = with_year_heading(
        column_headers(lines, row.line.index, cells), lines, row.line.index, cells, report
    )
    headers = with_statement_span(headers, lines, row.line.index, report)
    if carried and not any(headers):
        headers = carried  # a table continued from the page before: its header there (`continued`)
    placed = _period_verdicts(row, headers, want, report)
    verdicts = [verdict for _period, verdict in placed]
    chosen = [c for c, v in zip(cells, verdicts, strict=True) if v is True]
    if chosen:
        if paired_columns(headers):
            return chosen[0], PAIRED_COLUMNS  # which of the period's two cells is the field's is unknown
        # a column headed by a bare year ("2022") is only as sure as the filing's name for its year
        unnamed = 1.0
        if report.year_named < 1.0 and bare_years(row, cells, headers, report, chosen):
            unnamed = report.year_named
        if len({c.value for c in chosen}) == 1:
            return chosen[0], unnamed
        cell, conf = by_basis(chosen, basis_headers(lines, row.line.index, chosen))
        return cell, conf * unnamed
    due = maturity_total(cells, headers, [period for period, _verdict in placed], want, report)
    if due is not None:
        return due, 1.0
    if any(v is False for v in verdicts):
        return None
    if own:
        # the label dates the row ("2023 restructuring charges" in a roll-forward whose columns are the
        # charge's components): its only number, or the cell that adds up the others
        total = cells[0] if len(cells) == 1 else row_total(cells)
        if total is not None:
            return total, 1.0
    # "Total | 6,087 | 28,439 | 12,777 | 47,303" under headers naming no period: the cell that adds up the others,
    # last or first ("Total contractual obligations | $183,376 | $75,462 | $47,138 | …")
    if len(cells) >= 3 and TOTAL_LABEL.match(row.label) and (total := row_total(cells)) is not None:
        return total, 0.9
    return cells[0], 0.9 if len(cells) == 1 else 0.3


# A column of a payments-due table that is a later span than the report's ("Thereafter", "1-3 years", "More than
# 5 years"), and the column that totals them ("Payments Due During Fiscal Years Ending January 31, Total")
_LATER_SPAN = re.compile(r"\bthereafter\b|\b(?:less|more)\s+than\b|\byears?\b|\bafter\b|\bbeyond\b", re.I)
_TOTAL_COLUMN = re.compile(r"\btotal\s*$", re.I)


def maturity_total(
    cells: list[Cell], headers: list[str], periods: list[Period], want: Period, report: ReportPeriod
) -> Cell | None:
    """The "Total" column of a row spread over the periods after the report ("Total contractual obligations |
    2024 | 2025-2026 | Thereafter | Total"): the amount outstanding at the report's end, for a field asking that
    date, when the cell adds up all the others (`periods`: each cell's column period). None for a field asking
    another period."""
    if want.offset not in (None, 0) or want.opening or want.change or want.quarter is not None:
        return None
    if want.year is not None and want.year != report.year:
        return None
    totals = [c for c, h in zip(cells, headers, strict=True) if _TOTAL_COLUMN.search(h)]
    if len(totals) != 1 or row_total(cells) is not totals[0]:
        return None
    later = [
        _later(p, report) or bool(_LATER_SPAN.search(h))
        for c, h, p in zip(cells, headers, periods, strict=True)
        if c is not totals[0]
    ]
    return totals[0] if all(later) else None


def _later(p: Period, report: ReportPeriod) -> bool:
    """A column period that begins after the report's period ends (a year of payments still due)."""
    if p.end is not None and report.end is not None:
        return p.end > report.end
    return p.year is not None and p.year > report.year


def bare_years(
    row: Row, cells: list[Cell], headers: list[str], report: ReportPeriod, chosen: list[Cell]
) -> bool:
    """Whether the chosen cells' columns are placed by a bare year only ("2022", "Fiscal 2022"): no end
    date, no word ("Current Year") saying which year it is."""
    ids = {id(c) for c in chosen}
    periods = [p for c, p in zip(cells, row_periods(row, headers, report), strict=True) if id(c) in ids]
    return bool(periods) and all(p.end is None and p.offset is None for p in periods)


def by_basis(chosen: list[Cell], headers: list[str]) -> tuple[Cell, float]:
    """Of a period's cells that differ, the one its header names as the figure now reported ("As
    Restated" beside "As Previously Reported | Adjustment"); else the first that is no superseded figure
    nor an adjustment, not trusted: two columns of one period (the quarter and the year to date of a
    field that names neither) are not told apart."""
    bases = [column_basis(h) for h in headers]
    kept = [c for c, b in zip(chosen, bases, strict=True) if b not in (Basis.SUPERSEDED, Basis.ADJUSTMENT)]
    current = [c for c, b in zip(chosen, bases, strict=True) if b is Basis.CURRENT]
    if len(current) == 1:
        return current[0], BASIS_NAMED
    return (kept or chosen)[0], PERIOD_CELLS_APART


# The one current-basis cell of a period printed on several bases: its header says so, the sums are not
# checked.
BASIS_NAMED = 0.9
# A period over cells that differ, none named as the figure reported.
PERIOD_CELLS_APART = 0.6
# Each period over two cells ("2022" over "Shares  Amount"): the period's cell is not told by the header.
PAIRED_COLUMNS = 0.3


def paired_columns(headers: list[str]) -> bool:
    """Every other cell has a header and the cells between have none: each header spans a pair of
    sub-columns (an equity statement's "Shares | Amount" under each year), so the cell under a
    header is no more the period's value than its neighbour."""
    if len(headers) < 4 or len(headers) % 2:
        return False
    named = [bool(h.strip()) for h in headers]
    evens, odds = named[0::2], named[1::2]
    return (all(evens) and not any(odds)) or (all(odds) and not any(evens))


def row_total(cells: list[Cell]) -> Cell | None:
    """The last (or the first) of three or more cells when it is the sum of the others, to the rounding
    of the printed figures: a components-and-total row."""
    values = [c.value for c in cells]
    if len(cells) < 3 or any(v is None for v in values):
        return None
    nums = [float(v) for v in values if v is not None]
    decimals = max(decimal_places(c.printed) for c in cells)
    slack = (len(nums) - 1) * 0.5 * 10**-decimals  # each printed part may be off by half its last digit
    for k in (-1, 0):
        rest = nums[:-1] if k == -1 else nums[1:]
        if nums[k] != 0 and abs(sum(rest) - nums[k]) <= slack + 1e-9:
            return cells[k]
    return None


def page_rows(doc: DocumentView, page: int, lines: list[Line]) -> list[Row]:
    """Every table row of a page, parsed once per document view (every field asks for them)."""
    return doc.memo(f"rows:{page}", lambda: table_rows(lines))


def row_periods(row: Row, headers: list[str], report: ReportPeriod) -> list[Period]:
    """The period of each of a row's cells: its column's, or, on an opening row ("… at beginning of
    year", "… – January 1"), the close of the year before its column's."""
    periods = column_periods(headers)
    if opening_row(row.label, report):
        return [opening_of(p, report) for p in periods]
    return periods


def column_verdicts(row: Row, headers: list[str], want: Period, report: ReportPeriod) -> list[bool | None]:
    """Whether each of a row's cells holds the wanted period (None: its column names none), placed
    against the report's period as the table numbers its quarters ("1Q23 … 1Q22")."""
    return [verdict for _period, verdict in _period_verdicts(row, headers, want, report)]


def _period_verdicts(
    row: Row, headers: list[str], want: Period, report: ReportPeriod
) -> list[tuple[Period, bool | None]]:
    """Each cell's column period and whether it holds the wanted one (see `column_verdicts`)."""
    periods = row_periods(row, headers, report)
    table_report = quarter_of_table(periods, end_of_table(periods, report))
    return [(p, fits(p, want, table_report)) for p in periods]


CHANGES_APART = 0.3


def change_cell(
    cells: list[Cell], lines: list[Line], row: Row, want: Period, report: ReportPeriod
) -> tuple[Cell, float] | None:
    """The cell of a line item's row under a change column of the wanted span ("Q4 | 2022 2021 % Change"
    over "Reported Sales $23,706 $24,804 (4.4)%") for a field asking the item's change; None when no
    change column fits. Never a period's own column: that holds the level, not its change."""
    if not want.change:
        return None
    # headers over the whole row: a title centred over all its columns heads the change columns too
    verdicts = _period_verdicts(row, column_headers(lines, row.line.index, row.cells), want, report)
    kept = {id(c) for c in cells}
    chosen = [
        c for c, (p, fit) in zip(row.cells, verdicts, strict=True) if id(c) in kept and p.change and fit
    ]
    if not chosen:
        return None
    # two changes of one span ("Reported | Operational | Currency % Change"): which is asked is unknown
    return chosen[0], 1.0 if len({c.value for c in chosen}) == 1 else CHANGES_APART


def row_fits(row: Row, want: Period, report: ReportPeriod) -> bool | None:
    """Whether the period a row's label names is the wanted one; None when the label names none."""
    return fits(label_period(row.label), want, report)


# "Weighted-Average Exercise Price per Share": the unit of a price, not the count a header names
_PER_UNIT = re.compile(r"\bper\s+\w+", re.I)
# a header naming a price, a value, a term or a rate heads another measure than a count ("Option Price")
_OTHER_MEASURE = re.compile(r"\b(?:price|value|term|life|rate|cost)s?\b", re.I)


def measure_cells(cells: list[Cell], lines: list[Line], row: Row, field: FieldLike) -> list[Cell]:
    """Of a row dated by its own label ("Outstanding at December 31, 2022 | 10,504 | $124.63 | 6.08 |
    $588,549"), the one cell whose column header names what the field counts ("Options", "Number of
    Shares") when the other headers name other measures (an exercise price, a remaining term, an intrinsic
    value); all the cells when no one header does."""
    if len(cells) < 2 or not is_english(field.description):
        return cells
    asked = set().union(*head_needs(field.description), words(field.unit or ""))
    headers = basis_headers(lines, row.line.index, cells)
    named = [
        c
        for c, h in zip(cells, headers, strict=True)
        if asked & set(words(_PER_UNIT.sub(" ", h))) and not _OTHER_MEASURE.search(h)
    ]
    others = [h for c, h in zip(cells, headers, strict=True) if h.strip() and c not in named]
    return named if len(named) == 1 and others else cells


def qualified_columns(lines: list[Line], row: Row, cells: list[Cell], description: str) -> tuple[int, ...]:
    """The indices of the cells whose column header states the words the row's label leaves out of the
    description's line item, the table's heading or lead-in stating the rest ("Operating Leases" over "Total
    future undiscounted lease payments | 3,033 | 46" for the total operating lease payments; "Pension
    Benefits" over two years' "Benefit obligation at end of year" under "… for our benefit plans:"), beside
    a column headed otherwise ("Finance Leases", "Other Benefits"); () when the label names the item whole,
    or no header, or every header, states them, or the headers stating them differ."""
    index = row.line.index
    if not is_english(description) or len(cells) < 2:
        return ()
    if (ask := segment_ask(description)) is not None:
        # "FLNA" under "Net Revenue | Operating Profit/(Loss)": the asked measure's run of columns
        return measure_columns(row.label, spanning_headers(lines, index, cells), ask)
    heading = block_heading(lines, index)
    left = head_words_left(row.label, description)
    if not left and bare_balance(row.label):
        left = balance_words_left(row.label, heading, description)
    left = tuple(missing for missing in left if missing)
    if not left:
        return ()
    table = {w for text in (heading, lead_in(lines, index)) for w in words(text)}
    # a header over a run of columns is the table's own; the lines under the period header may hold a row
    # printing one figure ("Settlement payments | (870)")
    over = zip(basis_headers(lines, index, cells), spanning_headers(lines, index, cells), strict=True)
    headers = [frozenset(words(span or basis)) for basis, span in over]
    named = [k for k, said in enumerate(headers) if any(m & said and m <= said | table for m in left)]
    others = [said for k, said in enumerate(headers) if said and k not in named]
    if not named or not others or len({headers[k] for k in named}) > 1:
        return ()
    return tuple(named)
