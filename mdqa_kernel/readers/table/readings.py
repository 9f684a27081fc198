"""The readings a table reader weighs for one field, and how it compares them: a candidate typed for
the field (`Reading`), the entity scope it was read under, whether it comes from a primary statement, and
whether two readings name one fact (equal, or equal up to the rounding of the less precise: "$60.9
billion" in prose and 60,915 in millions)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mdqa_kernel.readers.base import FieldLike
from mdqa_kernel.readers.confidence import OTHER_SCOPE_FACTOR
from mdqa_kernel.readers.semantics import asks_percent, field_scope
from mdqa_kernel.readers.table.candidates import Candidate


@dataclass
class Reading:
    """A candidate typed for the field: its value, the scale applied, its score and, when the words
    around it deny it, why (readers/plausibility.py)."""

    cand: Candidate
    value: Any
    applied: float | None
    score: float
    why: str | None


def in_statement(t: Reading, statements: dict[int, str | None]) -> bool:
    """A table row of a consolidated primary statement."""
    return t.cand.kind == "table" and t.cand.scope is None and statements.get(t.cand.page) is not None


def in_scope(field: FieldLike, typed: list[Reading]) -> tuple[list[Reading], str | None]:
    """The readings of the entity the field asks about: a parent-only statement's or a segment note's
    figure is dropped when a reading of the field's own scope exists, else kept at a lower score."""
    wanted = field_scope(field)
    own = [t for t in typed if t.cand.scope in (None, wanted)]
    if len(own) == len(typed):
        return typed, None
    if any(t.why is None for t in own):
        return own, None
    for t in typed:
        if t.cand.scope not in (None, wanted):
            t.score = round(t.score * OTHER_SCOPE_FACTOR, 4)
    others = sorted({t.cand.scope or "" for t in typed if t.cand.scope not in (None, wanted)})
    return typed, f"read from a {'/'.join(others)} statement, not the {wanted} one"


def tolerance(field: FieldLike, t: Reading) -> float:
    """Half a unit of the last digit printed, in the field's scale: how far the printed figure may be from
    the exact one it rounds ("60.9" billion: 0.05 billion; "60,915" million: 0.5 million)."""
    if not isinstance(t.value, int | float) or isinstance(t.value, bool):
        return 0.0
    m = re.search(r"\d[\d,]*(?:\.(\d+))?", t.cand.raw)
    if m is None or t.cand.number is not None:
        return 0.0  # a number the finder computed (a dividend in cents, "2.1 million"): take it as exact
    decimals = len(m.group(1) or "")
    return 0.5 * 10.0**-decimals * (t.applied or 1.0) / (field.scale or 1.0)


ROUNDING = 0.01  # a rounded figure names the exact one it rounds when it is printed to within 1%
# A rate is printed to the whole percent in prose ("Our effective tax rate … was 15% and 34%"): it names the
# exact rate of the table (34.1%) it rounds, although half a point is more than 1% of it.
PERCENT_POINT = 0.5


def agree(field: FieldLike, a: Reading, b: Reading) -> bool:
    """Two readings of one fact: equal, or equal up to the rounding of the less precise."""
    if same(a.value, b.value):
        return True
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a.value, b.value)):
        return False
    tol = max(tolerance(field, a), tolerance(field, b))
    precise = min(tolerance(field, a), tolerance(field, b))
    limit = ROUNDING * abs(float(a.value))
    if asks_percent(field):
        limit = max(limit, PERCENT_POINT)
    if tol > limit:
        return False  # "$4 billion" is too round to name which of 3.6 or 4.4 billion it rounds
    return tol > precise and abs(float(a.value) - float(b.value)) <= tol + 1e-9 * abs(float(a.value))


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)
    return bool(a == b)
