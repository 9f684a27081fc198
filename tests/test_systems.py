"""Benchmark systems' orchestration with a fake LLM (scripted answers): call counts per stage,
prompt truncation, failures by stage, the results store and the grid's resume logic."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

from mdqa_kernel.aggregate.sandbox import isolation_available
from mdqa_kernel.benchmarks import runner
from mdqa_kernel.benchmarks.grid import (
    GridError,
    QuestionRef,
    ResultStore,
    parse_questions,
    stratified_sample,
)
from mdqa_kernel.benchmarks.systems import (
    QuestionInput,
    SystemConfig,
    flat_rag,
    get_system,
    paper_workflow,
    table2_configs,
)
from mdqa_kernel.benchmarks.systems.base import UnknownSystemError, approx_tokens, fit_blocks
from mdqa_kernel.benchmarks.table2 import grid_root
from mdqa_kernel.errors import UnknownNameError
from mdqa_kernel.llm import LLMClient, LLMConfig
from mdqa_kernel.llm.backends import Backend, Generation

REF = QuestionRef("simple", "q_b37fd557824179c9")  # 5 US annual reports, top-3 net profit


class FakeBackend(Backend):
    """Answers by a function of (prompt text, JSON schema or None); counts nothing itself."""

    name = "fake"

    def __init__(self, answer: Callable[[str, dict[str, Any] | None], str]) -> None:
        super().__init__(LLMConfig(backend="local", n_ctx=2048))
        self.answer = answer
        self.prompts: list[str] = []
        self.params: list[dict[str, Any]] = []

    @property
    def model_id(self) -> str:
        return "fake-model"

    @property
    def llm(self) -> Any:
        return None

    def generate(self, messages: Any, *, schema: Any, params: dict[str, Any]) -> Generation:
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        self.params.append(params)
        text = self.answer(prompt, schema.json_schema if schema else None)
        return Generation(text, prompt_tokens=approx_tokens(prompt), completion_tokens=len(text) // 4)


def scripted(prompt: str, schema: dict[str, Any] | None) -> str:
    props = (schema or {}).get("properties", {})
    if "templates" in props:
        return json.dumps({"templates": [{"name": "net_profit", "question": "What was {symbol}'s net profit in {year}?",
                                          "doctype": None, "years": []}]})  # fmt: skip
    if "fields" in props:
        return json.dumps({"fields": [{"name": "net_profit", "type": "number", "description": "net profit"}]})
    if "records" in props:
        n = props["records"]["minItems"]
        return json.dumps({"records": [{"net_profit": 100.0 + i} for i in range(n)]})
    if "correct" in props:
        return json.dumps({"reason": "same symbols", "correct": True})
    if "polars" in prompt:
        return "```python\nresult = rows.sort('net_profit', descending=True).head(3)\n```"
    return "FLEX, HAIN, TG"


def make_llm(tmp_path, answer=scripted) -> tuple[LLMClient, FakeBackend]:
    backend = FakeBackend(answer)
    return LLMClient(backend.config, tmp_path / "ws", backend=backend, run_id="t"), backend


def question(n_docs: int = 5, n_ctx: int = 8192) -> QuestionInput:
    docs = pl.DataFrame({"doc_id": [f"d{i}" for i in range(n_docs)], "symbol": [f"S{i}" for i in range(n_docs)],
                         "year": [2021] * n_docs, "doctype": ["US Stock Annual Report"] * n_docs})  # fmt: skip

    def chunks(doc_id: str) -> pl.DataFrame:
        texts = [f"{doc_id} net profit was {i}00 million dollars in 2021. " * 20 for i in range(1, 5)]
        return pl.DataFrame(
            {"chunk_id": list(range(4)), "page": [1, 1, 2, 2], "kind": ["text"] * 4, "text": texts}
        )

    return QuestionInput("q", "simple", "Which three companies had the highest net profit in 2021?", "en",
                         docs, chunks, n_ctx=n_ctx, max_tokens=256)  # fmt: skip


def test_flat_rag_one_call_with_k_times_d_chunks(tmp_path) -> None:
    llm, backend = make_llm(tmp_path)
    out = flat_rag.run(SystemConfig("flat-rag", k=1.5), question(), llm)
    assert out.answer == "FLEX, HAIN, TG"
    assert len(backend.prompts) == 1 and out.notes["chunks_wanted"] == math.ceil(1.5 * 5)
    assert out.notes["truncated"] is False and "Documents (metadata)" not in backend.prompts[0]
    assert out.cells is None  # flat RAG has no per-document cells


def test_flat_rag_metadata_and_truncation_to_context(tmp_path) -> None:
    llm, backend = make_llm(tmp_path)
    out = flat_rag.run(SystemConfig("flat-rag", k=2.5, metadata=True), question(n_ctx=1200), llm)
    assert (
        "Documents (metadata)" in backend.prompts[0]
        and "[S0 2021 US Stock Annual Report]" in backend.prompts[0]
    )
    assert out.notes["truncated"] is True and out.notes["chunks_in_prompt"] < out.notes["chunks_wanted"]
    assert approx_tokens(backend.prompts[0]) <= 1200


# The workflow's code phase runs LLM code, which the sandbox refuses without OS isolation.
needs_bwrap = pytest.mark.skipif(
    not isolation_available(),
    reason="bubblewrap (bwrap) is not installed or cannot create namespaces here; `make sysdeps` installs it",
)


def test_fit_blocks_cuts_a_single_oversized_block() -> None:
    kept, dropped = fit_blocks(["x" * 10_000, "y"], 100)
    assert len(kept) == 1 and dropped == 1 and approx_tokens(kept[0]) <= 100


@needs_bwrap
def test_paper_workflow_calls_per_stage_and_cells(tmp_path) -> None:
    llm, backend = make_llm(tmp_path)
    out = paper_workflow.run(SystemConfig("paper-workflow", k=3), question(n_docs=7), llm)
    stages = dict(llm.summary().select("stage", "calls").iter_rows())
    assert stages["plan"] == 1 and stages["extract"] == 7 and stages["schema"] == 1
    assert stages["normalize"] == math.ceil(7 / paper_workflow.BATCH_SIZE)
    assert stages["code"] == 1 and stages["answer"] == 1
    assert out.cells is not None and out.cells.height == 7 and set(out.cells["field"]) == {"net_profit"}
    assert out.failures == [] and out.answer
    # The code agent has room for a program and is told the table exists (a small model re-typed the
    # example records and was cut at the old 400-token limit).
    (code_call,) = [(p, q) for p, q in zip(backend.prompts, backend.params, strict=True) if "polars" in p]
    assert "`rows` already exists" in code_call[0]
    assert code_call[1]["max_tokens"] == paper_workflow.CODE_MAX_TOKENS == 1024


def test_paper_workflow_records_a_failed_program_by_stage(tmp_path) -> None:
    def broken_code(prompt: str, schema: dict[str, Any] | None) -> str:
        return (
            "result = rows.no_such_method()"
            if schema is None and "polars" in prompt
            else scripted(prompt, schema)
        )

    llm, _ = make_llm(tmp_path, broken_code)
    out = paper_workflow.run(SystemConfig("paper-workflow", k=1), question(n_docs=3), llm)
    assert [f["stage"] for f in out.failures] == ["code"]
    assert out.notes["code_attempts"] == 2 and out.answer  # the final agent still answers


@needs_bwrap
def test_workflow_on_gold_rows_runs_code_and_answer_only(tmp_path) -> None:
    """paper-workflow-oracle-rows: the gold values of the question as table J (typed columns,
    noise documents null), then only the code and answer phases."""
    from mdqa_kernel.benchmarks.metrics import question_gold

    gold = question_gold(REF.split, REF.question_id)
    docs = (
        gold.select("doc_id")
        .unique(maintain_order=True)
        .with_columns(
            symbol=pl.lit("S"), year=pl.lit(2021, pl.Int64), doctype=pl.lit("US Stock Annual Report")
        )
    )
    noise = pl.DataFrame(
        {"doc_id": ["noise-1"], "symbol": ["N"], "year": [2023], "doctype": ["US Stock Annual Report"]}
    )
    q = question()
    q = QuestionInput(REF.question_id, REF.split, q.question, "en", pl.concat([docs, noise]), q.chunks)
    frame = paper_workflow.gold_frame(q)
    field = gold["field"][0].removeprefix("value_")
    assert frame.height == docs.height + 1 and frame.schema[field] == pl.Float64
    assert frame.filter(pl.col("doc_id") == "noise-1")[field].to_list() == [None]

    events = paper_workflow._gold_column("events", [[{"date": "2022-05-20", "kind": "年度"}], None])
    assert events.dtype == pl.String and json.loads(events[0]) == [{"date": "2022-05-20", "kind": "年度"}]
    assert paper_workflow._gold_column("m", [["现场投票"], None]).dtype == pl.List(pl.String)

    def code_on_gold(prompt: str, schema: dict[str, Any] | None) -> str:
        if schema is None and "polars" in prompt:
            return f"result = rows.sort('{field}', descending=True, nulls_last=True).head(3)"
        return scripted(prompt, schema)

    llm, _ = make_llm(tmp_path, code_on_gold)
    out = paper_workflow.run_oracle(SystemConfig("paper-workflow-oracle-rows"), q, llm)
    assert set(dict(llm.summary().select("stage", "calls").iter_rows())) == {"code", "answer", "total"}
    assert out.failures == [] and out.answer and out.cells is not None
    assert out.cells.filter(pl.col("status") == "found").height == gold.height


def test_registry_and_grid_configs() -> None:
    with pytest.raises(UnknownSystemError, match=r"^unknown system 'nope'") as info:
        get_system("nope")
    assert isinstance(info.value, UnknownNameError) and isinstance(info.value, KeyError)
    configs = table2_configs()
    labels = [c.label for c in configs]
    assert "flat-rag k=2.5·|D| +metadata" in labels and "noise paper-workflow k=5" in labels
    assert len(configs) == 2 * (2 + 8 + 1 + 3)
    assert {c.system for c in table2_configs(["flat-rag"], noise=False)} == {"flat-rag"}


def test_stratified_sample_is_fixed_and_balanced() -> None:
    refs = stratified_sample(10, seed=0)
    assert refs == stratified_sample(10, seed=0) and len(set(refs)) == 10
    assert sum(r.split == "simple" for r in refs) == 5


def test_shuffled_order_is_the_held_out_order_of_earlier_sessions() -> None:
    """The README's held-out stretches name these positions: the order must never move."""
    order = parse_questions("shuffled:simple", seed=0)
    assert len(order) == 164 and len(set(order)) == 164
    pos = {r.question_id[:10]: i + 1 for i, r in enumerate(order)}
    assert [pos["q_b904c3f7"], pos["q_5469967a"], pos["q_927dfaaa"], pos["q_bc4257c1"]] == [26, 82, 153, 148]
    stretch = parse_questions("shuffled:simple:126-164", seed=0)
    assert stretch == order[125:] and len(stretch) == 39
    assert grid_root("results", "shuffled:simple:126-164", 0).name == "shuffled-simple-126-164-seed0"
    for bad in (
        "shuffled:nope",
        "shuffled:simple:9-3",
        "shuffled:simple:x",
        "q_a91050d8dfb41eb2",
        "nope:q_x",
    ):
        with pytest.raises(GridError):
            parse_questions(bad)
    # a bare id after the first takes the split before it
    listed = parse_questions("complex:q_a91050d8dfb41eb2,q_8be68b3d500f424f, simple:q_b904c3f7")
    assert [r.label for r in listed] == [
        "complex:q_a91050d8dfb41eb2",
        "complex:q_8be68b3d500f424f",
        "simple:q_b904c3f7",
    ]


def test_run_config_records_and_skips_finished_questions(tmp_path, monkeypatch) -> None:
    _llm, backend = make_llm(tmp_path)
    monkeypatch.setattr(runner, "question_input", lambda corpus, ref, config, cfg: question())
    pool = runner.LLMPool(backend.config, str(tmp_path / "ws"), backend=backend)
    store = ResultStore(tmp_path / "results.jsonl")
    config = SystemConfig("flat-rag", k=1.0)
    first = runner.run_config(config, [REF], corpus=None, pool=pool, store=store, log=lambda m: None)
    assert first == {"ran": 1, "skipped": 0, "stopped_by_deadline": False, "complete": True}
    rec = next(iter(store.latest().values()))
    assert rec["status"] == "ok" and rec["llm_calls"] == 1 and rec["llm_stages"]["answer"]["calls"] == 1
    assert rec["correct"] is True and rec["correct_llm"] is True  # symbols FLEX, HAIN, TG in the answer
    calls_before = len(backend.prompts)
    again = runner.run_config(config, [REF], corpus=None, pool=pool, store=store, log=lambda m: None)
    assert again["ran"] == 0 and again["skipped"] == 1 and len(backend.prompts) == calls_before


def test_a_question_answered_from_the_cache_keeps_its_cold_cost(tmp_path, monkeypatch) -> None:
    """A resumed or re-run question takes no model time; `cold_wall_s` still says what it costs cold:
    each cached answer at the seconds it first took, counted once."""
    import time as _time

    def slow(prompt: str, schema: dict[str, Any] | None) -> str:
        _time.sleep(0.3)
        return scripted(prompt, schema)

    _llm, backend = make_llm(tmp_path, slow)
    monkeypatch.setattr(runner, "question_input", lambda corpus, ref, config, cfg: question())
    pool = runner.LLMPool(backend.config, str(tmp_path / "ws"), backend=backend, judge_llm=False)
    config = SystemConfig("flat-rag", k=1.0)
    cold = runner.run_one(config, REF, None, pool)
    assert cold["llm_paid_calls"] == 1 and cold["wall_s"] >= 0.3
    assert cold["cold_wall_s"] == cold["wall_s"]  # nothing was cached
    warm = runner.run_one(config, REF, None, pool)  # the same prompt: answered from the cache
    assert warm["llm_paid_calls"] == 0 and warm["wall_s"] < 0.3
    assert warm["cold_wall_s"] >= 0.3 + warm["wall_s"] - 0.01


def test_unavailable_stage_is_not_final(tmp_path, monkeypatch) -> None:
    _llm, backend = make_llm(tmp_path)
    monkeypatch.setattr(runner, "question_input", lambda corpus, ref, config, cfg: question())
    monkeypatch.setattr("mdqa_kernel.benchmarks.systems.mdqa_pipeline.find_ask", _unavailable)
    pool = runner.LLMPool(backend.config, str(tmp_path / "ws"), backend=backend)
    store = ResultStore(tmp_path / "results.jsonl")
    out = runner.run_config(SystemConfig("mdqa", k=3), [REF], None, pool, store, log=lambda m: None)
    assert out["ran"] == 1 and out["complete"] is False
    rec = next(iter(store.latest().values()))
    assert rec["status"] == "unavailable" and rec["failed_stage"] == "plan"
    assert not store.done(rec["key"])


def _unavailable() -> Any:
    from mdqa_kernel.benchmarks.systems import SystemUnavailableError

    raise SystemUnavailableError("plan", "not yet")


def test_system_specs_select_single_configs() -> None:
    picked = table2_configs(["flat-rag@1", "mdqa-oracle-rows", "flat-rag@2.5+meta"], noise=False)
    assert [c.label for c in picked] == [
        "mdqa-oracle-rows k=1",
        "flat-rag k=1·|D|",
        "flat-rag k=2.5·|D| +metadata",
    ]
    with pytest.raises(UnknownSystemError):
        table2_configs(["nope@1"])


def test_cost_model_prices_tokens_per_question(tmp_path) -> None:
    from mdqa_kernel.benchmarks.cost import PriceError, cost_columns, estimate_grid, load_prices

    summary = pl.DataFrame({"config": ["a", "a"], "split": ["all", "simple"], "subset": ["all", "all"],
                            "questions": [10, 5], "prompt_tokens_per_q": [2_000_000.0, 1.0],
                            "completion_tokens_per_q": [500_000.0, 1.0], "wall_s_per_q": [36.0, 1.0]})  # fmt: skip
    prices = load_prices({"m": {"input": 1.0, "output": 4.0}})
    out = cost_columns(summary, prices, questions=3)
    assert out["cost_per_q_m"][0] == pytest.approx(4.0) and out["cost_m"][0] == pytest.approx(12.0)
    est = estimate_grid(summary, prices, 100)
    assert est.height == 1 and est["cost_m"][0] == pytest.approx(400.0)
    assert est["hours_here"][0] == pytest.approx(1.0)  # 36 s per question × 100 questions
    # Where the records know the cold cost, the hours are counted from it (the wall time left out cache hits).
    with_cold = summary.with_columns(cold_wall_s_per_q=pl.Series([72.0, None]))
    assert estimate_grid(with_cold, prices, 100)["hours_here"][0] == pytest.approx(2.0)
    table = tmp_path / "prices.yaml"
    table.write_text("x: {input: 0.5, output: 1}\n", encoding="utf-8")
    assert load_prices(table)["x"].cost(1e6, 1e6) == pytest.approx(1.5)
    with pytest.raises(PriceError):
        load_prices({"bad": {"input": -1, "output": 0}})
    assert "gpt-4o" in load_prices()


def test_cost_of_unmeasured_configs_is_scaled_from_the_same_system() -> None:
    """Before running the rest of the grid a user sees what it would cost: flat-rag and the workflow
    read k chunks (tokens ×k/k_measured), noise adds 0.5·|D| documents (×1.5); here a flat-RAG prompt
    is cut to the context, so its hours stop growing there while a paid API bills every token."""
    from mdqa_kernel.benchmarks.cost import estimate_grid, extrapolate_grid, load_prices

    summary = pl.DataFrame({"config": ["flat-rag k=1·|D|", "paper-workflow k=1"], "split": ["all"] * 2,
                            "subset": ["all"] * 2, "questions": [10, 10], "prompt_tokens_per_q": [4000.0, 20000.0],
                            "completion_tokens_per_q": [100.0, 2000.0], "wall_s_per_q": [200.0, 400.0]})  # fmt: skip
    prices = load_prices({"m": {"input": 1.0, "output": 0.0}})
    table = estimate_grid(summary, prices, 10)
    configs = {c.label: c for c in table2_configs(None, noise=True)}
    measured = {label: configs[label] for label in table["config"]}
    missing = [c for label, c in configs.items() if label not in measured]
    guessed = extrapolate_grid(table, measured, missing, 8192, prices, 10)
    rows = {r["config"]: r for r in guessed.iter_rows(named=True)}
    assert rows["flat-rag k=1.5·|D|"]["prompt_tokens_per_q"] == pytest.approx(6000)
    assert rows["flat-rag k=1.5·|D|"]["hours_here"] == pytest.approx(300 * 10 / 3600, abs=0.01)
    cut = rows["noise flat-rag k=2.5·|D|"]  # 4000 × 2.5 × 1.5 = 15000 tokens, 8192 of them read here
    assert cut["prompt_tokens_per_q"] == pytest.approx(15000) and cut["cost_m"] == pytest.approx(0.15)
    assert cut["hours_here"] == pytest.approx(200 * 8192 / 4000 * 10 / 3600, abs=0.01)
    assert rows["paper-workflow k=5"]["prompt_tokens_per_q"] == pytest.approx(100000)
    assert rows["noise paper-workflow k=1"]["completion_tokens_per_q"] == pytest.approx(3000)
    assert "from paper-workflow k=1" in rows["paper-workflow k=3"]["basis"]
    # no measured config of a system: no guess
    assert not any(label.startswith(("mdqa", "noise mdqa")) for label in rows)
    assert "flat-rag k=1·|D| +metadata" not in rows  # the metadata prompt has no measured donor


def test_figures_are_read_back_from_an_executed_notebook(tmp_path) -> None:
    import nbformat

    from mdqa_kernel.benchmarks.reproduce import GridOptions, _up_to_date, read_figures

    fig = {"name": "mudabench-table2", "complete": True, "llm": {"backend": "x"}, "summary": [],
           "config": {"system": "mdqa", "k": 3.0, "v": 3}}  # fmt: skip
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("display(...)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"application/vnd.mdqa.figures+json": fig,
                                                                  "text/plain": "figures"})]  # fmt: skip
    nb.cells = [cell]
    path = tmp_path / "run.ipynb"
    nbformat.write(nb, str(path))
    assert read_figures(path)[0]["complete"] is True
    assert _up_to_date(path, GridOptions(), {"backend": "x"}) is not None
    assert _up_to_date(path, GridOptions(), {"backend": "other"}) is None  # another model: run again
    assert (
        _up_to_date(path, GridOptions(), {"backend": "x"}, {"system": "mdqa", "k": 3.0, "v": 3}) is not None
    )
    # the system changed since (its version is part of the config key): run again
    assert _up_to_date(path, GridOptions(), {"backend": "x"}, {"system": "mdqa", "k": 3.0, "v": 4}) is None


def test_heldout_scoring_takes_the_latest_record_and_a_wilson_interval(tmp_path) -> None:
    """The held-out figures in the README: the interval quoted for 32 of 36, and a re-scored record
    (appended under the same key) counted once, with its new verdict."""
    from mdqa_kernel.benchmarks.heldout import latest_records, wilson

    lo, hi = wilson(32, 36)
    assert (round(lo, 2), round(hi, 2)) == (0.75, 0.96)
    rec = {"key": "a", "config": {"system": "mdqa", "v": 28}, "correct": False}
    lines = [rec, {**rec, "correct": True}, {**rec, "key": "b", "config": {"system": "mdqa", "v": 27}}]
    (tmp_path / "results.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    (latest,) = latest_records(tmp_path, "mdqa", 28)
    assert latest["correct"] is True


def test_heldout_scoring_leaves_out_positions_looked_at(tmp_path, capsys) -> None:
    """`--from-position 3`: the first two questions of the seeded order were read to make the version,
    so they are scored with the development questions, not as held out."""
    from mdqa_kernel.benchmarks import grid
    from mdqa_kernel.benchmarks.heldout import main

    order = [q.question_id for q in grid.shuffled_questions("shuffled:complex", 0)]
    dev = {q.question_id for q in grid.parse_questions("40", 0)}
    picked = [q for q in order if q not in dev][:4]
    base = {"config": {"system": "mdqa", "v": 9}, "known_defect": False, "llm_calls": 1, "llm_paid_calls": 1,
            "llm_prompt_tokens": 10, "wall_s": 1.0}  # fmt: skip
    lines = [{**base, "key": q, "question_id": q, "correct": i != 0} for i, q in enumerate(picked)]
    (tmp_path / "results.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    first = order.index(picked[2]) + 1
    main([str(tmp_path), "--version", "9", "--from-position", str(first)])
    held, looked = capsys.readouterr().out.splitlines()
    assert held.startswith("mdqa v9 held out: n=2 final=1.000 (2)")
    assert looked.startswith("mdqa v9 dev: n=2 final=0.500 (1)")
    # a question further on that was run to make the version is development too (`--looked-at`)
    main([str(tmp_path), "--version", "9", "--from-position", str(first), "--looked-at", picked[3][:10]])
    held, looked = capsys.readouterr().out.splitlines()
    assert held.startswith("mdqa v9 held out: n=1 final=1.000 (1)")
    assert looked.startswith("mdqa v9 dev: n=3 final=0.667 (2)")


def test_first_look_pools_grids_and_scores_each_question_by_its_first_run(tmp_path, capsys) -> None:
    """`--first-look`: a question counts once, by the run that met it first (in any grid), with that
    run's latest scoring; later versions' runs of it do not count, nor do development questions."""
    from mdqa_kernel.benchmarks import grid
    from mdqa_kernel.benchmarks.heldout import main

    order = [q.question_id for q in grid.shuffled_questions("shuffled:complex", 0)]
    dev = {q.question_id for q in grid.parse_questions("40", 0)}
    a, b, c = [q for q in order if q not in dev][:3]
    base = {
        "known_defect": False,
        "llm_calls": 1,
        "llm_paid_calls": 1,
        "llm_prompt_tokens": 10,
        "wall_s": 1.0,
    }

    def run(q: str, v: int, when: str, correct: bool, **extra: Any) -> dict[str, Any]:
        return {**base, "key": f"{q}-{v}", "question_id": q, "config": {"system": "mdqa", "v": v},
                "finished_at": when, "correct": correct, **extra}  # fmt: skip

    first_grid, second_grid = tmp_path / "g1", tmp_path / "g2"
    for folder, lines in (
        (first_grid, [run(a, 1, "2026-01-01T10:00:00", False),
                      run(a, 1, "2026-01-01T10:00:00", True, rescored_at="2026-01-03"),  # judge fixed later
                      run(a, 2, "2026-01-02T10:00:00", False),  # a later version: not a first look
                      run(sorted(dev)[0], 1, "2026-01-01T09:00:00", True)]),
        (second_grid, [run(b, 2, "2026-01-02T11:00:00", False), run(b, 3, "2026-01-01T08:00:00", True),
                       run(c, 3, "2026-01-04T08:00:00", True)]),
    ):  # fmt: skip
        folder.mkdir()
        (folder / "results.jsonl").write_text(
            "\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8"
        )
    main([str(first_grid), str(second_grid), "--first-look"])
    pooled, versions = capsys.readouterr().out.splitlines()
    assert pooled.startswith("mdqa first look: n=3 final=1.000 (3)")  # a rescored right, b's v3 run first
    assert versions.strip() == "by the version that ran it first: v1: 1/1, v3: 2/2"
    main([str(first_grid), str(second_grid), "--first-look", "--looked-at", c[:10]])
    assert capsys.readouterr().out.startswith("mdqa first look: n=2 ")
    with pytest.raises(SystemExit, match="only with --first-look"):
        main([str(first_grid), str(second_grid), "--version", "1"])


def test_grid_records_from_two_machines_merge_without_conflict(tmp_path) -> None:
    """results.jsonl and llm-cache.jsonl are append-only: the repository's .gitattributes merges two
    machines' appended lines by keeping both (git would otherwise stop on a conflict at the end)."""
    import shutil
    import subprocess
    from pathlib import Path

    repo_root = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        cmd = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", *args]
        return subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    shutil.copy(repo_root / ".gitattributes", tmp_path / ".gitattributes")
    grid = tmp_path / "results" / "mudabench-table2" / "sample10-seed0"
    grid.mkdir(parents=True)
    for name in ("results.jsonl", "llm-cache.jsonl"):
        (grid / name).write_text('{"key": "first"}\n', encoding="utf-8")
    git("add", "-A")
    git("commit", "-qm", "start")
    git("checkout", "-qb", "other")
    for name in ("results.jsonl", "llm-cache.jsonl"):
        with (grid / name).open("a", encoding="utf-8") as fh:
            fh.write('{"key": "other machine"}\n')
    git("commit", "-qam", "other")
    git("checkout", "-q", "main")
    for name in ("results.jsonl", "llm-cache.jsonl"):
        with (grid / name).open("a", encoding="utf-8") as fh:
            fh.write('{"key": "this machine"}\n')
    git("commit", "-qam", "this")
    git("merge", "-q", "other", "-m", "merge")
    for name in ("results.jsonl", "llm-cache.jsonl"):
        keys = {json.loads(x)["key"] for x in (grid / name).read_text(encoding="utf-8").splitlines()}
        assert keys == {"first", "other machine", "this machine"}


def agent_reply(prompt: str, schema: dict[str, Any] | None) -> str:
    """A bash agent's turns: a command first, the answer once a command's output came back."""
    if "<returncode>" in prompt:
        return "<answer>FLEX, HAIN, TG</answer>"
    if "Question:" in prompt:
        return "```bash\ngrep -rn 'net profit' /sandbox/in | head -5\n```"
    return scripted(prompt, schema)


@pytest.mark.skipif(not isolation_available(), reason="bubblewrap cannot isolate here (make sysdeps)")
def test_opt_in_systems_stay_in_the_table_with_the_seed_papers_measures(tmp_path, monkeypatch) -> None:
    from mdqa_kernel.benchmarks.reproduce import stored_opt_in
    from mdqa_kernel.benchmarks.table2 import seed_measures
    from mdqa_kernel.benchmarks.table2_report import seed_markdown

    _llm, backend = make_llm(tmp_path, agent_reply)
    monkeypatch.setattr(runner, "question_input", lambda corpus, ref, config, cfg: question())
    pool = runner.LLMPool(backend.config, str(tmp_path / "ws"), backend=backend)
    store = ResultStore(tmp_path / "results.jsonl")
    agent, workflow = SystemConfig("bash-agent", k=4.0), SystemConfig("paper-workflow", k=1.0)
    for config in (agent, workflow):
        runner.run_config(config, [REF], corpus=None, pool=pool, store=store, log=lambda m: None)
    assert stored_opt_in(store) == [agent]  # not in the default grid, still in the table
    records = {r["config"]["system"]: r for r in store.latest().values()}
    assert records["bash-agent"]["correct"] is True and records["bash-agent"]["notes"]["turns"] == 2
    agent_measures = seed_measures(agent, [records["bash-agent"]], tmp_path)
    assert agent_measures["agora_failures"] == {"correct": 1} and "ea_f1" not in agent_measures  # no cells
    overall = [c for c in agent_measures["mebench_categories"] if c["category"] == "overall"]
    assert overall == [{"category": "overall", "questions": 1, "correct": 1, "accuracy": 1.0}]
    workflow_measures = seed_measures(workflow, [records["paper-workflow"]], tmp_path)
    f1 = workflow_measures["ea_f1"]  # the workflow's cells (net profit 100, 101, …) against the gold
    assert f1["questions"] == 1 and f1["predicted"] == 5 and f1["gold"] >= 5 and f1["tp"] == 0
    text = seed_markdown([{"label": agent.label, "seed_measures": agent_measures},
                          {"label": workflow.label, "seed_measures": workflow_measures}])  # fmt: skip
    assert "| bash-agent turns=4 | no cells | 1/1 |" in text and "correct: 1" in text
    assert "| paper-workflow k=1 | 0.000 / 0.000 / 0.000 (n=1) |" in text
