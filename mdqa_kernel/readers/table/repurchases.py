"""The amount still available under a share repurchase authorization, from the issuer's purchases table (a
10-K's Item 5, a 10-Q's Part II Item 2): one row per month of the period's last quarter (and often a "Total"),
the last column headed "Approximate Dollar Value of Shares that May Yet Be Purchased Under the Plans or
Programs". The amount at the period's end is that column's figure on the table's last row that prints one.

A sentence may state it instead ("As of January 31, 2020, authorization for $5.7 billion of share repurchases
remained"; "… $2.2 billion remained available under the program"): read when the sentence speaks of repurchases,
of an authorization or program, and of what remains, and states one amount only (a sentence with the authorized
total beside what is left is not read); the sentence's date is then checked like any prose reading's.

Read only when the header over the last column says what is left to buy ("may yet be purchased", "remaining",
"available") and that it is money ("Dollar Value", "$", "amount"): a "Maximum Number of Shares that May Yet Be
Purchased" column is a count. The caption's or the column's scale applies ("(in millions)"), as to any cell.
"""

from __future__ import annotations

import re

from mdqa_kernel.readers.base import DocumentView, FieldLike
from mdqa_kernel.readers.plausibility import asks_money
from mdqa_kernel.readers.semantics import is_amount
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.columns import cell_candidate, page_rows
from mdqa_kernel.readers.table.prose import MONEY, SENTENCE_END, ProseWindow, money_candidate
from mdqa_kernel.readers.table.scope import cell_scale
from mdqa_kernel.text.layout import Cell, Line
from mdqa_kernel.text.periods import Period, ReportPeriod
from mdqa_kernel.text.row_context import prose_line
from mdqa_kernel.text.rows import Row

REMAINING = 0.85  # the column its header names, on the table's last row that prints it

# A field asking what is left of a repurchase authorization: "Amount remaining available under the share
# repurchase authorization", "Remaining share buyback authorization"
_ASKS_REPURCHASE = re.compile(r"\b(?:re)?purchases?\b|\bbuy-?backs?\b", re.I)
_ASKS_LEFT = re.compile(r"\b(?:remaining|remains|available|yet\s+to\s+be|unused|left)\b", re.I)
# The header of the column of what may still be bought
_LEFT_HEADER = re.compile(
    r"\byet\s+(?:to\s+)?be\s+(?:re)?purchased\b|\bremaining\b|\bavailable\s+for\s+(?:future\s+)?(?:re)?purchases?\b",
    re.I,
)
_MONEY_HEADER = re.compile(r"\bdollar\b|\$|\bamount\b|\bvalue\b", re.I)
_LEFT_WORD = re.compile(r"\b(?:yet|remaining|available)\b", re.I)
_PURCHASE_WORD = re.compile(r"\bpurchas", re.I)
_PROSE_WORDS = 8  # words of a footnote's or paragraph's line; a wrapped label's line has fewer
_INDENT = 40.0  # points a wrapped or indented label may start right of the table's labels
_HEADER_LINES = 8  # header lines stacked over the table's first row
_ALIGN = 15.0  # points between the right edges of amounts in one column


def remaining_authorization(
    doc: DocumentView, field: FieldLike, lines: dict[int, list[Line]], want: Period, report: ReportPeriod
) -> list[Candidate]:
    """The last figure of every issuer purchases table's "may yet be purchased" money column, for a field asking
    what is left of a repurchase authorization at the report's end."""
    if not _asks_remaining(field, want):
        return []
    out = []
    for page, page_ls in lines.items():
        for header_at in _header_lines(page_ls):
            found = _last_remaining(page_rows(doc, page, page_ls), page_ls, header_at)
            if found is not None:
                row, cell = found
                scale, word, sure = cell_scale(doc, field, row, page_ls, cell)
                out.append(cell_candidate(row, cell, round(REMAINING * sure, 4), scale, word))
    return out


def _asks_remaining(field: FieldLike, want: Period) -> bool:
    """A money field asking what is left of a repurchase authorization at the report's end."""
    description = field.description
    if not (is_amount(field) and asks_money(field)) or want.offset not in (None, 0) or want.change:
        return False  # a count of shares left to buy is another column's
    return bool(_ASKS_REPURCHASE.search(description) and _ASKS_LEFT.search(description))


def _header_lines(page_ls: list[Line]) -> list[int]:
    """Indexes of header lines that may head a column of what is left to buy ("Shares that May Yet Be", one
    per table): a label-only line with "yet", "remaining" or "available" among lines about purchases. Which
    column it heads is checked against the table under it (`_names_last_column`)."""
    out: list[int] = []
    for i, line in enumerate(page_ls):
        if line.split()[1] or prose_line(line, _PROSE_WORDS) or not _LEFT_WORD.search(line.text):
            continue
        near = " ".join(ln.text for ln in page_ls[max(0, i - 2) : i + 3])
        if _PURCHASE_WORD.search(near) and not (out and i - out[-1] <= _HEADER_LINES):
            out.append(i)
    return out


def _table_rows(rows: list[Row], page_ls: list[Line], header_at: int) -> list[Row]:
    """The rows of the table under a header line: from the first row within the header's reach down to the first
    line of prose (a footnote, a paragraph, the page's footer after them)."""
    by_line = {r.line.index: r for r in rows}
    table: list[Row] = []
    for i in range(header_at + 1, len(page_ls)):
        row = by_line.get(i)
        if row is not None and row.label and row.line.words[0].x0 > _label_x(table) + _INDENT:
            break  # a label far right of the table's labels: the page's footer ("2021 FORM 10-K | 25")
        if row is not None:
            table.append(row)
        elif (table and prose_line(page_ls[i], _PROSE_WORDS)) or (
            not table and i - header_at > _HEADER_LINES
        ):
            break
    return table


def _label_x(table: list[Row]) -> float:
    """Where the table's row labels start (its first labelled row's); anywhere before one is seen."""
    return next((r.line.words[0].x0 for r in table if r.label), float("inf"))


def _last_remaining(rows: list[Row], page_ls: list[Line], header_at: int) -> tuple[Row, Cell] | None:
    """The last column's figure on the table's last row that prints one, when the header over that column
    names what is left to buy, in money."""
    table = _table_rows(rows, page_ls, header_at)
    if len(table) < 2:
        return None
    # the last column: where most rows' last figures end (a page number below the table is not one)
    ends = [r.cells[-1].x1 for r in table if r.cells]
    right = max(ends, key=lambda x: sum(abs(x - e) <= _ALIGN for e in ends))
    if sum(abs(right - e) <= _ALIGN for e in ends) < 2:
        return None
    others = [c.x1 for r in table for c in r.cells if right - c.x1 > _ALIGN]
    left_edge = max(others, default=0.0)  # the column before the last one ends here
    if not _names_last_column(page_ls, header_at, table[0].line.index, left_edge):
        return None
    for row in reversed(table):
        last = [c for c in row.cells if abs(right - c.x1) <= _ALIGN and c.value is not None]
        if last:  # a negative figure is a month's change ("(55)"), not what is left
            return (row, last[0]) if (last[0].value or 0.0) >= 0 else None
    return None


def _names_last_column(page_ls: list[Line], header_at: int, first_row: int, left_edge: float) -> bool:
    """The header's words right of the column before the last (on the header's lines around `header_at`, above
    the table's first row, no prose) say what is left to buy, and in money."""
    said = " ".join(
        w.text
        for line in page_ls[max(0, header_at - _HEADER_LINES) : first_row]
        if not line.split()[1] and not prose_line(line, _PROSE_WORDS)
        for w in line.words
        if w.x0 > left_edge
    )
    return bool(_LEFT_HEADER.search(said) and _MONEY_HEADER.search(said))


# A sentence about what is left of a repurchase authorization: the purchases, the authorization (or program),
# and that it remains
_SENTENCE_PURCHASE = re.compile(r"\b(?:re)?purchases?\b|\bbuy-?backs?\b|\brepurchased?\b", re.I)
_SENTENCE_AUTHORITY = re.compile(r"\bauthori[sz]\w*|\bprograms?\b", re.I)
_SENTENCE_LEFT = re.compile(r"\bremain(?:s|ed|ing)?\b|\bavailable\b|\byet\s+to\s+be\b", re.I)
# one amount in a sentence about what remains of a repurchase authorization: below the purchases table's column,
# which prints it to the unit where the sentence rounds it ("$2.2 billion" beside 2,238,000,000)
STATED_REMAINING = 0.75


def remaining_in_prose(windows: list[ProseWindow], field: FieldLike, want: Period) -> list[Candidate]:
    """The one amount of each sentence that says what remains of a repurchase authorization, as a prose
    candidate (its date checked by the caller, like any sentence's)."""
    if not _asks_remaining(field, want):
        return []
    out = []
    for w in windows:
        start = 0
        for sentence in SENTENCE_END.split(w.text):
            at = w.text.find(sentence, start)
            start = at + len(sentence)
            if at >= w.first_len:
                break  # starts on the next line: read with that line
            amounts = list(MONEY.finditer(sentence))
            if len(amounts) != 1 or not all(
                p.search(sentence) for p in (_SENTENCE_PURCHASE, _SENTENCE_AUTHORITY, _SENTENCE_LEFT)
            ):
                continue
            hit = amounts[0]
            out.append(money_candidate("prose", w.page, hit, w.used(at + hit.end()), STATED_REMAINING))
    return out
