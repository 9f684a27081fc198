"""Page layout for the table reader: visual lines of words, table rows, header columns.

Works on the word boxes of parsing (pypdfium2), so it needs no ruling lines and no pdfplumber pass:
- a visual line is a cluster of words whose vertical centres agree;
- a table row is a line with a label on the left and numeric cells on the right; a cell whose digits
  are cut by a wrap ("7,176,243," then "743.45" below) is joined with the fragment under it;
- a column's header is the text above its cells, stacked over the header lines ("Year Ended
  December 31," spanning the columns, then "2023"); `text.periods` says which period it names.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass, field
from itertools import pairwise

import polars as pl

from mdqa_kernel.text.language import has_cjk
from mdqa_kernel.text.periods import parse_period
from mdqa_kernel.text.values import is_valid_grouping, parse_number

_NUMERIC_WORD = re.compile(r"^[(（\-−–]?[$¥￥]?[\d,，.]*\d[\d,，.]*%?[)）]?,?$|^[,.]\d[\d,.]*[)）]?%?$")
_CURRENCY_ONLY = re.compile(r"^[$¥￥€£]$|^(?:rmb|usd|us\$)$", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(20\d\d|19\d\d)(?!\d)")


@dataclass
class Word:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    char_start: int = -1
    char_end: int = -1

    @property
    def xc(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def numeric(self) -> bool:
        return bool(_NUMERIC_WORD.match(unicodedata.normalize("NFKC", self.text)))


@dataclass
class Line:
    page: int
    index: int
    words: list[Word]

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    def split(self) -> tuple[list[Word], list[Word]]:
        """(label words, numeric cell words): the label is everything left of the first number."""
        words = [w for w in self.words if not _CURRENCY_ONLY.match(w.text)]
        dated = _date_parts(words)
        first = next((i for i, w in enumerate(words) if w.numeric and i not in dated), len(words))
        cells = [w for i, w in enumerate(words[first:], first) if w.numeric and i not in dated]
        return words[:first], cells


_MONTH = re.compile(r"^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?$", re.IGNORECASE)


def _date_parts(words: list[Word]) -> set[int]:
    """Indexes of the day and year of a printed date ("December 31, 2023" in a header): never cells."""
    out: set[int] = set()
    for i in range(1, len(words)):
        if _MONTH.match(words[i - 1].text) and re.fullmatch(r"\d{1,2},?", words[i].text):
            out.add(i)
            if i + 1 < len(words) and _YEAR.fullmatch(words[i + 1].text.rstrip(",")):
                out.add(i + 1)
    return out


@dataclass
class Cell:
    """One numeric cell of a row, possibly joined from wrapped fragments."""

    text: str
    words: list[Word] = field(default_factory=list)

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def xc(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def value(self) -> float | None:
        return parse_number(self.text)

    @property
    def percent(self) -> bool:
        return self.text.rstrip(")）").endswith(("%", "％"))

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        return (self.x0, min(w.top for w in self.words), self.x1, max(w.bottom for w in self.words))


@dataclass
class Row:
    page: int
    line: Line
    label: str  # own label words
    extended_label: str  # with label fragments wrapped onto the lines above/below
    cells: list[Cell]
    snippet: str
    variants: list[str] = field(default_factory=list)


def page_lines(words: pl.DataFrame, page: int) -> list[Line]:
    """Visual lines of one page, top to bottom, words left to right."""
    rows = words.filter(pl.col("page") == page).sort("top", "x0")
    cols = ["text", "x0", "top", "x1", "bottom"]
    extra = [c for c in ("char_start", "char_end") if c in rows.columns]
    items = [Word(*r) for r in rows.select(cols + extra).iter_rows()]
    lines: list[list[Word]] = []
    for w in items:
        centre = (w.top + w.bottom) / 2
        if lines:
            last = lines[-1]
            top, bottom = min(x.top for x in last), max(x.bottom for x in last)
            if top <= centre <= bottom or abs(centre - (top + bottom) / 2) < 0.3 * max(bottom - top, 1.0):
                last.append(w)
                continue
        lines.append([w])
    return [Line(page, i, sorted(ws, key=lambda w: w.x0)) for i, ws in enumerate(lines)]


_PAGE_REF = re.compile(r"(?<![\d,.])(\d{1,4})\s*$")


def is_contents_page(lines: list[Line], n_pages: int) -> bool:
    """A table of contents ("Item 1B. Unresolved Staff Comments 37", "第二节 公司简介 ...... 6"): most lines
    end in a page number of this document, in order. Its numbers are pages, never facts."""
    refs = []
    for line in lines:
        m = _PAGE_REF.search(line.text)
        # a title before the number, and a number that can be a page ("Ended June 30, 2023" is not)
        if m and re.search(r"[^\W\d_]", line.text[: m.start()]) and int(m.group(1)) <= n_pages + 10:
            refs.append(int(m.group(1)))
    if len(refs) < 8 or len(refs) < 0.5 * len(lines):
        return False
    in_order = sum(1 for a, b in pairwise(refs) if b >= a)
    return in_order >= 0.9 * (len(refs) - 1)


def _overlaps(a: Word | Cell, b: Word | Cell, slack: float = 2.0) -> bool:
    return a.x0 - slack <= b.x1 and b.x0 - slack <= a.x1


def _incomplete(text: str) -> bool:
    t = unicodedata.normalize("NFKC", text)
    return t.endswith(",") or not is_valid_grouping(t)


def _join_wraps(cell_words: list[Word], below: list[Line]) -> tuple[list[Cell], set[int]]:
    """Cells of a row with their wrapped tails joined; also the ids of the words consumed below."""
    cells: list[Cell] = []
    used: set[int] = set()
    for w in cell_words:
        cell = Cell(w.text, [w])
        for line in below[:2]:
            if not (_incomplete(cell.text) or _starts_continuation(line, cell)):
                break
            tail = next(
                (x for x in line.words if x.numeric and id(x) not in used and _overlaps(x, cell)), None
            )
            if tail is None:
                continue  # a vertically centred cell of another column may sit between the fragments
            joined = cell.text + tail.text
            if not is_valid_grouping(joined):
                break
            cell = Cell(joined, [*cell.words, tail])
            used.add(id(tail))
        cells.append(cell)
    return cells, used


def _starts_continuation(line: Line, cell: Cell) -> bool:
    # A fragment that begins with "," or "." ("2,352,826" / ",955.66") continues the cell above it.
    return any(x.text.startswith((",", ".")) and _overlaps(x, cell) for x in line.words)


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
        rows.append(Row(line.page, line, own, "".join(parts), e.cells, snippet, _variants(parts)))
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
        label_words, cell_words = line.split()
        fresh = [w for w in cell_words if id(w) not in consumed]
        if not fresh:
            if cell_words:
                entry = next((e for e in reversed(entries) if i in e.members), None)
                if entry is not None and label_words:
                    entry.below.append((i, _join_label(label_words)))
            continue
        below = [ln for ln in lines[i + 1 : i + 3] if ln.top - line.bottom < 2 * gap_limit]
        cells, used = _join_wraps(fresh, below)
        consumed |= used
        entry = _Entry(i, cells, label_words if len(fresh) == len(cell_words) else [])
        entry.members = {
            j for j in range(i + 1, min(i + 3, len(lines))) if any(id(w) in used for w in lines[j].words)
        }
        entries.append(entry)
    return entries


def _merge_satellites(entries: list[_Entry], lines: list[Line], gap_limit: float) -> list[_Entry]:
    """Fold percent-only lines that sit between the columns of an adjacent row into that row."""
    out: list[_Entry] = []
    for k, e in enumerate(entries):
        if all(c.percent for c in e.cells):
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
        if other is e or all(c.percent for c in other.cells):
            continue
        if any(_overlaps(a, b) for a in e.cells for b in other.cells):
            continue
        otop, obottom = other.band(lines)
        dist = max(otop - bottom, top - obottom, 0.0)
        if dist <= gap_limit and (best is None or dist < best[0]):
            best = (dist, other)
    return best[1] if best else None


def _assign_label_fragments(entries: list[_Entry], lines: list[Line], gap_limit: float) -> None:
    """Give each label-only line to the nearest row band (within two line gaps)."""
    taken = {e.index for e in entries} | {j for e in entries for j in e.members}
    for j, line in enumerate(lines):
        if j in taken or not entries:
            continue
        label_words, cells = line.split()
        if cells or not label_words:
            continue
        best: tuple[float, _Entry] | None = None
        for e in entries:
            words = [w for w in label_words if w.x1 <= e.first_x + 1]
            if not words:
                continue
            top, bottom = e.band(lines)
            dist = max(top - line.bottom, line.top - bottom, 0.0)
            if dist <= 2 * gap_limit and (best is None or dist < best[0]):
                best = (dist, e)
        if best is not None:
            e = best[1]
            text = _join_label([w for w in label_words if w.x1 <= e.first_x + 1])
            (e.above if j < e.index else e.below).append((j, text))


def _variants(parts: list[str]) -> list[str]:
    """Every contiguous run of label fragments: one of them is the true label, the rest neighbours'."""
    out = []
    for a in range(len(parts)):
        for b in range(a + 1, min(len(parts), a + 5) + 1):
            out.append("".join(parts[a:b]))
    return out


def _is_cjk(words: list[Word]) -> bool:
    return any(has_cjk(w.text) for w in words)


# -- headers -------------------------------------------------------------------------------------


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
    block: list[list[tuple[str, float, float]]] = []
    for j in range(row_index - 1, max(row_index - max_lines, -1), -1):
        groups = [g for g in _column_groups(lines[j]) if g[2] >= left and g[1] <= right]
        if block and (len(block) >= 6 or (not _names_period(groups) and _is_data_row(lines[j]))):
            break
        if not block and not _names_period(groups):
            continue  # a row of the same table, or a line of its own
        if len(lines[j].text) > 120:
            break  # prose above the table
        block.append(groups)
    texts: list[list[str]] = [[] for _ in cells]
    for groups in block:  # nearest line first
        for k, cell in enumerate(cells):
            text = _group_over(cell, cells, groups)
            if text:
                texts[k].append(text)
    return [_stacked(t) for t in texts]


def _stacked(parts: list[str]) -> str:
    """A column's header texts (nearest first) joined top to bottom, up to the first that would name
    another period than the lines below it ("… 2023" above "2023  2022" is a title's, not a column's)."""
    text = ""
    for part in parts:
        joined = f"{part} {text}".strip()
        if text and parse_period(joined).change and not parse_period(text).change:
            break
        text = joined
    return text


def _names_period(groups: list[tuple[str, float, float]]) -> bool:
    # a number that is not a bare year ("1,234", "2019.5") is a row's cell, never a header
    return any(
        len(g[0]) <= 60
        and not (_NUMERIC_WORD.match(unicodedata.normalize("NFKC", g[0])) and not _YEAR.fullmatch(g[0]))
        and parse_period(g[0]).named
        for g in groups
    )


def _group_over(cell: Cell, cells: list[Cell], groups: list[tuple[str, float, float]]) -> str:
    """The group of a header line that labels a cell's column ("" when none does).

    A group over the cell is its label. A group wider than the columns' pitch spans columns ("Three
    Months Ended June 30," over two, "Year Ended December 31," over three, centred so that it may
    overlap none of the outer ones): the cell takes the nearest one within a pitch. A narrow group over
    no cell (a wrapped fragment) goes to its nearest cell when that one has no group of its own."""
    if not groups:
        return ""
    centres = sorted(c.xc for c in cells)
    pitch = min((b - a for a, b in pairwise(centres)), default=float("inf"))
    over = [g for g in groups if g[1] - 2 <= cell.x1 and cell.x0 - 2 <= g[2]]
    wide = [g for g in groups if g[2] - g[1] >= 0.9 * pitch]
    if over:
        text, x0, x1 = min(over, key=lambda g: abs((g[1] + g[2]) / 2 - cell.xc))
    elif wide and min(_gap(g, cell) for g in wide) <= pitch:
        text, x0, x1 = min(wide, key=lambda g: _gap(g, cell))
    else:
        return next((g[0] for g in groups if _nearest_cell(g, cells) is cell and not _over(cells, g)), "")
    if len(cells) > 1 and len(_over(cells, (text, x0, x1))) > 1 and len(set(_YEAR.findall(text))) > 1:
        return ""  # a caption over several columns ("For the years ended … 2023, 2022 and 2021")
    return text


def _gap(group: tuple[str, float, float], cell: Cell) -> float:
    return max(group[1] - cell.x1, cell.x0 - group[2], 0.0)


def _over(cells: list[Cell], group: tuple[str, float, float]) -> list[Cell]:
    return [c for c in cells if group[1] - 2 <= c.x1 and c.x0 - 2 <= group[2]]


def _nearest_cell(group: tuple[str, float, float], cells: list[Cell]) -> Cell:
    xc = (group[1] + group[2]) / 2
    return min(cells, key=lambda c: abs(c.xc - xc))


def _is_data_row(line: Line) -> bool:
    label, cells = line.split()
    return bool(label) and len(cells) >= 2


def _column_groups(line: Line) -> list[tuple[str, float, float]]:
    """Words of a header line grouped into column labels (a gap wider than ~1.5 characters splits):
    (text, x0, x1)."""
    groups: list[list[Word]] = []
    for w in line.words:
        if groups:
            last = groups[-1][-1]
            char_w = (last.x1 - last.x0) / max(len(last.text), 1)
            if w.x0 - last.x1 <= 1.5 * char_w + 1:
                groups[-1].append(w)
                continue
        groups.append([w])
    return [(" ".join(w.text for w in g), g[0].x0, g[-1].x1) for g in groups]
