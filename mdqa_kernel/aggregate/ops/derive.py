"""`derive`: a new column computed by a small arithmetic expression over columns."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("derive")
def op_derive(df: pl.DataFrame, op: spec.DeriveOp, ctx: StepContext) -> pl.DataFrame:
    expr, _ = ctx.compile(op.expr, df.schema)
    return df.with_columns(expr.alias(op.name))
