"""Where a reading is printed: the statement scope a row sits in (parent-only, segment), the scale declared
above a line (for readings that the table reader did not make itself), and the scale a footnote declares for
a marked column header."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from mdqa_kernel.readers.base import DocumentView, FieldLike
from mdqa_kernel.readers.confidence import (
    COUNT_SCALE,
    KNOWN_SCALE,
    PRINTED_IN_UNITS,
    STANDING_SCALE,
    UNDECLARED_AMONG_SCALED,
    UNDECLARED_SCALE,
)
from mdqa_kernel.readers.plausibility import asks_money, asks_scaled_unit
from mdqa_kernel.readers.semantics import (
    SEGMENT_HEADING,
    asks_percent,
    field_basis,
    share_basis,
    statement_scope,
)
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.text.headers import scale_of_other_columns
from mdqa_kernel.text.layout import Cell, Line
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.values import EXCEPT_PER_SHARE, declared_scale, read_number, scale_factor


def scope_at(
    doc: DocumentView, lines: dict[int, list[Line]], page: int, index: int, table_row: bool = False
) -> str | None:
    """The statement a row is printed in when it is not the consolidated one: "parent" or "segment". One
    segment's heading counts for the table rows under it only: the page may go on to other topics in prose
    ("Employees" after the last segment's description)."""
    scopes = doc.memo("scopes", lambda: _scope_marks(lines, running_lines(doc, lines)))
    carried, marks = scopes.get(page, (None, []))
    scope = carried
    for i, mark in marks:
        if i <= index and (table_row or mark != SEGMENT_HEADING):
            scope = mark
    if scope == SEGMENT_HEADING:
        return "segment"  # a table row under one segment's heading
    return scope if scope in ("parent", "segment") else None


# A scale declared for money ("$ in millions", "(Dollars in thousands)", "in millions of dollars", "单位：万元")
_MONEY_SCALE = re.compile(r"[$€£¥₹]|\b(?:dollars?|usd|euros?|rupees?)\b|元", re.I)


# A line ending inside an open parenthesis or on "in" ("… (in", "(Dollars in"): a scale word may start the next
_WRAPPED_OPEN = re.compile(r"(?:\(|\bin)\s*$|\([^)]*$", re.I)


def declared_above(
    lines: list[Line],
    index: int,
    label: str,
    count: bool = False,
    cell: Cell | None = None,
    cells: Sequence[Cell] = (),
    shares: bool = False,
) -> tuple[float, str | None] | None:
    """The scale declared nearest above a line on its page ("(In millions)", "单位：万元"); (1, None)
    for a per-share row under "(In millions, except per share data)", and for a count of `shares` under
    "(in thousands, except share and per share data)"; None when nothing is declared. For
    a `count` (stores, employees) a scale declared for money ("$ in millions") is none of its own; for a
    `cell` of the row's `cells`, one on a header line over other columns only is theirs, and the cell's
    table declares none (a caption further up is another table's)."""
    nearest = _nearest_declaration(lines, index)
    if nearest is None:
        return None
    j, text, found = nearest
    if cell is not None and scale_of_other_columns(lines[j], cell, cells):
        return None  # "Aggregate Intrinsic Value (in millions)" beside the options counted: theirs
    if count and _MONEY_SCALE.search(text):
        return None  # "Number of stores" in a "$ in millions" table is counted one by one
    if EXCEPT_PER_SHARE.search(text) and share_basis(label) is not None:
        return 1.0, None  # the row is a per-share amount the caption exempts
    if shares and _exempts_shares(text):
        return 1.0, None
    return found[0], found[1]


# Units counted one by one; shares are counted in a statement's millions, stores and people are not
_COUNT_UNITS = ("persons", "people", "count", "shares", "votes", "人", "次", "股", "家", "warehouses")


# Three or more thousands groups ("$2,238,000,000"): no filing states a billion thousands or a billion millions
# of a currency, so an amount printed so is in units whatever the tables around it are captioned
_PRINTED_IN_UNITS = re.compile(r"^\(?[^\d(]{0,3}\(?\d{1,3}(?:,\d{3}){3,}\)?$")


def cell_scale(
    doc: DocumentView,
    field: FieldLike,
    row: Row,
    lines: list[Line],
    cell: Cell,
    continued: tuple[list[Line], Row] | None = None,
) -> tuple[float, str | None, float]:
    """(printed scale, its word, confidence): from the cell ("1,234 crore"), the row label, else the
    nearest declaration above on the page (a caption "(in millions, except per share data)",
    "单位：万元", "₹ in crore", or the column header), else, for a row of a table `continued` from the page
    before, the declaration above that table's last row there; a per-share row under an "except per share"
    caption is printed as it is."""
    if asks_percent(field) or field_basis(field) is not None:
        # "(In millions, except per share data)": per-share amounts are printed as they are.
        return 1.0, None, KNOWN_SCALE
    if cell.scale_word:
        return scale_factor(cell.scale_word), cell.scale_word, KNOWN_SCALE
    own = declared_scale(row.label) or declared_scale(row.extended_label)
    if own:
        return own[0], own[1], KNOWN_SCALE
    noted = footnoted_scale(lines, row.line.index, cell)  # "Options (a)" … "(a) In thousands."
    if noted:
        return noted[0], noted[1], KNOWN_SCALE
    unit = (field.unit or "").lower()
    counted = field.type == "integer" or unit in _COUNT_UNITS
    # shares are counted in a statement's millions; stores and people are not
    shares = unit in ("shares", "股")
    above = declared_above(lines, row.line.index, row.label, counted and not shares, cell, row.cells, shares)
    if above is None and continued is not None:
        prev_ls, prev_row = continued
        above = declared_above(prev_ls, prev_row.line.index, row.label, counted and not shares, shares=shares)
    if above is not None:
        return above[0], above[1], KNOWN_SCALE
    if counted:
        return 1.0, None, COUNT_SCALE
    if _PRINTED_IN_UNITS.match(cell.text) and asks_money(field):
        return 1.0, None, PRINTED_IN_UNITS
    standing = doc.standing_scale(row.page)
    if standing is not None:
        return standing[0], standing[1], STANDING_SCALE
    if doc.captions_scaled():
        return 1.0, None, UNDECLARED_AMONG_SCALED
    return 1.0, None, UNDECLARED_SCALE  # nothing declared: probably units, but say so


# A footnote mark ending a column header's word: "Options (a)", "Value(1)"
_MARK = re.compile(r"\((?P<m>[a-z]|\d{1,2})\)$")
_HAS_NUMBER = re.compile(r"\d[\d,]*\.?\d*")
_HEADER_SEARCH = 30  # lines above a row searched for its table's column headers
_FOOTNOTE_WORDS = 8  # a footnote that declares a scale says little else: "(a) In thousands."


def footnoted_scale(lines: list[Line], index: int, cell: Cell) -> tuple[float, str] | None:
    """The scale a footnote declares for the cell's column: its header carries a mark ("Options (a)") and the
    footnote under the table with that mark declares a scale and little else ("(a) In thousands."). None when
    the header over the cell has no mark, or its footnote declares no scale."""
    mark = _column_mark(lines, index, cell)
    if mark is None:
        return None
    for line in lines[index + 1 :]:
        if line.words and line.words[0].text.startswith(f"({mark})"):
            return declared_scale(line.text) if len(line.words) <= _FOOTNOTE_WORDS else None
    return None


def _column_mark(lines: list[Line], index: int, cell: Cell) -> str | None:
    """The footnote mark of the header over the cell: on the header lines above the table's rows (lines with
    no amounts, back to the lead-in), the mark whose header word spans the cell's column."""
    header = False
    for j in range(index - 1, max(-1, index - 1 - _HEADER_SEARCH), -1):
        line = lines[j]
        text = line.text.strip()
        if text.endswith((".", ":")):
            return None  # the lead-in: no marked header over the column
        if any(_HAS_NUMBER.fullmatch(w.text.strip("$()%")) and not _MARK.search(w.text) for w in line.words):
            if header:
                return None  # a row above the header lines: another table's
            continue  # a row of the same table, above the cell's
        header = True
        for k, w in enumerate(line.words):
            found = _MARK.search(w.text)
            if found is None:
                continue
            head = line.words[k - 1] if k and found.start() == 0 else w
            if head.x0 - 2 <= cell.x1 and cell.x0 <= w.x1 + 2:
                return found.group("m")
    return None


def _nearest_declaration(lines: list[Line], index: int) -> tuple[int, str, tuple[float, str]] | None:
    """The nearest line above `index` declaring a scale: its index, its text and the scale."""
    for j in range(index - 1, -1, -1):
        text, found = _declaration(lines, j)
        if found:
            return j, text, found
    return None


# "(in millions, except per share and share amounts)", "except share and per share data": the caption exempts
# counts of shares, which are printed as they are (a per-share amount's "per share" exempts no count)
_EXCEPT = re.compile(r"\bexcept\b(?P<rest>[^)]*)", re.I)
# what a per-share amount is called in such a caption: "per share", "share price" (not a count of shares)
_PER_SHARE_WORDS = re.compile(r"\bper[\s-]+shares?\b|\bshare\s+prices?\b", re.I)


def count_scale_above(lines: list[Line], index: int) -> tuple[float, str | None] | None:
    """The scale of a count of shares (in a line's label, in a "Shares" column): the declaration nearest above,
    (1, None) when that caption exempts share amounts, None when nothing is declared."""
    nearest = _nearest_declaration(lines, index)
    if nearest is None:
        return None
    _j, text, found = nearest
    return (1.0, None) if _exempts_shares(text) else (found[0], found[1])


def _exempts_shares(caption: str) -> bool:
    """Whether a scale caption exempts counts of shares ("except share and per share data")."""
    exempt = _EXCEPT.search(caption)
    return bool(exempt and re.search(r"\bshares?\b", _PER_SHARE_WORDS.sub(" ", exempt.group("rest")), re.I))


def _declaration(lines: list[Line], j: int) -> tuple[str, tuple[float, str] | None]:
    """A line's text and the scale it declares; for a line declaring none, read after the end of the line
    above when a declaration may wrap into it (a lead-in ending "… depreciation and amortization (in" over
    "thousands):")."""
    text = lines[j].text
    found = declared_scale(text)
    if found or j == 0 or not _WRAPPED_OPEN.search(lines[j - 1].text):
        return text, found
    text = f"{lines[j - 1].text} {text}"
    return text, declared_scale(text)


def line_scale(doc: DocumentView, cand: Candidate, field: FieldLike, lines: list[Line]) -> None:
    """The scale of a number a line reader read with none of its own, so a right number is not reported
    a million times too small: a line shaped like a table row ("Cash dividends paid (6,172) (5,815)
    (5,509)") is printed under the scale declared above it, as the table's rows are; an amount of money
    printed with no scale word ("Depreciation expense was $1,556, …") under the filing's standing scale
    (the notes' "(Dollars in millions, except per share data)", "Unless otherwise noted, dollars are in
    millions") takes that, at the standing scale's confidence. Percentages and per-share amounts keep theirs."""
    if cand.scale not in (None, 1.0) or cand.scale_word:
        return
    if asks_percent(field) or field_basis(field) is not None or "%" in cand.raw:
        return
    above = _declared_above_row(cand, lines)
    if above is not None and above[0] != 1.0:
        cand.scale, cand.scale_word = above
        return
    number = read_number(cand.raw)
    if number is None or number.currency is None or not asks_scaled_unit(field):
        return  # a count or a ratio, or a field asking units
    standing = doc.standing_scale(cand.page)
    if standing is not None and standing[0] != 1.0:
        cand.scale, cand.scale_word = standing
        cand.score = round(cand.score * STANDING_SCALE, 4)


def _declared_above_row(cand: Candidate, lines: list[Line]) -> tuple[float, str | None] | None:
    """The scale declared above a line shaped like a table row; None for a sentence, a line that
    declares its own scale, or nothing declared."""
    if cand.bbox is None or not lines:
        return None
    index = line_index(lines, cand.bbox[1])
    label, cells, _units = lines[index].split()
    if len(cells) < 2 or not label or declared_scale(lines[index].text):
        return None
    return declared_above(lines, index, " ".join(w.text for w in label))


def line_index(lines: list[Line], top: float) -> int:
    """The index of the line at `top` on its page (the last line above it when none is exactly there)."""
    index = 0
    for i, line in enumerate(lines):
        if line.top <= top + 0.5:
            index = i
    return index


def running_lines(doc: DocumentView, lines: dict[int, list[Line]]) -> frozenset[str]:
    """Lines printed on three pages or more: running headers and footers ("PART II", "Item 8", "…公司 2025 年第三
    季度报告"), never a title or a table's last row."""

    def build() -> frozenset[str]:
        seen = Counter(text for page_ls in lines.values() for text in {line.text.strip() for line in page_ls})
        return frozenset(text for text, n in seen.items() if n >= 3)

    return doc.memo("running_lines", build)


def _scope_marks(
    lines: dict[int, list[Line]], running: frozenset[str]
) -> dict[int, tuple[str | None, list[tuple[int, str]]]]:
    """For each page, the scope carried in from the pages before and the titles that change it."""
    out: dict[int, tuple[str | None, list[tuple[int, str]]]] = {}
    current: str | None = None
    for page in sorted(lines):
        marks: list[tuple[int, str]] = []
        carried = current
        for i, line in enumerate(lines[page]):
            scope = statement_scope(line.text) if line.text.strip() not in running else None
            if scope == SEGMENT_HEADING:
                # to the page's end; the scope carried on to the next page is left as it was
                marks.append((i, scope))
                continue
            if scope == "section" and current != "segment":
                continue  # a heading in capitals ends a segment discussion only
            if scope is not None:
                current = None if scope == "section" else scope
                marks.append((i, current or "consolidated"))
        out[page] = (carried, marks)
    return out
