"""`stat` / `group_by`: one statistic of a field over the frame or per group; `mode` and `frequency`
are value counts with the entities behind each count (`members`)."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from mdqa_kernel.aggregate.expr_polars import kind_of
from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext, group, src_union
from mdqa_kernel.aggregate.ops.count import op_count
from mdqa_kernel.plan import aggregation as spec


def stat_expr(field: str, stat: str, dtype: pl.DataType) -> pl.Expr:
    col = pl.col(field).cast(pl.Float64) if kind_of(dtype) == "bool" else pl.col(field)
    exprs: dict[str, Callable[[], pl.Expr]] = {
        "count": col.count,
        "n_unique": col.drop_nulls().n_unique,
        "sum": col.sum,
        "mean": col.mean,
        "median": col.median,
        "min": col.min,
        "max": col.max,
        "range": lambda: col.max() - col.min(),
        "std_sample": lambda: col.std(ddof=1),
        "std_population": lambda: col.std(ddof=0),
    }
    expr = exprs[stat]()
    if stat == "range" and kind_of(dtype) == "date":
        expr = expr.dt.total_days()  # a range of dates is a number of days
    return expr


@OPERATIONS.register("stat")
@OPERATIONS.register("group_by")
def op_stat(df: pl.DataFrame, op: spec.StatOp, ctx: StepContext) -> pl.DataFrame:
    if op.field is None:  # count of rows
        return op_count(df, spec.CountOp(by=op.by, name=op.out_name()), ctx)
    numeric_only = op.stat in ("sum", "mean", "median", "std_sample", "std_population")
    kinds = ["num", "bool"] if numeric_only else None
    if op.stat in ("min", "max", "range"):
        kinds = ["num", "bool", "date"]
    ctx.require(df, [op.field, *op.by], None)
    ctx.require(df, [op.field], kinds)
    present = pl.col(op.field).is_not_null()
    if op.stat not in ("count", "n_unique"):
        ctx.require_rows(df.filter(present), op.field)
    if op.stat in ("mode", "frequency"):
        return _value_counts(df, op, ctx.entity, top_only=op.stat == "mode")
    expr = stat_expr(op.field, op.stat, df.schema[op.field]).alias(op.out_name())
    return group(df, op.by, [expr, *src_union(df, present)])


def _value_counts(df: pl.DataFrame, op: spec.StatOp, entity: str | None, *, top_only: bool) -> pl.DataFrame:
    """Each value with its count and its entities (`members`, read from the `entity` column), most
    frequent first; `top_only` keeps the most frequent value(s), ties included (per group with `by`).
    A list value counts as one combination whatever its order ("现场投票、网络投票" = "网络投票、现场投票")."""
    field = op.field or ""
    dtype = df.schema[field]
    sortable = isinstance(dtype, pl.List) and not isinstance(dtype.inner, pl.Struct | pl.List)
    value = pl.col(field).list.sort() if sortable else pl.col(field)
    members = []  # who is behind each count
    if entity is not None and entity in df.columns and entity not in (field, *op.by):
        members = [pl.col(entity).drop_nulls().unique().sort().alias("members")]
    counts = (
        df.filter(pl.col(field).is_not_null())
        .with_columns(value.alias(field))
        .group_by([*op.by, field], maintain_order=True)
        .agg(pl.len().cast(pl.Int64).alias("count"), *members, *src_union(df))
    )
    if top_only:
        top = pl.col("count").max().over(op.by) if op.by else pl.col("count").max()
        counts = counts.filter(pl.col("count") == top)
    else:
        counts = counts.sort(
            [*op.by, "count"], descending=[*(False for _ in op.by), True], maintain_order=True
        )
    return counts.rename({field: op.out_name()}) if op.name else counts
