"""mdqa and mdqa-oracle-rows: our own pipeline (planner → typed plan → cascade extraction → typed
aggregation → answer), called through `mdqa_kernel.ask`, with the chunk budget k of the LLM reader.

mdqa-oracle-rows runs the same pipeline with the oracle reader (gold values for every cell): the
upper bound of everything after extraction (planning, aggregation, answer).

`ask` is written elsewhere; this adapter passes it only the keyword arguments its signature
accepts and reads the answer and the cells from whatever result it returns (attribute or key), so
the benchmark keeps working while that interface settles. Until `ask` exists the systems report
`SystemUnavailableError` (stage "plan"), which the grid does not treat as a final result.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.systems.base import (
    LLM,
    QuestionInput,
    StageError,
    SystemConfig,
    SystemOutput,
    SystemUnavailableError,
    empty_cells,
)


def find_ask() -> Callable[..., Any]:
    """`mdqa_kernel.ask.ask`, else `mdqa_kernel.ask` as a function, else unavailable."""
    try:
        from mdqa_kernel import ask as mod
    except ImportError:
        mod = None
    fn = getattr(mod, "ask", mod) if mod is not None else None
    if callable(fn):
        return fn
    raise SystemUnavailableError(
        "plan", "mdqa_kernel.ask (planner → extract → aggregate → answer) is not available yet"
    )


def _kwargs_for(fn: Callable[..., Any], wanted: dict[str, Any]) -> dict[str, Any]:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return wanted
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return wanted
    return {k: v for k, v in wanted.items() if k in params}


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if hasattr(obj, name):
            return getattr(obj, name)
    return None


def answer_text(result: Any) -> str | None:
    if isinstance(result, str):
        return result
    ans = _get(result, "answer")
    if isinstance(ans, str):
        return ans
    text = _get(ans, "text") if ans is not None else None
    return text if isinstance(text, str) else None


def cells_of(result: Any) -> pl.DataFrame:
    """The result's long-form cells (doc_id, field, status, value_json), whatever holds them."""
    cells = _get(result, "cells")
    if cells is None:
        extraction = _get(result, "extraction", "extract", "result")
        cells = _get(extraction, "cells") if extraction is not None else None
    if not isinstance(cells, pl.DataFrame) or not {"doc_id", "field", "status"} <= set(cells.columns):
        return empty_cells()
    if "value_json" not in cells.columns:
        values = cells["value"].to_list() if "value" in cells.columns else [None] * cells.height
        cells = cells.with_columns(value_json=pl.Series([json.dumps(v, ensure_ascii=False) for v in values]))
    return cells.select("doc_id", "field", "status", "value_json").cast(pl.String)


def _stage_failures(result: Any) -> list[dict[str, str]]:
    failures = _get(result, "failures", "errors") or []
    out = []
    for f in failures if isinstance(failures, list) else []:
        if isinstance(f, dict):
            out.append({"stage": str(f.get("stage", "unknown")), "error": str(f.get("error", f))[:500]})
        else:
            out.append({"stage": str(getattr(f, "stage", "unknown")), "error": str(f)[:500]})
    return out


def ask_kwargs(config: SystemConfig, q: QuestionInput, llm: LLM, *, oracle: bool) -> dict[str, Any]:
    """ask()'s keywords: the reader, the LLM client (planner and LLM reader), and the reader's
    options (chunk budget k for the cascade's LLM reader; for the oracle, the gold source and the
    gold field names). Plain mdqa plans its own fields, as the other systems do."""
    if oracle:
        # Oracle rows are the gold table, so the plan must use the gold columns: the planner gets
        # the question's schema as fixed fields and still plans the filters and the aggregation.
        return {"reader": "oracle", "llm": llm, "source": q.gold_source, "fields": dict(q.schema) or None}
    return {"reader": "cascade", "llm": llm, "k": max(1, round(config.k))}


def run_pipeline(config: SystemConfig, q: QuestionInput, llm: LLM, *, oracle: bool) -> SystemOutput:
    ask = find_ask()
    if q.collection is None:
        raise StageError("plan", "the mdqa pipeline needs the question's collection")
    wanted = {k: v for k, v in ask_kwargs(config, q, llm, oracle=oracle).items() if v is not None}
    kwargs = _kwargs_for(ask, wanted)
    try:
        result = ask(q.question, q.collection, **kwargs)
    except StageError:
        raise
    except Exception as exc:  # AskError names its stage; anything else is the pipeline's bug
        stage = str(getattr(exc, "stage", None) or "pipeline")
        raise StageError(stage, f"{type(exc).__name__}: {exc}") from exc
    out = SystemOutput(answer=answer_text(result), cells=cells_of(result))
    out.failures.extend(_stage_failures(result))
    plan = _get(result, "plan")
    if plan is not None and hasattr(plan, "to_dict"):
        out.notes["plan"] = plan.to_dict()
    error = _get(result, "error")
    if out.answer is None:
        # No answer but the cells are kept (they still score cell/row/column accuracy).
        out.fail("aggregate" if error else "answer", error or "the pipeline returned no answer text")
        out.fatal = True
    return out


def run(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    return run_pipeline(config, q, llm, oracle=False)


def run_oracle(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    return run_pipeline(config, q, llm, oracle=True)
