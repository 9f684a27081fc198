"""mdqa on analyst questions (FinanceBench): the statement planner, then the pipeline, else retrieval.

A question the statement planner reads completely (plan/analyst.py: one company, named fiscal years, a
line item or a metric with its formula), a yes/no judgement its figures decide (plan/judgement.py:
a trend, consistency within a stated tolerance, high growth), or the largest of figures it lists
(plan/choice.py: "which activity brought in the most cash"), becomes a plan that selects the filing by
metadata, reads one field per (line item, year) with the cascade (the table reader first, the LLM reader
for the cells it is unsure of) and derives the answer; the record keeps the formula and every value with
its page.
A field that is not found, or read below STATEMENT_THRESHOLD by either reader, leaves the question
unanswered ("not found" / "needs review"), never a guess; when the vocabulary can derive that line item
from others (gross profit as revenue less cost of revenue: `otherwise` in plan/statement_terms.yaml), the
question is planned and read once more with it derived, and the record says so (`derived`).

Any other question (a judgement, a narrative, an 8-K event) is answered by retrieval over the filings
the question names: the company, and its years and kind of filing when the question says them
(`select_filings`), with the flat-RAG prompt on the same model. The record says which route answered.
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.systems import change, flat_rag
from mdqa_kernel.benchmarks.systems.base import LLM, QuestionInput, StageError, SystemConfig, SystemOutput
from mdqa_kernel.plan.analyst import derivable, describe, select_filings
from mdqa_kernel.plan.planner import figure_plan

# a plan's route is "<family>-plan": statement-plan, judgement-plan, choice-plan
ROUTE_RETRIEVAL = "retrieval"
# The cascade asks the model only for cells the table reader reads below this confidence. Statement
# line items read by the table reader at >= 0.5 were right more often than the cascade's output on the
# real-filings facts (table at >= 0.5: precision 0.94 dev / 0.87 validation; cascade sample: 0.83 dev;
# results/realfacts/calibration.csv, `mdqa reproduce realfacts`, session 21), so the model does not
# overrule them here.
STATEMENT_THRESHOLD = 0.5


def _collection(q: QuestionInput) -> Any:
    if q.collection is None:
        raise StageError("collection", "the mdqa system needs the question's collection")
    return q.collection.where(pl.col("doc_id").is_in(q.documents["doc_id"].to_list()))


def run(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    return _run(config, q, llm, oracle=False)


def run_oracle_pages(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    """The same system reading only the question's evidence pages (`q.pages`): FinanceBench's oracle
    setting, the bound of everything but finding the pages (planning, reading, the formula)."""
    if not q.pages:
        raise StageError("collection", "mdqa-oracle-pages needs the question's evidence pages")
    return _run(config, q, llm, oracle=True)


def _run(config: SystemConfig, q: QuestionInput, llm: LLM, *, oracle: bool) -> SystemOutput:
    coll = _collection(q)
    found = figure_plan(q.question, coll.documents)
    if found is None:
        return _retrieval(config, q, coll, llm, pages=q.pages if oracle else None)
    out = _answer(config, q, coll, llm, found, oracle=oracle)
    if out.answer is not None:
        return out
    derived = derivable(unread_items(out.notes.get("values") or []))
    if not derived:
        return out
    # A statement need not print every line an analyst names (no gross-profit line under the cost of
    # sales): the items the first reading did not find are computed from others and read again.
    again = figure_plan(q.question, coll.documents, derived)
    if again is None or describe(again[1]) == describe(found[1]):
        return out
    retry = _answer(config, q, coll, llm, again, oracle=oracle)
    retry.notes["derived"] = sorted(derived)
    retry.notes["first_reading"] = {"fields": out.notes.get("fields"),
                                    "failures": out.failures, "values": out.notes.get("values")}  # fmt: skip
    return retry


def unread_items(values: list[dict[str, Any]]) -> set[str]:
    """The line items of the fields not found, or read below STATEMENT_THRESHOLD."""
    out = set()
    for v in values:
        item, _, year = str(v.get("field")).rpartition("_fy")
        if (
            item
            and year.isdigit()
            and (v.get("value") is None or (v.get("confidence") or 0.0) < STATEMENT_THRESHOLD)
        ):
            out.add(item)
    return out


def _answer(
    config: SystemConfig, q: QuestionInput, coll: Any, llm: LLM, found: tuple[str, Any], *, oracle: bool
) -> SystemOutput:
    """The plan run over the collection and its answer, or the question left unanswered with why."""
    route, plan = f"{found[0]}-plan", found[1]
    from mdqa_kernel.ask import ask

    options: dict[str, Any] = {"reader": "cascade", "llm": llm, "k": max(1, round(config.k)),
                               "threshold": STATEMENT_THRESHOLD}  # fmt: skip
    if oracle:
        options.update(reader="pages", inner="cascade", pages=q.pages, client=llm)
    try:
        result = ask(q.question, coll, plan=plan, **options)
    except Exception as exc:  # an AskError names its stage; anything else is the pipeline's bug
        raise StageError(
            str(getattr(exc, "stage", None) or "pipeline"), f"{type(exc).__name__}: {exc}"
        ) from exc
    out = SystemOutput(answer=None)
    out.notes = {"route": route, **describe(plan), "values": _values(result)}
    selected = result.rows.height
    if selected != 1:
        return _unanswered(out, "collection", f"the plan's filters select {selected} filings, not one")
    missing = [v["field"] for v in out.notes["values"] if v["value"] is None]
    if missing:
        return _unanswered(out, "extract", f"not found: {', '.join(missing)}")
    unsure = [f"{v['field']} ({v.get('reader')}, confidence {v.get('confidence')})" for v in out.notes["values"]
              if (v.get("confidence") or 0.0) < STATEMENT_THRESHOLD]  # fmt: skip
    if unsure:
        return _unanswered(out, "extract", f"needs review: {', '.join(unsure)}")
    clashes = same_figure_for_two_years(out.notes["values"])
    if clashes:
        return _unanswered(out, "extract", f"needs review: {'; '.join(clashes)}")
    if result.answer is None:
        return _unanswered(out, "aggregate", result.error or "no answer")
    out.answer = result.answer.text
    return out


def _unanswered(out: SystemOutput, stage: str, reason: str) -> SystemOutput:
    """The question left unanswered, with the stage and the reason (the record keeps the values read)."""
    out.fail(stage, reason)
    out.fatal = True
    return out


def same_figure_for_two_years(values: list[dict[str, Any]]) -> list[str]:
    """Readings of one line item for two fiscal years that are the same figure from the same page: a
    statement prints each year in its own column, so one of them took the wrong column (the answer
    would mix periods); the question is left for review instead."""
    seen: dict[tuple[str, Any, Any], str] = {}
    clashes = []
    for v in values:
        item, _, year = str(v["field"]).rpartition("_fy")
        if not item or not year.isdigit() or v.get("value") in (None, 0):
            continue
        key = (item, v.get("value"), v.get("page"))
        if key in seen:
            clashes.append(f"{seen[key]} and {v['field']} are both {v['value']} (page {v.get('page')})")
        else:
            seen[key] = str(v["field"])
    return clashes


def _values(result: Any) -> list[dict[str, Any]]:
    """Each field's value with the page it was read from and how sure the reader was."""
    cells = result.extraction.cells if result.extraction is not None else None
    if not isinstance(cells, pl.DataFrame) or cells.height == 0:
        return []
    keep = [
        c
        for c in ("doc_id", "field", "status", "value_json", "page", "confidence", "reader")
        if c in cells.columns
    ]
    out = []
    for row in cells.select(keep).iter_rows(named=True):
        value = json.loads(row["value_json"]) if row.get("value_json") else None
        out.append({**{k: row[k] for k in keep if k != "value_json"}, "value": value})
    return out


def _retrieval(
    config: SystemConfig, q: QuestionInput, coll: Any, llm: LLM, pages: dict[str, list[int]] | None = None
) -> SystemOutput:
    if pages:  # the oracle: the evidence pages' passages only, of the filings they are in
        chosen = q.documents.filter(pl.col("doc_id").is_in(list(pages)))

        def chunks(doc_id: str) -> pl.DataFrame:
            return q.chunks(doc_id).filter(pl.col("page").is_in(pages.get(doc_id, [])))
    else:
        docs = select_filings(q.question, coll.documents)
        chosen = q.documents.filter(pl.col("doc_id").is_in(docs)) if docs else q.documents
        chunks = q.chunks
    narrowed = QuestionInput(q.question_id, q.split, q.question, q.language, chosen, chunks, collection=coll,
                             n_ctx=q.n_ctx, max_tokens=q.max_tokens)  # fmt: skip
    retrieval = flat_rag.with_min_chunks(SystemConfig("flat-rag", config.k), chosen.height)
    if change.asks_change(q.question):
        out = change.run(retrieval, narrowed, llm)
        out.notes = {"filings": chosen["doc_id"].to_list(), **out.notes}
        return out
    out = flat_rag.run(retrieval, narrowed, llm)
    out.notes = {"route": ROUTE_RETRIEVAL, "filings": chosen["doc_id"].to_list(), **out.notes}
    return out
