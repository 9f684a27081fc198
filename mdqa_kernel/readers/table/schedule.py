"""Amounts falling due in a fiscal year after the report, read from a schedule of future years, for a field
asking one ("Principal of debt maturing in the first fiscal year after the report").

A schedule prints the years after the report either down its rows ("2024 | $ 5,250", "2025 | 2,250", …,
"Thereafter", "Total") or across its columns ("2023 2024 2025 2026 2027 After 2026" over one line of amounts,
or over rows such as "Debt" and "Minimum finance lease obligations"). The lines just above it must name what
falls due (the field's subject: "maturities of long-term debt"); the years must run one by one from the year
after the report's, so a schedule of another report's years, or of past years, is never read. A year's amount
is placed by the year printed with it, never by position alone.

A field asking a schedule's total ("Total undiscounted future operating lease payments") at the report's own year
end is read from the "Total" row that closes such a run of years down the rows, and only when that total is
the sum of the years' amounts and the "Thereafter" amount printed above it.

A sentence may state the schedule ("The scheduled maturity of Long-term debt in each of the years ending May 31,
2020 through 2024 are $6 million, $3 million, $0 million, $500 million and $0 million, respectively"): read when
it names the subject and a due word before its years, the years run from the one after the report's, and it
lists one amount per year.

Not read: a schedule whose lead-in names another obligation beside the subject (lease, purchase, pension,
interest) unless a row's own label names the subject alone; a column list whose amounts do not match its
headers one for one; a year that is not in the schedule.
"""

from __future__ import annotations

import re

from mdqa_kernel.readers.base import DocumentView
from mdqa_kernel.readers.confidence import STANDING_SCALE
from mdqa_kernel.readers.table.arithmetic import sums_to
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.columns import cell_candidate, page_rows
from mdqa_kernel.readers.table.prose import MONEY, document_windows, money_candidate
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
# Names of the same obligation: a schedule of "rental commitments under operating leases" is one of leases
_SAME_OBLIGATION = {"lease": frozenset({"rent", "rental"})}
# Words that ask a schedule's total rather than one year's amount, and are no part of its subject
_TOTAL_WORDS = frozenset({"total", "undiscounted", "minimum", "gross"})
_TOTAL_ASKED = frozenset({"future", "undiscounted", "maturity", "maturing", "scheduled"})
# The row after a schedule's years that holds the later years' amount: "Thereafter", "2028 and beyond"
_LATER = re.compile(
    r"^(?:thereafter|later\s+years|after\s+(?:19|20)\d\d|(?:(?:19|20)\d\d\s+and\s+)?(?:beyond|thereafter|after))$",
    re.I,
)
_YEAR = re.compile(r"^(?:fiscal\s+(?:year\s+)?|fy\s*)?(?P<y>(?:19|20)\d\d)$", re.I)
# What may follow a header's years: "Thereafter", "After 2026", "Later years", "Total"
_TAIL = re.compile(r"^(?:thereafter|after|beyond|later|years|total|and|(?:19|20)\d\d)$", re.I)
_TAIL_COLUMN = re.compile(r"^(?:thereafter|after|beyond|later|total)$", re.I)
# A sentence's end inside a line: "respectively. Future …" (not "U.S. and")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)%])\.\s+(?=[A-Z])")
_ALNUM = re.compile(r"\w")
# A heading in capitals ("NOTE 8 — GOODWILL AND INTANGIBLE ASSETS"): no part of the sentence under it
_HEADING = re.compile(r"^(?=.*[A-Z]{2})[^a-z]+$")
_LEAD_LINES = 4  # lines above a schedule read for its lead-in, captions and headers
_ROWS_BELOW = 4  # lines below a header of years searched for its rows of amounts
_HEADER_LINES = 2  # header lines above a schedule's first row that name its amount columns


def schedule_amounts(
    doc: DocumentView, description: str, lines: dict[int, list[Line]], want: Period, report: ReportPeriod
) -> list[Candidate]:
    """The amounts of the asked future fiscal year, or the asked total, in schedules whose lead-in names the
    field's subject."""
    if report.year is None or report.quarterly or not is_english(description) or want.year is not None:
        return []
    if want.offset is not None and want.offset >= 1:
        return _year_amounts(doc, description, lines, report.year, report.year + want.offset)
    if want.offset in (None, 0) and _asks_total(description):
        return _totals(doc, description, lines, report.year)
    return []


def _year_amounts(
    doc: DocumentView, description: str, lines: dict[int, list[Line]], year: int, target: int
) -> list[Candidate]:
    """The target year's amounts, in schedules down the rows or across the columns."""
    subject = _subject(description)
    if not subject:
        return []
    out: list[Candidate] = []
    for page, page_ls in lines.items():
        rows = page_rows(doc, page, page_ls)
        out += _down_rows(doc, rows, page_ls, subject, year + 1, target)
        out += _across_columns(doc, rows, page_ls, subject, year + 1, target)
    return out + _stated_years(doc, lines, subject, year + 1, target)


# "… in each of the years ending May 31, 2020 through 2024 are $6 million, $3 million, … and $0 million": a run of
# years, then one amount per year
_YEARS_LISTED = re.compile(
    r"(?P<y1>(?:19|20)\d\d)\s+(?:through|to|[-–])\s+(?P<y2>(?:19|20)\d\d)\s*,?\s+(?:are|were|is|will\s+be|total|of)"
    r"\s+(?:approximately\s+)?(?P<amounts>\$[^;:]*?)(?:,?\s+respectively|(?=[.;]\s)|[.;]?$)",
    re.I,
)
_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
_STATED_LOOKBACK = 160  # characters before a sentence's years searched for its subject and due word


def _stated_years(
    doc: DocumentView, lines: dict[int, list[Line]], subject: frozenset[str], first: int, target: int
) -> list[Candidate]:
    """The target year's amount in a sentence listing the amounts due in each year from the one after the
    report's (one amount per year, the subject and a due word named before the years)."""
    out: list[Candidate] = []
    for w in document_windows(doc, lines):
        for m in _YEARS_LISTED.finditer(w.text):
            if m.start() >= w.first_len:
                break  # starts on the next line: read with that line
            y1, y2 = int(m["y1"]), int(m["y2"])
            amounts = [a for a in _LIST_SPLIT.split(m["amounts"].strip().rstrip(",")) if a]
            parsed = [hit for a in amounts if (hit := MONEY.fullmatch(a))]
            if (
                y1 != first
                or not y1 <= target <= y2
                or len(parsed) != len(amounts)
                or len(parsed) != y2 - y1 + 1
            ):
                continue
            head = _SENTENCE_END.split((w.before + " " + w.text[: m.start()])[-_STATED_LOOKBACK:])[-1]
            said = set(words(head))
            if not _names_subject(said, subject, alone=True) or not said & _DUE_WORDS:
                continue
            out.append(money_candidate("table", w.page, parsed[target - y1], w.used(m.end()), SCHEDULED))
    return out


def _asks_total(description: str) -> bool:
    """The description's line item is a schedule's total: "Total undiscounted future … payments"."""
    heads = description_heads(description)
    head = set(words(heads[0])) if heads else set()
    return "total" in head and bool(head & _TOTAL_ASKED)


def _totals(doc: DocumentView, description: str, lines: dict[int, list[Line]], year: int) -> list[Candidate]:
    """The "Total" row closing a schedule of the years after the report's, when it adds up its rows."""
    subject = _subject(description) - _TOTAL_WORDS
    if not subject:
        return []
    out: list[Candidate] = []
    for page, page_ls in lines.items():
        rows = page_rows(doc, page, page_ls)
        by_line = {r.line.index: r for r in rows}
        for run in _year_runs(rows, year + 1):
            column = _subject_column(page_ls, run, subject)
            if column is None:
                continue
            cells = [amounts[column] for _, amounts, _ in run]
            closing = _closing_total(by_line, run[-1][2].line.index, column, cells)
            if closing is not None:
                out.append(_candidate(doc, page_ls, *closing))
    return out


def _closing_total(
    by_line: dict[int, Row], last: int, column: int, cells: list[Cell]
) -> tuple[Row, Cell] | None:
    """The amount in the subject's column of a "Total" row right under a schedule's years (after its
    "Thereafter" row, if any) that equals their sum, to the rounding of the printed amounts."""
    width = len(by_line[last].cells) - (0 if by_line[last].label else 1)
    k = last + 1
    later = by_line.get(k)
    if later is not None and len(later.cells) == width and _LATER.match(" ".join(later.label.split())):
        cells, k = [*cells, later.cells[column]], k + 1
    total = by_line.get(k)
    if total is None or len(total.cells) != width or words(total.label)[:1] != ["total"]:
        return None
    amount = total.cells[column]
    if amount.value is None or any(c.value is None for c in cells):
        return None
    parts = [c.value for c in cells if c.value is not None]
    return (total, amount) if sums_to(amount.value, parts, [*cells, amount]) else None


def _subject(description: str) -> frozenset[str]:
    """The words of the description's line item that say what falls due ("debt"), without its due words."""
    heads = description_heads(description)
    return frozenset(words(heads[0])) - _DUE_WORDS if heads else frozenset()


def lead_words(page_ls: list[Line], index: int) -> set[str]:
    """The words of the few lines above a schedule back to its lead-in sentence (headers, scale caption, the
    sentence ending "… are as follows:", from its start); a sentence ended further up is about something else.
    Unlike `row_context.lead_in` (the sentence alone), the headers count: "Operating Leases" over the amounts is
    another obligation."""
    out: set[str] = set()
    for j in range(index - 1, max(-1, index - 1 - _LEAD_LINES), -1):
        text = page_ls[j].text.strip()
        if text.endswith(".") and j < index - 1:
            break  # the paragraph before the lead-in ("… a weighted average interest rate of 4.1%.")
        if text.endswith(":"):
            return out | _sentence_words(page_ls, j)
        out |= set(words(text))
    return out


def _sentence_words(page_ls: list[Line], last: int) -> set[str]:
    """The words of the sentence that ends on line `last`, back to where it starts: after a line that ends a
    sentence, or after the last sentence end inside a line ("… respectively. Future minimum rental …")."""
    out: set[str] = set()
    for j in range(last, max(-1, last - _LEAD_LINES), -1):
        text = page_ls[j].text.strip()
        if j < last and (text.endswith(".") or len(page_ls[j].gap_groups) > 1 or _HEADING.match(text)):
            break  # the sentence before, a table row ("Weighted-average discount rate   5.4 %"), a heading
        ends = list(_SENTENCE_END.finditer(text))
        out |= set(words(text[ends[-1].end() :] if ends else text))
        if ends:
            break
    return out


def _names_subject(lead: set[str], subject: frozenset[str], alone: bool) -> bool:
    """The lead-in names the subject (`alone`: and no other obligation whose amounts a column could add)."""
    return subject <= lead and not (alone and lead & (_OTHER_OBLIGATIONS - _own_names(subject)))


def _own_names(subject: frozenset[str]) -> frozenset[str]:
    """The subject's words and the other names of the obligations among them ("lease": "rent", "rental")."""
    return subject.union(*(_SAME_OBLIGATION.get(w, frozenset()) for w in subject))


# One row of a schedule down the rows: its year, its amount cells (one per obligation column), the row
YearRow = tuple[int, list[Cell], Row]


def _row_year(row: Row) -> tuple[int, list[Cell]] | None:
    """A schedule row's year and its amounts: "2024 | 5,250 | 797" (the year read as a cell) or "Fiscal 2024 | …"."""
    if not row.label and len(row.cells) >= 2 and (m := _YEAR.match(row.cells[0].text.strip())):
        amounts = row.cells[1:]
    elif row.label and row.cells and (m := _YEAR.match(row.label.strip())):
        amounts = row.cells
    else:
        return None
    return int(m.group("y")), amounts


def _year_runs(rows: list[Row], first: int) -> list[list[YearRow]]:
    """Runs of rows on successive lines, each printing the year after the one above and as many amounts, that
    start at `first`."""
    runs: list[list[YearRow]] = []
    run: list[YearRow] = []
    for row in rows:
        got = _row_year(row)
        here: YearRow | None = (*got, row) if got else None
        if here and run and _follows(run[-1], here):
            run.append(here)
            continue
        runs += [run] if len(run) >= 2 and run[0][0] == first else []
        run = [here] if here else []
    return runs + ([run] if len(run) >= 2 and run[0][0] == first else [])


def _follows(above: YearRow, row: YearRow) -> bool:
    """The row is the next line of the schedule: the next year, as many amounts."""
    return (
        row[0] == above[0] + 1
        and len(row[1]) == len(above[1])
        and row[2].line.index == above[2].line.index + 1
    )


def _subject_column(page_ls: list[Line], run: list[YearRow], subject: frozenset[str]) -> int | None:
    """Which amount column of a schedule down the rows is the subject's: its one column under a lead-in that
    names the subject alone, or the one column whose header names it ("Operating Leases" beside "Finance
    Leases"); None when neither."""
    start = run[0][2].line.index
    lead = lead_words(page_ls, start)
    width = len(run[0][1])
    if width == 1:
        return 0 if _names_subject(lead, subject, alone=True) else None
    if not _names_subject(lead, subject, alone=False):
        return None
    names = _column_names(page_ls, run[0][2], run[0][1])
    naming = [k for k, name in enumerate(names) if subject <= _own_names(frozenset(name))]
    return naming[0] if len(naming) == 1 else None


def _column_names(page_ls: list[Line], first: Row, cells: list[Cell]) -> list[set[str]]:
    """The words of the header lines right above a schedule's first row, each given to the amount column (of
    the row's amount `cells`) whose center is nearest; words over the years' column (left of the middle between
    the year and the first amount, currency signs aside) are no column's name."""
    start = first.line.index
    left = max((w.x1 for w in first.line.words if w.x1 <= cells[0].x0 and _ALNUM.search(w.text)), default=0.0)
    edge = (left + cells[0].x0) / 2
    names: list[set[str]] = [set() for _ in cells]
    for j in range(start - 1, max(-1, start - 1 - _HEADER_LINES), -1):
        text = page_ls[j].text.strip()
        if text.endswith((".", ":")):
            break
        for w in page_ls[j].words:
            if w.xc > edge:
                k = min(range(len(cells)), key=lambda i: abs((cells[i].x0 + cells[i].x1) / 2 - w.xc))
                names[k] |= set(words(w.text))
    return names


def _down_rows(
    doc: DocumentView, rows: list[Row], page_ls: list[Line], subject: frozenset[str], first: int, target: int
) -> list[Candidate]:
    """The target year's amount in the subject's column of a run of years down the rows from `first` on."""
    out: list[Candidate] = []
    for run in _year_runs(rows, first):
        column = _subject_column(page_ls, run, subject)
        if column is not None:
            out += [
                _candidate(doc, page_ls, r, cells[column])
                for year, cells, r in run
                if year == target and cells[column].value is not None
            ]
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
        lead = lead_words(page_ls, h)
        for k in range(h + 1, min(h + 1 + _ROWS_BELOW, len(page_ls))):
            row = by_line.get(k)
            if row is None or len(row.cells) != width:
                continue
            own = set(words(row.label))
            named = bool(own) and subject <= own and not own & (_OTHER_OBLIGATIONS - _own_names(subject))
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
