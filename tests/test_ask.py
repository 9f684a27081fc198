"""ask(): plan → extract → aggregate → answer over rendered MuDABench documents.

The fast tests use a hand-written plan and the oracle reader (no model); the `llm` test plans with
the local model (gold-schema fields, the deterministic table reader) and judges the answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from mdqa_kernel.ask import AskResult, ask
from mdqa_kernel.benchmarks.judge import judge
from mdqa_kernel.benchmarks.mudabench import load_split
from mdqa_kernel.benchmarks.planner_eval import gold_fields
from mdqa_kernel.cli.main import main
from mdqa_kernel.collection.collection import Collection
from mdqa_kernel.plan.aggregation import Aggregation, FilterOp, Output, RankOp
from mdqa_kernel.plan.ir import Plan

US_ASSETS = "q_1c78a52e3db50bd6"  # top three US filers by total assets, 2021 (5 documents)
CN_CAR = "q_5f548113107a56e1"  # top three A-share banks by capital adequacy ratio, 2021 (7 documents)


@pytest.fixture(scope="module")
def split():
    return load_split("simple")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mdqa_kernel.benchmarks.render import render_mudabench

    out = tmp_path_factory.mktemp("render")
    render_mudabench("simple", [US_ASSETS, CN_CAR], out)
    return out


@pytest.fixture(scope="module")
def collection(rendered: Path, tmp_path_factory: pytest.TempPathFactory) -> Collection:
    ws = tmp_path_factory.mktemp("ws")
    return Collection.build(rendered / "pdfs", metadata=rendered / "metadata.csv", workspace=ws, name="demo",
                            jobs=1, progress=False)  # fmt: skip


def _us_plan(split) -> Plan:
    question = split.item(US_ASSETS)["question"]
    agg = Aggregation(steps=[FilterOp(field="year", value=2021), RankOp(field="value_total_assets_usd", k=3)],
                      output=Output(form="entities"))  # fmt: skip
    return Plan(question=question, filters={"year": 2021, "doctype": "US Stock Annual Report"},
                fields=gold_fields(split, US_ASSETS), aggregation=agg)  # fmt: skip


def test_ask_with_a_given_plan_shows_every_stage(split, collection: Collection) -> None:
    item = split.item(US_ASSETS)
    result = ask(item["question"], collection, plan=_us_plan(split), reader="oracle")
    assert isinstance(result, AskResult)
    assert judge(result.text, item["final_answer"], question=item["question"])
    assert result.rows.height == 5 and "value_total_assets_usd" in result.rows.columns
    assert result.extraction is not None and result.aggregate is not None
    assert set(result.costs["stage"]) == {"extract", "aggregate+answer", "total"}
    lineage = result.lineage()
    assert lineage.height == 3 and set(lineage["field"]) == {"value_total_assets_usd"}  # one cell per entity
    html = result._repr_html_()
    assert "Answer" in html and "Lineage" in html and "Costs" in html


def test_corrected_rows_and_edited_aggregation_rerun_alone(split, collection: Collection) -> None:
    item = split.item(US_ASSETS)
    base = ask(item["question"], collection, plan=_us_plan(split), reader="oracle")
    last = base.rows.sort("value_total_assets_usd")["doc_id"][0]
    fixed = base.correct({(last, "value_total_assets_usd"): 1e15})
    assert fixed.answer.values[0] == base.rows.filter(pl.col("doc_id") == last)["symbol"][0]
    assert fixed.extraction is base.extraction  # nothing was re-extracted
    top1 = Aggregation(steps=[RankOp(field="value_total_assets_usd", k=1)], output=Output(form="entities"))
    one = base.reaggregate(aggregation=top1)
    assert len(one.answer.values) == 1 and one.plan.aggregation == top1
    again = base.rerun(plan=base.plan)
    assert again.text == base.text and again.extraction.run["ran"] == 0  # every cell came from the store


def test_cli_ask_prints_plan_rows_answer_lineage(split, collection: Collection, tmp_path: Path) -> None:
    plan_file = _us_plan(split).save(tmp_path / "plan.yaml")
    ws = str(collection.workspace.path)
    question = split.item(US_ASSETS)["question"]
    args = [
        "ask",
        question,
        "--workspace",
        ws,
        "--collection",
        "demo",
        "--plan",
        str(plan_file),
        "--reader",
        "oracle",
    ]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    for section in ("== plan ==", "== rows (5) ==", "== answer ==", "== lineage", "== costs =="):
        assert section in out.output
    data = json.loads(CliRunner().invoke(main, [*args, "--json"]).output)
    assert data["answer"]["values"] == ["PLAY", "DY", "CMCO"]


def test_cli_ask_unknown_collection_is_one_line(tmp_path: Path) -> None:
    out = CliRunner().invoke(main, ["ask", "q?", "--workspace", str(tmp_path / "nope"), "--reader", "oracle"])
    assert out.exit_code == 2 and out.output.startswith("error:")


@pytest.mark.llm
@pytest.mark.timeout(600)
def test_ask_end_to_end_with_the_local_model(split, collection: Collection) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (make install-local)")
    from mdqa_kernel.llm import LLMClient, LLMConfig

    client = LLMClient(LLMConfig.from_env(backend="local", n_threads=1), collection.workspace)
    for qid in (US_ASSETS, CN_CAR):
        item = split.item(qid)
        docs = collection.where(doc_id=split.documents(qid)["doc_id"].to_list())
        result = ask(item["question"], docs, fields=gold_fields(split, qid), reader="table", llm=client)
        verdict = judge(result.text, item["final_answer"], question=item["question"])
        assert verdict, f"{result.text} vs {item['final_answer']}: {verdict.reason}\n{result.plan.to_yaml()}"
        plan_cost = result.costs.filter(pl.col("stage") == "plan")
        assert plan_cost["llm_calls"][0] >= 2  # family + parameters, accounted under stage "plan"
        assert result.planning.trace.family == "topk"
