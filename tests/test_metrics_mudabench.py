"""MuDABench question-level metrics on hand-made frames: cell, row, column, full, final, subsets."""

from __future__ import annotations

import json

import polars as pl
import pytest

from mdqa_kernel.benchmarks.metrics import (
    GOLD_SCHEMA,
    align_fields,
    process_scores,
    question_gold,
    summarize_questions,
    summarize_subsets,
)


def gold_frame(values: dict[tuple[str, str], object]) -> pl.DataFrame:
    rows = [(d, f, json.dumps(v), None) for (d, f), v in values.items()]
    return pl.DataFrame(rows, schema=GOLD_SCHEMA, orient="row")


def cells_frame(values: dict[tuple[str, str], object]) -> pl.DataFrame:
    rows = [(d, f, "found" if v is not None else "not_found", json.dumps(v)) for (d, f), v in values.items()]
    return pl.DataFrame(rows, schema={"doc_id": pl.String, "field": pl.String, "status": pl.String,
                                      "value_json": pl.String}, orient="row")  # fmt: skip


GOLD = gold_frame({("a", "value_rev"): 10.25, ("a", "value_cost"): 3.0,
                   ("b", "value_rev"): 20.0, ("b", "value_cost"): 4.0,
                   ("c", "value_rev"): 30.0, ("c", "value_cost"): 5.0})  # fmt: skip


def test_all_correct_cells_rows_columns() -> None:
    cells = cells_frame({k: json.loads(v) for k, v in zip(
        zip(GOLD["doc_id"], GOLD["field"], strict=True), GOLD["gold"], strict=True)})  # fmt: skip
    s = process_scores(cells, GOLD)
    assert (s["cells_correct"], s["cells_n"]) == (6, 6)
    assert (s["rows_correct"], s["rows_n"]) == (3, 3)
    assert (s["columns_correct"], s["columns_n"]) == (2, 2)
    assert s["process"] == 1.0 and s["all_rows_correct"] is True


def test_one_wrong_cell_breaks_its_row_and_its_column() -> None:
    cells = cells_frame({("a", "value_rev"): 10.2, ("a", "value_cost"): 3.0, ("b", "value_rev"): 20.0,
                         ("b", "value_cost"): 9.9, ("c", "value_rev"): 30.04, ("c", "value_cost"): 5.0})  # fmt: skip
    s = process_scores(cells, GOLD)
    assert s["cells_correct"] == 5  # 10.2 ~ 10.25 and 30.04 ~ 30.0 by the judge's first-decimal rule
    assert (s["rows_correct"], s["columns_correct"]) == (2, 1)
    assert s["all_rows_correct"] is False


def test_missing_cells_count_as_wrong_and_flat_rag_has_no_process() -> None:
    s = process_scores(cells_frame({("a", "value_rev"): 10.25}), GOLD)
    assert (s["cells_correct"], s["rows_correct"], s["columns_correct"]) == (1, 0, 0)
    none = process_scores(None, GOLD)
    assert none["process"] is None and none["rows_n"] is None


def test_system_field_names_are_aligned_to_gold_by_agreement() -> None:
    cells = cells_frame({("a", "revenue"): 10.25, ("b", "revenue"): 20.0, ("c", "revenue"): 30.0,
                         ("a", "cost"): 3.0, ("b", "cost"): 4.0, ("c", "cost"): 1.0})  # fmt: skip
    assert align_fields(cells, GOLD) == {"value_rev": "revenue", "value_cost": "cost"}
    s = process_scores(cells, GOLD)
    assert (s["cells_correct"], s["columns_correct"], s["rows_correct"]) == (5, 1, 2)


def results(rows: list[dict]) -> pl.DataFrame:
    base = {"config": "x", "correct_llm": None, "cells_n": 4, "cells_correct": 4, "rows_n": 2, "rows_correct": 2,
            "columns_n": 2, "columns_correct": 2, "process": 1.0, "all_rows_correct": True, "known_defect": False}  # fmt: skip
    return pl.DataFrame([{**base, **r} for r in rows], infer_schema_length=None)


def test_summary_final_full_row_column() -> None:
    frame = results([
        {"correct": True, "correct_llm": True},
        {"correct": True, "correct_llm": False, "rows_correct": 1, "columns_correct": 1, "cells_correct": 3,
         "process": 0.75, "all_rows_correct": False},
        {"correct": False, "correct_llm": False},
        {"correct": False, "correct_llm": True, "known_defect": True},
    ])  # fmt: skip
    s = summarize_questions(frame).row(0, named=True)
    assert s["questions"] == 4
    assert s["final"] == 0.5 and s["final_llm"] == 0.5 and s["judge_agreement"] == 0.5
    assert s["cell"] == pytest.approx(15 / 16, abs=1e-4)
    assert s["process"] == pytest.approx(0.9375)
    assert s["row"] == pytest.approx(7 / 8) and s["column"] == pytest.approx(7 / 8)
    assert s["full"] == 0.25  # only the first question: final correct AND every row correct
    subsets = summarize_subsets(frame)
    clean = subsets.filter(pl.col("subset") == "clean").row(0, named=True)
    assert clean["questions"] == 3 and clean["final"] == pytest.approx(2 / 3, abs=1e-4)


def test_flat_rag_group_has_null_process_metrics() -> None:
    frame = results([{"correct": True, "cells_correct": None, "rows_n": None, "rows_correct": None,
                      "columns_n": None, "columns_correct": None, "process": None, "all_rows_correct": None}])  # fmt: skip
    s = summarize_questions(frame).row(0, named=True)
    assert s["final"] == 1.0 and s["cell"] is None and s["row"] is None and s["full"] is None


def test_question_gold_lists_the_question_documents() -> None:
    gold = question_gold("simple", "q_b37fd557824179c9")
    assert gold["doc_id"].n_unique() == 5 and gold["field"].str.starts_with("value_").all()


def test_no_aligned_field_scores_zero_without_error() -> None:
    s = process_scores(cells_frame({("a", "other"): "x"}), GOLD)
    assert s["cells_correct"] == 0 and s["rows_correct"] == 0 and s["columns_correct"] == 0
