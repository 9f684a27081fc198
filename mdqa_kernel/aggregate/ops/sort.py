"""`sort`: order the rows by columns, nulls last, stable."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("sort")
def op_sort(df: pl.DataFrame, op: spec.SortOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, op.by)
    return df.sort(op.by, descending=op.descending, nulls_last=True, maintain_order=True)
