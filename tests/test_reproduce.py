"""`mdqa reproduce mudabench-table2` end to end on one question with the tiny local model:
papermill runs the grid notebook per config, figures come back from the executed notebooks, the
CSV/markdown/chart are written, and a second run does no work."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from mdqa_kernel.benchmarks.reproduce import read_figures
from mdqa_kernel.cli.main import main

pytestmark = [pytest.mark.slow, pytest.mark.llm]

QUESTION = "simple:q_b37fd557824179c9"  # 5 US annual reports: the smallest collection


def _run(tmp_path, systems: str = "flat-rag@1,mdqa-oracle-rows") -> dict:
    args = ["reproduce", "mudabench-table2", "--llm", "local-tiny", "--sample", QUESTION, "--no-noise",
            "--systems", systems, "--out", str(tmp_path), "--no-llm-judge",
            "--n-ctx", "4096", "--json"]  # fmt: skip
    result = CliRunner().invoke(main, args, env={**os.environ, "MDQA_LLM_THREADS": "1"})
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The one run that pays for the model: both tests read the grid it leaves."""
    out = tmp_path_factory.mktemp("table2")
    return out, _run(out)


def test_reproduce_table2_one_question_twice(first_run: tuple[Path, dict]) -> None:
    tmp_path, first = first_run
    root = tmp_path / "mudabench-table2"
    grid = next(root.glob("custom-*-seed0"))
    assert first["ran"] == 2 and not first["errors"]
    for name in ("table2.csv", "table2.md", "table2.png", "table2.svg", "table2_stages.csv"):
        assert (grid / name).is_file() and (grid / name).stat().st_size > 0
    figs = read_figures(grid / "notebooks" / "flat-rag-k-1d.ipynb")
    assert figs[-1]["complete"] is True and figs[-1]["records"] == 1
    md = (grid / "table2.md").read_text(encoding="utf-8")
    assert "flat-rag k=1·|D|" in md and "rendered" in md and "GPT 4o" not in md.split("|")[0]
    log = (grid / "logs" / "flat-rag-k-1d.log").read_text(encoding="utf-8")
    assert f"{QUESTION}: ok" in log  # per-question progress streams into the config's log
    records = [json.loads(x) for x in (grid / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    oracle = next(r for r in records if r["config"]["system"] == "mdqa-oracle-rows")
    assert (grid / "cells" / f"{oracle['key']}.parquet").is_file()  # kept for re-scoring
    flat = next(r for r in records if r["config"]["system"] == "flat-rag")
    assert flat["llm_paid_calls"] >= 1
    journal = (grid / "llm-cache.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(journal) >= flat["llm_paid_calls"]  # every answer the model gave, kept beside the records
    lines_before = len(records)

    second = _run(tmp_path)
    assert second["ran"] == 0 and second["configs_in_table"] == 2  # complete configs: no kernel started
    assert (grid / "results.jsonl").read_text(encoding="utf-8").count("\n") == lines_before

    # A run selecting one config still writes the table of everything the grid holds.
    third = _run(tmp_path, systems="flat-rag@1")
    assert third["ran"] == 0 and third["configs_in_table"] == 2
    assert "mdqa-oracle-rows" in (grid / "table2.md").read_text(encoding="utf-8")

    # What the rest of the grid would cost, from what was measured (no model is loaded).
    args = ["reproduce", "mudabench-table2", "--llm", "local-tiny", "--sample", QUESTION, "--out", str(tmp_path),
            "--n-ctx", "4096", "--estimate-cost"]  # fmt: skip
    estimate = CliRunner().invoke(main, args)
    assert estimate.exit_code == 0, estimate.output
    assert "measured configs (2)" in estimate.output and "hours_here" in estimate.output
    assert "not measured yet" in estimate.output and "paper-workflow k=5" in estimate.output
    # flat-rag at other k and with noise is scaled from the measured k=1; the workflow has no donor
    assert "×2.50 from flat-rag k=1·|D|" in estimate.output and "whole grid" in estimate.output


def test_reproduce_table2_fresh_clone_reuses_the_answer_journal(
    first_run: tuple[Path, dict], tmp_path
) -> None:
    """What a clone carries (results.jsonl and llm-cache.jsonl, not the workspace) is enough to
    re-run a question without the model: every call is answered from the journal."""
    grid = next((first_run[0] / "mudabench-table2").glob("custom-*-seed0"))
    clone = tmp_path / "clone" / "mudabench-table2" / grid.name
    clone.mkdir(parents=True)
    (clone / "llm-cache.jsonl").write_bytes((grid / "llm-cache.jsonl").read_bytes())

    again = _run(tmp_path / "clone", systems="flat-rag@1")
    assert again["ran"] == 1 and not again["errors"]
    records = [json.loads(x) for x in (grid / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    first = next(r for r in records if r["config"]["system"] == "flat-rag")
    rec = json.loads((clone / "results.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert rec["llm_calls"] == first["llm_calls"] >= 1 and rec["llm_paid_calls"] == 0
    # Its cold cost is what the first run's model calls took, though this run took none of it.
    model_s = sum(st["seconds"] for st in first["llm_stages"].values())
    assert model_s > 0 and rec["cold_wall_s"] >= rec["wall_s"] + model_s - 0.01
    assert rec["answer"] == first["answer"]
