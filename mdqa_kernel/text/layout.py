"""Page layout for the table reader: visual lines of words, table rows, header columns.

Works on the word boxes of parsing (pypdfium2), so it needs no ruling lines and no pdfplumber pass:
- a visual line is a cluster of words whose vertical centres agree;
- a table row is a line with a label on the left and value cells on the right (`Line.split`): numbers
  inside the label ("Scope 1", "CO2", "Note 12", "as on March 31, 2025", a footnote mark) stay in it, and
  a dash cell is a column without a value; a cell whose digits are cut by a wrap ("7,176,243," then
  "743.45" below) is joined with the fragment under it;
- a column's header is the text above its cells, stacked over the header lines ("Year Ended
  December 31," spanning the columns, then "2023"); `text.periods` says which period it names.
"""

from __future__ import annotations

import operator
import re
import statistics
import unicodedata
from dataclasses import dataclass, field, replace
from itertools import pairwise

import polars as pl

from mdqa_kernel.text.language import has_cjk
from mdqa_kernel.text.lazy import lazy
from mdqa_kernel.text.periods import parse_period
from mdqa_kernel.text.values import (
    ABSENT_TEXTS,
    Number,
    find_dates,
    is_absent,
    is_number_shaped,
    is_valid_grouping,
    read_number,
)

# A currency sign printed as its own word: dropped wherever it stands. "`" is how text extraction
# renders the rupee sign; "Rs"/"INR"/"H" (a mangled ₹) count only right before an amount (see `_kinds`).
_CURRENCY_ONLY = re.compile(r"^[$¥￥€£₹`]$|^(?:rmb|usd|us\$|hk\$)$", re.IGNORECASE)
_CURRENCY_BEFORE_AMOUNT = re.compile(r"^(?:(?i:rs\.?|inr)|H)$")
# A unit printed in the cell after its number: a scale ("1,234 crore"), percent or points ("120 bps"),
# or the closing parenthesis of a negative set apart ("(207 )").
_CELL_UNITS = frozenset({
    "crore", "crores", "lakh", "lakhs", "lac", "lacs", "million", "millions", "billion",
    "billions", "thousand", "thousands", "mn", "bn", "bps", "bp", "pp", "p.p.", "%", "百万元",
    "千万元", "亿元", "万元", "千元", "百万", "亿", "万", ")", "）", ")%", "%)",
})  # fmt: skip
# Words right before a number that make it part of a label: a reference ("Note 12", "Scope 1",
# "附注五、1"), a period ("fiscal 2023", "FY 2023"), a month ("March 31"), a chemical formula whose
# subscript came out as its own word ("CO 2", "PM 2.5").
_REFERENCE_WORDS = frozenset({
    "note", "notes", "scope", "level", "tier", "schedule", "item", "part", "section", "sec",
    "phase", "stage", "class", "category", "grade", "annexure", "annex", "appendix",
    "exhibit", "figure", "fig", "table", "chapter", "rule", "regulation", "clause", "no",
    "sl", "sr",
})  # fmt: skip
_REFERENCE_CJK = re.compile(r"(?:附注|注释|注)[一二三四五六七八九十\d]*[、.．]?$")
_PERIOD_BEFORE = frozenset({
    "fy", "fiscal", "year", "years", "ended", "ending", "in", "of", "for", "since", "as",
    "at", "on", "from", "to", "till", "until", "during", "q1", "q2", "q3", "q4", "h1", "h2",
})  # fmt: skip
_MONTH_NAMES = frozenset({
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "january", "february", "march", "april", "june", "july", "august", "september",
    "october", "november", "december",
})  # fmt: skip
_FORMULA_HEAD = re.compile(r"^[(（]?t?(?:co|ch|no|so|pm|sf|nf|hfc|pfc)$", re.IGNORECASE)
_JOINERS = frozenset({"and", "or", "&", "to", "-", "–", "/", "、", "及", "和", "与", "至", ","})
_SUPERSCRIPTS = set("⁰¹²³⁴⁵⁶⁷⁸⁹")
_FOOTNOTE = re.compile(r"^[(（]\d{1,2}[)）]$")
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

    @lazy
    def numeric(self) -> bool:
        """A number or a piece of one a wrap cut (the grammar of `values`; the grouping is checked later)."""
        return is_number_shaped(self.text)

    @property
    def char_width(self) -> float:
        return (self.x1 - self.x0) / max(len(self.text), 1)


@dataclass
class Line:
    page: int
    index: int
    words: list[Word]

    # A line's words never change once it is built; every field read asks these again: cached.
    @lazy
    def top(self) -> float:
        return min(w.top for w in self.words)

    @lazy
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @lazy
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @lazy
    def gap_groups(self) -> tuple[str, ...]:
        """The words grouped by wide horizontal gaps (the cells of a two-column table)."""
        groups: list[list[str]] = []
        prev: Word | None = None
        for w in self.words:
            if prev is None or _column_gap(prev, w):
                groups.append([w.text])
            else:
                groups[-1].append(w.text)
            prev = w
        cjk = any(has_cjk(w.text) for w in self.words)
        return tuple("".join(g) if cjk else " ".join(g) for g in groups)

    @lazy
    def one_group(self) -> bool:
        """No wide gap between the line's words: `len(gap_groups) <= 1`, without joining the groups."""
        return not any(_column_gap(prev, w) for prev, w in pairwise(self.words))

    def split(self) -> tuple[list[Word], list[Word], dict[int, str]]:
        """(label words, value cell words, unit printed after a cell word by its id), worked out once.

        The value cells are the numbers and dashes right of the label. A number inside the label stays
        in it (`_label_bound`): one the label's text goes on after ("Scope 1 emissions"), a reference
        ("Note 12", "Scope 1"), a date or period ("as on March 31, 2025", "fiscal 2023"), a formula's
        subscript ("CO 2"), a footnote mark ("(1)", "¹", a raised smaller digit). Numbers before the
        label's first word are list numbers ("1.", "(2)"); a line without words is all cells (the tail
        of a wrapped row)."""
        return self._split

    @lazy
    def _split(self) -> tuple[list[Word], list[Word], dict[int, str]]:
        if not self._may_hold_cells:
            # most lines of a filing are prose: no number and no dash, so no cell and no unit; the
            # label is every word but a currency sign printed alone (as `split_words` would find)
            return [w for w in self.words if not _is_currency_sign(w.text)], [], {}
        return split_words(self.words)

    @property
    def _may_hold_cells(self) -> bool:
        """Whether a word of the line can be a number (a number-shaped word has a digit once NFKC
        normalised, and the line's text normalises word by word) or a dash cell."""
        text = self.text
        if _DIGIT.search(text if text.isascii() else unicodedata.normalize("NFKC", text)):
            return True
        return any(_is_absent_word(w.text) for w in self.words)


def _column_gap(prev: Word, w: Word) -> bool:
    """A gap wider than three of `w`'s characters (and at least 9 pt) before `w`: a new cell."""
    char_w = (w.x1 - w.x0) / (len(w.text) or 1)
    return w.x0 - prev.x1 > 3 * (char_w if char_w > 3.0 else 3.0)  # max(char_w, 3.0)


_DIGIT = re.compile(r"\d")
# The longest dash word ("n.a."): a longer ASCII word is no dash (NFKC and lower() keep ASCII lengths).
_ABSENT_MAX = max(len(t) for t in ABSENT_TEXTS)


def _is_absent_word(text: str) -> bool:
    if text.isascii():
        return len(text) <= _ABSENT_MAX and text.lower() in ABSENT_TEXTS
    return unicodedata.normalize("NFKC", text).lower() in ABSENT_TEXTS


def _is_currency_sign(text: str) -> bool:
    return _sign_only(text if text.isascii() else unicodedata.normalize("NFKC", text))


def _sign_only(norm: str) -> bool:
    """An NFKC-normalised word that is only a currency sign. Both sign patterns match three characters at
    most ("usd", "hk$", "rs."): longer words skip the regex."""
    return len(norm) <= 3 and _CURRENCY_ONLY.match(norm) is not None


def split_words(line_words: list[Word]) -> tuple[list[Word], list[Word], dict[int, str]]:
    """`Line.split` worked out in full for a line's words (label words, value cells, units)."""
    kinds = _kinds(line_words)
    words = [w for w, k in zip(line_words, kinds, strict=True) if k != "currency"]
    kinds = [k for k in kinds if k != "currency"]
    first_text = next((i for i, k in enumerate(kinds) if k == "text"), None)
    if first_text is None:
        start = 0
    else:
        dated = _LazyDates(words)
        bound: set[int] = set()
        start = len(words)
        for i in range(first_text + 1, len(words)):
            if kinds[i] not in ("number", "absent"):
                continue
            if _label_bound(words, kinds, i, bound, dated):
                bound.add(i)
                continue
            start = i
            break
    cells = [w for w, k in zip(words[start:], kinds[start:], strict=True) if k in ("number", "absent")]
    units = {
        id(words[i - 1]): unicodedata.normalize("NFKC", words[i].text).lower().rstrip(",")
        for i in range(max(start, 1), len(words))
        if kinds[i] == "unit"
    }
    return words[:start], cells, units


def _near(a: Word, b: Word) -> bool:
    """Two words of one phrase: the gap between them is an ordinary space (about a quarter of the
    font size), not a column gap (an em or more, in Chinese tables too)."""
    return b.x0 - a.x1 <= 0.6 * max(a.bottom - a.top, b.bottom - b.top) + 0.5


def _kinds(words: list[Word]) -> list[str]:
    """Each word's part in a row: number, absent (a dash cell), unit (after a number), currency, text."""
    kinds = []
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else None
        norm = w.text if w.text.isascii() else unicodedata.normalize("NFKC", w.text)  # NFKC keeps ASCII
        if _sign_only(norm) or (
            len(norm) <= 3  # as in _sign_only
            and _CURRENCY_BEFORE_AMOUNT.match(norm)
            and nxt is not None
            and _near(w, nxt)
            and (r := read_number(nxt.text)) is not None
            and "," in nxt.text
            and not r.percent
        ):
            kinds.append("currency")
        elif w.numeric:
            kinds.append("number")
        elif _is_absent_word(norm):
            kinds.append("absent")
        elif (
            kinds
            and kinds[-1] == "number"
            and norm.lower().rstrip(",") in _CELL_UNITS
            and _near(words[i - 1], w)
        ):
            kinds.append("unit")
        else:
            kinds.append("text")
    return kinds


def _dated(words: list[Word]) -> set[int]:
    """Indexes of the words inside a date ("March 31, 2025", "2023年12月31日") of a line."""
    text, starts = "", []
    for w in words:
        starts.append(len(text) + (1 if text else 0))
        norm = unicodedata.normalize("NFKC", w.text)
        text = f"{text} {norm}" if text else norm
    out: set[int] = set()
    for _day, a, b in find_dates(text):
        out |= {i for i, s in enumerate(starts) if a <= s < b}
    return out


class _LazyDates:
    """The indexes of `_dated`, worked out only when a line has a number to check."""

    def __init__(self, words: list[Word]) -> None:
        self.words = words
        self._found: set[int] | None = None

    def __contains__(self, i: object) -> bool:
        if self._found is None:
            self._found = _dated(self.words)
        return i in self._found


def _label_bound(words: list[Word], kinds: list[str], i: int, bound: set[int], dated: _LazyDates) -> bool:
    """Whether the number (or dash) at `i`, right of the label's first word, belongs to the label."""
    w, prev = words[i], words[i - 1]
    after = i + 1
    while after < len(words) and kinds[after] == "unit":
        after += 1
    if after < len(words) and kinds[after] == "text" and _near(words[after - 1], words[after]):
        return True  # the label goes on after it: "Scope 1 emissions", "(tCO 2 e)", "5 years"
    if i in dated or any(ch in _SUPERSCRIPTS for ch in w.text):
        return True
    if not _near(prev, w):
        return False
    if kinds[i] == "absent" and (kinds[i - 1] == "text" or i - 1 in bound):
        return True  # a dash within the label's phrase ("Revenue — Americas", a sentence's dash)
    head = unicodedata.normalize("NFKC", prev.text).lower().strip("(（[").rstrip(".:：")
    if kinds[i - 1] == "text" and (
        head in _REFERENCE_WORDS
        or _REFERENCE_CJK.search(head)
        or _FORMULA_HEAD.match(head)
        or ((head in _PERIOD_BEFORE or head.rstrip(",") in _MONTH_NAMES) and _is_year_word(w))
        or (head in _MONTH_NAMES and _is_day_word(w))
        or (_FOOTNOTE.match(unicodedata.normalize("NFKC", w.text)) and _more_cells(words, kinds, i))
        or _raised(w, prev)
    ):
        return True
    # "Scope 1, 2 and 3": a number joined to a number of the label.
    if i - 1 in bound and prev.text.endswith((",", "/", "&")):
        return True
    return head in _JOINERS and i - 2 in bound and _near(words[i - 2], prev)


def _is_year_word(w: Word) -> bool:
    text = unicodedata.normalize("NFKC", w.text).strip("(),")
    return text.isdigit() and len(text) == 4 and 1900 <= int(text) <= 2100


def _is_day_word(w: Word) -> bool:
    text = unicodedata.normalize("NFKC", w.text).rstrip(",")
    return text.isdigit() and 1 <= int(text) <= 31


def _more_cells(words: list[Word], kinds: list[str], i: int) -> bool:
    return any(k == "number" for k in kinds[i + 1 :])


def _raised(w: Word, prev: Word) -> bool:
    """A footnote mark set smaller and higher than the label word before it."""
    h, ph = w.bottom - w.top, prev.bottom - prev.top
    return h < 0.8 * ph and w.bottom < prev.bottom - 0.15 * ph


@dataclass
class Cell:
    """One value cell of a row, possibly joined from wrapped fragments: a number, or a dash ("—",
    "N/A", "不适用") that holds a column without a value."""

    text: str
    words: list[Word] = field(default_factory=list)
    unit: str | None = None  # a unit word printed after the number: "crore", "bps", "%", "万元"

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
    def printed(self) -> str:
        """The cell as printed: its number and the unit word after it."""
        return f"{self.text} {self.unit}" if self.unit else self.text

    @property
    def number(self) -> Number | None:
        """The cell read by the number grammar with its unit word; None for a dash or a malformed number."""
        return read_number(self.printed)

    @property
    def value(self) -> float | None:
        number = self.number
        return None if number is None else number.value

    @property
    def absent(self) -> bool:
        return is_absent(self.text)

    @property
    def percent(self) -> bool:
        number = self.number
        if number is not None:
            return number.percent
        return self.text.rstrip(")）").endswith(("%", "％")) or self.unit == "%"

    @property
    def points(self) -> str | None:
        """'bps' or 'pp' for a change printed in points ("120 bps"): never a level, never a percent."""
        number = self.number
        return None if number is None else number.points

    @property
    def scale_word(self) -> str | None:
        """A scale printed in the cell ("1,234 crore", "1,768万元"), which outranks the table's."""
        number = self.number
        return None if number is None else number.scale_word

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
    return lines_by_page(words.filter(pl.col("page") == page)).get(page, [])


def lines_by_page(words: pl.DataFrame) -> dict[int, list[Line]]:
    """Visual lines of every page: the words frame sorted once (page, then top, then x0) and made into
    words column by column, then cut at each page."""
    ordered = words.sort("page", "top", "x0", maintain_order=True)
    items = list(map(Word, *(ordered[c].to_list() for c in _word_columns(ordered))))
    out: dict[int, list[Line]] = {}
    start = 0
    for n, page in ordered["page"].rle().struct.unnest().iter_rows():  # (words, page) runs
        out[int(page)] = _group_lines(int(page), items[start : start + n])
        start += n
    return out


def _word_columns(frame: pl.DataFrame) -> list[str]:
    return [
        "text",
        "x0",
        "top",
        "x1",
        "bottom",
        *(c for c in ("char_start", "char_end") if c in frame.columns),
    ]


def _group_lines(page: int, items: list[Word]) -> list[Line]:
    """Words sorted by top then x0, clustered into lines whose vertical centres agree."""
    lines: list[list[Word]] = []
    top = bottom = 0.0  # the vertical band of the last line so far
    for w in items:
        w_top, w_bottom = w.top, w.bottom
        centre = (w_top + w_bottom) / 2
        height = bottom - top
        if lines and (
            top <= centre <= bottom
            or abs(centre - (top + bottom) / 2) < 0.3 * (height if height > 1.0 else 1.0)
        ):
            lines[-1].append(w)
            # min() and max() spelled out: the same values, without two calls per word
            top = w_top if w_top < top else top
            bottom = w_bottom if w_bottom > bottom else bottom
            continue
        lines.append([w])
        top, bottom = w_top, w_bottom
    return [Line(page, i, sorted(ws, key=_X0)) for i, ws in enumerate(lines)]


_X0 = operator.attrgetter("x0")


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
            cell = Cell(joined, [*cell.words, tail], cell.unit)
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


def _percent_only(cells: list[Cell]) -> bool:
    values = [c for c in cells if not c.absent]
    return bool(values) and all(c.percent for c in values)


def _years_only(words: list[Word]) -> bool:
    """Cells that are two or more years and nothing else: the header of a table, not a row of values."""
    return len(words) >= 2 and all(_is_year_word(w) for w in words)


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
    """Give each label-only line to the nearest row band (within two line gaps)."""
    taken = {e.index for e in entries} | {j for e in entries for j in e.members}
    geometry = [(e, e.first_x, *e.band(lines)) for e in entries]
    for j, line in enumerate(lines):
        if j in taken or not entries:
            continue
        label_words, cells, _units = line.split()
        if cells or not label_words:
            continue
        best: tuple[float, _Entry] | None = None
        for e, first_x, top, bottom in geometry:
            if not any(w.x1 <= first_x + 1 for w in label_words):
                continue
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
    # A header centred left of right-aligned numbers ("2015" above "3,991") may end before the first of
    # them: it is still that column's when its centre is within half a column's pitch of the cell's.
    first = min(cells, key=lambda c: c.x0)
    centres = sorted(c.xc for c in cells)
    reach = min((b - a for a, b in pairwise(centres)), default=0.0) / 2

    def inside(g: tuple[str, float, float]) -> bool:
        return (g[2] >= left and g[1] <= right) or abs((g[1] + g[2]) / 2 - first.xc) <= reach

    block: list[list[tuple[str, float, float]]] = []
    for j in range(row_index - 1, max(row_index - max_lines, -1), -1):
        groups = [g for g in _column_groups(lines[j]) if inside(g)]
        if block and (len(block) >= 6 or (not _names_period(groups) and _is_data_row(lines[j]))):
            break
        if not block and not _names_period(groups):
            continue  # a row of the same table, or a line of its own
        if len(lines[j].text) > 120 or _SENTENCE.match(lines[j].text.strip()):
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
        and not (is_number_shaped(g[0]) and not _YEAR.fullmatch(g[0]))
        and _header_period(g[0])
        for g in groups
    )


def _header_period(text: str) -> bool:
    period = parse_period(text)
    if period.month_day is not None and not replace(period, month_day=None).named:
        return len(text) <= 12  # "Dec. 26" heads a column; "Balance at March 31" labels a row
    return period.named


# A sentence of prose ("All quarters of 2015 consisted of 13 weeks."): above a table, never its header.
_SENTENCE = re.compile(r"^(?:\S+\s+){7,}\S*[\w)\]]\.$")


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


def _is_data_row(line: Line) -> bool:
    label, cells, _units = line.split()
    return bool(label) and len(cells) >= 2


def _column_groups(line: Line) -> list[tuple[str, float, float]]:
    """Words of a header line grouped into column labels (a gap wider than ~1.5 characters splits):
    (text, x0, x1)."""
    return [(" ".join(w.text for w in g), g[0].x0, g[-1].x1) for g in _word_groups(line)]


def _word_groups(line: Line) -> list[list[Word]]:
    groups: list[list[Word]] = []
    for w in line.words:
        if groups:
            last = groups[-1][-1]
            char_w = (last.x1 - last.x0) / max(len(last.text), 1)
            if w.x0 - last.x1 <= 1.5 * char_w + 1:
                groups[-1].append(w)
                continue
        groups.append([w])
    return groups
