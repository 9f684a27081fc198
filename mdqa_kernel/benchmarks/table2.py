"""MuDABench Table 2, reproduced: one grid cell per system config, figures, CSV, markdown, chart.

`run_cell(...)` is what notebooks/benchmarks/mudabench.ipynb calls for one system config: prepare
the corpus, run the pending questions, summarise, and return the figures dict the notebook displays
as its named output (FIGURES_MIME). `table_frame(figures)` turns the figures of every executed
notebook into the table; `write_table2` writes table2.csv, table2.md (the paper's published
numbers beside ours, clearly labelled) and table2.png/.svg (altair through vl-convert, offline).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.grid import (
    QuestionRef,
    ResultStore,
    parse_questions,
    prepare_corpus,
    refs_as_dicts,
)
from mdqa_kernel.benchmarks.metrics import summarize_subsets
from mdqa_kernel.benchmarks.runner import LLMPool, config_records, llm_identity, run_config
from mdqa_kernel.benchmarks.systems import SystemConfig
from mdqa_kernel.llm.journal import load_journal
from mdqa_kernel.store import stable_hash

FIGURES_MIME = "application/vnd.mdqa.figures+json"
RESULTS_FILE = "results.jsonl"
# The grid's LLM answers, kept beside its results (and committed with them): a fresh clone resumes
# a half-run grid without asking the model again (llm.journal).
CACHE_JOURNAL = "llm-cache.jsonl"

# Published Table 2 (arXiv 2604.22239): (simple process, final, full, complex process, final, full).
# GPT-4o / GPT-4.1-mini / DeepSeek on the ORIGINAL filings; ours run other models on RENDERED ones.
PAPER_TABLE2: dict[str, tuple[str, tuple[float, ...]]] = {
    "flat-rag k=1·|D|": ("GPT 4o + Chunk=1|D|", (0.1572, 0.0663, 0.0241, 0.1459, 0.0482, 0.0181)),
    "flat-rag k=1.5·|D|": ("GPT 4o + Chunk=1.5|D|", (0.1761, 0.0964, 0.0301, 0.1801, 0.0482, 0.0241)),
    "flat-rag k=2·|D|": ("GPT 4o + Chunk=2|D|", (0.1793, 0.1265, 0.0422, 0.2212, 0.0361, 0.0181)),
    "flat-rag k=2.5·|D|": ("GPT 4o + Chunk=2.5|D|", (0.2163, 0.1084, 0.0301, 0.2623, 0.0482, 0.0120)),
    "flat-rag k=1·|D| +metadata": ("GPT 4o + Chunk=1|D| + Metadata", (0.1338, 0.1084, 0.0422, 0.1398, 0.0301, 0.0181)),
    "flat-rag k=1.5·|D| +metadata": ("GPT 4o + Chunk=1.5|D| + Metadata", (0.1620, 0.1145, 0.0301, 0.1773, 0.0181, 0.0120)),
    "flat-rag k=2·|D| +metadata": ("GPT 4o + Chunk=2|D| + Metadata", (0.1978, 0.1386, 0.0422, 0.2232, 0.0361, 0.0181)),
    "flat-rag k=2.5·|D| +metadata": ("GPT 4o + Chunk=2.5|D| + Metadata", (0.2514, 0.1325, 0.0542, 0.2522, 0.0422, 0.0120)),
    "paper-workflow k=1": ("WF w/ GPT 4o + Chunk=1", (0.4179, 0.0667, 0.0000, 0.4021, 0.0667, 0.0095)),
    "paper-workflow k=3": ("WF w/ GPT 4.1 mini + Chunk=3", (0.5803, 0.2430, 0.0654, 0.5338, 0.0865, 0.0673)),
    "paper-workflow k=5": ("WF w/ GPT 4.1 mini + Chunk=5", (0.5888, 0.2243, 0.0748, 0.5749, 0.1619, 0.1143)),
    "noise paper-workflow k=5": ("Noise WF w/ GPT 4.1 mini + Chunk=5", (0.5961, 0.1636, 0.0727, 0.5680, 0.1238, 0.0762)),
    "human": ("Human Performance", (0.8940, 0.8334, 0.7334, 0.8120, 0.7334, 0.6667)),
}  # fmt: skip
PAPER_NOTE = (
    "Paper: GPT-4o / GPT-4.1-mini / DeepSeek on the original filings, all 332 questions. "
    "Ours: a different (local) model on documents rendered from MuDABench's annotated values, on the "
    "sample stated. The columns are not comparable as equals."
)


def grid_root(results_dir: str | Path, questions: str | int, seed: int) -> Path:
    text = str(questions)
    if text.isdigit():
        name = f"sample{text}"
    elif text == "all" or text.startswith("shuffled:"):
        name = re.sub(r"[^a-z0-9]+", "-", text)
    else:
        name = "custom-" + stable_hash(text)[:8]
    return Path(results_dir) / f"{name}-seed{seed}"


def _records_frame(records: list[dict[str, Any]]) -> pl.DataFrame:
    cols = {
        "config": pl.String, "split": pl.String, "question_id": pl.String, "known_defect": pl.Boolean,
        "status": pl.String, "failed_stage": pl.String, "correct": pl.Boolean, "correct_llm": pl.Boolean,
        "cells_n": pl.Int64, "cells_correct": pl.Int64, "rows_n": pl.Int64, "rows_correct": pl.Int64,
        "columns_n": pl.Int64, "columns_correct": pl.Int64, "process": pl.Float64,
        "all_rows_correct": pl.Boolean, "llm_calls": pl.Int64, "llm_paid_calls": pl.Int64,
        "llm_prompt_tokens": pl.Int64, "llm_completion_tokens": pl.Int64, "wall_s": pl.Float64,
        "cold_wall_s": pl.Float64, "truncated": pl.Boolean,
    }  # fmt: skip
    rows = []
    for r in records:
        row = {c: r.get(c) for c in cols}
        row["config"] = r.get("config_label")
        row["correct"] = bool(r.get("correct"))  # a failed question is a wrong answer
        row["truncated"] = (r.get("notes") or {}).get("truncated")
        rows.append(row)
    return pl.DataFrame(rows, schema=cols, orient="row")


def summarize(records: list[dict[str, Any]]) -> pl.DataFrame:
    """Accuracy metrics plus cost and failures per (config, split) and overall, all and clean."""
    frame = _records_frame(records)
    if frame.height == 0:
        return pl.DataFrame()
    both = pl.concat([frame, frame.with_columns(split=pl.lit("all"))])
    acc = summarize_subsets(both, by=["config", "split"])
    cost = both.group_by("config", "split", maintain_order=True).agg(
        pl.col("llm_calls").mean().round(1).alias("calls_per_q"),
        pl.col("llm_paid_calls").mean().round(1).alias("paid_calls_per_q"),
        pl.col("llm_prompt_tokens").mean().round(0).alias("prompt_tokens_per_q"),
        pl.col("llm_completion_tokens").mean().round(0).alias("completion_tokens_per_q"),
        pl.col("wall_s").mean().round(1).alias("wall_s_per_q"),
        # Records from before cold_wall_s was kept have none: the mean is over those that do.
        pl.col("cold_wall_s").mean().round(1).alias("cold_wall_s_per_q"),
        (pl.col("status") != "ok").sum().alias("failed"),
        pl.col("failed_stage").drop_nulls().value_counts().alias("_stages"),
        pl.col("truncated").fill_null(False).sum().alias("truncated_prompts"),
    )
    cost = cost.with_columns(
        failures_by_stage=pl.col("_stages").map_elements(
            lambda s: "; ".join(f"{d['failed_stage']}={d['count']}" for d in s) if s is not None else "",
            return_dtype=pl.String,
        )
    ).drop("_stages")
    return acc.join(cost, on=["config", "split"], how="left")


def stage_breakdown(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean LLM calls, tokens and seconds per question, by stage (questions without a stage count 0)."""
    n = len(records)
    totals: dict[str, dict[str, float]] = {}
    for r in records:
        for stage, st in (r.get("llm_stages") or {}).items():
            t = totals.setdefault(
                stage, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "seconds": 0}
            )
            for key in t:
                t[key] += float(st.get(key) or 0)
    return [
        {"stage": stage, **{f"{k}_per_q": round(v / n, 1) for k, v in t.items()}}
        for stage, t in totals.items()
    ]


def run_cell(
    *,
    system: str,
    k: float,
    metadata: bool = False,
    noise: bool = False,
    questions: str | int = 10,
    seed: int = 0,
    llm_backend: str = "local",
    n_threads: int = 1,
    n_ctx: int = 8192,
    results_dir: str | Path = "results/mudabench-table2",
    judge_llm: bool = True,
    deadline: float = 0.0,
    retry_failed: bool = False,
    splits: str = "both",
) -> dict[str, Any]:
    """Run (or resume) one system config over the question sample; return the figures dict."""
    from mdqa_kernel.llm import LLMConfig

    refs = parse_questions(questions, seed)
    if splits != "both":
        refs = [r for r in refs if r.split == splits]
    root = grid_root(results_dir, questions, seed)
    corpus = prepare_corpus(root, refs, seed=seed)
    llm_config = LLMConfig.from_env(backend=llm_backend, n_threads=n_threads, n_ctx=n_ctx)
    journal = root / CACHE_JOURNAL
    load_journal(journal, corpus.workspace)
    pool = LLMPool(llm_config, str(corpus.workspace), judge_llm=judge_llm, journal=str(journal))
    store = ResultStore(root / RESULTS_FILE)
    config = SystemConfig(system, float(k), bool(metadata), bool(noise))
    t0 = time.time()
    progress = run_config(
        config, refs, corpus, pool, store, deadline=deadline or None, retry_failed=retry_failed
    )
    records = config_records(store, config, refs, llm_identity(llm_config))
    return figures(config, refs, records, progress, llm_config, seed, questions, time.time() - t0, root)


def figures(
    config: SystemConfig,
    refs: list[QuestionRef],
    records: list[dict[str, Any]],
    progress: dict[str, Any],
    llm_config: Any,
    seed: int,
    questions: str | int,
    seconds: float,
    root: Path | None = None,
) -> dict[str, Any]:
    """The figures of one config; with the grid's `root`, also the other seed papers' measures."""
    final = [r for r in records if r.get("status") != "unavailable"]
    summary = summarize(final)
    return {
        "name": "mudabench-table2",
        "config": config.key(),
        "label": config.label,
        "complete": progress["complete"],
        "progress": progress,
        "sample": {
            "questions": str(questions),
            "seed": seed,
            "refs": refs_as_dicts(refs),
            "drawn": "stratified by split × doctype, seeded (grid.stratified_sample)",
        },
        "llm": llm_identity(llm_config),
        "summary": summary.to_dicts() if summary.height else [],
        "stages": stage_breakdown(final) if final else [],
        "seed_measures": seed_measures(config, final, root) if final and root is not None else {},
        "records": len(final),
        "unavailable": len(records) - len(final),
        "seconds": round(seconds, 1),
        "date": time.strftime("%Y-%m-%d"),
    }


def seed_measures(config: SystemConfig, records: list[dict[str, Any]], root: Path) -> dict[str, Any]:
    """The other seed papers' measures of one config's records: MEBench's entity-attributed F1 of the
    kept cells (micro over the sample; absent for a system without cells), MEBench's accuracy per
    question category (measures.MEBENCH_CATEGORIES), and AGORA's failure codes (bash-agent only)."""
    from collections import Counter

    from mdqa_kernel.benchmarks.measures import accuracy_per_category, cells_ea_f1
    from mdqa_kernel.benchmarks.metrics import question_gold
    from mdqa_kernel.benchmarks.runner import DOCUMENT_GROUNDED, cells_path
    from mdqa_kernel.benchmarks.systems.bash_agent import agora_failure

    out: dict[str, Any] = {}
    totals = Counter[str]()
    with_cells = 0
    not_kept = 0
    for r in records:
        path = cells_path(root, r["key"])
        if not path.exists():
            not_kept += int(config.system in DOCUMENT_GROUNDED)  # scored where it ran, not kept here
            continue
        f1 = cells_ea_f1(pl.read_parquet(path), question_gold(r["split"], r["question_id"]))
        totals.update({k: f1[k] for k in ("tp", "predicted", "gold")})
        with_cells += 1
    if with_cells:
        p = totals["tp"] / totals["predicted"] if totals["predicted"] else None
        rec = totals["tp"] / totals["gold"] if totals["gold"] else None
        f = None if p is None or rec is None else (2 * p * rec / (p + rec) if p + rec > 0 else 0.0)
        out["ea_f1"] = {"questions": with_cells, **dict(totals), "precision": p, "recall": rec, "f1": f}
    if not_kept:
        out["cells_not_kept"] = not_kept
    rows = [{"question_id": r["question_id"], "family": r.get("family") or "other",
             "correct": bool(r.get("correct"))} for r in records]  # fmt: skip
    out["mebench_categories"] = accuracy_per_category(pl.DataFrame(rows)).to_dicts()
    if config.system == "bash-agent":
        codes = Counter(
            agora_failure(r.get("notes") or {}, bool(r.get("correct"))) or "correct" for r in records
        )
        out["agora_failures"] = dict(codes)
    return out
