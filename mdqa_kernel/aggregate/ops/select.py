"""`select`: keep only the named columns (and the hidden lineage columns)."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext, src_cols
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("select")
def op_select(df: pl.DataFrame, op: spec.SelectOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, op.fields)
    return df.select([*op.fields, *src_cols(df)])
