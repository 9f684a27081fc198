"""`pivot_years`: one row per entity with `<field>_<year>` columns; `ensure_pivoted` lets the
cross-year steps (`growth`, `change`) accept a long frame or an already pivoted one."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext, src_cols
from mdqa_kernel.plan import aggregation as spec


def pivot_years(
    df: pl.DataFrame, key: list[str], year_field: str, fields: list[str], years: list[int] | None,
    how: str, ctx: StepContext,
) -> pl.DataFrame:  # fmt: skip
    """One row per key with `<field>_<year>` columns (a join of per-year slices on the key).

    Checks one row per (key, year): two documents for one company-year would make the join
    silently multiply rows. Joins, not a pivot, because they stay fast at a million rows.
    """
    ctx.require(df, [*key, year_field, *fields])
    ctx.require(df, [year_field], ["num"])
    ctx.require_rows(df, fields[0])
    if years is None:
        years = sorted(int(y) for y in df[year_field].drop_nulls().unique())
    if not key:  # whole frame: one row, each year's single value
        df = df.with_columns(pl.lit(0).alias("__k"))
    keys = key or ["__k"]
    out: pl.DataFrame | None = None
    for y in years:
        part = df.filter(pl.col(year_field) == y).select(
            [
                *keys,
                *(pl.col(f).alias(f"{f}_{y}") for f in fields),
                *(pl.col(c).alias(f"{c}_{y}") for c in src_cols(df)),
            ]
        )
        dup = part.select(pl.struct(keys).is_duplicated().any()).item() if part.height else False
        if dup:
            raise ctx.fail(f"more than one row per {keys} in year {y}", field=keys[0],
                           hint="Filter to one document per entity and year (e.g. by doctype) first")  # fmt: skip
        if out is None:
            out = part
        else:
            out = out.join(part, on=keys, how="inner" if how == "inner" else "full", coalesce=True,
                           nulls_equal=False, maintain_order="left_right")  # fmt: skip
    assert out is not None
    return out if key else out.drop("__k")


@OPERATIONS.register("pivot_years")
def op_pivot_years(df: pl.DataFrame, op: spec.PivotYearsOp, ctx: StepContext) -> pl.DataFrame:
    return pivot_years(df, op.key, op.year_field, op.fields, op.years, op.how, ctx)


def ensure_pivoted(df: pl.DataFrame, fields: list[str], years: list[int], key: list[str], year_field: str,
                    ctx: StepContext) -> pl.DataFrame:  # fmt: skip
    """Accept either a long frame (pivot it) or one already holding `<field>_<year>` columns."""
    wanted = [f"{f}_{y}" for f in fields for y in years]
    if all(c in df.columns for c in wanted):
        return df
    return pivot_years(df, key, year_field, fields, years, "inner", ctx)
