"""`count`: the number of rows, per group of `by` (largest first) or over the whole frame."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, SRC, StepContext, group, src_union
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("count")
def op_count(df: pl.DataFrame, op: spec.CountOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, op.by)
    out = group(df, op.by, [pl.len().cast(pl.Int64).alias(op.name), *src_union(df)])
    if df.height == 0 and not op.by:  # "how many …" over nothing is 0, not an error
        out = pl.DataFrame({op.name: [0], SRC: [[]]}, schema={op.name: pl.Int64, SRC: pl.List(pl.UInt32)})
    return out.sort(op.name, descending=True, maintain_order=True) if op.by else out
