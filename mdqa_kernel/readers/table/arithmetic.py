"""The sign a statement gives a deduction, read from the statement's own arithmetic.

Statements print a deducted line two ways. Most print the amount and subtract it ("Income before
income taxes 826 / Provision for income taxes 117 / Net income 709"); others print every deduction
negative and add down the column ("… 826 / Provision for income taxes (117) / … 709"). A tax line in
parentheses is therefore either an expense (the second style) or a benefit (the first style: a
loss-maker's "(743)" provision is a credit). The label cannot tell; the rows around it can: when the
row above plus the printed figure is the row below, the statement adds, and the expense is the
figure negated; when the row above minus the figure is the row below, the figure is the expense as
printed. When neither (or both) holds, the sign stays unknown. Which rows this applies to is the field's
and the label's words (`readers.semantics.signed_by_sums`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from mdqa_kernel.text.layout import Cell
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.values import decimal_places


class Use(Enum):
    """How the statement combines a printed figure with the running amount above it."""

    ADDED = "added"  # above + figure = below: the figure carries its own sign
    SUBTRACTED = "subtracted"  # above − figure = below: the figure is the amount deducted


def use_in_column(rows: list[Row], row: Row, cell: Cell) -> Use | None:
    """How the statement uses `cell` (a cell of `row`): checked against the same column's figures on
    the rows just above and below; None when they are missing or the check is not one-sided."""
    at = next((i for i, r in enumerate(rows) if r is row), None)
    if at is None or at == 0 or at + 1 >= len(rows) or cell.value is None:
        return None
    above, below = _same_column(rows[at - 1], cell), _same_column(rows[at + 1], cell)
    if above is None or below is None or above.value is None or below.value is None:
        return None
    tol = _tolerance(above, cell, below)
    added = abs(above.value + cell.value - below.value) <= tol
    subtracted = abs(above.value - cell.value - below.value) <= tol
    if added == subtracted:
        return None  # neither adds up, or the figure is too small to tell
    return Use.ADDED if added else Use.SUBTRACTED


def _same_column(row: Row, cell: Cell) -> Cell | None:
    """The cell of `row` that shares `cell`'s column (their printed extents overlap)."""
    hits = [c for c in row.cells if c.x0 <= cell.x1 and cell.x0 <= c.x1]
    return hits[0] if len(hits) == 1 else None


def _tolerance(*cells: Cell) -> float:
    """One unit of the finest printed precision: rounded figures need not add up exactly."""
    decimals = max((decimal_places(c.printed) for c in cells), default=0)
    return 10.0**-decimals * 1.0001


def sums_to(total: float, parts: list[float], printed: Sequence[Cell]) -> bool:
    """The parts add up to the total, to the rounding of the `printed` amounts (parts and total): half a unit
    of the finest printed precision for each of them."""
    unit = 10.0 ** -max(decimal_places(c.text) for c in printed)
    return abs(sum(parts) - total) <= 0.5 * unit * len(printed)
