"""`top_k` / `bottom_k`: the k largest (smallest) values, ties at the cut-off included, with a `rank`
column; ties are ordered by the entity column so the answer is the same for every collection order."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("top_k")
@OPERATIONS.register("bottom_k")
def op_rank(df: pl.DataFrame, op: spec.RankOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, [op.field], ["num", "date", "bool"])
    ctx.require(df, op.by)
    col = pl.col(op.field)
    valid = col.is_not_null()
    if df.schema[op.field] in (pl.Float32, pl.Float64):
        valid = valid & col.is_not_nan()  # NaN would sort above every number
    present = df.filter(valid)
    ctx.require_rows(present, op.field)
    rank = col.rank(op.rank_method, descending=op.op == "top_k")
    if op.by:
        rank = rank.over(op.by)
    ranked = present.with_columns(rank.alias("rank")).filter(pl.col("rank") <= op.k)
    # Ties in identifier order, not in the order documents happened to be read: the same answer on
    # every run and for every collection order.
    entity = ctx.entity
    tie = [entity] if entity is not None and entity in ranked.columns and entity not in op.by else []
    return ranked.sort([*op.by, "rank", *tie], maintain_order=True)
