"""Amounts falling due in a fiscal year after the report, read from a schedule of future years, for a field
asking one ("Principal of debt maturing in the first fiscal year after the report").

A schedule prints the years after the report either down its rows ("2024 | $ 5,250", "2025 | 2,250", …,
"Thereafter", "Total") or across its columns ("2023 2024 2025 2026 2027 After 2026" over one line of amounts,
or over rows such as "Debt" and "Minimum finance lease obligations"). The lines just above it must name what
falls due (the field's subject: "maturities of long-term debt"); the years must run one by one from the year
after the report's, so a schedule of another report's years, or of past years, is never read. A year's amount
is placed by the year printed with it, never by position alone.

Not read: a schedule whose lead-in names another obligation beside the subject (lease, purchase, pension,
interest) unless a row's own label names the subject alone; a column list whose amounts do not match its
headers one for one; a year that is not in the schedule.
"""

from __future__ import annotations

import re

from mdqa_kernel.readers.base import DocumentView
from mdqa_kernel.readers.confidence import STANDING_SCALE
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.columns import cell_candidate, page_rows
from mdqa_kernel.readers.table.scope import declared_above
from mdqa_kernel.text.layout import Cell, Line
from mdqa_kernel.text.periods import Period, ReportPeriod
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.statement_context import description_heads, is_english, words

SCHEDULED = 0.9  # the subject named above, the years from the next one on, the year printed with the amount

# Words that say an amount falls due (stemmed as `words` stems them); the rest of the head is its subject
_DUE_WORDS = frozenset(
    {"principal", "maturing", "maturity", "mature", "payment", "due", "scheduled", "repayment"}
    | {"aggregate", "annual", "future", "amount"}
)
# Other obligations a schedule may add to the subject's amounts: their lead-in's one amount column is no
# amount of the subject alone
_OTHER_OBLIGATIONS = frozenset({"lease", "purchase", "pension", "benefit", "interest", "rent", "rental"})
_YEAR = re.compile(r"^(?:fiscal\s+(?:year\s+)?|fy\s*)?(?P<y>(?:19|20)\d\d)$", re.I)
# What may follow a header's years: "Thereafter", "After 2026", "Later years", "Total"
_TAIL = re.compile(r"^(?:thereafter|after|beyond|later|years|total|and|(?:19|20)\d\d)$", re.I)
_TAIL_COLUMN = re.compile(r"^(?:thereafter|after|beyond|later|total)$", re.I)
_LEAD_LINES = 4  # lines above a schedule read for its lead-in, captions and headers
_ROWS_BELOW = 4  # lines below a header of years searched for its rows of amounts


def schedule_amounts(
    doc: DocumentView, description: str, lines: dict[int, list[Line]], want: Period, report: ReportPeriod
) -> list[Candidate]:
    """The amounts of the asked future fiscal year in schedules whose lead-in names the field's subject."""
    if want.offset is None or want.offset < 1 or want.year is not None or report.year is None:
        return []
    if report.quarterly or not is_english(description):
        return []
    subject = _subject(description)
    if not subject:
        return []
    first, target = report.year + 1, report.year + want.offset
    out: list[Candidate] = []
    for page, page_ls in lines.items():
        rows = page_rows(doc, page, page_ls)
        out += _down_rows(doc, rows, page_ls, subject, first, target)
        out += _across_columns(doc, rows, page_ls, subject, first, target)
    return out


def _subject(description: str) -> frozenset[str]:
    """The words of the description's line item that say what falls due ("debt"), without its due words."""
    heads = description_heads(description)
    return frozenset(words(heads[0])) - _DUE_WORDS if heads else frozenset()


def _lead_words(page_ls: list[Line], index: int) -> set[str]:
    """The words of the few lines above a schedule back to its lead-in sentence (headers, scale caption, the
    sentence ending "… are as follows:"); a sentence ended further up is about something else. Unlike
    `row_context.lead_in` (the sentence alone), the headers count: "Operating Leases" over the amounts is another
    obligation."""
    out: set[str] = set()
    for j in range(index - 1, max(-1, index - 1 - _LEAD_LINES), -1):
        text = page_ls[j].text.strip()
        if text.endswith(".") and j < index - 1:
            break  # the paragraph before the lead-in ("… a weighted average interest rate of 4.1%.")
        out |= set(words(text))
        if text.endswith(":"):
            break
    return out


def _names_subject(lead: set[str], subject: frozenset[str], alone: bool) -> bool:
    """The lead-in names the subject (`alone`: and no other obligation whose amounts a column could add)."""
    return subject <= lead and not (alone and lead & (_OTHER_OBLIGATIONS - subject))


def _row_year(row: Row) -> tuple[int, Cell] | None:
    """A schedule row's year and its one amount: "2024 | 5,250" (the year read as a cell) or "Fiscal 2024 | …"."""
    if not row.label and len(row.cells) == 2 and (m := _YEAR.match(row.cells[0].text.strip())):
        amount = row.cells[1]
    elif row.label and len(row.cells) == 1 and (m := _YEAR.match(row.label.strip())):
        amount = row.cells[0]
    else:
        return None
    return (int(m.group("y")), amount) if amount.value is not None else None


def _down_rows(
    doc: DocumentView, rows: list[Row], page_ls: list[Line], subject: frozenset[str], first: int, target: int
) -> list[Candidate]:
    """The target year's amount in a run of rows on successive lines, each printing the year after the one
    above and one amount, from `first` on."""
    out: list[Candidate] = []
    run: list[tuple[int, Cell, Row]] = []
    for row in [*rows, None]:
        got = _row_year(row) if row is not None else None
        if got and run and got[0] == run[-1][0] + 1 and row.line.index == run[-1][2].line.index + 1:
            run.append((*got, row))
            continue
        if len(run) >= 2 and run[0][0] == first:
            lead = _lead_words(page_ls, run[0][2].line.index)
            if _names_subject(lead, subject, alone=True):
                out += [_candidate(doc, page_ls, r, cell) for year, cell, r in run if year == target]
        run = [(*got, row)] if got and row is not None else []
    return out


def _header_years(text: str) -> tuple[list[int], int] | None:
    """A header line of consecutive years and the number of columns it heads: "2023 2024 2025 2026 2027 After
    2026" → ([2023, …, 2027], 6); None for any other line."""
    tokens = text.replace("$", " ").split()
    years: list[int] = []
    for k, token in enumerate(tokens):
        if re.fullmatch(r"(?:19|20)\d\d", token) and (not years or int(token) == years[-1] + 1):
            years.append(int(token))
            continue
        rest = tokens[k:]
        if len(years) < 2 or not all(_TAIL.match(t) for t in rest):
            return None
        return years, len(years) + sum(1 for t in rest if _TAIL_COLUMN.match(t))
    return (years, len(years)) if len(years) >= 2 else None


def _across_columns(
    doc: DocumentView, rows: list[Row], page_ls: list[Line], subject: frozenset[str], first: int, target: int
) -> list[Candidate]:
    """The target year's amount under a header line of years from `first` on: in the row whose label names the
    subject, or in the one unlabeled row right under the header when the lead-in names the subject alone."""
    by_line = {r.line.index: r for r in rows}
    out: list[Candidate] = []
    for h, line in enumerate(page_ls):
        header = _header_years(line.text)
        if header is None or header[0][0] != first or target not in header[0]:
            continue
        years, width = header
        lead = _lead_words(page_ls, h)
        for k in range(h + 1, min(h + 1 + _ROWS_BELOW, len(page_ls))):
            row = by_line.get(k)
            if row is None or len(row.cells) != width:
                continue
            own = set(words(row.label))
            named = bool(own) and subject <= own and not own & (_OTHER_OBLIGATIONS - subject)
            unlabeled = not row.label and k == h + 1 and _names_subject(lead, subject, alone=True)
            if named or unlabeled:
                cell = row.cells[years.index(target)]
                if cell.value is not None:
                    out.append(_candidate(doc, page_ls, row, cell))
    return out


def _candidate(doc: DocumentView, page_ls: list[Line], row: Row, cell: Cell) -> Candidate:
    """The amount, in the scale declared above it or, with none, in the filing's standing scale ("Unless
    otherwise noted, dollars are in millions"), which is less sure."""
    score = SCHEDULED
    declared = declared_above(page_ls, row.line.index, row.label)
    if declared is None and (standing := doc.standing_scale(row.page)) is not None:
        declared, score = standing, round(score * STANDING_SCALE, 4)
    scale, word = declared or (None, None)
    return cell_candidate(row, cell, score, scale, word)
