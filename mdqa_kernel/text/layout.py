"""Page layout for the table reader: visual lines of words and the label/value split of each line.

Works on the word boxes of parsing (pypdfium2), so it needs no ruling lines and no pdfplumber pass:
- a visual line is a cluster of words whose vertical centres agree;
- a line splits into a label on the left and value cells on the right (`Line.split`): numbers inside the
  label ("Scope 1", "CO2", "Note 12", "as on March 31, 2025", a footnote mark) stay in it, and a dash
  cell is a column without a value.
Table rows built from these lines are `text.rows`; the header of a column is `text.headers`.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from dataclasses import dataclass, field
from itertools import pairwise

import polars as pl

from mdqa_kernel.text.language import has_cjk
from mdqa_kernel.text.lazy import lazy
from mdqa_kernel.text.values import (
    ABSENT_TEXTS,
    Number,
    find_dates,
    is_absent,
    is_number_shaped,
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
MONTH_NAMES = frozenset({
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "january", "february", "march", "april", "june", "july", "august", "september",
    "october", "november", "december",
})  # fmt: skip
_FORMULA_HEAD = re.compile(r"^[(（]?t?(?:co|ch|no|so|pm|sf|nf|hfc|pfc)$", re.IGNORECASE)
_JOINERS = frozenset({"and", "or", "&", "to", "-", "–", "/", "、", "及", "和", "与", "至", ","})
_SUPERSCRIPTS = set("⁰¹²³⁴⁵⁶⁷⁸⁹")
_FOOTNOTE = re.compile(r"^[(（]\d{1,2}[)）]$")


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
    if (
        w.text.endswith(",")
        and after < len(words)
        and kinds[after] in ("number", "absent")
        and _near(words[after - 1], words[after])
        and _label_bound(words, kinds, after, bound | {i}, dated)
    ):
        return True  # a list the label goes on after: "net of $48, $92 and $14 of non-cash expenditures"
    if any(ch in _SUPERSCRIPTS for ch in w.text):
        return True
    # a date's year runs on in the label's phrase ("as on March 31, 2025"); after a column gap it is a
    # column's header ("Year Ended December 31,   2017   2016")
    if i in dated and _near(prev, w):
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
        or ((head in _PERIOD_BEFORE or head.rstrip(",") in MONTH_NAMES) and is_year_word(w))
        or (head in MONTH_NAMES and _is_day_word(w))
        or (_FOOTNOTE.match(unicodedata.normalize("NFKC", w.text)) and _more_cells(words, kinds, i))
        or _raised(w, prev)
    ):
        return True
    # "Scope 1, 2 and 3": a number joined to a number of the label.
    if i - 1 in bound and prev.text.endswith((",", "/", "&")):
        return True
    return head in _JOINERS and i - 2 in bound and _near(words[i - 2], prev)


def is_year_word(w: Word) -> bool:
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
    return _join_offset_labels(page, [sorted(ws, key=_X0) for ws in lines])


def _join_offset_labels(page: int, groups: list[list[Word]]) -> list[Line]:
    """Lines numbered top to bottom, a label-only line joined with the figures-only line it overlaps by over
    a quarter of their height: one row whose label is set a few points off its figures' baseline (a raised
    footnote mark beside the label moves it: "Benefit obligation at end of year ¹" over "$ 9,455 $ 9,428").
    A wrapped label starts below or above its neighbour's line, never across it; figures set midway on a label
    wrapped over two lines stay apart (`_centred_on_wrap`)."""
    out: list[list[Word]] = []
    k = 0
    while k < len(groups):
        ws = groups[k]
        after = groups[k + 2] if k + 2 < len(groups) else None
        if (
            k + 1 < len(groups)
            and _offset_label(ws, groups[k + 1])
            and not _centred_on_wrap(ws, groups[k + 1], after)
        ):
            ws = ws + groups[k + 1]
            k += 1
        out.append(ws)
        k += 1
    return [Line(page, i, ws) for i, ws in enumerate(out)]


def _centred_on_wrap(label: list[Word], figures: list[Word], after: list[Word] | None) -> bool:
    """The figures sit midway between the label line and a line of words under them, left of them and with no
    number: a label wrapped over two lines with its figures centred on the pair ("归属于母公司股东的净利润（净亏损以“-"
    / "”号填列）"), whose lines `text.rows` joins."""
    if after is None or after[-1].x1 >= figures[0].x0 or any(w.numeric for w in after):
        return False
    centre = [(min(w.top for w in ws) + max(w.bottom for w in ws)) / 2 for ws in (label, figures, after)]
    height = figures[0].bottom - figures[0].top
    return abs(centre[1] - (centre[0] + centre[2]) / 2) < 0.25 * height


def _offset_label(label: list[Word], figures: list[Word]) -> bool:
    """`label` holds words and no cell, `figures` cells and no label, wholly right of `label`, and the two
    overlap vertically by over a quarter of the smaller one's height."""
    if label[-1].x1 >= figures[0].x0 or not any(w.numeric for w in figures):
        return False
    top = max(min(w.top for w in label), min(w.top for w in figures))
    bottom = min(max(w.bottom for w in label), max(w.bottom for w in figures))
    height = min(label[0].bottom - label[0].top, figures[-1].bottom - figures[-1].top)
    if bottom - top <= 0.25 * height:
        return False
    own, cells, _units = split_words(label)
    fig_label, fig_cells, _units = split_words(figures)
    return bool(own) and not cells and not fig_label and bool(fig_cells)


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
