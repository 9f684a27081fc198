"""Re-scoring finished grid records when a scoring rule changes: process metrics from the kept
cells, the deterministic judge from the kept answer; measured time and LLM calls stay as recorded."""

from __future__ import annotations

import json

import polars as pl

from mdqa_kernel.benchmarks.grid import ResultStore
from mdqa_kernel.benchmarks.metrics import question_gold
from mdqa_kernel.benchmarks.mudabench import load_split
from mdqa_kernel.benchmarks.runner import METRICS_VERSION, cells_path, rescore
from mdqa_kernel.benchmarks.systems.base import empty_cells

SPLIT, QID = "simple", "q_5a86f1e3a617e2cf"  # gold: a one-item list of voting methods per document


def _old_record(key: str, system: str, answer: str) -> dict:
    return {"key": key, "config": {"system": system, "k": 1.0, "metadata": False, "noise": False},
            "config_label": f"{system} k=1", "split": SPLIT, "question_id": QID, "status": "ok",
            "answer": answer, "correct": False, "cells_n": 12, "cells_correct": 0, "process": 0.0,
            "wall_s": 225.9, "llm_calls": 20}  # fmt: skip


def test_rescore_uses_kept_cells_and_answer(tmp_path) -> None:
    gold = question_gold(SPLIT, QID)
    # A free-text workflow wrote the list value as plain text: scored 0 under the old rule.
    cells = gold.select(
        "doc_id",
        "field",
        status=pl.lit("found"),
        value_json=pl.lit(json.dumps("逐项表决", ensure_ascii=False)),
    ).select(empty_cells().columns)
    store = ResultStore(tmp_path / "results.jsonl")
    reference = load_split(SPLIT).reference_answer(QID)
    store.add(_old_record("k-with-cells", "paper-workflow", reference))
    store.add(_old_record("k-without-cells", "paper-workflow", "no idea"))
    path = cells_path(tmp_path, "k-with-cells")
    path.parent.mkdir(parents=True)
    cells.write_parquet(path)

    assert rescore(store) == 2
    latest = store.latest()
    kept = latest["k-with-cells"]
    assert kept["cells_correct"] == kept["cells_n"] == gold.height
    assert kept["process"] == 1.0 and kept["all_rows_correct"] is True
    assert kept["correct"] is True  # the reference answer itself is judged correct
    assert kept["wall_s"] == 225.9 and kept["llm_calls"] == 20 and kept["metrics_version"] == METRICS_VERSION
    lost = latest["k-without-cells"]
    assert lost["cells_correct"] == 0 and lost["correct"] is False  # no cells kept: process left as scored

    assert rescore(store) == 0  # up to date: nothing appended
    assert rescore(store, force=True) == 2
