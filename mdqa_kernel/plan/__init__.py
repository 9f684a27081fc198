"""Stage 2, the plan: a typed intermediate representation of what to read and how to combine it.

- `ir`: `Plan` (metadata filters, fields, aggregation), `FieldSpec`, `MetadataFilter`;
- `aggregation`: the aggregation's operations as typed specs (`FilterOp`, `RankOp`, …, `Output`);
- `expr`: the small expression language of `derive` and `filter` steps (parsing only);
- `planner`: question → Plan (rules first, a small LLM where rules cannot decide), with its
  `rules`, `fields`, `families`, `formula`, `schema`, `context` and `vocabulary` helpers and the
  editable `hints.yaml`.
"""

from __future__ import annotations

from typing import Any

from mdqa_kernel.plan.aggregation import (
    Aggregation,
    ChangeOp,
    Cmp,
    CodeOp,
    CompareGroupsOp,
    CountOp,
    DeriveOp,
    ExplodeOp,
    FilterOp,
    GrowthOp,
    OutliersOp,
    Output,
    PivotYearsOp,
    RankOp,
    SelectOp,
    SortOp,
    Stat,
    StatOp,
)
from mdqa_kernel.plan.ir import FieldSpec, MetadataFilter, Plan, PlanValidationError

__all__ = [
    "Aggregation",
    "ChangeOp",
    "Cmp",
    "CodeOp",
    "CompareGroupsOp",
    "CountOp",
    "DeriveOp",
    "ExplodeOp",
    "FieldSpec",
    "FilterOp",
    "GrowthOp",
    "MetadataFilter",
    "OutliersOp",
    "Output",
    "PivotYearsOp",
    "Plan",
    "PlanValidationError",
    "Planner",
    "PlannerError",
    "RankOp",
    "SelectOp",
    "SortOp",
    "Stat",
    "StatOp",
]


def __getattr__(name: str) -> Any:
    # The planner pulls in the LLM layer; load it only when asked for.
    if name in ("Planner", "PlannerError"):
        from mdqa_kernel.plan import planner

        return getattr(planner, name)
    raise AttributeError(f"module 'mdqa_kernel.plan' has no attribute {name!r}")
