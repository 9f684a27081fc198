"""A year's change, or a balance, read from a roll-forward, for a field asking one ("Goodwill added by
acquisitions during the fiscal year of the report", "Stock options outstanding at the end of the fiscal year").

A roll-forward prints a balance, the year's changes and the next balance ("Balances as of January 31, 2017",
"Changes in currency translation and other", "Acquisitions", "Balances as of January 31, 2018"), often two or
three years one under the other, with one amount column per segment and a total column. A block is read only
when its amounts add up (the opening balance plus the changes is the closing balance, to the rounding of the
printed amounts), so a run of rows that merely starts and ends with a balance is never taken for one. The
block's year is its closing balance's date, or the year printed alone above its opening balance ("2017" over
"Balance at beginning of year"); it is placed against the report's period, never by position.

The amount is the total column's (the last column, when every row's last amount is the sum of the others; the
only column, when there is one) of the one change row whose label names nothing the field does not ("Goodwill,
related to acquisitions"), in a table whose lead-in or balances name the rest of the field's line item
("goodwill"), when every column adds up. A field asking what is outstanding ("Stock options outstanding at the
end of the fiscal year") is read from the closing balance of the report's block (at its beginning: the opening
balance), in the first column, when it is the only one that adds up (an equity statement rolls several
components forward: which one is asked is unsaid), and when the table's lead-in, balances or every change row name
it ("Options granted"). Not read: a block that does not add up, two rows naming the change, a liability's
roll-forward ("net liability balance for restructuring costs": its "Charges" are the part accrued), a dash.
"""

from __future__ import annotations

import itertools
import re

from mdqa_kernel.readers.base import DocumentView, FieldLike
from mdqa_kernel.readers.table.arithmetic import sums_to
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.columns import cell_candidate, page_rows
from mdqa_kernel.readers.table.schedule import lead_words
from mdqa_kernel.readers.table.scope import cell_scale
from mdqa_kernel.text.layout import MONTH_NAMES, Cell, Line
from mdqa_kernel.text.period_fit import column_offset, target_offset
from mdqa_kernel.text.periods import MONTH_WORDS, Period, ReportPeriod, dates_in, parse_period
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.statement_context import description_heads, is_english, words

ROLLED = 0.9  # a block that adds up, placed by its own date, one row naming the change (or a balance asked)

# "Balance at beginning of year", "Balances as of January 31, 2018", "Ending balance"
_BALANCE = re.compile(r"^(?:(?:beginning|ending|opening|closing)\s+)?balances?\b", re.I)
# "Goodwill at January 2, 2022", "Shares at January 1, 2023", "Options outstanding May 31, 2018": a short name
# of what is rolled forward, then its date
_NAMED_BALANCE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z'-]*(?:\s+[A-Za-z][A-Za-z'-]*){0,2}?),?\s+(?:(?:at|as\s+of)\s+)?"
    rf"(?P<date>(?:{MONTH_WORDS})\.?\s+\d{{1,2}},?\s+(?:19|20)\d\d)$",
    re.I,
)
_YEAR_LINE = re.compile(r"^(?:fiscal\s+(?:year\s+)?)?(?:19|20)\d\d$", re.I)
# Words of a change row's label that name no change: "related to", "completed during the year ended …"
_FILLER = frozenset(
    {"related", "completed", "during", "year", "ended", "fiscal", "period", "recorded", "net"}
)
# Words of a field's line item that say a change happened, not what the roll-forward is of
_CHANGE_VERBS = frozenset({"added", "addition", "recognized", "recorded", "arising", "resulting", "change"})
_ALIGN = 15.0  # points between the right edges of amounts in one column ("(11,017,713)" under "23,619,804")
# Words of a line item that ask a balance ("Stock options outstanding"), and those no part of what it is of
_BALANCE_ASKED = frozenset({"outstanding", "balance"})
_BALANCE_WORDS = _BALANCE_ASKED | {"ending", "closing", "total"}
# A roll-forward of what is owed for an item ("net liability balance for restructuring project costs"), whose
# changes are not the item's own
_ACCRUED = frozenset({"liability", "reserve", "accrual", "accrued", "provision", "obligation"})
_ROW_GAP = 2  # lines a change row may sit below the row above it (a label wrapped onto its own line)


# A roll-forward's year: its opening balance row, change rows, closing balance row
Block = tuple[Row, list[Row], Row]


def rollforward_readings(
    doc: DocumentView,
    field: FieldLike,
    lines: dict[int, list[Line]],
    want: Period,
    report: ReportPeriod,
    balances: bool = True,
) -> list[Candidate]:
    """The asked year's amount of the change the field names, or (with `balances`) its balance, from every
    roll-forward that adds up."""
    heads = description_heads(field.description)
    target = target_offset(want, report)
    if not heads or target is None or report.quarterly or not is_english(field.description):
        return []
    ordered = words(heads[0])
    head = frozenset(ordered)
    out: list[Candidate] = []
    for page, page_ls in lines.items():
        for top, block in _page_blocks(doc, page, page_ls):
            offset = _block_offset(block, page_ls, report)
            if offset == target:
                found = _change_reading(block, head, page_ls, top)
                if found is None and balances:
                    found = _balance_reading(block, ordered, page_ls, top, block[2])
            elif balances and offset is not None and offset == target + 1:
                # the year's opening balance: the prior year's closing one
                found = _balance_reading(block, ordered, page_ls, top, block[0])
            else:
                continue
            if found is not None and found[1].value is not None:
                out.append(_candidate(doc, field, page_ls, *found))
    return out


def _page_blocks(doc: DocumentView, page: int, page_ls: list[Line]) -> list[tuple[int, Block]]:
    """A page's roll-forward blocks, the same for every field: found once per document."""
    return doc.memo(f"rollforward_blocks:{page}", lambda: _blocks(page_rows(doc, page, page_ls)))


def _candidate(doc: DocumentView, field: FieldLike, page_ls: list[Line], row: Row, cell: Cell) -> Candidate:
    """The amount in the cell's scale as the table reader reads any cell's (so a count of options is not put
    in the thousands a caption declares for the dollar columns beside it)."""
    scale, word, sure = cell_scale(doc, field, row, page_ls, cell)
    return cell_candidate(row, cell, round(ROLLED * sure, 4), scale, word)


def _change_reading(
    block: Block, head: frozenset[str], page_ls: list[Line], top: int
) -> tuple[Row, Cell] | None:
    """The total column's amount of the one change row the field names, when every column adds up."""
    width = len(block[0].cells)
    if any(len(r.cells) != width for r in block[1]) or not _adds_up(block):
        return None
    column = _total_column(block)
    row = _change_row(block, head, page_ls, top)
    return None if column is None or row is None else (row, row.cells[column])


def _balance_reading(
    block: Block, ordered: list[str], page_ls: list[Line], top: int, balance: Row
) -> tuple[Row, Cell] | None:
    """A balance's first amount ("Balance at December 31, 2023 | 13,630,882 | $ 17.84 …"), for a field asking
    what is outstanding ("Stock options outstanding"): the only column that adds up down the block, in a
    table whose lead-in, header or rows name the field's line item ("Options granted")."""
    opening, changes, closing = block
    subject = [w for w in ordered if w not in _BALANCE_WORDS]
    head = frozenset(ordered)
    if not subject or not head & _BALANCE_ASKED or any(_names_change(r, head) for r in changes):
        return None
    if any(_column_adds_up(block, k) for k in range(1, len(opening.cells))):
        return None  # several components rolled forward (an equity statement's): which one is asked is unsaid
    # named above the table or by its balances, or by every change ("Options granted", "Options exercised"):
    # an equity statement's "Stock options exercised" row does not make it an option roll-forward
    context = lead_words(page_ls, top) | set(words(opening.label)) | set(words(closing.label))
    context |= set.intersection(*(set(words(r.label)) for r in changes))
    # its head noun and all but one of its other words ("stock"): "Basic weighted average shares
    # outstanding" is no balance of an equity statement's shares
    named = subject[-1] in context and len(set(subject) - context) <= 1
    return (balance, balance.cells[0]) if named else None


def _is_balance(label: str) -> bool:
    """A balance row: "Balance at end of year", or a short name at a date ("Goodwill at January 2, 2022")."""
    text = " ".join(label.split())
    return bool(_BALANCE.match(text) or _NAMED_BALANCE.match(text))


def _blocks(rows: list[Row]) -> list[tuple[int, Block]]:
    """Each opening balance, change rows and closing balance whose first column adds up, with the line index
    of the first opening balance of its table (where its lead-in is looked for)."""
    out: list[tuple[int, Block]] = []
    balances = [i for i, r in enumerate(rows) if r.cells and _is_balance(r.label)]
    top, last_close = -1, -10
    for i, j in itertools.pairwise(balances):
        block = (rows[i], rows[i + 1 : j], rows[j])
        if j - i < 2 or not _adjacent(rows[i : j + 1]) or not _adds_up(block, columns=1):
            continue
        if rows[i].line.index > last_close + _ROW_GAP:
            top = rows[i].line.index
        last_close = rows[j].line.index
        out.append((top, block))
    return out


def _adjacent(rows: list[Row]) -> bool:
    """Rows one under the other: balances with as many amounts, changes with at most as many and their first
    amount under the balances' first."""
    first = rows[0].cells[0]
    width = len(rows[0].cells)
    return (
        len(rows[-1].cells) == width
        and all(0 < len(r.cells) <= width and abs(r.cells[0].x1 - first.x1) <= _ALIGN for r in rows)
        and all(0 < b.line.index - a.line.index <= _ROW_GAP for a, b in itertools.pairwise(rows))
    )


def _amount(cell: Cell) -> float | None:
    """A cell's amount, a dash counting as nothing added."""
    return 0.0 if cell.value is None and cell.absent else cell.value


def _adds_up(block: Block, columns: int | None = None) -> bool:
    """In every column (or the first `columns`), the opening balance plus the changes is the closing balance."""
    return all(_column_adds_up(block, k) for k in range(columns or len(block[0].cells)))


def _column_adds_up(block: Block, k: int) -> bool:
    """Column `k` holds an amount in every row, and the opening balance plus the changes is the closing one."""
    opening, changes, closing = block
    if any(len(r.cells) <= k for r in changes):
        return False
    cells = [opening.cells[k], *(r.cells[k] for r in changes), closing.cells[k]]
    amounts = [_amount(c) for c in cells]
    if any(a is None for a in amounts) or all(a == 0 for a in amounts):
        return False
    values = [a for a in amounts if a is not None]
    return sums_to(values[-1], values[:-1], cells)


def _total_column(block: Block) -> int | None:
    """The only column, or the last one when it is the sum of the others in every row."""
    opening, changes, closing = block
    if len(opening.cells) == 1:
        return 0
    for row in (opening, *changes, closing):
        amounts = [_amount(c) for c in row.cells]
        values = [a for a in amounts if a is not None]
        if len(values) != len(amounts) or not sums_to(values[-1], values[:-1], row.cells):
            return None
    return len(opening.cells) - 1


def _block_offset(block: Block, page_ls: list[Line], report: ReportPeriod) -> int | None:
    """The block's fiscal year relative to the report's: its closing balance's date, or else a year printed
    alone on the line above its opening balance."""
    opening, _, closing = block
    if dates_in(closing.label):
        return column_offset(parse_period(closing.label), report)
    above = opening.line.index - 1
    if above >= 0 and _YEAR_LINE.match(" ".join(page_ls[above].text.split())):
        return column_offset(parse_period(page_ls[above].text), report)
    return None


def _label_words(row: Row) -> set[str]:
    return set(words(row.label)) - _FILLER - MONTH_NAMES


def _names_change(row: Row, head: frozenset[str], balance_words: set[str] | None = None) -> bool:
    """The change row's label names only words of the field's line item, and one the balances do not."""
    label = _label_words(row)
    return bool(label) and label <= head and bool(label - (balance_words or set()))


def _change_row(block: Block, head: frozenset[str], page_ls: list[Line], top: int) -> Row | None:
    """The one change row whose label names only words of the field's line item, when the table's lead-in or
    balances name the rest of the line item (what the roll-forward is of)."""
    opening, changes, closing = block
    balance_words = set(words(opening.label)) | set(words(closing.label))
    named = [r for r in changes if _names_change(r, head, balance_words)]
    if len(named) != 1:
        return None
    label = _label_words(named[0])
    subject = head - (label - balance_words) - _CHANGE_VERBS  # what the roll-forward is of: "goodwill"
    context = lead_words(page_ls, top) | balance_words | label
    if context & (_ACCRUED - head):
        return None  # a liability's roll-forward: its "Charges" are only the part of the cost accrued
    return named[0] if subject and subject <= context else None
