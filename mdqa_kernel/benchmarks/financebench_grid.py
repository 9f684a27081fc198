"""FinanceBench as a benchmark configuration: the harness's systems over the real filings, per
question, in the paper's settings, judged, beside the 16 published configurations on the same questions.

Settings (the paper's names): `singleStore`, the question's own filing is the whole collection;
`sharedStore`, every filing of the folder (43 in the development slice), so the system must find the
filing the question names. Systems: `mdqa` (systems/statements.py: the statement planner's plan through
the pipeline, retrieval over the named filings otherwise) and those of `benchmarks.systems` that need no
MuDABench gold: flat-rag, mebench-rag, bash-agent (specs as for Table 2: `name` or `name@k`).

Judging: the deterministic numeric judge (numeric_judge: numbers with unit, scale and rounding,
leading yes/no) decides where it can; the rest goes to the LLM judge (llm_judge, same model), and the
record says which judge decided. Resumable: one JSON line per (config, setting, question) in
`results.jsonl` (the latest line of a key wins); LLM answers are journaled in `llm-cache.jsonl`, so a
re-run replays them without the model.

`mdqa-oracle-pages` is mdqa reading only the question's evidence pages (the paper's `oracle` setting: the
bound of planning, reading and the formula once the pages are found).
"""

from __future__ import annotations

import json
import os
import random
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.financebench import collection_metadata, load_published
from mdqa_kernel.benchmarks.grid import ResultStore
from mdqa_kernel.benchmarks.llm_judge import LLMJudgeError, llm_judge
from mdqa_kernel.benchmarks.numeric_judge import judge as numeric_judge
from mdqa_kernel.benchmarks.runner import LLMPool, stage_stats, stage_totals
from mdqa_kernel.benchmarks.systems import QuestionInput, StageError, SystemConfig, get_system, statements
from mdqa_kernel.errors import MdqaError
from mdqa_kernel.store import stable_hash

SETTINGS = ("singleStore", "sharedStore")
SYSTEMS = ("mdqa", "mdqa-oracle-pages", "flat-rag", "mebench-rag", "bash-agent")
DEFAULT_K = {"mdqa": 3.0, "mdqa-oracle-pages": 3.0, "flat-rag": 1.0, "mebench-rag": 5.0, "bash-agent": 30.0}
QUESTION_TYPES = ("metrics-generated", "domain-relevant", "novel-generated")
RESULTS_FILE, JOURNAL_FILE = "results.jsonl", "llm-cache.jsonl"
COLLECTION = "financebench"
VERSION = 4  # of the records' meaning; bump when judging, the input or a system changes (2: mdqa; 3: its floor; 4: initials)


class FinanceBenchGridError(MdqaError, ValueError):
    """A FinanceBench grid option is wrong (unknown system or setting, a bad sample)."""


@dataclass(frozen=True)
class FBConfig:
    system: str
    k: float
    setting: str

    @property
    def label(self) -> str:
        return f"{SystemConfig(self.system, self.k).label} {self.setting}"

    def key(self) -> dict[str, Any]:
        return {"system": SystemConfig(self.system, self.k).key(), "setting": self.setting, "v": VERSION}


def parse_configs(systems: Sequence[str], settings: Sequence[str]) -> list[FBConfig]:
    """`name` or `name@k` specs × settings, in the given order."""
    bad = [s for s in settings if s not in SETTINGS]
    if bad:
        raise FinanceBenchGridError(f"unknown setting(s) {bad}; choose from {', '.join(SETTINGS)}")
    out = []
    for spec in systems:
        name, _, k = spec.strip().partition("@")
        if name not in SYSTEMS:
            raise FinanceBenchGridError(
                f"unknown system {name!r} for FinanceBench; choose from {', '.join(SYSTEMS)}"
            )
        try:
            value = float(k) if k else DEFAULT_K[name]
        except ValueError:
            raise FinanceBenchGridError(f"{spec!r}: the part after @ must be a number") from None
        out += [FBConfig(name, value, s) for s in settings]
    return out


def sample_questions(questions: pl.DataFrame, sample: str | int, seed: int = 0) -> pl.DataFrame:
    """'all', a count (stratified by question type: types take turns, each in a seeded order), or
    comma-separated financebench_ids."""
    text = str(sample).strip()
    if text == "all":
        return questions
    if not text.isdigit():
        ids = [t.strip() for t in text.split(",") if t.strip()]
        unknown = sorted(set(ids) - set(questions["financebench_id"]))
        if unknown:
            raise FinanceBenchGridError(f"unknown question id(s) {unknown}")
        return questions.filter(pl.col("financebench_id").is_in(ids))
    n = int(text)
    rng = random.Random(seed)
    groups = []
    for qtype in sorted(questions["question_type"].unique().to_list()):
        ids = questions.filter(pl.col("question_type") == qtype)["financebench_id"].to_list()
        rng.shuffle(ids)
        groups.append(ids)
    picked: list[str] = []
    while len(picked) < n and any(groups):
        for ids in groups:
            if ids and len(picked) < n:
                picked.append(ids.pop(0))
    order = {q: i for i, q in enumerate(picked)}
    return questions.filter(pl.col("financebench_id").is_in(picked)).sort(
        pl.col("financebench_id").replace_strict(order, return_dtype=pl.Int64)
    )


def build_collection(folder: Path, workspace: Path, jobs: int | None = None) -> Any:
    """The filings as one collection (metadata: company, doc_type, fiscal year, sector); cached by
    content, so a second build is free."""
    from mdqa_kernel.collection import Collection

    return Collection.build(folder / "pdfs", collection_metadata(folder), workspace=workspace,
                            name=COLLECTION, jobs=jobs, progress=False)  # fmt: skip


def question_input(q: dict[str, Any], coll: Any, setting: str, n_ctx: int, max_tokens: int) -> QuestionInput:
    docs = coll.documents
    if setting == "singleStore":
        docs = docs.filter(pl.col("doc_id") == q["doc_name"])
        if docs.height == 0:
            raise StageError(
                "collection", f"the filing {q['doc_name']} is not in the collection (pdfs/ lacks it)"
            )
    frame = docs.select(pl.col("doc_id"), pl.col("company").cast(pl.String).alias("symbol"),
                        pl.col("year").cast(pl.Int64), pl.col("doc_type").cast(pl.String).alias("doctype"))  # fmt: skip
    return QuestionInput(q["financebench_id"], "financebench", q["question"], "en", frame, coll.chunks,
                         collection=coll, n_ctx=n_ctx, max_tokens=max_tokens, pages=evidence_pages(q))  # fmt: skip


def evidence_pages(q: dict[str, Any]) -> dict[str, list[int]]:
    """The question's evidence pages by filing, 1-based as the collection numbers them (FinanceBench
    writes them 0-based)."""
    pages: dict[str, list[int]] = {}
    for e in q.get("evidence") or []:
        if e.get("doc_name") and e.get("evidence_page_num") is not None:
            pages.setdefault(str(e["doc_name"]), []).append(int(e["evidence_page_num"]) + 1)
    return {doc: sorted(set(p)) for doc, p in pages.items()}


def judge_answer(q: dict[str, Any], answer: str | None, judge_llm: Any | None) -> dict[str, Any]:
    """correct, judge (numeric | llm | none) and the reason; the numeric judge first."""
    if not answer:
        return {"correct": False, "judge": "numeric", "judge_reason": "no answer"}
    verdict = numeric_judge(q["question"], q["answer"], answer)
    if verdict.verdict in ("correct", "incorrect"):
        return {"correct": verdict.verdict == "correct", "judge": "numeric", "judge_reason": verdict.reason}
    if judge_llm is None:
        return {"correct": None, "judge": "none", "judge_reason": "not numeric and no LLM judge"}
    try:
        ok, reason = llm_judge(answer, q["answer"], q["question"], judge_llm)
    except LLMJudgeError as e:
        return {"correct": None, "judge": "llm", "judge_reason": f"LLM judge failed: {e}"[:300]}
    return {"correct": ok, "judge": "llm", "judge_reason": reason}


def result_key(config: FBConfig, qid: str, llm: dict[str, Any]) -> str:
    return stable_hash(json.dumps({"config": config.key(), "q": qid, "llm": llm}, sort_keys=True))


def run_question(
    config: FBConfig, q: dict[str, Any], coll: Any, pool: LLMPool, llm: dict[str, Any]
) -> dict[str, Any]:
    """One system on one question, judged; never raises for a system failure (it is recorded)."""
    key = result_key(config, q["financebench_id"], llm)
    client = pool.client(f"fb-{key}-{int(time.time())}-{os.urandom(3).hex()}")
    record: dict[str, Any] = {"key": key, "config": config.label, "system": config.system, "k": config.k,
                              "setting": config.setting, "financebench_id": q["financebench_id"],
                              "question_type": q["question_type"], "company": q["company"], "llm": llm}  # fmt: skip
    t0 = time.perf_counter()
    output = None
    try:
        qi = question_input(q, coll, config.setting, pool.config.n_ctx, pool.config.max_tokens)
        own = {"mdqa": statements.run, "mdqa-oracle-pages": statements.run_oracle_pages}
        run_system = own.get(config.system) or get_system(config.system)
        output = run_system(SystemConfig(config.system, config.k), qi, client)
        record.update(status="ok", failed_stage=None, error=None)
    except StageError as e:
        record.update(status="failed", failed_stage=e.stage, error=str(e)[:1000])
    except Exception as e:  # a bug or a backend failure: keep the grid going, keep the traceback
        record.update(status="failed", failed_stage="system", error=f"{type(e).__name__}: {e}"[:1000],
                      traceback=traceback.format_exc()[-2000:])  # fmt: skip
    record["wall_s"] = round(time.perf_counter() - t0, 2)
    stats = stage_stats(client.calls())
    client.flush()
    record.update(stage_totals(stats))
    answer = output.answer if output is not None else None
    notes = dict(output.notes) if output is not None else {}
    if len(json.dumps(notes, default=str)) > 200_000:  # a long agent trajectory: keep the record small
        notes.pop("trajectory", None)
    record.update(answer=answer, notes=notes, failures=output.failures if output else [])
    judge_llm = pool.judge_client() if pool.judge_llm else None
    record.update(judge_answer(q, answer, judge_llm))
    record["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    return record


def run_grid(
    configs: Sequence[FBConfig],
    questions: pl.DataFrame,
    folder: Path,
    results_dir: Path,
    llm_config: Any,
    *,
    judge_llm: bool = True,
    max_minutes: float | None = None,
    retry_failed: bool = False,
    jobs: int | None = None,
    backend: Any = None,
    log: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Run what is missing of configs × questions; return the current records of all of them.
    `backend`: an LLM backend already loaded (else one is made from `llm_config` when first needed)."""
    from mdqa_kernel.benchmarks.runner import llm_identity
    from mdqa_kernel.llm.journal import load_journal

    results_dir.mkdir(parents=True, exist_ok=True)
    coll = build_collection(folder, results_dir / "workspace", jobs)
    journal = results_dir / JOURNAL_FILE
    load_journal(journal, coll.workspace)
    pool = LLMPool(
        llm_config, str(coll.workspace.path), backend=backend, judge_llm=judge_llm, journal=str(journal)
    )
    store = ResultStore(results_dir / RESULTS_FILE)
    llm = llm_identity(llm_config)
    deadline = time.time() + max_minutes * 60 if max_minutes is not None else None
    done = store.latest()
    rows = questions.to_dicts()
    for config in configs:
        for q in rows:
            key = result_key(config, q["financebench_id"], llm)
            prior = done.get(key)
            if prior is not None and not (retry_failed and prior.get("status") != "ok"):
                continue
            if deadline is not None and time.time() > deadline:
                log(f"stopped: --max-minutes {max_minutes} reached; run again to go on")
                return current_records(store, configs, questions, llm)
            rec = run_question(config, q, coll, pool, llm)
            store.add(rec)
            done[key] = rec
            log(f"[{config.label}] {q['financebench_id']}: {rec['status']} correct={rec['correct']} "
                f"({rec['judge']}) calls={rec['llm_calls']} wall={rec['wall_s']}s")  # fmt: skip
    return current_records(store, configs, questions, llm)


def current_records(
    store: ResultStore, configs: Sequence[FBConfig], questions: pl.DataFrame, llm: dict[str, Any]
) -> list[dict[str, Any]]:
    """The latest record of each config and question, its numeric verdict re-judged (`rejudged`)."""
    latest = store.latest()
    by_id = {q["financebench_id"]: q for q in questions.to_dicts()}
    return [
        rejudged(latest[k], q)
        for c in configs
        for qid, q in by_id.items()
        if (k := result_key(c, qid, llm)) in latest
    ]


def rejudged(record: dict[str, Any], q: dict[str, Any]) -> dict[str, Any]:
    """A stored record with its answer judged again by the numeric judge's current rules, so that a
    fixed judge rule re-scores every stored answer (a record keeps the verdict of the day it was run
    otherwise). An LLM judge's verdict stands where the numeric judge still declines; a numeric verdict
    the judge now declines becomes unjudged (the LLM judge is not run again on stored records)."""
    answer = record.get("answer")
    if not answer or record.get("status") != "ok":
        return record
    verdict = numeric_judge(q["question"], q["answer"], answer)
    if verdict.verdict == "not_numeric":
        if record.get("judge") != "numeric":
            return record
        return {**record, "correct": None, "judge": "none", "judge_reason": verdict.reason}
    now = {"correct": verdict.verdict == "correct", "judge": "numeric", "judge_reason": verdict.reason}
    return record if all(record.get(k) == v for k, v in now.items()) else {**record, **now, "rejudged": True}


def summary(records: list[dict[str, Any]], questions: pl.DataFrame) -> pl.DataFrame:
    """Per config: questions run (of the sample), accuracy overall and per question type, judged by
    which judge, LLM calls, prompt tokens and wall seconds per question."""
    if not records:
        return pl.DataFrame()
    frame = pl.DataFrame(
        [{k: r.get(k) for k in ("config", "financebench_id", "question_type", "status", "correct", "judge",
                                "llm_calls", "llm_prompt_tokens", "llm_completion_tokens", "wall_s")} for r in records],
        schema_overrides={"correct": pl.Boolean}, infer_schema_length=None,
    )  # fmt: skip
    ok = pl.col("correct").fill_null(False)
    aggs = [pl.len().alias("questions"), ok.sum().alias("correct"), ok.mean().round(3).alias("accuracy")]
    aggs += [(ok & (pl.col("question_type") == t)).sum().alias(t) for t in QUESTION_TYPES]
    aggs += [
        (ok & (pl.col("judge") == "numeric")).sum().alias("correct_by_numeric_judge"),
        (pl.col("judge") == "llm").sum().alias("by_llm_judge"),
        pl.col("correct").is_null().sum().alias("unjudged"),
        (pl.col("status") != "ok").sum().alias("failed"),
        pl.col("llm_calls").mean().round(1).alias("calls_per_q"),
        pl.col("llm_prompt_tokens").mean().round(0).alias("prompt_tokens_per_q"),
        pl.col("wall_s").mean().round(1).alias("wall_s_per_q"),
    ]
    per_type = questions.group_by("question_type").len()
    totals = {r["question_type"]: r["len"] for r in per_type.iter_rows(named=True)}
    out = frame.group_by("config", maintain_order=True).agg(aggs)
    return out.rename({t: f"{t} (of {totals.get(t, 0)})" for t in QUESTION_TYPES})


def with_split(questions: pl.DataFrame, folder: Path) -> pl.DataFrame:
    """Each question's split: the realfacts split of the folder's companies (by company, fixed before
    any reader rule was written; examples/realfacts/README.md): 'dev' or 'validation' (held out)."""
    from mdqa_kernel.benchmarks.financebench import load_documents
    from mdqa_kernel.benchmarks.realfacts import split_of

    companies = load_documents(folder)["company"].unique().to_list()
    return questions.with_columns(
        pl.col("company")
        .map_elements(lambda c: split_of(c, companies), return_dtype=pl.String)
        .alias("split")
    )


FAILURE_CLASSES = ("filing not selected", "not planned (retrieval)", "field not found", "needs review",
                   "wrong value or formula", "wrong answer", "no answer", "system failed", "judge")  # fmt: skip


def attribute(record: dict[str, Any]) -> str | None:
    """Why a question was not answered right, in the classes of FAILURE_CLASSES; None when it was."""
    if record.get("correct"):
        return None
    if record.get("correct") is None and record.get("answer"):
        return "judge"
    if record.get("status") != "ok":
        return "filing not selected" if record.get("failed_stage") == "collection" else "system failed"
    notes = record.get("notes") or {}
    errors = " ".join(f.get("error", "") for f in record.get("failures") or [])
    if str(notes.get("route", "")).endswith("-plan"):  # a statement, judgement or choice plan
        if any(f.get("stage") == "collection" for f in record.get("failures") or []):
            return "filing not selected"
        if "needs review" in errors:
            return "needs review"
        if "not found" in errors:
            return "field not found"
        return "wrong value or formula" if record.get("answer") else "no answer"
    if notes.get("route") == "retrieval":
        return "not planned (retrieval)"
    return "wrong answer" if record.get("answer") else "no answer"


def failure_table(records: list[dict[str, Any]]) -> pl.DataFrame:
    """Per config: how many questions fell in each failure class."""
    rows = [{"config": r["config"], "failure": attribute(r)} for r in records]
    frame = pl.DataFrame(rows, schema={"config": pl.String, "failure": pl.String})
    frame = frame.filter(pl.col("failure").is_not_null())
    if frame.height == 0:
        return pl.DataFrame(schema={"config": pl.String})
    return frame.pivot(on="failure", index="config", values="failure", aggregate_function="len").fill_null(0)


def published(folder: Path, questions: pl.DataFrame) -> pl.DataFrame:
    """The 16 published configurations on the same questions: accuracy by the paper's human labels,
    overall and per question type."""
    pub = load_published(folder).filter(
        pl.col("financebench_id").is_in(questions["financebench_id"].to_list())
    )
    pub = pub.join(questions.select("financebench_id", "question_type"), on="financebench_id", how="left")
    ok = pl.col("label") == "correct"
    aggs = [pl.len().alias("questions"), ok.sum().alias("correct"), ok.mean().round(3).alias("accuracy")]
    aggs += [(ok & (pl.col("question_type") == t)).sum().alias(t) for t in QUESTION_TYPES]
    return pub.group_by("config").agg(aggs).sort("accuracy", descending=True)


def chart(ours: pl.DataFrame, theirs: pl.DataFrame) -> Any:
    import altair as alt

    rows = [
        {"config": r["config"], "source": "ours (local model)", "accuracy": r["accuracy"]}
        for r in ours.iter_rows(named=True)
    ]
    rows += [{"config": r["config"], "source": "published (human labels)", "accuracy": r["accuracy"]}
             for r in theirs.iter_rows(named=True)]  # fmt: skip
    return (
        alt.Chart(alt.Data(values=rows))
        .mark_bar()
        .encode(
            x=alt.X("accuracy:Q", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("config:N", sort="-x", title=None),
            color=alt.Color("source:N"),
        )
        .properties(width=420, title="FinanceBench: accuracy on the same questions")
    )


__all__ = [
    "FAILURE_CLASSES",
    "SETTINGS",
    "SYSTEMS",
    "FBConfig",
    "FinanceBenchGridError",
    "attribute",
    "chart",
    "failure_table",
    "judge_answer",
    "parse_configs",
    "published",
    "rejudged",
    "run_grid",
    "sample_questions",
    "summary",
    "with_split",
]
