"""`explode`: one row per distinct element of a list field (or per value of a key of its records)."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext, src_cols
from mdqa_kernel.plan import aggregation as spec

_DATE_PARTS = {"year": (0, 4), "month": (5, 2), "day": (8, 2)}


@OPERATIONS.register("explode")
def op_explode(df: pl.DataFrame, op: spec.ExplodeOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, [op.field])
    dtype = df.schema[op.field]
    if not isinstance(dtype, pl.List):
        raise ctx.fail(f"{op.field!r} is {dtype}, not a list", field=op.field,
                       hint="explode reads list fields (type list_text)")  # fmt: skip
    name = op.out_name()
    origin = src_cols(df) or [c for c in df.columns if c != op.field]  # what identifies an input row
    out = df.explode(op.field).filter(pl.col(op.field).is_not_null())
    value = pl.col(op.field)
    if op.key is not None:
        if isinstance(dtype.inner, pl.Struct):
            value = value.struct.field(op.key)
        elif dtype.inner == pl.String:  # records as JSON text: '{"month": 6, "meeting_type": "年度股东大会"}'
            record = value.str.strip_chars().str.starts_with("{")
            # plain elements (a list of months already) are kept as they are
            plain = value
            if op.key in _DATE_PARTS:  # an ISO date's month (or year, day): "2022-06-28" -> "06"
                start, length = _DATE_PARTS[op.key]
                iso = value.str.contains(r"^\d{4}-\d{2}-\d{2}")
                plain = pl.when(iso).then(value.str.slice(start, length)).otherwise(value)
            value = pl.when(record).then(value.str.json_path_match(f"$.{op.key}")).otherwise(plain)
    out = out.with_columns(value.alias(name))
    if op.key is not None and out.height and out[name].null_count() == out.height:
        raise ctx.fail(f"no element of {op.field!r} has a key {op.key!r}", field=op.field,
                       hint="explode without `key` keeps the elements themselves")  # fmt: skip
    if out[name].dtype == pl.String:  # "6" from JSON text: a number when every value is one
        as_int = out[name].cast(pl.Int64, strict=False)
        if as_int.null_count() == out[name].null_count():
            out = out.with_columns(as_int.alias(name))
    if name != op.field:
        out = out.drop(op.field)
    return out.filter(pl.col(name).is_not_null()).unique(subset=[*origin, name], maintain_order=True)
