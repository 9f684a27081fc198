"""`compare_groups`: a statistic per group, one row per group, with the gaps to the first group."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext, src_union
from mdqa_kernel.aggregate.ops.stat import stat_expr
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("compare_groups")
def op_compare_groups(df: pl.DataFrame, op: spec.CompareGroupsOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, [op.field, op.by])
    ctx.require(df, [op.field], ["num", "bool"] if op.stat not in ("count", "n_unique") else None)
    ctx.require_rows(df, op.field)
    if op.stat in ("mode", "frequency"):
        raise ctx.fail(
            f"{op.stat} is not a comparable statistic", hint="Use mean, median, sum, count, min or max"
        )
    name = f"{op.field}_{op.stat}"
    present = pl.col(op.field).is_not_null()
    stat = stat_expr(op.field, op.stat, df.schema[op.field]).alias(name)
    out = df.group_by(op.by, maintain_order=True).agg(
        stat, present.sum().cast(pl.Int64).alias("n"), *src_union(df, present)
    )
    if op.groups is not None:
        order = pl.DataFrame({op.by: op.groups, "__order": range(len(op.groups))}, strict=False)
        order = order.with_columns(pl.col(op.by).cast(df.schema[op.by], strict=False))
        out = out.join(order, on=op.by, how="inner").sort("__order").drop("__order")
    else:
        out = out.sort(name, descending=True, nulls_last=True)
    ctx.require_rows(out, op.by)
    diff = pl.col(name) - pl.col(name).first()
    # gap_to_first: how far below the first group (largest first: ≥ 0), the "差值" a question asks for
    gap = pl.col(name).first() - pl.col(name)  # not -diff: that prints "-0.00" for the first group
    return out.with_columns(diff.alias("diff_from_first"), gap.alias("gap_to_first"))
