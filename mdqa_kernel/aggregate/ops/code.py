"""`code`: free polars code run in the sandbox (the last resort of a plan)."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.aggregate.ops._common import OPERATIONS, SRC, StepContext, src_cols
from mdqa_kernel.plan import aggregation as spec


@OPERATIONS.register("code")
def op_code(df: pl.DataFrame, op: spec.CodeOp, ctx: StepContext) -> pl.DataFrame:
    """Run free polars code in the sandbox; every output row is attributed to every input row."""
    # lazy: most plans never need it
    from mdqa_kernel.aggregate.sandbox import SandboxError, run_polars_code

    try:
        # Untrusted code (an LLM wrote it): the sandbox's default refuses before running where OS
        # isolation (bubblewrap) is unavailable, unless $MDQA_SANDBOX_UNISOLATED=1 (trusted code).
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
