"""mdqa and mdqa-oracle-rows: our own pipeline (planner → typed plan → cascade extraction → typed
aggregation → answer), called through `mdqa_kernel.ask`, with the chunk budget k of the LLM reader.

mdqa-oracle-rows runs the same pipeline with the oracle reader (gold values for every cell): the
upper bound of everything after extraction (planning, aggregation, answer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.mudabench import AGGREGATE_OPTIONS
from mdqa_kernel.benchmarks.systems.base import (
    LLM,
    QuestionInput,
    StageError,
    SystemConfig,
    SystemOutput,
    empty_cells,
)


def find_ask() -> Callable[..., Any]:
    """The pipeline entry point (a seam: tests replace it to simulate an unavailable stage)."""
    from mdqa_kernel.ask import ask

    return ask


def cells_of(result: Any) -> pl.DataFrame:
    """The result's long-form cells (doc_id, field, status, value_json); empty when rows were given."""
    cells = result.extraction.cells if result.extraction is not None else None
    if not isinstance(cells, pl.DataFrame):
        return empty_cells()
    return cells.select("doc_id", "field", "status", "value_json").cast(pl.String)


def ask_kwargs(config: SystemConfig, q: QuestionInput, llm: LLM, *, oracle: bool) -> dict[str, Any]:
    """ask()'s keywords: the reader, the LLM client (planner and LLM reader), and the reader's
    options (chunk budget k for the cascade's LLM reader; for the oracle, the gold source and the
    gold field names), and MuDABench's document columns for aggregate. Plain mdqa plans its own
    fields, as the other systems do."""
    if oracle:
        # Oracle rows are the gold table, so the plan must use the gold columns: the planner gets
        # the question's schema as fixed fields and still plans the filters and the aggregation.
        options = {"reader": "oracle", "llm": llm, "source": q.gold_source, "fields": dict(q.schema) or None}
    else:
        options = {"reader": "cascade", "llm": llm, "k": max(1, round(config.k))}
    return {**options, "aggregate_options": AGGREGATE_OPTIONS}


def run_pipeline(config: SystemConfig, q: QuestionInput, llm: LLM, *, oracle: bool) -> SystemOutput:
    ask = find_ask()
    if q.collection is None:
        raise StageError("plan", "the mdqa pipeline needs the question's collection")
    kwargs = {k: v for k, v in ask_kwargs(config, q, llm, oracle=oracle).items() if v is not None}
    try:
        result = ask(q.question, q.collection, **kwargs)
    except StageError:
        raise
    except Exception as exc:  # AskError names its stage; anything else is the pipeline's bug
        stage = str(getattr(exc, "stage", None) or "pipeline")
        raise StageError(stage, f"{type(exc).__name__}: {exc}") from exc
    out = SystemOutput(
        answer=result.answer.text if result.answer is not None else None, cells=cells_of(result)
    )
    out.notes["plan"] = result.plan.to_dict()
    if out.answer is None:
        # No answer but the cells are kept (they still score cell/row/column accuracy).
        out.fail(
            "aggregate" if result.error else "answer", result.error or "the pipeline returned no answer text"
        )
        out.fatal = True
    return out


def run(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    return run_pipeline(config, q, llm, oracle=False)


def run_oracle(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    return run_pipeline(config, q, llm, oracle=True)
