"""`filter`: keep the rows where `field cmp value` holds, or where a boolean expression holds;
with `share`, also the fraction of the incoming rows kept."""

from __future__ import annotations

from typing import Any

import polars as pl

from mdqa_kernel.aggregate.expr_polars import kind_of
from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("filter")
def op_filter(df: pl.DataFrame, op: spec.FilterOp, ctx: StepContext) -> pl.DataFrame:
    if op.expr is not None:
        expr, kind = ctx.compile(op.expr, df.schema)
        if kind != "bool":
            raise ctx.fail(
                f"filter expression {op.expr!r} is {kind}, not a condition", hint="Use a comparison"
            )
    else:
        assert op.field is not None  # guaranteed by FilterOp's validator
        ctx.require(df, [op.field])
        expr = _condition(df, op, ctx)
    kept = df.filter(expr)
    if op.share is None:
        return kept
    # rows whose condition is unknown (a value not read) stay in the denominator: a share of all documents
    share = kept.height / df.height if df.height else None
    return kept.with_columns(pl.lit(share, dtype=pl.Float64).alias(op.share))


def _condition(df: pl.DataFrame, op: spec.FilterOp, ctx: StepContext) -> pl.Expr:
    field, cmp, value = op.field or "", op.cmp, op.value
    col, kind = pl.col(field), kind_of(df.schema[field])
    if cmp in ("is_null", "not_null"):
        return col.is_null() if cmp == "is_null" else col.is_not_null()
    if cmp in ("is_true", "is_false"):
        ctx.require(df, [field], ["bool"])
        return col if cmp == "is_true" else ~col
    if cmp == "contains":
        if kind == "list":
            return col.list.contains(value)
        ctx.require(df, [field], ["text", "list"])
        if op.ignore_case:
            return col.str.to_lowercase().str.contains(str(value).lower(), literal=True)
        return col.str.contains(str(value), literal=True)
    values = value if isinstance(value, list) else [value]
    _check_value_kinds(values, kind, field, ctx)
    if kind == "date":
        values = [_as_date(v, field, ctx) for v in values]
    if kind == "text" and op.ignore_case:
        col, values = col.str.to_lowercase(), [str(v).lower() for v in values]
    if cmp in ("in", "not_in"):
        member = col.is_in(values)
        return member if cmp == "in" else ~member
    lit = pl.lit(values[0])
    return {
        "eq": col == lit,
        "ne": col != lit,
        "gt": col > lit,
        "ge": col >= lit,
        "lt": col < lit,
        "le": col <= lit,
    }[cmp]


def _check_value_kinds(values: list[Any], kind: str, field: str, ctx: StepContext) -> None:
    for v in values:
        numeric = isinstance(v, (int, float)) and not isinstance(v, bool)
        ok = (
            (kind == "num" and numeric)
            or (kind == "text" and isinstance(v, str))
            or (kind == "bool" and isinstance(v, bool))
            or (kind == "date" and isinstance(v, str))
            or kind in ("null", "other")
        )
        if not ok:
            raise ctx.fail(f"cannot compare {kind} field {field!r} with {v!r}", field=field,
                           hint="Give a value of the field's type (numbers unquoted, dates as 'YYYY-MM-DD')")  # fmt: skip


def _as_date(value: Any, field: str, ctx: StepContext) -> Any:
    import datetime as dt

    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ctx.fail(
            f"{value!r} is not an ISO date for {field!r}", field=field, hint="Write dates as YYYY-MM-DD"
        ) from None
