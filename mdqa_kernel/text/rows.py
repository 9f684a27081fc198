"""Table rows of a page: a label and its value cells, wrapped numbers joined with their tails.

A cell whose digits are cut by a wrap ("7,176,243," then "743.45" below) is joined with the fragment
under it; a line holding only percentages between two columns of a row joins that row; label fragments on
lines without numbers go to the nearest row. Lines and cells come from `text.layout`.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass, field
from itertools import pairwise

from mdqa_kernel.text.language import has_cjk
from mdqa_kernel.text.layout import Cell, Line, Word, is_year_word
from mdqa_kernel.text.values import is_scale_caption, is_valid_grouping


@dataclass
class Row:
    page: int
    line: Line
    label: str  # own label words
    extended_label: str  # with label fragments wrapped onto the lines above/below
    cells: list[Cell]
    snippet: str
    variants: list[str] = field(default_factory=list)


def _overlaps(a: Word | Cell, b: Word | Cell, slack: float = 2.0) -> bool:
    return a.x0 - slack <= b.x1 and b.x0 - slack <= a.x1


def _incomplete(text: str) -> bool:
    t = unicodedata.normalize("NFKC", text)
    return t.endswith(",") or not is_valid_grouping(t)


def _join_wraps(
    cell_words: list[Word], units: dict[int, str], below: list[Line]
) -> tuple[list[Cell], set[int]]:
    """Cells of a row with their wrapped tails joined; also the ids of the words consumed below."""
    cells: list[Cell] = []
    used: set[int] = set()
    for w in cell_words:
        cell = Cell(w.text, [w], units.get(id(w)))
        if cell.absent:
            cells.append(cell)
            continue
        for line in below[:2]:
            incomplete = _incomplete(cell.text)
            if not (incomplete or _starts_continuation(line, cell)):
                # a line with nothing in this column (a YoY cell centred between two others) may sit
                # between a whole-looking head ("2,352,826") and its tail (",955.66")
                if any(_overlaps(x, cell) for x in line.words):
                    break
                continue
            # a whole number continues only with its "," or "." fragment: never with a year or a count
            # of the sentence below it ("… January 31, 2015 , respectively")
            tail = next(
                (
                    x
                    for x in line.words
                    if x.numeric
                    and id(x) not in used
                    and _overlaps(x, cell)
                    and (incomplete or _CONTINUATION.match(x.text))
                ),
                None,
            )
            if tail is None:
                continue  # a vertically centred cell of another column may sit between the fragments
            joined = cell.text + tail.text
            if not is_valid_grouping(joined):
                break
            cell = Cell(joined, [*cell.words, tail], cell.unit)
            used.add(id(tail))
        cells.append(cell)
    return cells, used


_CONTINUATION = re.compile(r"^[,.]\d")
_HEADING_LINE = re.compile(r"^\s*[A-Z][^:]*:\s*$")


def _starts_continuation(line: Line, cell: Cell) -> bool:
    # A fragment that begins with "," or "." ("2,352,826" / ",955.66") continues the cell above it; a
    # sentence's comma under the cell does not.
    return any(_CONTINUATION.match(x.text) and _overlaps(x, cell) for x in line.words)


def table_rows(lines: list[Line]) -> list[Row]:
    """Every label + numbers row of a page.

    Wrapped numbers are joined with their tails; a line holding only percentages between two columns
    of a row (a vertically centred "YoY" cell) joins that row; label fragments on lines without
    numbers ("归属于上市" / "公司股东的" / "净利润（元）") go to the nearest row vertically.
    """
    heights = [ln.bottom - ln.top for ln in lines] or [10.0]
    gap_limit = 1.6 * statistics.median(heights)
    entries = _row_entries(lines, gap_limit)
    entries = _merge_satellites(entries, lines, gap_limit)
    _assign_label_fragments(entries, lines, gap_limit)
    rows = []
    for e in entries:
        line = lines[e.index]
        parts = e.parts()
        own = _join_label(e.label_words)
        snippet = " ".join(lines[j].text for j in sorted({e.index, *e.members}))
        # a capitalised line ending in a colon below the row ("Basic earnings per share:") heads the rows
        # below it: never the row's own name
        headings = {t for _, t in e.below if own and _HEADING_LINE.match(t)}
        own_at = len(e.above) if own else None
        variants = [v for v in _variants(parts, own_at) if v not in headings]
        rows.append(Row(line.page, line, own, _join_parts(parts), e.cells, snippet, variants))
    return rows


@dataclass
class _Entry:
    index: int
    cells: list[Cell]
    label_words: list[Word]
    members: set[int] = field(default_factory=set)  # continuation / satellite lines
    above: list[tuple[int, str]] = field(default_factory=list)
    below: list[tuple[int, str]] = field(default_factory=list)

    @property
    def first_x(self) -> float:
        return min(c.x0 for c in self.cells)

    def band(self, lines: list[Line]) -> tuple[float, float]:
        idx = [self.index, *self.members]
        return min(lines[j].top for j in idx), max(lines[j].bottom for j in idx)

    def parts(self) -> list[str]:
        own = _join_label(self.label_words)
        return (
            [t for _, t in sorted(self.above)] + ([own] if own else []) + [t for _, t in sorted(self.below)]
        )


def _join_label(words: list[Word]) -> str:
    return "".join(w.text for w in words) if _is_cjk(words) else " ".join(w.text for w in words)


def _row_entries(lines: list[Line], gap_limit: float) -> list[_Entry]:
    entries: list[_Entry] = []
    consumed: set[int] = set()
    for i, line in enumerate(lines):
        if _page_number(lines, i, gap_limit):
            continue
        label_words, cell_words, units = line.split()
        fresh = [w for w in cell_words if id(w) not in consumed]
        if _years_only(fresh):
            continue  # a header of years ("2023 2022"), not a row of values
        if not any(w.numeric for w in fresh) and (len(fresh) < len(cell_words) or not label_words):
            fresh = []  # only dashes beside the wrapped tails of a row above, or without a label
        if not fresh:
            if cell_words:
                entry = next((e for e in reversed(entries) if i in e.members), None)
                if entry is not None and label_words:
                    entry.below.append((i, _join_label(label_words)))
            continue
        below = [ln for ln in lines[i + 1 : i + 3] if ln.top - line.bottom < 2 * gap_limit]
        cells, used = _join_wraps(fresh, units, below)
        consumed |= used
        entry = _Entry(i, cells, label_words if len(fresh) == len(cell_words) else [])
        entry.members = {
            j for j in range(i + 1, min(i + 3, len(lines))) if any(id(w) in used for w in lines[j].words)
        }
        entries.append(entry)
    return entries


_PAGE_NUMBER = re.compile(r"^(?:[A-Z]?-?\d{1,4}|[ivxlc]{1,6})$")  # "42", "F-7", "xii"


def _page_number(lines: list[Line], i: int, gap_limit: float) -> bool:
    """The page's first or last line when it is one short number set apart from the text or from the
    columns next to it (a page number, "42", "F-7"): page furniture, never a row's value, whatever
    line ends above it."""
    line = lines[i]
    if i not in (0, len(lines) - 1) or len(line.words) != 1 or not _PAGE_NUMBER.match(line.words[0].text):
        return False
    other = lines[i - 1] if i else (lines[1] if len(lines) > 1 else None)
    if other is None:
        return True
    gap = line.top - other.bottom if i else other.top - line.bottom
    # set apart, or under (above) a line with no number in its column: not the tail of a wrapped row
    return gap > gap_limit or not any(w.numeric and _overlaps(w, line.words[0]) for w in other.words)


def _percent_only(cells: list[Cell]) -> bool:
    values = [c for c in cells if not c.absent]
    return bool(values) and all(c.percent for c in values)


def _years_only(words: list[Word]) -> bool:
    """Cells that are two or more years and nothing else: the header of a table, not a row of values."""
    return len(words) >= 2 and all(is_year_word(w) for w in words)


def _merge_satellites(entries: list[_Entry], lines: list[Line], gap_limit: float) -> list[_Entry]:
    """Fold percent-only lines that sit between the columns of an adjacent row into that row."""
    out: list[_Entry] = []
    for k, e in enumerate(entries):
        if _percent_only(e.cells):
            host = _satellite_host(e, entries, k, lines, gap_limit)
            if host is not None:
                host.cells = sorted([*host.cells, *e.cells], key=lambda c: c.x0)
                host.members.add(e.index)
                if e.label_words:
                    (host.above if e.index < host.index else host.below).append(
                        (e.index, _join_label(e.label_words))
                    )
                continue
        out.append(e)
    return out


def _satellite_host(
    e: _Entry, entries: list[_Entry], k: int, lines: list[Line], gap_limit: float
) -> _Entry | None:
    best: tuple[float, _Entry] | None = None
    top, bottom = e.band(lines)
    for other in entries[max(0, k - 2) : k + 3]:
        if other is e or _percent_only(other.cells):
            continue
        if any(_overlaps(a, b) for a in e.cells for b in other.cells):
            continue
        otop, obottom = other.band(lines)
        dist = max(otop - bottom, top - obottom, 0.0)
        if dist <= gap_limit and (best is None or dist < best[0]):
            best = (dist, other)
    return best[1] if best else None


def _assign_label_fragments(entries: list[_Entry], lines: list[Line], gap_limit: float) -> None:
    """Give each label-only line to the nearest row band (within two line gaps); a scale caption only to
    a row below it."""
    taken = {e.index for e in entries} | {j for e in entries for j in e.members}
    geometry = [(e, e.first_x, *e.band(lines)) for e in entries]
    for j, line in enumerate(lines):
        if j in taken or not entries:
            continue
        label_words, cells, _units = line.split()
        if cells or not label_words:
            continue
        # A scale caption heads the table below it; it is never the tail of the row above's label.
        caption = is_scale_caption(line.text)
        best: tuple[float, _Entry] | None = None
        ends_open = bool(_OPEN_END.search(line.text))
        for e, first_x, top, bottom in geometry:
            if not any(w.x1 <= first_x + 1 for w in label_words) or (caption and j > e.index):
                continue
            # a line running on over the row's figures is a sentence or a title, not a wrapped label
            # ("Amortization expense for acquired finite-lived intangible assets for the years …")
            if any(w.x0 >= first_x for w in label_words):
                continue
            if j > e.index and _closed_by_unit(e):
                continue  # "营业收入（元）" is whole: the fragment under it starts the next row's label
            dist = max(top - line.bottom, line.top - bottom, 0.0)
            continued = ends_open or (e.label_words and _starts_lower(e.label_words[0].text))
            if j < e.index and dist <= gap_limit and continued:
                # a row label in lower case ("financing costs") continues the line over it, and so does any
                # row's under a line that ends open ("TOTAL COMPREHENSIVE INCOME ATTRIBUTABLE TO")
                dist = -1.0
            if dist <= 2 * gap_limit and (best is None or dist < best[0]):
                best = (dist, e)
        if best is not None:
            e = best[1]
            text = _join_label([w for w in label_words if w.x1 <= e.first_x + 1])
            if j > e.index and (
                _heads_rows_below(e.label_words, label_words)
                or _NUMBERED_HEADING.match(line.text)
                # under a row of figures only, "Deferred:" opens the next block: no name of the row's
                or (not e.label_words and _HEADING_LINE.match(line.text))
            ):
                continue
            (e.above if j < e.index else e.below).append((j, text))


# a label's last words when they are its unit in brackets ("（元）", "(in millions)")
_BRACKET_TAIL = re.compile(r"[（(][^（()）]{1,24}[)）]\s*$")


def _closed_by_unit(e: _Entry) -> bool:
    """Whether the row's label so far ends with its unit in brackets ("营业收入" / "（元）"): a label
    ends there, so nothing under it continues it."""
    parts = e.parts()
    tail = _BRACKET_TAIL.search(parts[-1]) if parts else None
    return tail is not None and is_scale_caption(tail.group(0))


# A numbered note or section heading ("6. Debt", "Note 7 — Leases"): it opens what follows, never the tail of
# the row above it ("Total" of a derivatives table is no "Total … Debt")
_NUMBERED_HEADING = re.compile(r"^\s*(?:(?i:note)\s+\d{1,2}\b|\d{1,2}[.:)]\s+[A-Z])")


# the words a label wraps after: its tail is still to come on the next line
_OPEN_END = re.compile(
    r"(?:\b(?:and|or|of|for|to|in|from|by|with|on|at|per|as|than|into|under|over|after|before|less|the|a|an|"
    r"excluding|including|attributable|applicable|available|provided|used|related|due)|[,&(/-])$",
    re.IGNORECASE,
)


def _heads_rows_below(own_words: list[Word], line_words: list[Word]) -> bool:
    """A capitalised line under a row whose own label is complete and in sentence case, not indented past
    it ("Total liabilities" above "Stockholders' equity"), heads the rows below it. A wrapped tail starts
    in lower case, follows an open end ("… net of" / "allowance …"), hangs indented under its row's label,
    or continues a label in title case ("Total Liabilities And Shareholders'" / "Equity"), where case
    tells nothing."""
    own = _join_label(own_words).strip()
    if not own or not line_words or not line_words[0].text[:1].isupper() or _OPEN_END.search(own):
        return False
    if all(w.text[:1].isupper() for w in own_words if w.text[:1].isalpha()) and len(own_words) > 1:
        return False
    return min(w.x0 for w in line_words) <= min(w.x0 for w in own_words) + 2.0


def _variants(parts: list[str], own_at: int | None) -> list[str]:
    """Every contiguous run of label fragments: one of them is the true label, the rest neighbours'. A
    row's own words (those on its line of figures, at `own_at`) are in its label: a run without them is
    its neighbours' alone ("净利润" under "归属于上市" / "公司股东的" is no label of that row)."""
    out = []
    for a in range(len(parts)):
        for b in range(a + 1, min(len(parts), a + 5) + 1):
            if own_at is None or a <= own_at < b:
                out.append(_join_parts(parts[a:b]))
    return out


def _starts_lower(text: str) -> bool:
    return text[:1].islower()  # a cased letter only: digits, signs and CJK are no lower case


def _join_parts(parts: list[str]) -> str:
    """Label fragments as one label. A fragment that continues the one before it (it starts in lower case,
    or the one before ends open: "… and", "… of") wraps between words and joins with a space; others (CJK,
    a heading over the row: "Operating Activities" / "Net income") run on without one, so that a heading's
    words never pass for the label's ("Operating activities net income" is no operating income)."""
    out = parts[0] if parts else ""
    for prev, part in pairwise(parts):
        wraps = not has_cjk(prev + part) and (_starts_lower(part) or bool(_OPEN_END.search(prev)))
        out += (" " if wraps else "") + part
    return out


def _is_cjk(words: list[Word]) -> bool:
    return any(has_cjk(w.text) for w in words)
