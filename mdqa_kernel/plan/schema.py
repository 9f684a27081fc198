"""The collection as the planner sees it: its metadata columns with their distinct values, the
filters a question states on them, and the dry run that checks a plan on a synthetic frame of those
columns and the plan's field types before any document is read (with the aggregation function the
caller passes: the plan stage does not import aggregate)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.aggregation import Aggregation
from mdqa_kernel.plan.ir import Plan
from mdqa_kernel.plan.rules import QuestionFacts

# Columns that describe files, not documents: never offered to the planner as metadata.
TECHNICAL_COLUMNS = frozenset({"path", "sha256", "n_pages", "language", "status", "error_kind", "message", "note",
                               "pages", "question_ids", "noise_for"})  # fmt: skip


@dataclass
class MetadataSchema:
    """Metadata columns and, for low-cardinality ones (doctype, year), their distinct values."""

    columns: list[str]
    values: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, frame: pl.DataFrame, max_distinct: int = 30) -> MetadataSchema:
        cols = [c for c in frame.columns if c not in TECHNICAL_COLUMNS]
        values: dict[str, list[Any]] = {}
        for c in cols:
            if c == "doc_id" or frame.schema[c] not in (pl.String, pl.Int64, pl.Int32, pl.Boolean):
                continue
            distinct = frame[c].drop_nulls().unique()
            if 0 < distinct.len() <= max_distinct:
                values[c] = sorted(distinct.to_list())
        return cls(cols, values)

    def describe(self) -> str:
        parts = []
        for c in self.columns:
            vals = self.values.get(c)
            parts.append(f"{c} ({', '.join(map(str, vals))})" if vals else c)
        return "; ".join(parts)


def metadata_schema(metadata: pl.DataFrame | MetadataSchema | None) -> MetadataSchema:
    if isinstance(metadata, MetadataSchema):
        return metadata
    if metadata is None:
        return MetadataSchema(["doc_id", "symbol", "year"])
    return MetadataSchema.of(metadata)


def metadata_filters(facts: QuestionFacts, meta: MetadataSchema) -> dict[str, Any]:
    """Metadata filters the question states: its years and the document types it names."""
    out: dict[str, Any] = {}
    if facts.years and "year" in meta.columns:
        out["year"] = facts.years[0] if len(facts.years) == 1 else sorted(facts.years)
    if facts.doctypes and "doctype" in meta.columns:
        out["doctype"] = facts.doctypes[0] if len(facts.doctypes) == 1 else facts.doctypes
    return out


# The function a dry run calls: `aggregate.aggregate` in the pipeline. The plan is the stage to the
# left of aggregate and must not import it, so the caller passes it in; it raises an MdqaError (an
# AggregationError) when the plan cannot run.
DryRun = Callable[[pl.DataFrame, Aggregation], object]


class DryRunError(MdqaError):
    """The plan's aggregation failed on the synthetic frame; the message is the aggregation's own."""


_DUMMY = {
    "number": lambda i: float(10 + 3 * i), "percent": lambda i: float(5 + i), "integer": lambda i: 2 + i,
    "boolean": lambda i: i % 2 == 0, "date": lambda i: dt.date(2021, 3 + i, 10 + i), "text": lambda i: f"x{i % 2}",
    "list_text": lambda i: ["a", f"b{i % 2}"],
}  # fmt: skip


def dry_run(plan: Plan, meta: MetadataSchema, facts: QuestionFacts, run: DryRun) -> None:
    """Run the aggregation with `run` on a small synthetic frame of the right types: catches wrong
    columns/types (raised as DryRunError)."""
    if plan.aggregation is None:
        return
    years = sorted(set(facts.years)) or [2021, 2022]
    n_sym = 4
    rows = [(s, y) for s in range(n_sym) for y in years]
    data: dict[str, Any] = {
        "doc_id": [f"d{i}" for i in range(len(rows))],
        "symbol": [f"S{s}" for s, _ in rows],
        "year": [y for _, y in rows],
    }
    for c in meta.columns:
        if c not in data:
            vals = meta.values.get(c) or ["v"]
            data[c] = [vals[i % len(vals)] for i in range(len(rows))]
    for spec in plan.fields:
        data[spec.name] = [_DUMMY[spec.type](i) for i in range(len(rows))]
    frame = pl.DataFrame(data, strict=False)
    try:
        run(frame, plan.aggregation)
    except MdqaError as e:
        if "no input rows" not in str(e):  # an empty selection on dummy data is not a planning error
            raise DryRunError(str(e)) from e
