"""Column headers of a table continued from the page before without its header row.

A statement that runs over a page break often prints its header ("项目 | 本期发生额 | 上期发生额", "2023 |
2022") on its first page only. The rows at the top of the next page have no header above them, so their
columns would name no period. When the page starts with rows (no title, no header, no paragraph before
them), the page before ends with the table (nothing but page furniture after its last row), and the
columns line up (every figure's right edge within a few points of one of that row's), the rows are read
under the header of the page before, and under the span its statement's title names.
"""

from __future__ import annotations

from dataclasses import dataclass

from mdqa_kernel.readers.base import DocumentView
from mdqa_kernel.readers.semantics import statement_scope
from mdqa_kernel.readers.table.columns import document_period, page_rows
from mdqa_kernel.readers.table.scope import running_lines
from mdqa_kernel.text.headers import column_headers
from mdqa_kernel.text.layout import Cell, Line, is_year_word
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.statement_span import title_span, with_statement_span
from mdqa_kernel.text.values import is_absent

Carried = tuple[tuple[float, str], ...]  # (a column's right edge, its header) from the page before

_ALIGN = 3.0  # points a column's right edge may move between pages
_FURNITURE = 20  # characters of a line after a table's last row that is page furniture, not text
_PAGES_BACK = 3  # pages a header is carried over at most


@dataclass(frozen=True)
class Continuation:
    """What a row at the top of a page takes from the table it continues on the page before."""

    start: int  # the first line of the page that is no continued row (0: the page continues nothing)
    headers: Carried = ()
    source: tuple[list[Line], Row] | None = None  # that page's lines and the row the header is over


_NONE = Continuation(0)


def continuation(doc: DocumentView, lines: dict[int, list[Line]], row: Row) -> Continuation:
    """The header of each column of the table the row's page continues, and where it is printed (the scale
    declared above that row is the continued rows' too), when the row is one of the rows the page starts
    with; an empty continuation when it is not."""
    carry = _page_carry(doc, lines, row.page, _PAGES_BACK)
    return carry if row.line.index < carry.start else _NONE


def carried_header(cell: Cell, carried: Carried) -> str:
    """The carried header of the column the cell's right edge lines up with; "" for none."""
    near = [(abs(x1 - cell.x1), header) for x1, header in carried if abs(x1 - cell.x1) <= _ALIGN]
    return min(near)[1] if near else ""


def _page_carry(doc: DocumentView, lines: dict[int, list[Line]], page: int, depth: int) -> Continuation:
    # keyed by the depth too: a page reached from the page after it may look fewer pages back
    return doc.memo(f"continued:{page}:{depth}", lambda: _carry(doc, lines, page, depth))


def _carry(doc: DocumentView, lines: dict[int, list[Line]], page: int, depth: int) -> Continuation:
    running = running_lines(doc, lines)
    start = _continued_rows_end(lines.get(page, []), running)
    if depth <= 0 or start == 0 or page - 1 not in lines:
        return _NONE
    prev_ls = lines[page - 1]
    last = _last_row(doc, page - 1, prev_ls, running)
    if last is None:
        return _NONE
    headers = column_headers(prev_ls, last.line.index, last.cells)
    headers = with_statement_span(headers, prev_ls, last.line.index, document_period(doc))
    if any(headers):
        pairs = tuple((c.x1, h) for c, h in zip(last.cells, headers, strict=True) if h)
        return Continuation(start, pairs, (prev_ls, last))
    # a statement over three pages: the page before is itself continued
    prev = _page_carry(doc, lines, page - 1, depth - 1)
    if last.line.index < prev.start:
        return Continuation(start, prev.headers, prev.source)
    return _NONE


def _continued_rows_end(page_ls: list[Line], running: frozenset[str]) -> int:
    """The index of the first line past the rows a page starts with: a title, a paragraph or a line of
    headers ends them; 0 when the page does not start with a row of figures."""
    seen_row = False
    for i, line in enumerate(page_ls):
        if line.text.strip() in running:
            continue
        _label, cells, _units = line.split()
        if len(cells) >= 2 and all(is_year_word(w) for w in cells):
            return i if seen_row else 0  # a header of years ("2023 2022"): a table of the page's own
        numeric = any(w.numeric or is_absent(w.text) for w in cells)  # a row of figures or dashes
        if not numeric and (title_span(line.text) is not None or statement_scope(line.text) is not None):
            return i if seen_row else 0
        if not numeric and (cells or len(line.text) > 60):
            # words over the columns (a header) or a paragraph: the page's own table or text starts here
            return i if seen_row else 0
        seen_row = seen_row or numeric
    return len(page_ls) if seen_row else 0


def _last_row(doc: DocumentView, page: int, page_ls: list[Line], running: frozenset[str]) -> Row | None:
    """The last table row of the page, when nothing but page furniture (a page number, a running footer)
    follows it."""
    rows = [r for r in page_rows(doc, page, page_ls) if any(c.value is not None for c in r.cells)]
    if not rows:
        return None
    last = rows[-1]
    end = max([last.line.index, *(j for j in range(len(page_ls)) if page_ls[j].top <= last.line.bottom + 1)])
    after = page_ls[end + 1 :]
    if any(len(line.text.strip()) > _FURNITURE and line.text.strip() not in running for line in after):
        return None  # a signature, a note or a paragraph: the table ended on its page
    return last


def carried_headers(cells: list[Cell], carried: Carried) -> list[str] | None:
    """Each cell's carried header, when every figure of the row lines up with a carried column; else None."""
    headers = [carried_header(c, carried) for c in cells]
    if not carried or not all(h for c, h in zip(cells, headers, strict=True) if c.value is not None):
        return None
    return headers
