"""`change`: per entity, whether a field's value differs between two years (exact, normalised
text, a registered entity normal form, or the same place written two ways)."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, StepContext
from mdqa_kernel.aggregate.ops.pivot_years import ensure_pivoted
from mdqa_kernel.plan import aggregation as spec
from mdqa_kernel.text.normalize import UnknownNormalizerError, normalizer_expr, same_place


@OPERATIONS.register("change")
def op_change(df: pl.DataFrame, op: spec.ChangeOp, ctx: StepContext) -> pl.DataFrame:
    y1, y2 = op.from_year, op.to_year
    df = ensure_pivoted(df, [op.field], [y1, y2], op.key, op.year_field, ctx)
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


def _changed_by_normal_form(df: pl.DataFrame, op: spec.ChangeOp, a: str, b: str, ctx: StepContext) -> pl.Expr:
    """The two years' values differ once each is normalised (exact, text or a registered entity form)."""
    try:
        norm = normalizer_expr(op.normalize, op.normalizer)
    except UnknownNormalizerError as exc:
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
