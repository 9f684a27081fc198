"""The real-filings harness (mdqa_kernel.benchmarks.realfacts_bench): its scores on hand-made cells
with known answers, a whole run of the table reader on a facts file over a PDF drawn here, and the
benchmark notebook executed by papermill on realdocs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import polars as pl
import pytest

from mdqa_kernel.benchmarks import realfacts_bench as rb
from mdqa_kernel.benchmarks.reproduce import NOTEBOOKS, notebook_path, read_figures
from mdqa_kernel.extract import extract
from mdqa_kernel.plan import Plan

from ._extract_fixtures import annual_us
from .conftest import REALDOCS, REPO

GOLD = [  # doc, field, gold value, category, trap
    ("a", "revenue", 100.0, "statement", False),
    ("a", "net_income", 10.0, "statement", False),
    ("a", "eps", 1.25, "per_share", False),
    ("a", "auditor", "KPMG LLP", "auditor", False),
    ("a", "revenue_prior_year", 90.0, "prior_period", True),
    ("b", "revenue", 200.0, "statement", False),
]
CELLS = [  # doc, field, status, value, confidence  (b/revenue has no cell at all)
    ("a", "revenue", "found", 100.0, 0.95),  # right, confident
    ("a", "net_income", "found", 12.0, 0.6),  # wrong
    ("a", "eps", "not_found", None, 0.0),
    ("a", "auditor", "found", "KPMG LLP", 0.9),  # right
    ("a", "revenue_prior_year", "found", 100.0, 0.3),  # wrong: the current year (a trap)
]


def _gold() -> pl.DataFrame:
    rows = [(d, f, json.dumps(v), None, c, t) for d, f, v, c, t in GOLD]
    return pl.DataFrame(rows, schema=rb.BENCH_GOLD_SCHEMA, orient="row")


def _cells() -> pl.DataFrame:
    rows = [(d, f, s, json.dumps(v), c) for d, f, s, v, c in CELLS]
    schema = {"doc_id": pl.String, "field": pl.String, "status": pl.String, "value_json": pl.String,
              "confidence": pl.Float64}  # fmt: skip
    return pl.DataFrame(rows, schema=schema, orient="row")


def test_scores_of_hand_made_cells() -> None:
    scored = rb.score(_cells(), _gold())
    overall = rb.figures(scored).row(0, named=True)
    # 2 right of 6 gold cells; 4 found, 2 of them wrong; the missing cell counts as not found
    assert overall == {"accuracy": round(2 / 6, 4), "precision": 0.5, "coverage": round(4 / 6, 4),
                       "wrong": 2, "n": 6, "found": 4, "correct": 2, "review": 0}  # fmt: skip
    per_cat = {r["category"]: r for r in rb.figures(scored, ["category"]).iter_rows(named=True)}
    assert per_cat["statement"]["n"] == 3 and per_cat["statement"]["correct"] == 1
    assert per_cat["statement"]["wrong"] == 1 and per_cat["statement"]["coverage"] == round(2 / 3, 4)
    assert per_cat["per_share"]["precision"] is None and per_cat["per_share"]["coverage"] == 0.0
    assert per_cat["auditor"]["accuracy"] == 1.0
    trap = {r["trap"]: r for r in rb.figures(scored, ["trap"]).iter_rows(named=True)}
    assert trap[True]["wrong"] == 1 and trap[True]["precision"] == 0.0
    assert trap[False]["n"] == 5 and trap[False]["precision"] == round(2 / 3, 4)


def test_a_found_value_where_the_gold_says_absent_is_wrong() -> None:
    gold = pl.DataFrame([("a", "dividend", None, None, "dividend", False), ("a", "x", None, None, None, False)],
                        schema=rb.BENCH_GOLD_SCHEMA, orient="row")  # fmt: skip
    cells = pl.DataFrame({"doc_id": ["a", "a"], "field": ["dividend", "x"], "status": ["found", "not_found"],
                          "value_json": ["0.5", "null"], "confidence": [0.9, 0.0]})  # fmt: skip
    overall = rb.figures(rb.score(cells, gold)).row(0, named=True)
    assert overall["wrong"] == 1 and overall["correct"] == 1 and overall["precision"] == 0.0


def test_calibration_curve_and_operating_threshold() -> None:
    curve = rb._curve(rb.score(_cells(), _gold()))
    assert curve["threshold"].to_list() == list(rb.THRESHOLDS)
    at = {r["threshold"]: r for r in curve.iter_rows(named=True)}
    assert at[0.0]["precision"] == 0.5 and at[0.0]["wrong"] == 2
    assert at[0.35]["found"] == 3 and at[0.35]["wrong"] == 1  # the trap (0.3) is dropped
    assert at[0.65]["found"] == 2 and at[0.65]["precision"] == 1.0 and at[0.65]["accuracy"] == round(2 / 6, 4)
    assert at[1.0]["found"] == 0 and at[1.0]["precision"] is None and at[1.0]["coverage"] == 0.0
    best = rb.best_threshold(curve, 0.98)
    assert best is not None and best["threshold"] == 0.65 and best["coverage"] == round(2 / 6, 4)
    assert rb.best_threshold(curve.filter(pl.col("threshold") < 0.5), 0.98) is None


def test_summary_marks_held_out_sets() -> None:
    scored = rb.score(_cells(), _gold())
    both = pl.concat([scored.with_columns(set=pl.lit(s), reader=pl.lit("table"), cells=pl.lit("all"))
                      for s in ("dev", "validation")])  # fmt: skip
    table = rb.summary_table(both, {"dev": False, "validation": True})
    assert dict(zip(table["set"], table["figures"], strict=True)) == {
        "dev": "development",
        "validation": "held out",
    }
    assert table.columns[:4] == ["set", "reader", "cells", "figures"] and table["wrong"].to_list() == [2, 2]


def test_sample_cells_is_seeded_and_spreads_over_categories() -> None:
    gold = _gold()
    four = rb.sample_cells(gold, 4, seed=1)
    assert four.height == 4 and set(four["category"]) == {"statement", "per_share", "auditor", "prior_period"}
    assert rb.sample_cells(gold, 4, seed=1).equals(four)
    assert rb.sample_cells(gold, None).equals(gold) and rb.sample_cells(gold, 99).equals(gold)


# -- a whole run on a PDF drawn here ---------------------------------------------------------------

FACTS = [  # the balance sheet of tests/_extract_fixtures.annual_us: in thousands, 2022 left of 2021
    {"field": "total_assets", "field_description": "Total assets at the end of the fiscal year",
     "type": "number", "unit": "USD", "field_scale": 1e6, "value_text": "542,093", "value": 542.093,
     "scale": 1e3, "page": 1, "category": "statement", "trap": False},
    {"field": "auditor", "field_description": "The independent registered public accounting firm",
     "type": "text", "unit": None, "field_scale": 1, "value_text": "Deloitte & Touche LLP",
     "value": "Deloitte & Touche LLP", "scale": 1, "page": 1, "category": "auditor", "trap": False},
    {"field": "total_assets_prior_year", "field_description": "Total assets at the end of the prior fiscal year",
     "type": "number", "unit": "USD", "field_scale": 1e6, "value_text": "498,120", "value": 498.12,
     "scale": 1e3, "page": 1, "category": "prior_period", "trap": True},
]  # fmt: skip


def _facts_file(folder: Path) -> Path:
    common = {"doc": "TINYCO_2022_10K", "company": "TinyCo", "year": "2022", "doctype": "10k",
              "evidence": "table", "period": "FY2022", "split": "dev", "snippet": ""}  # fmt: skip
    path = folder / "facts.jsonl"
    path.write_text("".join(json.dumps({**common, **f}) + "\n" for f in FACTS), encoding="utf-8")
    return path


def _plan() -> Plan:
    fields = [{"name": f["field"], "type": f["type"], "description": f["field_description"],
               "question": f["field_description"] + " ({company}, fiscal {year})", "unit": f["unit"],
               "scale": f["field_scale"], "only": {"doc_id": ["TINYCO_2022_10K"]}} for f in FACTS]  # fmt: skip
    return Plan.from_dict({"question": "tiny facts", "fields": fields})


METADATA = pl.DataFrame(
    {"doc_id": ["TINYCO_2022_10K"], "company": ["TinyCo"], "year": [2022], "doctype": ["10k"]}
)


def test_table_reader_on_a_facts_file_end_to_end(tmp_path: Path) -> None:
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    annual_us(pdfs / "TINYCO_2022_10K.pdf")
    annual_us(pdfs / "OTHERCO_2022_10K.pdf")  # another filing in the folder: not in the set
    ws = tmp_path / "ws"
    bench = rb.open_fact_set(_facts_file(tmp_path), pdfs, ws, name="tiny", metadata=METADATA, plan=_plan())
    assert bench.collection.doc_ids == ["TINYCO_2022_10K"] and not bench.heldout
    scored = rb.run_reader(bench, "table")
    assert scored.height == 3 and set(scored["cells"]) == {"all"} and set(scored["set"]) == {"tiny"}
    right = dict(zip(scored["field"], scored["correct"], strict=True))
    assert right["total_assets"] and right["auditor"]  # 542,093 thousand = 542.093 million; the firm
    overall = rb.figures(scored).row(0, named=True)
    assert overall["n"] == 3 and overall["correct"] >= 2
    assert overall["wrong"] == overall["found"] - overall["correct"]
    # a rerun reads nothing again: every cell is in the workspace
    assert extract(bench.plan, bench.collection, "table", progress=False).run["ran"] == 0


def test_facts_plan_from_realfacts_module(tmp_path: Path) -> None:
    from mdqa_kernel.benchmarks import realfacts

    records = [json.loads(x) for x in _facts_file(tmp_path).read_text("utf-8").splitlines()]
    plan = realfacts.plan_for(records)
    assert sorted(f.name for f in plan.fields) == sorted(f["field"] for f in FACTS)
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    annual_us(pdfs / "TINYCO_2022_10K.pdf")
    bench = rb.open_fact_set(tmp_path / "facts.jsonl", pdfs, tmp_path / "ws", metadata=METADATA)
    assert rb.figures(rb.run_reader(bench, "table"))["n"][0] == 3


def test_unknown_set_is_refused(tmp_path: Path) -> None:
    with pytest.raises(rb.UnknownBenchSetError, match="unknown bench set"):
        rb.open_set("nosuchset", tmp_path / "ws")


# -- the notebook ----------------------------------------------------------------------------------


def test_every_registered_benchmark_notebook_exists_with_parameters() -> None:
    assert "realfacts" in NOTEBOOKS
    for name in NOTEBOOKS:
        nb = nbformat.read(str(notebook_path(name)), as_version=4)
        assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells), name
    realfacts = nbformat.read(str(notebook_path("realfacts")), as_version=4)
    assert all(not c.get("outputs") for c in realfacts.cells if c.cell_type == "code")


def test_notebook_on_realdocs_with_the_table_reader(tmp_path: Path) -> None:
    import papermill as pm

    realdocs = Path(os.environ.get(rb.REALDOCS_ENV) or REALDOCS)
    if not (realdocs / "gold.jsonl").is_file():
        pytest.skip("realdocs is not beside the project (set $MDQA_REALDOCS)")
    executed = tmp_path / "realfacts.ipynb"
    params = {"sets": ["realdocs"], "readers": ["table"], "realdocs_dir": str(realdocs),
              "results_dir": str(tmp_path / "results"), "jobs": 1}  # fmt: skip
    pm.execute_notebook(str(notebook_path("realfacts")), str(executed), parameters=params, cwd=str(REPO),
                        kernel_name="python3", progress_bar=False)  # fmt: skip
    figs = [f for f in read_figures(executed) if f.get("name") == "realfacts"]
    assert len(figs) == 1
    rows = {(r["set"], r["reader"]): r for r in figs[0]["rows"]}
    row = rows[("realdocs", "table")]
    assert row["n"] == 30 and row["figures"] == "development" and 0 <= row["wrong"] <= row["found"]
    assert (tmp_path / "results" / "calibration.png").stat().st_size > 0
    assert (tmp_path / "results" / "summary.csv").is_file()


@pytest.mark.slow
def test_rendered_simple_split_scores_the_planned_cells(rendered_small: Path, tmp_path: Path) -> None:
    bench = rb.open_set("simple", tmp_path / "ws", rendered_dir=rendered_small)
    assert bench.name == "simple" and not bench.heldout and len(bench.collection) == 12
    planned = rb.planned_cells(bench.plan, bench.collection.documents)
    assert bench.gold.height == planned.height > 0  # gold values the plan does not ask for are left out
    scored = rb.run_reader(bench, "table")
    overall = rb.figures(scored).row(0, named=True)
    assert overall["n"] == bench.gold.height and overall["accuracy"] > 0.5


def test_a_set_whose_files_are_missing_is_skipped_and_said(tmp_path: Path) -> None:
    said: list[str] = []
    run = rb.run_bench(["dev"], ["table"], tmp_path / "results", facts_dir=tmp_path / "none", log=said.append)
    assert run.scored.height == 0 and "dev" in run.skipped and "does not exist" in said[0]
    assert run.summary().height == 0 and run.calibration().height == 0 and run.operating_points().height == 0


def test_reproduce_passes_results_folder_and_model(tmp_path: Path) -> None:
    from mdqa_kernel.benchmarks.reproduce_cli import _plain_parameters

    params = _plain_parameters("realfacts", str(tmp_path), None, "local-tiny", 2)
    assert params == {"results_dir": str((tmp_path / "realfacts").resolve()), "llm_backend": "local-tiny",
                      "n_threads": 2}  # fmt: skip
