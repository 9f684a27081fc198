"""Run systems on MuDABench questions and record one result per (system config, question).

    run_config(config, refs, corpus, llm_config, store)   # skips keys already in the store

A record holds the answer, both judges' verdicts, the cell/row/column counts, LLM calls and
tokens per stage (every call, and the ones that reached the model), wall time (and `cold_wall_s`,
the wall time with the cached answers counted at what they first cost), and the stage of a failure.
All calls go through one LLMClient per question (its run id starts with the result key), sharing
one loaded backend, with its cache in the grid's workspace and its new answers appended to the
grid's answer journal: an interrupted question re-runs for free up to where it stopped, on this
machine or on a fresh clone.

Each record's extracted cells are kept beside the store (cells/<key>.parquet), so that a changed
scoring rule (METRICS_VERSION) re-scores finished questions without running them again: `rescore`.
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.grid import Corpus, QuestionRef, ResultStore, result_key
from mdqa_kernel.benchmarks.judge import judge
from mdqa_kernel.benchmarks.llm_judge import LLMJudgeError, llm_judge
from mdqa_kernel.benchmarks.metrics import process_scores, question_gold
from mdqa_kernel.benchmarks.mudabench import KNOWN_DEFECTS, classify_family, load_split, question_language
from mdqa_kernel.benchmarks.systems import (
    QuestionInput,
    StageError,
    SystemConfig,
    SystemUnavailableError,
    get_system,
)
from mdqa_kernel.benchmarks.systems.base import empty_cells

# Systems that extract per-document cells (process metrics apply); flat RAG has none.
DOCUMENT_GROUNDED = frozenset({"paper-workflow", "paper-workflow-oracle-rows", "mdqa", "mdqa-oracle-rows"})
# Version of the scoring rules (cell comparison, deterministic judge). Bump it when they change:
# stored records of an older version are re-scored from their kept cells and kept answer.
# 2: a gold list matches a text enumeration ("现场投票、网络投票"); records carry their cells.
# 3: the judge no longer takes the "1942" of 0.1942 for a year (it read the number as "0"), and a gold
#    fraction matches the same ratio read in percent points (0.2311 and 23.11), q_56ecd6f2.
# 4: a firm of "从X更换为Y" is X, not "从X" (no answer could contain the preposition), q_c5eb3932.
# 5: the codes of a distribution over dates or months ("哪个日期进行股权登记的公司最多") are a set, in any
#    order: the ranking is of the dates (q_21303a69: every date and company right, listed by count).
# 6: a currency sign between the minus and the digits ("-$3,655,000.00") keeps the number negative
#    (q_bd8c7b95: the judge had read +3,655,000 and failed the answer's -3655000.00).
METRICS_VERSION = 6


def cells_path(root: str | Path, key: str) -> Path:
    return Path(root) / "cells" / f"{key}.parquet"


def llm_identity(llm_config: Any) -> dict[str, Any]:
    """What of the LLM configuration decides answers (so a different model gets different keys)."""
    return {
        "backend": llm_config.backend,
        "model": llm_config.model,
        "n_ctx": llm_config.n_ctx,
        "temperature": llm_config.temperature,
        "max_tokens": llm_config.max_tokens,
    }


def question_input(corpus: Corpus, ref: QuestionRef, config: SystemConfig, llm_config: Any) -> QuestionInput:
    item = load_split(ref.split).item(ref.question_id)
    doc_ids = corpus.docs(ref).for_run(config.noise)
    coll = corpus.collection(ref.split).where(doc_id=doc_ids)
    docs = coll.documents.select(
        pl.col("doc_id"), pl.col("symbol").cast(pl.String), pl.col("year").cast(pl.Int64), pl.col("doctype")
    )
    return QuestionInput(
        question_id=ref.question_id,
        split=ref.split,
        question=item["question"],
        language=question_language(item["question"]),
        documents=docs,
        chunks=coll.chunks,
        collection=coll,
        gold_source=f"mudabench:{ref.split}",
        schema=load_split(ref.split).schema(ref.question_id),
        n_ctx=llm_config.n_ctx,
        max_tokens=llm_config.max_tokens,
    )


def stage_stats(calls: pl.DataFrame) -> dict[str, dict[str, Any]]:
    """{stage: calls, paid_calls, prompt_tokens, completion_tokens, paid tokens, seconds, errors}."""
    out: dict[str, dict[str, Any]] = {}
    if calls.height == 0:
        return out
    ok = pl.col("error").is_null()
    paid = ok & ~pl.col("cache_hit")
    frame = calls.group_by("stage", maintain_order=True).agg(
        pl.len().alias("calls"),
        paid.sum().alias("paid_calls"),
        pl.col("prompt_tokens").filter(ok).sum().alias("prompt_tokens"),
        pl.col("completion_tokens").filter(ok).sum().alias("completion_tokens"),
        pl.col("prompt_tokens").filter(paid).sum().alias("paid_prompt_tokens"),
        pl.col("completion_tokens").filter(paid).sum().alias("paid_completion_tokens"),
        pl.col("seconds").sum().round(2).alias("seconds"),
        (~ok).sum().alias("errors"),
    )
    for row in frame.iter_rows(named=True):
        stage = row.pop("stage")
        out[stage] = {k: (int(v) if isinstance(v, int) else v) for k, v in row.items()}
    return out


def cached_seconds(workspace: Any, calls: pl.DataFrame) -> float:
    """The seconds the model took, when it first answered them, for the prompts this question found in
    the cache (each counted once, and not when the question also paid for it): what a resumed or
    re-run question would have cost cold. Entries loaded from an answer journal keep their seconds."""
    if calls.height == 0:
        return 0.0
    ok = calls.filter(pl.col("error").is_null())
    paid = set(ok.filter(~pl.col("cache_hit"))["key"].to_list())
    hits = sorted(set(ok.filter(pl.col("cache_hit"))["key"].to_list()) - paid)
    total = 0.0
    for i in range(0, len(hits), 500):  # SQLite's bound-parameter limit
        part = hits[i : i + 500]
        rows = workspace.query(
            f"SELECT seconds FROM llm_cache WHERE key IN ({','.join('?' * len(part))})", tuple(part)
        )
        total += sum(float(r["seconds"] or 0.0) for r in rows)
    return total


def stage_totals(stats: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """llm_calls, llm_paid_calls, llm_prompt_tokens, … summed over the stages of `stage_stats`."""
    keys = (
        "calls",
        "paid_calls",
        "prompt_tokens",
        "completion_tokens",
        "paid_prompt_tokens",
        "paid_completion_tokens",
    )
    return {f"llm_{k}": sum(int(s.get(k) or 0) for s in stats.values()) for k in keys}


@dataclass
class LLMPool:
    """One loaded backend shared by the per-question clients of a process."""

    config: Any
    workspace: str
    backend: Any = None
    judge_llm: bool = True
    journal: str | None = None  # every new answer is appended here too (llm.journal)
    _judge: Any = field(default=None, repr=False)

    def client(self, run_id: str) -> Any:
        from mdqa_kernel.llm import LLMClient, make_backend

        if self.backend is None:
            self.backend = make_backend(self.config)
        return LLMClient(
            self.config, self.workspace, backend=self.backend, run_id=run_id, journal=self.journal
        )

    def judge_client(self) -> Any:
        if self._judge is None:
            self._judge = self.client(f"judge-{int(time.time())}")
        return self._judge


def base_record(config: SystemConfig, ref: QuestionRef, key: str, llm: dict[str, Any]) -> dict[str, Any]:
    data = load_split(ref.split)
    item = data.item(ref.question_id)
    return {
        "key": key,
        "config": config.key(),
        "config_label": config.label,
        "split": ref.split,
        "question_id": ref.question_id,
        "family": classify_family(item["question"]),
        "known_defect": ref.question_id in KNOWN_DEFECTS,
        "n_docs": len(item["metadata"]),
        "llm": llm,
    }


def judge_deterministic(record: dict[str, Any], ref: QuestionRef, answer: str | None) -> None:
    data = load_split(ref.split)
    reference = data.reference_answer(ref.question_id)
    verdict = judge(answer or "", reference, question=data.item(ref.question_id)["question"])
    record.update(reference=reference, correct=bool(verdict.correct), judge_reason=verdict.reason,
                  metrics_version=METRICS_VERSION)  # fmt: skip


def judge_record(record: dict[str, Any], ref: QuestionRef, answer: str | None, pool: LLMPool) -> None:
    judge_deterministic(record, ref, answer)
    record["correct_llm"] = None
    if pool.judge_llm:
        question = load_split(ref.split).item(ref.question_id)["question"]
        try:
            ok, reason = llm_judge(answer, record["reference"], question, pool.judge_client())
            record.update(correct_llm=ok, llm_judge_reason=reason)
        except LLMJudgeError as e:
            record["llm_judge_error"] = str(e)[:300]


def run_one(
    config: SystemConfig, ref: QuestionRef, corpus: Corpus, pool: LLMPool, cells_dir: Path | None = None
) -> dict[str, Any]:
    """Run one system config on one question; never raises for a system failure (it is recorded).
    With `cells_dir`, the extracted cells are kept there (for re-scoring without re-running)."""
    key = result_key(config.key(), ref, llm_identity(pool.config))
    record = base_record(config, ref, key, llm_identity(pool.config))
    # Unique per run: two runs of a question within one second must not share their call records.
    client = pool.client(f"bench-{key}-{int(time.time())}-{os.urandom(3).hex()}")
    t0 = time.perf_counter()
    output = None
    try:
        q = question_input(corpus, ref, config, pool.config)
        output = get_system(config.system)(config, q, client)
        record.update(status="ok", failed_stage=None, error=None)
    except SystemUnavailableError as e:
        record.update(status="unavailable", failed_stage=e.stage, error=str(e))
    except StageError as e:
        record.update(status="failed", failed_stage=e.stage, error=str(e)[:1000])
    except Exception as e:  # a bug or a backend failure in an unnamed stage: keep the grid going
        stage = "llm" if type(e).__module__.startswith("mdqa_kernel.llm") else "system"
        record.update(status="failed", failed_stage=stage, error=f"{type(e).__name__}: {e}"[:1000],
                      traceback=traceback.format_exc()[-2000:])  # fmt: skip
    record["wall_s"] = round(time.perf_counter() - t0, 2)
    calls = client.calls()
    stats = stage_stats(calls)
    client.flush()
    record.update(llm_stages=stats, **stage_totals(stats))
    record["cold_wall_s"] = round(record["wall_s"] + cached_seconds(client.workspace, calls), 2)
    record["run_id"] = client.run_id  # its calls in the workspace's llm_calls
    if output is not None and output.fatal and output.failures:
        last = output.failures[-1]
        record.update(status="failed", failed_stage=last["stage"], error=last["error"])
    answer = output.answer if output else None
    record.update(
        answer=answer, failures=output.failures if output else [], notes=output.notes if output else {}
    )
    cells = output.cells if output is not None else None
    if cells is None and config.system in DOCUMENT_GROUNDED:
        cells = empty_cells()  # a grounded system that failed before extracting scored 0 cells, not "n/a"
    if cells is not None and cells_dir is not None:
        cells_dir.mkdir(parents=True, exist_ok=True)
        cells.write_parquet(cells_dir / f"{key}.parquet")
    record.update(process_scores(cells, question_gold(ref.split, ref.question_id)))
    if record["status"] != "unavailable":
        judge_record(record, ref, answer, pool)
    record["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    return record


def run_config(
    config: SystemConfig,
    refs: list[QuestionRef],
    corpus: Corpus,
    pool: LLMPool,
    store: ResultStore,
    *,
    deadline: float | None = None,
    retry_failed: bool = False,
    log: Any = print,
) -> dict[str, Any]:
    """Run the pending questions of one config (stopping before a new question past `deadline`)."""
    ran = skipped = 0
    stopped = False
    for ref in refs:
        key = result_key(config.key(), ref, llm_identity(pool.config))
        if store.done(key, retry_failed=retry_failed):
            skipped += 1
            continue
        if deadline is not None and time.time() > deadline:
            stopped = True
            break
        rec = run_one(config, ref, corpus, pool, cells_path(store.path.parent, key).parent)
        store.add(rec)
        ran += 1
        log(f"[{config.label}] {ref.label}: {rec['status']} correct={rec.get('correct')} "
            f"calls={rec['llm_calls']} wall={rec['wall_s']}s")  # fmt: skip
    keys = {result_key(config.key(), r, llm_identity(pool.config)) for r in refs}
    latest = store.latest()
    final = [k for k in keys if k in latest and latest[k].get("status") != "unavailable"]
    return {
        "ran": ran,
        "skipped": skipped,
        "stopped_by_deadline": stopped,
        "complete": len(final) == len(keys),
    }


def config_records(
    store: ResultStore, config: SystemConfig, refs: list[QuestionRef], llm: dict[str, Any]
) -> list[dict[str, Any]]:
    """The latest record of each question of `refs` for `config` (missing questions left out)."""
    latest = store.latest()
    keys = [result_key(config.key(), r, llm) for r in refs]
    return [latest[k] for k in keys if k in latest]


def rescore(store: ResultStore, *, force: bool = False) -> int:
    """Re-score finished records scored under older rules (or all, `force`): process metrics from
    their kept cells, the deterministic judge from their kept answer. Run time, LLM calls and the LLM
    judge's verdict stay as measured. Appends the updated records; returns how many."""
    n = 0
    for rec in list(store.latest().values()):
        if rec.get("status") == "unavailable" or "split" not in rec:
            continue
        if not force and int(rec.get("metrics_version") or 1) >= METRICS_VERSION:
            continue
        ref = QuestionRef(rec["split"], rec["question_id"])
        new = dict(rec)
        path = cells_path(store.path.parent, rec["key"])
        gold = question_gold(ref.split, ref.question_id)
        if path.is_file():
            new.update(process_scores(pl.read_parquet(path), gold))
        elif (rec.get("config") or {}).get("system") not in DOCUMENT_GROUNDED:
            new.update(process_scores(None, gold))
        # else: a grounded record from before cells were kept: its process figures stay as scored.
        judge_deterministic(new, ref, rec.get("answer"))
        new["rescored_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        store.add(new)
        n += 1
    return n
