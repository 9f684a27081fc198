"""`growth`: per entity and field, the relative growth (or difference) between two years."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.expr_polars import kind_of
from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext
from mdqa_kernel.aggregate.ops.pivot_years import ensure_pivoted
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("growth")
def op_growth(df: pl.DataFrame, op: spec.GrowthOp, ctx: StepContext) -> pl.DataFrame:
    y1, y2 = op.from_year, op.to_year
    df = ensure_pivoted(df, op.fields, [y1, y2], op.key, op.year_field, ctx)
    cols = []
    for f in op.fields:
        a, b = f"{f}_{y1}", f"{f}_{y2}"
        kinds = ["num", "date"] if op.mode == "difference" else ["num"]
        ctx.require(df, [a, b], kinds)
        v1, v2 = pl.col(a), pl.col(b)
        if kind_of(df.schema[a]) == "date":
            growth = (v2 - v1).dt.total_days().cast(pl.Float64)
        elif op.mode == "difference":
            growth = (v2 - v1).cast(pl.Float64)
        else:  # MuDABench convention: relative to |v1|; undefined (null) when v1 is 0
            growth = pl.when(v1 != 0).then((v2 - v1) / v1.abs()).otherwise(None).cast(pl.Float64)
        cols.append(growth.alias(f"{f}{op.suffix}"))
    return df.with_columns(cols)
