"""One polars implementation per named aggregation operation (see `operations` for the specs).

Every function takes the current frame, the operation and a `StepContext`, checks its inputs
(missing field, wrong type, empty input) and returns a new frame. Frames carry a hidden column
`__src` (list of input row numbers) through every step, so that `aggregate` can tell which
documents each result row came from: row-preserving steps keep it, grouping steps concatenate it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from mdqa_kernel.aggregate.expr_polars import ExprTypeError, compile_expr, kind_of
from mdqa_kernel.plan import aggregation as ops
from mdqa_kernel.text.normalize import normalizer_expr, same_place

# Hidden lineage columns: every column whose name starts with SRC holds row numbers of the input
# rows frame, either one per row (UInt32: the row came from one document) or a list (List(UInt32):
# a group or a whole-frame statistic). Pivots keep one such column per year instead of
# concatenating lists, which costs hundreds of milliseconds at a million rows.
SRC = "__src"
ENTITY = "symbol"  # the company column value counts list as `members`


def src_cols(df: pl.DataFrame) -> list[str]:
    return [c for c in df.columns if c.startswith(SRC)]


def visible(df: pl.DataFrame) -> list[str]:
    return [c for c in df.columns if not c.startswith(SRC)]


class AggregationError(ValueError):
    """An aggregation step cannot run; the message names the step, the field and what to do."""

    def __init__(
        self, message: str, *, step: int | None = None, op: str | None = None,
        field: str | None = None, hint: str | None = None,
    ) -> None:  # fmt: skip
        self.step, self.op, self.field, self.hint, self.reason = step, op, field, hint, message
        where = f"step {step} ({op})" if step is not None else (op or "aggregation")
        super().__init__(f"{where}: {message}" + (f". {hint}" if hint else ""))


@dataclass(frozen=True)
class StepContext:
    index: int
    op: str

    def fail(self, message: str, *, field: str | None = None, hint: str | None = None) -> AggregationError:
        return AggregationError(message, step=self.index, op=self.op, field=field, hint=hint)

    def require(self, df: pl.DataFrame, fields: Sequence[str], kinds: Sequence[str] | None = None) -> None:
        """Each field exists (and has one of `kinds`), else a clear error listing what exists."""
        for field in fields:
            if field not in df.columns:
                cols = ", ".join(visible(df))
                raise self.fail(
                    f"field {field!r} is not in the frame",
                    field=field,
                    hint=f"Available columns: {cols}. Check the spelling or add a derive/pivot step first",
                )
            kind = kind_of(df.schema[field])
            if kinds is not None and kind not in kinds and kind != "null":
                raise self.fail(
                    f"field {field!r} is {df.schema[field]} ({kind}); {self.op} needs {' or '.join(kinds)}",
                    field=field,
                    hint="Use a field of the right type, or derive one (e.g. a ratio) first",
                )

    def require_rows(self, df: pl.DataFrame, field: str | None = None) -> None:
        if df.height == 0:
            raise self.fail(
                "no input rows",
                field=field,
                hint="An earlier filter removed everything, or the rows frame is empty; check the filters",
            )

    def compile(self, text: str, schema: pl.Schema) -> tuple[pl.Expr, str]:
        try:
            return compile_expr(text, schema)
        except ExprTypeError as exc:
            raise self.fail(
                str(exc), hint="Fix the expression; fields must exist and have the right type"
            ) from exc


def src_union(df: pl.DataFrame, predicate: pl.Expr | None = None) -> list[pl.Expr]:
    """Aggregations of the lineage columns: per group, the input row numbers of its rows."""
    out = []
    for c in src_cols(df):
        col = pl.col(c) if predicate is None else pl.col(c).filter(predicate)
        if isinstance(df.schema[c], pl.List):
            col = col.list.explode(keep_nulls=False, empty_as_null=False)
        out.append(col.alias(c))
    return out


def _group(df: pl.DataFrame, by: Sequence[str], aggs: list[pl.Expr]) -> pl.DataFrame:
    """group_by that also works with no key (one output row), keeping first-seen group order."""
    if by:
        return df.group_by(list(by), maintain_order=True).agg(aggs)
    return df.with_columns(pl.lit(0).alias("__k")).group_by("__k").agg(aggs).drop("__k")


# ----------------------------------------------------------------- row-preserving steps


def op_select(df: pl.DataFrame, op: ops.SelectOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, op.fields)
    return df.select([*op.fields, *src_cols(df)])


def op_filter(df: pl.DataFrame, op: ops.FilterOp, ctx: StepContext) -> pl.DataFrame:
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


def _condition(df: pl.DataFrame, op: ops.FilterOp, ctx: StepContext) -> pl.Expr:
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


def op_derive(df: pl.DataFrame, op: ops.DeriveOp, ctx: StepContext) -> pl.DataFrame:
    expr, _ = ctx.compile(op.expr, df.schema)
    return df.with_columns(expr.alias(op.name))


def op_sort(df: pl.DataFrame, op: ops.SortOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, op.by)
    return df.sort(op.by, descending=op.descending, nulls_last=True, maintain_order=True)


def op_rank(df: pl.DataFrame, op: ops.RankOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, [op.field], ["num", "date", "bool"])
    ctx.require(df, op.by)
    col = pl.col(op.field)
    valid = col.is_not_null()
    if df.schema[op.field] in (pl.Float32, pl.Float64):
        valid = valid & col.is_not_nan()  # NaN would sort above every number
    present = df.filter(valid)
    ctx.require_rows(present, op.field)
    rank = col.rank(op.rank_method, descending=op.op == "top_k")
    if op.by:
        rank = rank.over(op.by)
    ranked = present.with_columns(rank.alias("rank")).filter(pl.col("rank") <= op.k)
    # Ties in identifier order, not in the order documents happened to be read: the same answer on
    # every run and for every collection order.
    tie = [ENTITY] if ENTITY in ranked.columns and ENTITY not in op.by else []
    return ranked.sort([*op.by, "rank", *tie], maintain_order=True)


def op_outliers(df: pl.DataFrame, op: ops.OutliersOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, op.fields, ["num"])
    ctx.require_rows(df, op.fields[0])
    flags = [_outlier_flag(op, f).fill_null(False).alias(f"{f}_{op.name}") for f in op.fields]
    combine = pl.any_horizontal if op.combine == "any" else pl.all_horizontal
    out = df.with_columns(flags).with_columns(combine([f.meta.output_name() for f in flags]).alias(op.name))
    return out.filter(pl.col(op.name)) if op.keep_only else out


def _outlier_flag(op: ops.OutliersOp, field: str) -> pl.Expr:
    x = pl.col(field).abs() if op.absolute else pl.col(field)
    mean = x.mean()
    if op.method == "k_times_mean":
        above, below = x > op.k * mean, x < mean / op.k
    else:
        sd = x.std(ddof=0 if op.sigma == "population" else 1)
        above, below = x > mean + op.k * sd, x < mean - op.k * sd
    return {"above": above, "below": below, "both": above | below}[op.side]


# ----------------------------------------------------------------- cross-year steps


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


def op_pivot_years(df: pl.DataFrame, op: ops.PivotYearsOp, ctx: StepContext) -> pl.DataFrame:
    return pivot_years(df, op.key, op.year_field, op.fields, op.years, op.how, ctx)


def _ensure_pivoted(df: pl.DataFrame, fields: list[str], years: list[int], key: list[str], year_field: str,
                    ctx: StepContext) -> pl.DataFrame:  # fmt: skip
    """Accept either a long frame (pivot it) or one already holding `<field>_<year>` columns."""
    wanted = [f"{f}_{y}" for f in fields for y in years]
    if all(c in df.columns for c in wanted):
        return df
    return pivot_years(df, key, year_field, fields, years, "inner", ctx)


def op_growth(df: pl.DataFrame, op: ops.GrowthOp, ctx: StepContext) -> pl.DataFrame:
    y1, y2 = op.from_year, op.to_year
    df = _ensure_pivoted(df, op.fields, [y1, y2], op.key, op.year_field, ctx)
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


def op_change(df: pl.DataFrame, op: ops.ChangeOp, ctx: StepContext) -> pl.DataFrame:
    y1, y2 = op.from_year, op.to_year
    df = _ensure_pivoted(df, [op.field], [y1, y2], op.key, op.year_field, ctx)
    a, b = f"{op.field}_{y1}", f"{op.field}_{y2}"
    if op.normalize != "exact":
        ctx.require(df, [a, b], ["text"])
    if op.normalize == "place":  # a pairwise test, not a normal form: one result row per company
        pairs = pl.struct(pl.col(a).alias("a"), pl.col(b).alias("b"))
        # an address not read in either year is no move, as a null comparison is in the other modes
        changed = pairs.map_elements(
            lambda p: None if p["a"] is None or p["b"] is None else not same_place(p["a"], p["b"]),
            return_dtype=pl.Boolean,
        ).alias(op.name)
    else:
        changed = _changed_by_normal_form(df, op, a, b, ctx)
    out = df.with_columns(changed)
    if op.keep == "all":
        return out
    return out.filter(pl.col(op.name) if op.keep == "changed" else ~pl.col(op.name))


def _changed_by_normal_form(df: pl.DataFrame, op: ops.ChangeOp, a: str, b: str, ctx: StepContext) -> pl.Expr:
    """The two years' values differ once each is normalised (exact, text or a registered entity form)."""
    try:
        norm = normalizer_expr(op.normalize, op.normalizer)
    except KeyError as exc:
        raise ctx.fail(
            str(exc), field=op.field, hint="Register it with normalize.register_entity_normalizer"
        ) from exc
    if op.normalize == "exact":
        return (pl.col(a) != pl.col(b)).alias(op.name)
    # Normalise each distinct name once (names repeat across thousands of rows), then look up.
    distinct = pl.concat([df[a], df[b]]).drop_nulls().unique()
    lookup = pl.DataFrame({"v": distinct}).with_columns(norm(pl.col("v")).alias("n"))
    keyed = [
        pl.col(c).replace_strict(lookup["v"], lookup["n"], default=None, return_dtype=pl.String)
        for c in (a, b)
    ]
    return (keyed[0] != keyed[1]).alias(op.name)


# ----------------------------------------------------------------- grouping steps


def stat_expr(field: str, stat: str, dtype: pl.DataType) -> pl.Expr:
    col = pl.col(field).cast(pl.Float64) if kind_of(dtype) == "bool" else pl.col(field)
    exprs: dict[str, Callable[[], pl.Expr]] = {
        "count": col.count,
        "n_unique": col.drop_nulls().n_unique,
        "sum": col.sum,
        "mean": col.mean,
        "median": col.median,
        "min": col.min,
        "max": col.max,
        "range": lambda: col.max() - col.min(),
        "std_sample": lambda: col.std(ddof=1),
        "std_population": lambda: col.std(ddof=0),
    }
    expr = exprs[stat]()
    if stat == "range" and kind_of(dtype) == "date":
        expr = expr.dt.total_days()  # a range of dates is a number of days
    return expr


def op_count(df: pl.DataFrame, op: ops.CountOp, ctx: StepContext) -> pl.DataFrame:
    ctx.require(df, op.by)
    out = _group(df, op.by, [pl.len().cast(pl.Int64).alias(op.name), *src_union(df)])
    if df.height == 0 and not op.by:  # "how many …" over nothing is 0, not an error
        out = pl.DataFrame({op.name: [0], SRC: [[]]}, schema={op.name: pl.Int64, SRC: pl.List(pl.UInt32)})
    return out.sort(op.name, descending=True, maintain_order=True) if op.by else out


def op_stat(df: pl.DataFrame, op: ops.StatOp, ctx: StepContext) -> pl.DataFrame:
    if op.field is None:  # count of rows
        return op_count(df, ops.CountOp(by=op.by, name=op.out_name()), ctx)
    numeric_only = op.stat in ("sum", "mean", "median", "std_sample", "std_population")
    kinds = ["num", "bool"] if numeric_only else None
    if op.stat in ("min", "max", "range"):
        kinds = ["num", "bool", "date"]
    ctx.require(df, [op.field, *op.by], None)
    ctx.require(df, [op.field], kinds)
    present = pl.col(op.field).is_not_null()
    if op.stat not in ("count", "n_unique"):
        ctx.require_rows(df.filter(present), op.field)
    if op.stat in ("mode", "frequency"):
        return _value_counts(df, op, top_only=op.stat == "mode")
    expr = stat_expr(op.field, op.stat, df.schema[op.field]).alias(op.out_name())
    return _group(df, op.by, [expr, *src_union(df, present)])


def _value_counts(df: pl.DataFrame, op: ops.StatOp, *, top_only: bool) -> pl.DataFrame:
    """Each value with its count and its companies (`members`), most frequent first; `top_only`
    keeps the most frequent value(s), ties included (per group with `by`). A list value counts as
    one combination whatever its order ("现场投票、网络投票" = "网络投票、现场投票")."""
    field = op.field or ""
    dtype = df.schema[field]
    sortable = isinstance(dtype, pl.List) and not isinstance(dtype.inner, pl.Struct | pl.List)
    value = pl.col(field).list.sort() if sortable else pl.col(field)
    members = []
    if ENTITY in df.columns and ENTITY not in (field, *op.by):  # who is behind each count
        members = [pl.col(ENTITY).drop_nulls().unique().sort().alias("members")]
    counts = (
        df.filter(pl.col(field).is_not_null())
        .with_columns(value.alias(field))
        .group_by([*op.by, field], maintain_order=True)
        .agg(pl.len().cast(pl.Int64).alias("count"), *members, *src_union(df))
    )
    if top_only:
        top = pl.col("count").max().over(op.by) if op.by else pl.col("count").max()
        counts = counts.filter(pl.col("count") == top)
    else:
        counts = counts.sort(
            [*op.by, "count"], descending=[*(False for _ in op.by), True], maintain_order=True
        )
    return counts.rename({field: op.out_name()}) if op.name else counts


def op_compare_groups(df: pl.DataFrame, op: ops.CompareGroupsOp, ctx: StepContext) -> pl.DataFrame:
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


def op_code(df: pl.DataFrame, op: ops.CodeOp, ctx: StepContext) -> pl.DataFrame:
    """Run free polars code in the sandbox; every output row is attributed to every input row."""
    from mdqa_kernel.aggregate.sandbox import SandboxError, run_polars_code  # lazy: most plans never need it

    try:
        result = run_polars_code(op.code, df.drop(src_cols(df)))
    except SandboxError as exc:
        raise ctx.fail(
            str(exc), hint="Fix the code (it gets `rows` and must set `result`) or use typed steps"
        ) from exc
    all_src: list[int] = []
    for c in src_cols(df):
        series = df[c].explode() if isinstance(df.schema[c], pl.List) else df[c]
        all_src += series.drop_nulls().to_list()
    result = result.drop(src_cols(result))
    return result.with_columns(pl.Series(SRC, [all_src] * result.height, dtype=pl.List(pl.UInt32)))


_DATE_PARTS = {"year": (0, 4), "month": (5, 2), "day": (8, 2)}


def op_explode(df: pl.DataFrame, op: ops.ExplodeOp, ctx: StepContext) -> pl.DataFrame:
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


OP_FUNCTIONS: dict[str, Callable[[pl.DataFrame, Any, StepContext], pl.DataFrame]] = {
    "select": op_select,
    "filter": op_filter,
    "derive": op_derive,
    "pivot_years": op_pivot_years,
    "growth": op_growth,
    "change": op_change,
    "top_k": op_rank,
    "bottom_k": op_rank,
    "count": op_count,
    "stat": op_stat,
    "group_by": op_stat,
    "outliers": op_outliers,
    "compare_groups": op_compare_groups,
    "explode": op_explode,
    "sort": op_sort,
    "code": op_code,
}
