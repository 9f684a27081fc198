"""FinanceBench as a benchmark configuration: configs and samples, a resumable judged grid over real
parses of generated filings (a scripted model drives the orchestration), the published configurations
on the same questions, and runs with the tiny local model on shared filings and through `mdqa reproduce`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from mdqa_kernel.benchmarks import financebench_grid as fg
from mdqa_kernel.benchmarks.financebench import load_questions
from mdqa_kernel.llm import LLMConfig
from tests._pdfs import text_pdf
from tests.test_systems import FakeBackend

SHARED = Path(__file__).resolve().parents[2] / "shared" / "financebench"
QUESTIONS = [
    {"financebench_id": "fb1", "company": "Acme", "doc_name": "ACME_2020_10K", "question_type": "metrics-generated",
     "question": "What was Acme's FY2020 capital expenditure (in USD millions)?", "answer": "$120.00",
     "evidence": [{"doc_name": "ACME_2020_10K", "evidence_page_num": 1, "evidence_text": "capex"}]},
    {"financebench_id": "fb2", "company": "Beta", "doc_name": "BETA_2021_10K", "question_type": "domain-relevant",
     "question": "Did Beta pay a dividend in FY2021?", "answer": "Yes, 1.20 per share.",
     "evidence": [{"doc_name": "BETA_2021_10K", "evidence_page_num": 0, "evidence_text": "dividend"}]},
    {"financebench_id": "fb3", "company": "Beta", "doc_name": "BETA_2021_10K", "question_type": "novel-generated",
     "question": "What drove Beta's margin change in FY2021?", "answer": "Lower input costs.",
     "evidence": [{"doc_name": "BETA_2021_10K", "evidence_page_num": 1, "evidence_text": "margin"}]},
]  # fmt: skip


def folder_with_filings(tmp_path: Path) -> Path:
    folder = tmp_path / "fb"
    (folder / "pdfs").mkdir(parents=True)
    (folder / "results").mkdir()
    text_pdf(folder / "pdfs" / "ACME_2020_10K.pdf",
             [["Acme Corp annual report 2020. Risk factors."],
              ["Capital expenditure was 120 million dollars in fiscal 2020."]])  # fmt: skip
    text_pdf(folder / "pdfs" / "BETA_2021_10K.pdf",
             [["Beta Ltd annual report 2021. Dividends paid were 1.20 dollars per share."],
              ["Gross margin rose because input costs were lower."]])  # fmt: skip
    docs = [{"doc_name": "ACME_2020_10K", "company": "Acme", "gics_sector": "Industrials", "doc_type": "10k", "doc_period": 2020},
            {"doc_name": "BETA_2021_10K", "company": "Beta", "gics_sector": "Materials", "doc_type": "10k", "doc_period": 2021}]  # fmt: skip
    (folder / "documents.jsonl").write_text("\n".join(json.dumps(d) for d in docs), encoding="utf-8")
    (folder / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in QUESTIONS), encoding="utf-8")
    for model, labels in (("gpt-x", ["Correct Answer", "Incorrect Answer", "Refusal"]),
                          ("llm-y", ["Correct Answer", "Correct Answer", "Correct Answer"])):  # fmt: skip
        rows = [{"financebench_id": q["financebench_id"], "model_name": model, "eval_mode": "singleStore",
                 "model_answer": "…", "label": lab} for q, lab in zip(QUESTIONS, labels, strict=True)]  # fmt: skip
        (folder / "results" / f"{model}_singleStore.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    return folder


def analyst(prompt: str, schema: dict[str, Any] | None) -> str:
    if schema and "correct" in schema.get("properties", {}):  # the LLM judge
        return json.dumps({"reason": "names lower input costs", "correct": "input costs" in prompt.lower()})
    if "capital expenditure" in prompt.lower() and "Question:" in prompt:
        return "Acme's FY2020 capital expenditure was $120 million."
    if "dividend" in prompt.lower() and "Question:" in prompt:
        return "No."
    return "Lower input costs raised the margin."


def test_configs_and_samples() -> None:
    configs = fg.parse_configs(["flat-rag", "bash-agent@12"], ["singleStore", "sharedStore"])
    assert [c.label for c in configs] == ["flat-rag k=1·|D| singleStore", "flat-rag k=1·|D| sharedStore",
                                          "bash-agent turns=12 singleStore", "bash-agent turns=12 sharedStore"]  # fmt: skip
    with pytest.raises(fg.FinanceBenchGridError, match="unknown system 'paper-workflow'"):
        fg.parse_configs(["paper-workflow"], ["singleStore"])
    assert [c.label for c in fg.parse_configs(["mdqa"], ["sharedStore"])] == ["mdqa k=3 sharedStore"]
    with pytest.raises(fg.FinanceBenchGridError, match="unknown setting"):
        fg.parse_configs(["flat-rag"], ["oracle"])
    questions = pl.DataFrame({"financebench_id": [f"q{i}" for i in range(9)],
                              "question_type": ["a"] * 5 + ["b"] * 3 + ["c"]})  # fmt: skip
    four = fg.sample_questions(questions, 4, seed=1)
    assert four["question_type"].to_list()[:3] == ["a", "b", "c"] and four.height == 4  # types take turns
    assert fg.sample_questions(questions, 4, seed=1).equals(four)  # seeded
    assert fg.sample_questions(questions, "q3,q8", 0)["financebench_id"].to_list() == ["q3", "q8"]
    assert fg.sample_questions(questions, "all", 0).height == 9
    with pytest.raises(fg.FinanceBenchGridError, match="unknown question id"):
        fg.sample_questions(questions, "q99", 0)


def test_grid_is_judged_resumable_and_set_beside_the_published(tmp_path: Path) -> None:
    folder = folder_with_filings(tmp_path)
    questions = load_questions(folder)
    backend = FakeBackend(analyst)
    config = LLMConfig(backend="local", n_ctx=2048, max_tokens=128)
    configs = fg.parse_configs(["flat-rag", "mebench-rag"], ["singleStore", "sharedStore"])

    def run(**kw: Any) -> list[dict[str, Any]]:
        return fg.run_grid(configs, questions, folder, tmp_path / "out", config, jobs=1, backend=backend,
                           log=lambda m: None, **kw)  # fmt: skip

    stopped = run(max_minutes=0.0)
    assert stopped == []  # the deadline passed before the first question: nothing run, nothing lost
    records = run()
    assert len(records) == 12 and all(r["status"] == "ok" for r in records)
    by = {(r["config"], r["financebench_id"]): r for r in records}
    capex = by[("flat-rag k=1·|D| singleStore", "fb1")]
    assert capex["correct"] is True and capex["judge"] == "numeric" and capex["llm_calls"] == 1
    assert by[("flat-rag k=1·|D| singleStore", "fb2")]["correct"] is False  # "No." against a "Yes" reference
    margin = by[("mebench-rag top5/doc sharedStore", "fb3")]
    assert margin["judge"] == "llm" and margin["correct"] is True
    calls = len(backend.prompts)
    again = run()
    assert len(again) == 12 and len(backend.prompts) == calls  # resumed: no question ran twice
    ours = fg.summary(records, questions)
    row = ours.filter(pl.col("config") == "flat-rag k=1·|D| singleStore").row(0, named=True)
    assert (row["questions"], row["correct"], row["metrics-generated (of 1)"], row["by_llm_judge"]) == (
        3,
        2,
        1,
        1,
    )
    assert row["correct_by_numeric_judge"] == 1  # the LLM judge's verdict is counted apart
    theirs = fg.published(folder, questions)
    assert theirs.filter(pl.col("config") == "gpt-x_singleStore")["accuracy"].item() == pytest.approx(
        1 / 3, abs=1e-3
    )
    assert theirs["config"].to_list()[0] == "llm-y_singleStore"  # best first


def test_a_missing_filing_is_a_failed_record_not_a_crash(tmp_path: Path) -> None:
    folder = folder_with_filings(tmp_path)
    (folder / "pdfs" / "BETA_2021_10K.pdf").unlink()
    from mdqa_kernel.collection import Collection

    coll = Collection.build(folder / "pdfs", workspace=tmp_path / "ws", progress=False, jobs=1)
    with pytest.raises(fg.StageError, match="BETA_2021_10K is not in the collection"):
        fg.question_input(QUESTIONS[1], coll, "singleStore", 2048, 128)


def shared_slice(tmp_path: Path, doc_names: list[str], n_questions: int) -> Path:
    """A FinanceBench folder with a few of the shared filings, their questions and results."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent")
    folder = tmp_path / "fb-slice"
    (folder / "pdfs").mkdir(parents=True)
    (folder / "results").mkdir()
    for name in doc_names:
        shutil.copy(
            SHARED / "pdfs" / f"{name}.pdf", folder / "pdfs"
        )  # copies: links out of the folder are refused
    keep = [
        line
        for line in (SHARED / "documents.jsonl").read_text().splitlines()
        if json.loads(line)["doc_name"] in doc_names
    ]
    (folder / "documents.jsonl").write_text("\n".join(keep))
    qs = [json.loads(line) for line in (SHARED / "questions.jsonl").read_text().splitlines() if line.strip()]
    qs = [q for q in qs if q["doc_name"] in doc_names][:n_questions]
    (folder / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in qs))
    ids = {q["financebench_id"] for q in qs}
    for file in sorted((SHARED / "results").glob("*.jsonl"))[:2]:
        rows = [
            line
            for line in file.read_text().splitlines()
            if line.strip() and json.loads(line)["financebench_id"] in ids
        ]
        (folder / "results" / file.name).write_text("\n".join(rows))
    return folder


@pytest.mark.llm
@pytest.mark.slow
def test_mdqa_reproduce_financebench_with_the_tiny_model_on_shared_filings(tmp_path: Path) -> None:
    """`mdqa reproduce financebench` end to end (papermill, the notebook, the judge, the table) on two real
    filings and one question in both settings with the tiny model; then again, resumed (nothing re-run)."""
    folder = shared_slice(tmp_path, ["ULTABEAUTY_2023Q4_EARNINGS", "PEPSICO_2023_8K_dated-2023-05-05"], 1)
    cmd = [str(Path(sys.executable).with_name("mdqa")), "reproduce", "financebench", "--llm", "local-tiny",
           "--split", str(folder), "--sample", "all", "--systems", "flat-rag", "--settings", "singleStore,sharedStore",
           "--n-ctx", "4096", "--out", str(tmp_path / "results"), "--json"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1500, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = tmp_path / "results" / "financebench"
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 2 and {r["setting"] for r in records} == {"singleStore", "sharedStore"}
    assert all(r["status"] == "ok" and r["judge"] in ("numeric", "llm") for r in records)
    figures = json.loads((out / "figures.json").read_text())[0]
    assert figures["complete"] is True and len(figures["published"]) == 2
    assert (out / "financebench.png").stat().st_size > 0
    assert (out / "financebench.csv").read_text().startswith("table,config,")
    assert "| config " in (out / "financebench.md").read_text()  # markdown tables
    shutil.copy(out / "results.jsonl", tmp_path / "before.jsonl")
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (out / "results.jsonl").read_text() == (tmp_path / "before.jsonl").read_text()  # nothing re-run


def test_failure_attribution() -> None:
    base = {"config": "mdqa k=3 sharedStore", "status": "ok", "answer": None, "correct": False}
    plan = {"route": "statement-plan"}
    cases = [
        ({**base, "correct": True, "answer": "1.73"}, None),
        ({**base, "status": "failed", "failed_stage": "collection"}, "filing not selected"),
        ({**base, "status": "failed", "failed_stage": "system"}, "system failed"),
        ({**base, "notes": plan, "failures": [{"stage": "extract", "error": "not found: revenue_fy2019"}]}, "field not found"),
        ({**base, "notes": plan, "failures": [{"stage": "extract", "error": "needs review: capex (llm, 0.3)"}]}, "needs review"),
        ({**base, "notes": plan, "failures": [{"stage": "collection", "error": "2 filings"}]}, "filing not selected"),
        ({**base, "notes": plan, "answer": "24.26"}, "wrong value or formula"),
        ({**base, "notes": {"route": "retrieval"}, "answer": "yes"}, "not planned (retrieval)"),
        ({**base, "answer": "yes", "correct": None}, "judge"),
        ({**base, "config": "flat-rag k=1·|D| singleStore", "answer": "12"}, "wrong answer"),
    ]  # fmt: skip
    for record, expected in cases:
        assert fg.attribute(record) == expected, record
    table = fg.failure_table([r for r, _ in cases])
    mdqa = table.filter(pl.col("config") == "mdqa k=3 sharedStore").row(0, named=True)
    assert mdqa["filing not selected"] == 2 and mdqa["needs review"] == 1 and "wrong answer" in table.columns


def test_questions_split_like_the_realfacts_facts() -> None:
    questions = load_questions(SHARED).select("financebench_id", "company")
    split = fg.with_split(questions, SHARED)
    by_company = dict(split.select("company", "split").unique().iter_rows())
    assert sum(s == "validation" for s in by_company.values()) == 7 and by_company["Microsoft"] == "dev"


def test_evidence_pages_are_one_based_by_filing() -> None:
    q = {"evidence": [{"doc_name": "A_2019_10K", "evidence_page_num": 68}, {"doc_name": "A_2019_10K", "evidence_page_num": 69},
                      {"doc_name": "A_2019_10K", "evidence_page_num": 68}, {"doc_name": "B", "evidence_page_num": 0}]}  # fmt: skip
    assert fg.evidence_pages(q) == {"A_2019_10K": [69, 70], "B": [1]}
    assert [c.label for c in fg.parse_configs(["mdqa-oracle-pages"], ["singleStore"])] == [
        "mdqa-oracle-pages k=3 singleStore"
    ]


def test_stored_answers_are_judged_again_by_the_current_rules() -> None:
    """A record keeps its answer; its numeric verdict follows the judge's rules of today (here, "1" was
    once taken for the "1" of "FY2023Q1" and judged as no number at all)."""
    from mdqa_kernel.benchmarks.financebench_grid import rejudged

    q = {"question": "As of FY2023Q1, by how many percentage points did Acme raise its EPS growth guidance?",
         "answer": "Acme raised it by 1 percentage point."}  # fmt: skip
    stale = {"status": "ok", "answer": "1", "correct": False, "judge": "numeric", "judge_reason": "no number"}
    now = rejudged(stale, q)
    assert now["correct"] is True and now["judge"] == "numeric" and now["rejudged"] is True
    assert rejudged(now, q) == now  # nothing to change: the same record
    # an LLM judge's verdict stands where the numeric judge declines; a failed record is left as it is
    prose = {"question": "Why did Acme raise its guidance?", "answer": "A strong first quarter."}
    by_llm = {
        "status": "ok",
        "answer": "Strong demand.",
        "correct": True,
        "judge": "llm",
        "judge_reason": "ok",
    }
    assert rejudged(by_llm, prose) is by_llm
    failed = {
        "status": "failed",
        "answer": None,
        "correct": False,
        "judge": "numeric",
        "judge_reason": "no answer",
    }
    assert rejudged(failed, q) is failed


def test_split_names_the_development_slice_or_a_folder(tmp_path: Path) -> None:
    """`--split dev` is the default folder, `--split PATH` another split's folder; anything else, or
    both --split and --data, is an error that says what to pass."""
    from click.testing import CliRunner

    from mdqa_kernel.benchmarks.reproduce_cli import _split_folder
    from mdqa_kernel.cli.main import main

    assert _split_folder("dev", None) is None and _split_folder(None, "x") == "x"
    assert _split_folder(str(tmp_path), None) == str(tmp_path)
    bad = CliRunner().invoke(main, ["reproduce", "financebench", "--split", str(tmp_path / "nope")])
    assert bad.exit_code == 2 and "neither 'dev' nor a folder" in bad.output
    both = CliRunner().invoke(main, ["reproduce", "financebench", "--split", "dev", "--data", str(tmp_path)])
    assert both.exit_code == 2 and "not both" in both.output
