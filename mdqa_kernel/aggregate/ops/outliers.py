"""`outliers`: keep (or flag) rows where any/all fields lie beyond k × mean or mean ± k·σ."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("outliers")
def op_outliers(df: pl.DataFrame, op: spec.OutliersOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, op.fields, ["num"])
    ctx.require_rows(df, op.fields[0])
    flags = [_outlier_flag(op, f).fill_null(False).alias(f"{f}_{op.name}") for f in op.fields]
    combine = pl.any_horizontal if op.combine == "any" else pl.all_horizontal
    out = df.with_columns(flags).with_columns(combine([f.meta.output_name() for f in flags]).alias(op.name))
    return out.filter(pl.col(op.name)) if op.keep_only else out


def _outlier_flag(op: spec.OutliersOp, field: str) -> pl.Expr:
    x = pl.col(field).abs() if op.absolute else pl.col(field)
    mean = x.mean()
    if op.method == "k_times_mean":
        above, below = x > op.k * mean, x < mean / op.k
    else:
        sd = x.std(ddof=0 if op.sigma == "population" else 1)
        above, below = x > mean + op.k * sd, x < mean - op.k * sd
    return {"above": above, "below": below, "both": above | below}[op.side]
