"""The period of a number a line reader found (a "label: value" line, a sentence): the table reader
picks a cell by its column's period, and a line reader's number must pass the same test. A line shaped
like a table row ("Merchandise inventories 5,140 5,965") is read in its asked period's column; a
sentence's number is the period its clause names ("$5.1 billion as of January 28, 2023"), and a sentence
that names none speaks of the report's own period."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from mdqa_kernel.readers.base import DocumentView, FieldLike
from mdqa_kernel.readers.semantics import asks_percent
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.columns import cell_span, column_verdicts, page_rows, row_fits, value_columns
from mdqa_kernel.readers.table.continued import carried_headers, continuation
from mdqa_kernel.readers.table.naming import refused_row
from mdqa_kernel.readers.table.prose import SENTENCE_END
from mdqa_kernel.readers.table.scope import line_index
from mdqa_kernel.text.headers import column_headers
from mdqa_kernel.text.layout import Cell, Line
from mdqa_kernel.text.period_fit import asked_year, asks_other_quarter, fits, target_offset
from mdqa_kernel.text.periods import RESPECTIVELY, Period, ReportPeriod, parse_period
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.statement_context import is_english
from mdqa_kernel.text.statement_span import with_statement_span
from mdqa_kernel.text.values import numbers_in, parse_number

# A sentence's number belongs to the clause around it: another figure, a comparison or a new clause
# starts another period ("$5.1 billion as of January 28, 2023, compared with $5.9 billion as of …").
_CLAUSE_BREAK = re.compile(r"[;$]|\b(?:compared|versus|vs\.?|from|while|whereas|but)\b", re.IGNORECASE)
_YEAR_PRINT = re.compile(r"(?:19|20)\d\d")
_CLAUSE_REACH = 60  # characters after the number searched for its period
# A sentence with no period of its own speaks of the report's: a prior period's figure must say so.
UNDATED_OTHER_PERIOD = 0.5


def dated_reading(
    doc: DocumentView,
    field: FieldLike,
    lines: dict[int, list[Line]],
    cand: Candidate,
    period: tuple[Period, ReportPeriod],
) -> Candidate | None:
    """The reading in its asked period, or None when it is another period's figure."""
    if cand.bbox is None:
        return cand
    page_ls = lines.get(cand.page, [])
    found = _number_row(doc, field, page_ls, cand.page, line_index(page_ls, cand.bbox[1]))
    if found is not None:
        row, cells = found
        if row_fits(row, *period) is False or refused_row(page_ls, row, field):
            return None
        headers = with_statement_span(
            column_headers(page_ls, row.line.index, cells), page_ls, row.line.index, period[1]
        )
        if not any(headers):
            # the rows a page starts with, under the header of the table they continue from the page before
            headers = carried_headers(cells, continuation(doc, lines, row).headers) or headers
        verdicts = column_verdicts(row, headers, *period)
        if any(v is not None for v in verdicts):
            return _asked_cell(cand, [c for c, v in zip(cells, verdicts, strict=True) if v])
    if asks_other_quarter(*period):
        # one quarter of the year ("the fourth quarter"): a line or a sentence that does not name it is
        # about the year (an annual report's figures are)
        return cand if parse_period(cand.snippet).quarter == period[0].quarter else None
    if cand.kind != "prose" or not is_english(cand.snippet):
        return cand  # Chinese sentences name two years in one ("2022年…为7.40元，2021年为9.54元")
    return _sentence_period(cand, period)


def undated(cands: list[Candidate], period: tuple[Period, ReportPeriod]) -> list[Candidate]:
    """Readings of sentences read for their amount alone ("a quarterly dividend of $1.15 per share"):
    such a sentence speaks of the report's period, so for a field asking another period they score lower."""
    return [_undated_reading(c, period) for c in cands]


def _undated_reading(cand: Candidate, period: tuple[Period, ReportPeriod]) -> Candidate:
    """A reading whose text names no period: as is for the report's own period, lower for another."""
    if target_offset(*period) in (0, None):
        return cand
    return replace(cand, score=round(cand.score * UNDATED_OTHER_PERIOD, 4))


def _number_row(
    doc: DocumentView, field: FieldLike, page_ls: list[Line], page: int, index: int
) -> tuple[Row, list[Cell]] | None:
    """The table row at a line and its two or more number cells; None for a line that is not one."""
    rows = page_rows(doc, page, page_ls)
    row = next((r for r in rows if r.line.index == index), None)
    if row is None:
        return None
    cells = [c for c in value_columns(asks_percent(field), row) if c.value is not None]
    return (row, cells) if len(cells) >= 2 else None


def _asked_cell(cand: Candidate, asked: list[Cell]) -> Candidate | None:
    """The reading moved to the asked period's cell; None when no column is the asked period's."""
    if not asked:
        return None
    cell = asked[0]
    if parse_number(cand.raw) == cell.value:
        return cand
    return replace(cand, raw=cell.printed, bbox=cell.bbox, char_span=cell_span(cell), number=None)


def _sentence_period(cand: Candidate, period: tuple[Period, ReportPeriod]) -> Candidate | None:
    """A sentence's number in the period its clause names: None for another period's; for a field
    asking another period than the report's, a clause that names none scores lower."""
    want, report = period
    if RESPECTIVELY.search(cand.snippet):
        return _respective(cand, period)
    at = cand.snippet.find(cand.raw.strip()) if cand.raw.strip() else -1
    if at < 0:
        return cand
    end = at + len(cand.raw.strip())
    before = _CLAUSE_BREAK.split(SENTENCE_END.split(cand.snippet[:at])[-1])[-1]
    after = _CLAUSE_BREAK.split(SENTENCE_END.split(cand.snippet[end : end + _CLAUSE_REACH])[0])[0]
    # a change word in the clause qualifies the figure ("up 4% from"), it does not make it a change
    said = replace(parse_period(f"{before} {after}"), change=False)
    verdict = fits(said, want, report)
    if verdict is False:
        return None
    return _undated_reading(cand, period) if verdict is None else cand


def _respective(cand: Candidate, period: tuple[Period, ReportPeriod]) -> Candidate | None:
    """In "During fiscal years 2016, 2015, and 2014, R&D expense was $12.0 billion, $12.0 billion, and
    $11.4 billion, respectively" the n-th amount is the n-th year's: the asked year's amount, None when
    the sentence lists other years only. Left as read when years and amounts do not pair up."""
    raw = cand.raw.strip()
    asked = asked_year(*period)
    if (not raw.startswith("$") and not raw.endswith("%")) or asked is None:
        return cand
    text = unicodedata.normalize("NFKC", cand.snippet)
    numbers = numbers_in(text)
    amounts = [n for n in numbers if (n.currency == "$" if raw.startswith("$") else n.percent)]
    years = [
        int(n.value)
        for n in numbers
        if n.currency is None and not n.percent and _YEAR_PRINT.fullmatch(text[n.start : n.end])
    ]
    if len(amounts) < 2 or len(amounts) != len(years) or len(set(years)) != len(years):
        return cand
    if asked not in years:
        return None
    printed = text[amounts[years.index(asked)].start : amounts[years.index(asked)].end]
    if parse_number(printed) == parse_number(raw):
        return cand
    return replace(cand, raw=printed, number=None)
