"""What every operation module shares: the lineage columns, the step context, the error, the registry.

Frames carry hidden columns whose names start with `SRC` through every step, so that `aggregate` can
tell which documents each result row came from: row-preserving steps keep them, grouping steps
concatenate them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from mdqa_kernel.aggregate.expr_polars import ExprTypeError, compile_expr, kind_of
from mdqa_kernel.errors import MdqaError
from mdqa_kernel.registry import Registry

# Hidden lineage columns: every column whose name starts with SRC holds row numbers of the input
# rows frame, either one per row (UInt32: the row came from one document) or a list (List(UInt32):
# a group or a whole-frame statistic). Pivots keep one such column per year instead of
# concatenating lists, which costs hundreds of milliseconds at a million rows.
SRC = "__src"


def src_cols(df: pl.DataFrame) -> list[str]:
    return [c for c in df.columns if c.startswith(SRC)]


def visible(df: pl.DataFrame) -> list[str]:
    return [c for c in df.columns if not c.startswith(SRC)]


class AggregationError(MdqaError, ValueError):
    """An aggregation step cannot run; the message names the step, the field and what to do."""

    def __init__(
        self, message: str, *, step: int | None = None, op: str | None = None,
        field: str | None = None, hint: str | None = None,
    ) -> None:  # fmt: skip
        self.step, self.op, self.field, self.hint, self.reason = step, op, field, hint, message
        where = f"step {step} ({op})" if step is not None else (op or "aggregation")
        super().__init__(f"{where}: {message}" + (f". {hint}" if hint else ""))


@dataclass(frozen=True)
class StepContext:
    """The step being run (for its error messages) and what the operations need to know of the rows.

    `entity`: the column identifying a document's subject (a company's symbol): ties in a ranking
    are ordered by it and value counts list it as `members`; None when the rows have none.
    """

    index: int
    op: str
    entity: str | None = None

    def fail(self, message: str, *, field: str | None = None, hint: str | None = None) -> AggregationError:
        return AggregationError(message, step=self.index, op=self.op, field=field, hint=hint)

    def require(self, df: pl.DataFrame, fields: Sequence[str], kinds: Sequence[str] | None = None) -> None:
        """Each field exists (and has one of `kinds`), else a clear error listing what exists."""
        for field in fields:
            if field not in df.columns:
                cols = ", ".join(visible(df))
                raise self.fail(
                    f"field {field!r} is not in the frame",
                    field=field,
                    hint=f"Available columns: {cols}. Check the spelling or add a derive/pivot step first",
                )
            kind = kind_of(df.schema[field])
            if kinds is not None and kind not in kinds and kind != "null":
                raise self.fail(
                    f"field {field!r} is {df.schema[field]} ({kind}); {self.op} needs {' or '.join(kinds)}",
                    field=field,
                    hint="Use a field of the right type, or derive one (e.g. a ratio) first",
                )

    def require_rows(self, df: pl.DataFrame, field: str | None = None) -> None:
        if df.height == 0:
            raise self.fail(
                "no input rows",
                field=field,
                hint="An earlier filter removed everything, or the rows frame is empty; check the filters",
            )

    def compile(self, text: str, schema: pl.Schema) -> tuple[pl.Expr, str]:
        try:
            return compile_expr(text, schema)
        except ExprTypeError as exc:
            raise self.fail(
                str(exc), hint="Fix the expression; fields must exist and have the right type"
            ) from exc


def src_union(df: pl.DataFrame, predicate: pl.Expr | None = None) -> list[pl.Expr]:
    """Aggregations of the lineage columns: per group, the input row numbers of its rows."""
    out = []
    for c in src_cols(df):
        col = pl.col(c) if predicate is None else pl.col(c).filter(predicate)
        if isinstance(df.schema[c], pl.List):
            col = col.list.explode(keep_nulls=False, empty_as_null=False)
        out.append(col.alias(c))
    return out


def group(df: pl.DataFrame, by: Sequence[str], aggs: list[pl.Expr]) -> pl.DataFrame:
    """group_by that also works with no key (one output row), keeping first-seen group order."""
    if by:
        return df.group_by(list(by), maintain_order=True).agg(aggs)
    return df.with_columns(pl.lit(0).alias("__k")).group_by("__k").agg(aggs).drop("__k")


OperationFn = Callable[[pl.DataFrame, Any, StepContext], pl.DataFrame]

# Each module of this package registers its function under the `op` names of its spec in
# plan/aggregation.py; other packages add operations through the entry-point group.
OPERATIONS: Registry[OperationFn] = Registry(
    "operation", "mdqa.operations", packages=("mdqa_kernel.aggregate.ops",)
)
