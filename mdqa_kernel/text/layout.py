"""Page layout for the table reader: visual lines of words, table rows, header columns.

Works on the word boxes of parsing (pypdfium2), so it needs no ruling lines and no pdfplumber pass:
- a visual line is a cluster of words whose vertical centres agree;
- a table row is a line with a label on the left and numeric cells on the right; a cell whose digits
  are cut by a wrap ("7,176,243," then "743.45" below) is joined with the fragment under it;
- a header is a line above the row that names periods (2022, 2022年度, 本期/上期, Current year…);
  each cell is matched to the period whose header sits nearest above it horizontally.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass, field
from itertools import pairwise

import polars as pl

from mdqa_kernel.text.language import has_cjk
from mdqa_kernel.text.values import is_valid_grouping, parse_number

_NUMERIC_WORD = re.compile(r"^[(（\-−–]?[$¥￥]?[\d,，.]*\d[\d,，.]*%?[)）]?,?$|^[,.]\d[\d,.]*[)）]?%?$")
_CURRENCY_ONLY = re.compile(r"^[$¥￥€£]$|^(?:rmb|usd|us\$)$", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(20\d\d|19\d\d)(?!\d)")

# Period words in headers: current vs prior. Checked on the NFKC text of a header word.
CURRENT_WORDS = (
    "本报告期末",
    "本报告期",
    "本期末",
    "本期金额",
    "本期发生额",
    "本期",
    "本年末",
    "本年度",
    "本年",
    "期末余额",
    "期末数",
    "期末",
    "current year",
    "current period",
    "this year",
)
PRIOR_WORDS = (
    "上年同期",
    "上年度末",
    "上期末",
    "上期金额",
    "上期发生额",
    "上期",
    "上年末",
    "上年度",
    "上年",
    "期初余额",
    "期初数",
    "期初",
    "prior year",
    "previous year",
    "last year",
    "prior period",
)


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
        first = next((i for i, w in enumerate(words) if w.numeric), len(words))
        cells = [w for w in words[first:] if w.numeric]
        return words[:first], cells


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


@dataclass
class HeaderMark:
    """A period named in a header: which period (current/prior/other), where, and the text."""

    period: str  # "current" | "prior" | "other"
    xc: float
    text: str
    keyword: str


def classify_period(
    text: str, fiscal_year: int | None, preferred: tuple[str, ...] = ()
) -> tuple[str, str] | None:
    """('current'|'prior'|'other', keyword) for a header text naming a period, or None.

    `preferred` are the period words of the field's description ("本报告期"): when given, other
    "current" words ("本期发生额", year-to-date in a quarterly report) name another period.
    """
    t = unicodedata.normalize("NFKC", text).lower()
    for word in preferred:
        if word and word in t:
            return "current", word
    years = [int(y) for y in _YEAR.findall(t)]
    if years and fiscal_year is not None:
        if fiscal_year in years:
            return ("other" if preferred else "current"), str(fiscal_year)
        if fiscal_year - 1 in years:
            return "prior", str(fiscal_year - 1)
        return "other", str(years[0])
    for word in PRIOR_WORDS:
        if word in t:
            return "prior", word
    for word in CURRENT_WORDS:
        if word in t:
            return ("other" if preferred else "current"), word
    return None


def header_marks(
    lines: list[Line],
    row_index: int,
    fiscal_year: int | None,
    preferred: tuple[str, ...] = (),
    max_lines: int = 60,
) -> list[HeaderMark]:
    """Period marks of the header block above a row: the lines between the previous row-like line
    (label + numbers) and this row, up to `max_lines`; a header may wrap over several lines.

    Header words are grouped into column labels by horizontal gaps, so "December 31, 2022" or
    "2022 年 12 月 31 日" count as one column label. Rows of the same table above are skipped.
    """
    marks: list[HeaderMark] = []
    seen_header = False
    for j in range(row_index - 1, max(row_index - max_lines, -1), -1):
        line_marks = []
        for text, xc in _column_groups(lines[j]):
            if len(text) > 24:
                continue  # a sentence that mentions a year is prose, not a column header
            period = classify_period(text, fiscal_year, preferred)
            if period:
                line_marks.append(HeaderMark(period[0], xc, text, period[1]))
        if line_marks and not (len(line_marks) == 1 and line_marks[0].period == "other" and not seen_header):
            marks.extend(line_marks)
            seen_header = True
        elif seen_header and _is_data_row(lines[j]):
            break
    # Keep one mark per column position: the nearest header line wins.
    out: list[HeaderMark] = []
    for m in marks:
        if all(abs(m.xc - o.xc) > 3 for o in out):
            out.append(m)
    return out


def _is_data_row(line: Line) -> bool:
    label, cells = line.split()
    return bool(label) and len(cells) >= 2


def _column_groups(line: Line) -> list[tuple[str, float]]:
    """Words of a header line grouped into column labels (a gap wider than ~1.5 characters splits)."""
    groups: list[list[Word]] = []
    for w in line.words:
        if groups:
            last = groups[-1][-1]
            char_w = (last.x1 - last.x0) / max(len(last.text), 1)
            if w.x0 - last.x1 <= 1.5 * char_w + 1:
                groups[-1].append(w)
                continue
        groups.append([w])
    return [(" ".join(w.text for w in g), (g[0].x0 + g[-1].x1) / 2) for g in groups]


def nearest_mark(cell: Cell, marks: list[HeaderMark]) -> HeaderMark | None:
    return min(marks, key=lambda m: abs(m.xc - cell.xc)) if marks else None
