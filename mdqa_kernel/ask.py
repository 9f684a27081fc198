"""ask(): one question over a collection, plan → extract → aggregate → answer, every stage kept.

    result = ask("2021年资本充足率最高的三家银行？", Collection.open("ws", "banks"))
    result                 # in a notebook: the plan, the rows used, the answer, lineage and costs
    result.costs           # calls / tokens / seconds per stage (from the LLM accounting)
    fixed = result.rerun(plan=edited_plan)              # re-extract (cached cells are free) and on
    fixed = result.reaggregate(rows=corrected_rows)     # aggregate + answer only
    fixed = result.correct({(doc_id, "field"): 15.44})  # overlay corrections, then reaggregate

Each stage is a plain object (Plan, ExtractionResult, polars rows, AggregateResult, Answer), so an
analyst can replace any of them and re-run only the stages after it. The same function runs from
papermill and from `mdqa ask`.
"""

from __future__ import annotations

import html
import sys
import time
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from mdqa_kernel.aggregate.run import AggregateResult, AggregationError, aggregate
from mdqa_kernel.answer import Answer, render_answer
from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.ir import Plan
from mdqa_kernel.plan.planner import Planner, PlanResult
from mdqa_kernel.plan.vocabulary import Vocabulary
from mdqa_kernel.readers import needs_llm
from mdqa_kernel.rows.rows import apply_corrections, corrected_rows

if TYPE_CHECKING:
    from mdqa_kernel.collection.collection import Collection
    from mdqa_kernel.llm import LLMClient, LLMConfig
    from mdqa_kernel.plan.ir import FieldSpec
    from mdqa_kernel.readers import Reader

__all__ = ["AskError", "AskResult", "ask"]

COST_SCHEMA = pl.Schema({
    "stage": pl.String, "seconds": pl.Float64, "llm_calls": pl.Int64, "cache_hits": pl.Int64,
    "prompt_tokens": pl.Int64, "completion_tokens": pl.Int64,
})  # fmt: skip


class AskError(MdqaError):
    """A stage of ask() failed; `stage` names it and `result` holds the stages that did run."""

    def __init__(self, stage: str, message: str, result: AskResult | None = None) -> None:
        super().__init__(f"{stage}: {message}")
        self.stage, self.result = stage, result


@dataclass
class _Context:
    """What the later stages need to re-run: the collection, the reader and the LLM client."""

    collection: Any
    reader: Any
    reader_options: dict[str, Any]
    client: Any
    polish: bool = False
    aggregate_options: dict[str, Any] = field(default_factory=dict)  # aggregate()'s meta_columns, entity


@dataclass
class AskResult:
    question: str
    plan: Plan
    extraction: Any  # ExtractionResult, or None when the rows were given
    rows: pl.DataFrame
    aggregate: AggregateResult | None
    answer: Answer | None
    costs: pl.DataFrame
    planning: PlanResult | None = None
    error: str | None = None
    context: _Context | None = field(default=None, repr=False)

    # -- re-running later stages ----------------------------------------------------------------
    def rerun(self, plan: Plan | None = None, rows: pl.DataFrame | None = None) -> AskResult:
        """Re-run from the first replaced stage: a new plan re-extracts (finished cells come from
        the workspace), new rows only re-aggregate."""
        if plan is None and rows is None:
            plan = self.plan
        if plan is not None:
            ctx = self._ctx()
            return _run(self.question, plan, ctx, planning=None, plan_costs=None)
        return self.reaggregate(rows=rows)

    def reaggregate(self, rows: pl.DataFrame | None = None, aggregation: Any = None) -> AskResult:
        """Aggregate + answer again over corrected rows and/or an edited aggregation (milliseconds)."""
        plan = self.plan if aggregation is None else self.plan.model_copy(update={"aggregation": aggregation})
        rows = self.rows if rows is None else rows
        t0 = time.perf_counter()
        agg, answer, error = _aggregate_and_answer(self.question, plan, rows, self.extraction, self.context)
        cost = _cost_row("aggregate+answer", time.perf_counter() - t0, {})
        before = self.costs if "stage" in self.costs.columns else pl.DataFrame(schema=COST_SCHEMA)
        costs = pl.concat([before.filter(~pl.col("stage").is_in(["aggregate+answer", "total"])), cost])
        return replace(
            self, plan=plan, rows=rows, aggregate=agg, answer=answer, error=error, costs=_total(costs)
        )

    def correct(self, corrections: Mapping[tuple[str, str], Any] | pl.DataFrame) -> AskResult:
        """Overlay {(doc_id, field): value} corrections on the rows and re-aggregate; each value is
        typed as its plan field, and an unknown field or document is a CorrectionError."""
        return self.reaggregate(rows=apply_corrections(self.rows, corrections, fields=self.plan))

    def _ctx(self) -> _Context:
        if self.context is None:
            raise AskError(
                "rerun", "this result has no collection to extract from; use reaggregate(rows=...)"
            )
        return self.context

    # -- display ----------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return self.answer.text if self.answer else f"(no answer: {self.error})"

    def lineage(self) -> pl.DataFrame:
        if self.answer is None or not self.answer.lineage:
            return pl.DataFrame()
        return pl.DataFrame([li.model_dump() for li in self.answer.lineage], infer_schema_length=None)

    def __repr__(self) -> str:
        return f"AskResult({self.question!r} -> {self.text!r}, rows={self.rows.height})"

    def _repr_html_(self) -> str:
        esc = html.escape
        parts = [f"<div class='mdqa-ask'><h4>{esc(self.question)}</h4>"]
        parts.append(f"<p><b>Answer:</b> {esc(self.text)}</p>")
        if self.planning is not None:
            t = self.planning.trace
            parts.append(
                f"<p><b>Plan</b> (family {esc(str(t.family))} from {esc(t.family_source)}; "
                f"parameter sources {esc(str(t.sources))})</p>"
            )
        parts.append(self.plan._repr_html_())
        parts.append(
            f"<details><summary><b>Rows</b> ({self.rows.height})</summary>{self.rows.head(50)._repr_html_()}</details>"
        )
        if self.aggregate is not None:
            trace = " → ".join(f"{s.op} ({s.rows_in}→{s.rows_out})" for s in self.aggregate.trace)
            parts.append(
                f"<p><b>Aggregation:</b> {esc(trace)}</p>{self.aggregate.frame.head(20)._repr_html_()}"
            )
        lin = self.lineage()
        if lin.height:
            parts.append(
                f"<details><summary><b>Lineage</b> ({lin.height} cells)</summary>{lin.head(100)._repr_html_()}</details>"
            )
        parts.append(f"<p><b>Costs</b></p>{self.costs._repr_html_()}</div>")
        return "".join(parts)


# -- the pipeline ------------------------------------------------------------------------------------


def ask(
    question: str,
    collection: Collection,
    *,
    plan: Plan | None = None,
    fields: Sequence[FieldSpec | Mapping[str, Any]] | Mapping[str, str] | None = None,
    reader: str | Reader = "cascade",
    llm: LLMClient | LLMConfig | str | None = None,
    planner: Planner | None = None,
    polish: bool = False,
    aggregate_options: Mapping[str, Any] | None = None,
    **reader_options: Any,
) -> AskResult:
    """Answer `question` over `collection`: plan (unless given) → extract → aggregate → answer.

    `fields`: keep these fields (FieldSpecs, dicts or {name: description}) and plan only the rest.
    `llm`: an LLMClient, an LLMConfig, a backend name ("local", "local-tiny"...), or None (environment).
    `aggregate_options`: keywords for `aggregate` (`meta_columns`, `entity`) when the collection names
    its document columns otherwise than the plan IR's defaults (MuDABench passes its own).
    Raises AskError when no plan can be made; a failing aggregation is kept in `result.error`.
    """
    client = _client(llm, collection) if (plan is None or needs_llm(reader) or polish) else None
    if needs_llm(reader) and client is not None:
        reader_options.setdefault("client", client)
    ctx = _Context(collection, reader, reader_options, client, polish, dict(aggregate_options or {}))
    planning = None
    plan_costs = None
    if plan is None:
        t0, w0 = time.perf_counter(), time.time()
        # Without given fields, the planner grounds the fields it proposes in the labels the
        # documents print (a deterministic read of a sample of documents; no model).
        vocabulary = Vocabulary.of(collection) if not fields else None
        assert client is not None  # made above whenever no plan is given
        planning = (planner or Planner(client, dry_run=aggregate)).propose(
            question, metadata=collection.documents, schema_fields=fields, vocabulary=vocabulary
        )
        _flush(client)  # cache hits are buffered by the client; count them before reading the ledger
        plan_costs = _cost_row("plan", time.perf_counter() - t0, _llm_usage(collection.workspace, w0))
        if planning.plan is None:
            raise AskError("plan", planning.error or "no valid plan")
        plan = planning.plan
    return _run(question, plan, ctx, planning=planning, plan_costs=plan_costs)


def _run(
    question: str, plan: Plan, ctx: _Context, *, planning: PlanResult | None, plan_costs: pl.DataFrame | None
) -> AskResult:
    from mdqa_kernel.extract.run import extract

    t0, w0 = time.perf_counter(), time.time()
    extraction = extract(plan, ctx.collection, ctx.reader, progress=False, **ctx.reader_options)
    rows = corrected_rows(extraction)  # the analyst's corrections overlay what was extracted
    _flush(ctx.client)
    extract_cost = _cost_row("extract", time.perf_counter() - t0, _llm_usage(ctx.collection.workspace, w0))
    t1 = time.perf_counter()
    agg, answer, error = _aggregate_and_answer(question, plan, rows, extraction, ctx)
    costs = [c for c in (plan_costs, extract_cost) if c is not None]
    costs.append(_cost_row("aggregate+answer", time.perf_counter() - t1, {}))
    return AskResult(
        question=question, plan=plan, extraction=extraction, rows=rows, aggregate=agg, answer=answer,
        costs=_total(pl.concat(costs)), planning=planning, error=error, context=ctx,
    )  # fmt: skip


def _aggregate_and_answer(
    question: str, plan: Plan, rows: pl.DataFrame, extraction: Any, ctx: _Context | None
) -> tuple[AggregateResult | None, Answer | None, str | None]:
    if plan.aggregation is None:
        return None, None, "the plan has no aggregation"
    try:
        agg = aggregate(rows, plan.aggregation, **(ctx.aggregate_options if ctx is not None else {}))
    except AggregationError as e:  # keep the stages that ran: the analyst fixes the plan or the rows
        return None, None, str(e)
    cells = extraction.cells if extraction is not None else None
    answer = render_answer(question, plan.aggregation, agg, cells=cells)
    if ctx is not None and ctx.polish and ctx.client is not None:
        from mdqa_kernel.answer import polish

        answer = polish(answer, lambda p: ctx.client.complete(p, stage="answer"))
    return agg, answer, None


# -- costs -------------------------------------------------------------------------------------------


def _llm_usage(workspace: Any, since: float) -> dict[str, int]:
    """LLM calls recorded in the workspace since `since` (wall clock), all stages together."""
    try:
        rows = workspace.query(
            "SELECT COUNT(*) AS n, COALESCE(SUM(cache_hit), 0) AS hits, COALESCE(SUM(prompt_tokens), 0) AS p,"
            " COALESCE(SUM(completion_tokens), 0) AS c FROM llm_calls WHERE created >= ?",
            (since,),
        )
    except Exception:  # a workspace without the accounting table: no LLM was used
        return {}
    r = rows[0]
    return {
        "llm_calls": r["n"],
        "cache_hits": r["hits"],
        "prompt_tokens": r["p"],
        "completion_tokens": r["c"],
    }


def _flush(client: Any) -> None:
    flush = getattr(client, "flush", None)
    if callable(flush):
        flush()


def _cost_row(stage: str, seconds: float, usage: dict[str, int]) -> pl.DataFrame:
    row = {"stage": stage, "seconds": round(seconds, 3), "llm_calls": 0, "cache_hits": 0,
           "prompt_tokens": 0, "completion_tokens": 0} | usage  # fmt: skip
    return pl.DataFrame([row], schema=COST_SCHEMA)


def _total(costs: pl.DataFrame) -> pl.DataFrame:
    body = costs.filter(pl.col("stage") != "total")
    total = body.select(pl.lit("total").alias("stage"), pl.exclude("stage").sum())
    return pl.concat([body, total.cast(COST_SCHEMA)])


def _client(llm: LLMClient | LLMConfig | str | None, collection: Collection) -> LLMClient:
    from mdqa_kernel.llm import LLMClient, LLMConfig

    if llm is None or isinstance(llm, str):
        config = LLMConfig.from_env(backend=llm) if llm else LLMConfig.from_env()
        return LLMClient(config, collection.workspace)
    if isinstance(llm, LLMConfig):
        return LLMClient(llm, collection.workspace)
    return llm


class _CallableModule(types.ModuleType):
    """`mdqa_kernel.ask(question, collection)` works as well as `from mdqa_kernel.ask import ask`:
    the stage module and its one function share a name, so the module forwards calls."""

    def __call__(self, question: str, collection: Any, **kwargs: Any) -> AskResult:
        return ask(question, collection, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
