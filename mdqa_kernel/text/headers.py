"""Column headers of a table row: the header lines above it, stacked, each giving a cell its group of
words ("Year Ended December 31," spanning the columns, then "2023"); `text.periods` says which period a
header names. Also the "Note" columns statements print between a label and its periods.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from mdqa_kernel.text.layout import Cell, Line, Word
from mdqa_kernel.text.period_fit import ordinal_quarter, quarter_end
from mdqa_kernel.text.periods import ReportPeriod, date_or_none, parse_period
from mdqa_kernel.text.values import declared_scale, is_number_shaped

_YEAR = re.compile(r"(?<!\d)(20\d\d|19\d\d)(?!\d)")
Group = tuple[str, float, float]  # a header line's words over one column or more: (text, x0, x1)


def column_headers(lines: list[Line], row_index: int, cells: list[Cell], max_lines: int = 60) -> list[str]:
    """The header text of each cell's column: the header lines above the row, top to bottom, each
    giving the cell its group of words ("Year Ended December 31," spanning three columns, then "2023").

    The header block is the nearest run of lines above the row that name a period over the numbers
    (rows of the same table in between are skipped), extended upwards over lines without numbers
    (a spanning "Three Months Ended June 30," or "Year Ended" above "December 31,"), up to the row
    of the table above. A group over a cell is its column label; a group that overlaps no cell goes
    to the cell nearest it when that cell has no group of its own in the line.
    """
    if not cells:
        return []
    left = min(c.x0 for c in cells) - 2
    right = max(c.x1 for c in cells) + 2
    # A header centred left of right-aligned numbers ("2015" above "3,991") may end before the first of
    # them: it is still that column's when its centre is within half a column's pitch of the cell's.
    # So may one centred over a pair of columns ("2022" over "Amount | Percent to Sales") whose row prints
    # only the first: right of the last cell, within half a pitch of its centre.
    first, last = min(cells, key=lambda c: c.x0), max(cells, key=lambda c: c.x1)
    centres = sorted(c.xc for c in cells)
    reach = min((b - a for a, b in pairwise(centres)), default=0.0) / 2

    def inside(g: Group) -> bool:
        centre = (g[1] + g[2]) / 2
        return (g[2] >= left and g[1] <= right) or min(abs(centre - first.xc), abs(centre - last.xc)) <= reach

    # each header line's groups over the row's cells, and all its groups right of the labels
    block: list[tuple[list[Group], list[Group]]] = []
    tails: list[tuple[list[Group], list[Group]]] = []  # "Quarter" under "First": lines ending a header
    for j in range(row_index - 1, max(row_index - max_lines, -1), -1):
        line_groups = _column_groups(lines[j])
        groups = [g for g in line_groups if inside(g)]
        table = [g for g in line_groups if g[1] >= left - 2 * reach]
        if block and (len(block) >= 6 or (not _names_period(groups) and _is_data_row(lines[j]))):
            break
        if not block and _running_prose(lines, j):
            break  # a paragraph above the row's table: a period header above it heads another table
        if not block and not _names_period(groups):
            if groups and all(_HEADER_TAIL.match(g[0]) for g in groups):
                tails.append((groups, table))
            elif groups or _is_data_row(lines[j]):
                tails = []  # a row of the same table, or a line of its own
            continue
        if len(lines[j].text) > 120 or _SENTENCE.match(lines[j].text.strip()) or _headline(lines[j].text):
            break  # prose above the table
        if not block:
            block.extend(tails)
        block.append((groups, table))
    texts: list[list[str]] = [[] for _ in cells]
    below: list[Group | None] = [None for _ in cells]  # each cell's group on the nearer header line
    under: list[Group] = []  # the nearer header line's groups over the table, cells of this row or not
    for groups, table in block:  # nearest line first
        chosen = (
            _regular_spans(groups, cells)
            or _title_over(groups, under, cells)
            or [_group_of(cell, cells, groups) for cell in cells]
        )
        chosen = _centred_spans(groups, chosen, below, cells)
        under = table
        for k, group in enumerate(chosen):
            if group:
                texts[k].append(group[0])
                below[k] = group
    return [_stacked(t) for t in texts]


def _centred_spans(
    groups: list[Group], chosen: list[Group | None], below: list[Group | None], cells: list[Cell]
) -> list[Group | None]:
    """A header centred over the headers of two columns or more on the line below it ("Six Months Ended"
    over "July 29, 2023 | July 30, 2022") heads each of them, even where the numbers sit right of their
    headers so that it overlaps only the first one's. The widest run of adjacent columns is taken, each
    with a header of its own below, whose first and last headers it is centred between and that no other
    group of its line heads."""
    out = list(chosen)
    order = sorted(range(len(cells)), key=lambda k: cells[k].xc)
    # a column's lower header counts only when it is its own, not one wrapped over two columns
    own = [g if g is not None and sum(b is g for b in below) == 1 else None for g in below]
    for group in groups:
        best: list[int] = []
        for i in range(len(order)):
            for j in range(i + 1, len(order)):
                run = order[i : j + 1]
                if any(own[k] is None or out[k] not in (None, group) for k in run):
                    break
                first, last = own[run[0]], own[run[-1]]
                if first and last and len(run) > len(best) and _centred_between(group, first, last):
                    best = run
        for k in best:
            out[k] = group
    return out


def _centred_between(group: Group, first: Group, last: Group, tolerance: float = 0.05) -> bool:
    """The group lies over the first and last headers' extent, centred between their centres (within
    `tolerance` of their distance)."""
    a, b = (first[1] + first[2]) / 2, (last[1] + last[2]) / 2
    inside = first[1] - 2 <= group[1] and group[2] <= last[2] + 2
    return inside and b > a and abs((group[1] + group[2]) / 2 - (a + b) / 2) <= tolerance * (b - a) + 2


# The last line of a header stacked over two ("First" / "Quarter", "Three" / "Months Ended"): it names no
# period by itself, so the lines above it are the header's start
_HEADER_TAIL = re.compile(r"^\W*(?:quarters?|qtrs?\.?|months|weeks)(?:\s+end(?:ed|ing))?\W*$", re.I)
# A fiscal year's name alone ("Fiscal 2023", "2023", "Fiscal Year 2023:"), heading a table's quarters
_YEAR_HEADING = re.compile(r"^\W*(?:fiscal\s+(?:year\s+)?|fy\s*)?((?:19|20)\d\d)\s*:?$", re.I)
_YEAR_LOOKUP = 30  # lines above a row searched for the year heading its block of quarters


def with_year_heading(
    headers: list[str],
    lines: list[Line],
    row_index: int,
    cells: list[Cell],
    report: ReportPeriod | None = None,
) -> list[str]:
    """Quarter headers that name no year ("First Quarter … Fourth Quarter", "Quarter Ended September 30 …
    June 30") under a year's heading ("Fiscal 2023" left of the header, or heading the table's block of
    rows): that year's quarters. Each year of a quarterly-data table is often a block of its own below one
    header; without its heading the quarters' year is unknown and they are read for no period. A quarter
    named by its end's month and day is dated within the fiscal year as the report's own year closes
    (`report`): "September 30" of a fiscal 2016 that closes on June 30 is September 30, 2015."""
    periods = [parse_period(h) for h in headers]
    bare = [p.quarter is not None and p.year is None and p.end is None for p in periods]
    undated = [p.month_day is not None and p.year is None and not p.change for p in periods]
    if not any(bare) and not (report is not None and any(undated)):
        return headers
    year = _year_heading(lines, row_index, min((c.x0 for c in cells), default=0.0))
    if not year:
        return headers
    out = []
    for h, p, b, u in zip(headers, periods, bare, undated, strict=True):
        dated = _calendar_year(p.month_day, int(year), report) if u and p.month_day and report else None
        out.append(f"Fiscal {year} {h}" if b else f"{dated} {h}" if dated is not None else h)
    return out


# Days a quarter's printed end may fall after the fiscal year's close shifted to another year: a 52/53-week
# year closes on a weekday, a few days apart from year to year
_CLOSE_DRIFT = dt.timedelta(days=7)


def _calendar_year(month_day: tuple[int, int], fiscal_year: int, report: ReportPeriod) -> int | None:
    """The calendar year of a month and day in `fiscal_year`, the fiscal year closing as the report's own
    does (the report's year and close date say how the filer names its years); None when either is unknown."""
    if report.end is None or report.year is None:
        return None
    close = quarter_end(report.end, fiscal_year - report.year, 0)
    day = _date(close.year, *month_day)
    if day is None:
        return None
    return close.year if day <= close + _CLOSE_DRIFT else close.year - 1


def _date(year: int, month: int, day: int) -> dt.date | None:
    """The date, a February 29 of a common year as February 28; None for no such month or day."""
    if month == 2 and day == 29 and not calendar.isleap(year):
        day = 28
    return date_or_none(year, month, day)


def _year_heading(lines: list[Line], row_index: int, left: float) -> str:
    """The nearest year named alone left of a row's cells on a line above it without numbers (a row
    labelled "Fiscal 2023" names its own period, not the block's), up to the table's header line."""
    for j in range(row_index - 1, max(row_index - _YEAR_LOOKUP, -1), -1):
        groups = _column_groups(lines[j])
        heading = not _is_data_row(lines[j])
        if heading and groups and groups[0][2] < left - 6 and (m := _YEAR_HEADING.match(groups[0][0])):
            return m.group(1)
        if _names_period([g for g in groups if g[1] >= left - 6]):
            return ""  # the header line, with no year left of it
    return ""


def basis_headers(lines: list[Line], row_index: int, cells: list[Cell], max_lines: int = 40) -> list[str]:
    """The words over each cell on the header lines below a table's period header that name no period:
    "As Previously Reported | Adjustment | As Restated" under "Year ended December 31, 2021", "GAAP |
    Restructuring | Non-GAAP" under a year. `column_headers` leaves them out (they place no period); they
    say which of one period's cells is the figure reported (`text.basis`). Rows of the table between them
    and the row are skipped, and so is a line of one group (a section label)."""
    texts: list[list[str]] = [[] for _ in cells]
    for j in range(row_index - 1, max(row_index - max_lines, -1), -1):
        if _running_prose(lines, j):
            break  # a paragraph above the row's table
        groups = _column_groups(lines[j])
        if _is_data_row(lines[j]) or _year_row(groups):
            if _names_period(groups[1:]):
                break
            continue  # a row of the table, its label dated or not ("Outstanding at February 3, 2018 | 3,069,000")
        if _names_period(groups):
            break
        if len(groups) < 2:
            continue
        for k, cell in enumerate(cells):
            if text := _group_over(cell, cells, groups):
                texts[k].append(text)
    return [" ".join(reversed(t)) for t in texts]


def spanning_headers(lines: list[Line], row_index: int, cells: list[Cell], max_lines: int = 40) -> list[str]:
    """The words over each cell on the line above a table's period header that heads runs of columns, one
    group to each run of as many columns ("Pension Benefits | Other Benefits" over "2017 2016 2017 2016"),
    each group over its own run only, wherever in the run it is set; "" for every cell when that line is
    not such. `column_headers` gives a group only to the cells it is set over or centred between."""
    blank = ["" for _ in cells]
    left = min((c.x0 for c in cells), default=0.0) - 2
    for j in range(row_index - 1, max(row_index - max_lines, 0), -1):
        if _running_prose(lines, j):
            return blank
        # the period header is over the figures ("Year Ended December 31, | 2023 | 2022 …"): a block heading left
        # of them ("Change in plan assets") is not, nor is a row of figures
        if _names_period([g for g in _column_groups(lines[j]) if g[2] >= left]):
            return _runs_headed(lines[j - 1], cells) or blank
    return blank


def _runs_headed(line: Line, cells: list[Cell]) -> list[str] | None:
    """Each cell's group when the line's k groups right of the labels head k runs of n/k adjacent cells, each
    group overlapping its own run's extent and no other's. None when the line is not that."""
    n = len(cells)
    ordered = sorted(range(n), key=lambda k: cells[k].xc)
    groups = sorted((g for g in _column_groups(line) if g[2] >= min(c.x0 for c in cells)), key=lambda g: g[1])
    k = len(groups)
    if k < 2 or n % k or any(_names_period([g]) for g in groups):
        return None
    m = n // k
    runs = [ordered[i * m : (i + 1) * m] for i in range(k)]
    extents = [(min(cells[c].x0 for c in run), max(cells[c].x1 for c in run)) for run in runs]
    out = ["" for _ in cells]
    for i, (text, x0, x1) in enumerate(groups):
        hit = [r for r, (a, b) in enumerate(extents) if x0 <= b + 2 and a - 2 <= x1]
        if hit != [i]:
            return None
        for c in runs[i]:
            out[c] = text
    return out


def _regular_spans(groups: list[Group], cells: list[Cell]) -> list[Group | None] | None:
    """ "2018" and "2017" each centred over four quarter columns ("4th 3rd 2nd 1st" below): k period
    headers over n = k·m cells, the i-th over the i-th run of m cells. None when the line is not that."""
    n, k = len(cells), len(groups)
    if k == 1 and n >= 3:
        return _title_span(groups[0], cells)
    if k < 2 or k >= n or n % k or not all(parse_period(g[0]).named for g in groups):
        return None
    m = n // k
    ordered = sorted(cells, key=lambda c: c.xc)
    out = {}
    for i, g in enumerate(sorted(groups, key=lambda g: g[1])):
        run = ordered[i * m : (i + 1) * m]
        if not run[0].x1 < (g[1] + g[2]) / 2 < run[-1].x0:
            return None  # over one of its cells ("2023" over "Shares | Amount"), not centred across them
        out.update({id(c): g for c in run})
    return [out[id(c)] for c in cells]


def _title_over(groups: list[Group], under: list[Group], cells: list[Cell]) -> list[Group | None] | None:
    """ "TWELVE MONTHS" alone on its line, centred over the headers of the whole table on the line below
    ("2022 | 2021 | Percent Increase (Decrease)"), heads every column, also of a row that prints figures
    under some of them only ("Effective tax rate 17.4 % 8.3 %"). None when the line is not that."""
    if len(groups) != 1 or len(under) < 2 or not parse_period(groups[0][0]).named:
        return None
    # the title is set over the line's extent, not its centres: a wider tolerance than a span's
    if not _centred_between(groups[0], under[0], under[-1], tolerance=0.1):
        return None
    return [groups[0] for _ in cells]


def _title_span(group: Group, cells: list[Cell]) -> list[Group | None] | None:
    """ "SECOND QUARTER" alone on its line, centred over a whole block of columns ("2023 | % | 2022 | % |
    change"): it heads every one of them, not only the column it happens to overlap. None when the line
    is not that (a title off the block's centre, or one over no cell at all)."""
    text, x0, x1 = group
    if not parse_period(text).named:
        return None
    ordered = sorted(cells, key=lambda c: c.xc)
    lo, hi = ordered[0].x0, ordered[-1].x1
    centre = (x0 + x1) / 2
    if not ordered[0].x1 < centre < ordered[-1].x0 or abs(centre - (lo + hi) / 2) > 0.1 * (hi - lo):
        return None
    if not _over(cells, group):
        return None  # in a gap between columns: a column of its own whose row cell is blank
    return [group for _ in cells]


def _stacked(parts: list[str]) -> str:
    """A column's header texts (nearest first) joined top to bottom, up to the first that would name
    another period than the lines below it ("… 2023" above "2023  2022" is a title's, not a column's).
    A change above a sub-column that names no period ("% Change" over "Operational") is its header."""
    text = ""
    for part in parts:
        joined = f"{part} {text}".strip()
        below = parse_period(text)
        if text and below.named and parse_period(joined).change and not below.change:
            break
        text = joined
    return text


def _names_period(groups: list[Group]) -> bool:
    # "4th 3rd 2nd 1st" over a quarterly-data note's columns: the quarters, the year on the line above
    if len({q for g in groups if (q := ordinal_quarter(g[0])) is not None}) >= 2:
        return True
    # a number that is not a bare year ("1,234", "2019.5") is a row's cell, never a header
    return any(
        len(g[0]) <= 60
        and not (is_number_shaped(g[0]) and not _YEAR.fullmatch(g[0]))
        and _header_period(g[0])
        for g in groups
    )


def _header_period(text: str) -> bool:
    period = parse_period(text)
    if period.month_day is not None and not replace(period, month_day=None).named:
        return len(text) <= 12  # "Dec. 26" heads a column; "Balance at March 31" labels a row
    return period.named


# A sentence of prose ("All quarters of 2015 consisted of 13 weeks.") or one leading in to the table ("The
# following table summarizes our contractual obligations at December 31, 2023:"): above a table, never its header
_SENTENCE = re.compile(r"^(?:\S+\s+){7,}\S*[\w)\]][.:]$")
_AMOUNT = re.compile(r"\d%|[$€£¥]\s?\d")


# The last line of a paragraph: a sentence closed by a full stop, of many words ("… based on our stated dividend
# policy.") or ending running text wrapped from a long line above ("… our historical" / "experience."); or a
# table's lead-in sentence (`_LEADS_IN`)
_PROSE_LINE = 100


# A sentence leading in to a table: it has a verb ("… were as follows:", "… were (in millions):"); a heading
# inside the table ("Cash paid for amounts included in the measurement of lease liabilities:") has none
_LEADS_IN = re.compile(r"\b(?:is|are|was|were|as\s+follows|the\s+following)\b[^:]*:$", re.I)


def _year_row(groups: list[Group]) -> bool:
    """A maturity table's row labelled by its year ("2024 | 53 | 7"): a bare year, then numbers only."""
    return (
        len(groups) >= 2
        and _YEAR.fullmatch(groups[0][0]) is not None
        and all(is_number_shaped(g[0].lstrip("$€£¥ ")) or g[0] in "$€£¥" for g in groups[1:])
        and not any(_YEAR.fullmatch(g[0]) for g in groups[1:])
    )


def _running_prose(lines: list[Line], j: int) -> bool:
    text = lines[j].text.strip()
    if len(lines[j].split()[1]) > 1:
        return False
    if text.endswith(":"):
        return bool(_SENTENCE.match(text) and _LEADS_IN.search(text))
    if not text.endswith("."):
        return False
    above = lines[j - 1] if j > 0 else None
    wrapped = above is not None and len(above.text.strip()) > _PROSE_LINE and len(above.split()[1]) <= 1
    return bool(_SENTENCE.match(text)) or wrapped


def _headline(text: str) -> bool:
    """A release's headline ("2022 Fourth-Quarter reported sales decline of 4.4% to $23.7 Billion"): seven
    words or more with an amount in them is prose; a column header names no amount."""
    return len(text.split()) >= 7 and bool(_AMOUNT.search(text))


def _group_over(cell: Cell, cells: list[Cell], groups: list[Group]) -> str:
    """The text of the group of a header line that labels a cell's column ("" when none does)."""
    group = _group_of(cell, cells, groups)
    return group[0] if group else ""


def _group_of(cell: Cell, cells: list[Cell], groups: list[Group]) -> Group | None:
    """The group of a header line that labels a cell's column (None when none does).

    A group over the cell is its label. A group wider than the columns' pitch spans columns ("Three
    Months Ended June 30," over two, "Year Ended December 31," over three, centred so that it may
    overlap none of the outer ones): the cell takes the nearest one within a pitch. A narrow group over
    no cell (a wrapped fragment) goes to its nearest cell when that one has no group of its own."""
    if not groups:
        return None
    centres = sorted(c.xc for c in cells)
    pitch = min((b - a for a, b in pairwise(centres)), default=float("inf"))
    over = [g for g in groups if g[1] - 2 <= cell.x1 and cell.x0 - 2 <= g[2]]
    wide = [g for g in groups if g[2] - g[1] >= 0.9 * pitch]
    if over:
        group = min(over, key=lambda g: abs((g[1] + g[2]) / 2 - cell.xc))
    elif wide and min(_gap(g, cell) for g in wide) <= pitch:
        group = min(wide, key=lambda g: _gap(g, cell))
    else:
        return next((g for g in groups if _nearest_cell(g, cells) is cell and not _over(cells, g)), None)
    if len(cells) > 1 and len(_over(cells, group)) > 1 and len(set(_YEAR.findall(group[0]))) > 1:
        return None  # a caption over several columns ("For the years ended … 2023, 2022 and 2021")
    return group


def _gap(group: Group, cell: Cell) -> float:
    return max(group[1] - cell.x1, cell.x0 - group[2], 0.0)


def _over(cells: Sequence[Cell], group: Group) -> list[Cell]:
    return [c for c in cells if group[1] - 2 <= c.x1 and c.x0 - 2 <= group[2]]


def _nearest_cell(group: Group, cells: Sequence[Cell]) -> Cell:
    xc = (group[1] + group[2]) / 2
    return min(cells, key=lambda c: abs(c.xc - xc))


_NOTE_HEADER = re.compile(r"^(?:notes?|note\s*no\.?|notes?\s*ref\.?|schedule|附注|注释)$", re.IGNORECASE)


def note_columns(lines: list[Line], row_index: int, max_lines: int = 40) -> list[tuple[float, float]]:
    """The x-extents of "Note" column headers above a row (statements print a column of note numbers
    between the label and the periods: "Revenue   4   1,234   1,100"); the nearest header line only."""
    for j in range(row_index - 1, max(row_index - max_lines, -1), -1):
        found = [
            (min(w.x0 for w in group), max(w.x1 for w in group))
            for group in _word_groups(lines[j])
            if _NOTE_HEADER.match(unicodedata.normalize("NFKC", " ".join(w.text for w in group)).strip())
        ]
        if found:
            return found
    return []


def scale_of_other_columns(line: Line, cell: Cell, cells: Sequence[Cell]) -> bool:
    """A header line whose scale words head other columns of the row only ("Aggregate Intrinsic Value (in
    millions)" beside "Stock Options"): that column's unit, not the cell's."""
    groups = _column_groups(line)
    declaring = [g for g in groups if declared_scale(g[0])]
    if len(groups) < 2 or not declaring or not cells:
        return False
    start = min(c.x0 for c in cells)
    if any(g[2] < start and not _over(cells, g) for g in groups):
        return False  # words left of the values: a caption line ("编制单位：… 单位：万元"), the whole table's scale
    return all(
        g[1] >= start and not _over([cell], g) and _nearest_cell(g, cells).x0 != cell.x0 for g in declaring
    )


def _is_data_row(line: Line) -> bool:
    label, cells, _units = line.split()
    return bool(label) and len(cells) >= 2


def _column_groups(line: Line) -> list[Group]:
    """Words of a header line grouped into column labels (a gap wider than ~1.5 characters splits):
    (text, x0, x1)."""
    return [(" ".join(w.text for w in g), g[0].x0, g[-1].x1) for g in _word_groups(line)]


def _word_groups(line: Line) -> list[list[Word]]:
    groups: list[list[Word]] = []
    for w in line.words:
        if groups:
            last = groups[-1][-1]
            char_w = (last.x1 - last.x0) / max(len(last.text), 1)
            if w.x0 - last.x1 <= 1.5 * char_w + 1 and not _next_column(last.text, w.text):
                groups[-1].append(w)
                continue
        groups.append([w])
    return groups


_YEAR_END = re.compile(r"(?:19|20)\d\d[,.;:)]?")
_COLUMN_START = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?|\(?(?:19|20)\d\d[,.;:)]?", re.I
)


def _next_column(last: str, word: str) -> bool:
    """A year followed by a month or another year starts the next column's header, however close the
    columns are printed ("August 12, 2023 August 13, 2022"): a caption runs "2023 and 2022"."""
    return bool(_YEAR_END.fullmatch(last) and _COLUMN_START.fullmatch(word))
