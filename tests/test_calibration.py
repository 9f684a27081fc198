"""Corrections as gold and the calibration curve (coverage, precision, accuracy per confidence threshold)."""

from __future__ import annotations

import json

import polars as pl
import pytest

from mdqa_kernel.benchmarks.metrics import GOLD_SCHEMA, calibration_curve, cell_accuracy, corrections_gold
from mdqa_kernel.rows.corrections import Ledger
from mdqa_kernel.store import Workspace


def _cells(rows: list[tuple[str, str, object, str, float | None, int | None]]) -> pl.DataFrame:
    """doc_id, field, value, status, confidence, page, as ExtractionResult.cells holds them."""
    return pl.DataFrame(
        {
            "doc_id": [r[0] for r in rows],
            "field": [r[1] for r in rows],
            "status": [r[3] for r in rows],
            "value_json": [json.dumps(r[2]) for r in rows],
            "confidence": [r[4] for r in rows],
            "page": [r[5] for r in rows],
        },
        schema_overrides={"confidence": pl.Float64, "page": pl.Int64},
    )


def _gold(rows: list[tuple[str, str, object]]) -> pl.DataFrame:
    return pl.DataFrame([(d, f, json.dumps(v), None) for d, f, v in rows], schema=GOLD_SCHEMA, orient="row")


def test_corrections_become_gold(workspace: Workspace) -> None:
    cells = _cells(
        [
            ("d1", "revenue", 10.0, "found", 0.9, 3),
            ("d2", "revenue", 20.0, "found", 0.4, 5),
            ("d3", "revenue", 30.0, "found", 0.5, 7),
            ("d4", "auditor", "KPMG", "found", 0.9, 2),
        ]
    )
    ledger = Ledger(
        workspace, fields={"revenue": "number", "auditor": "text"}, doc_ids=["d1", "d2", "d3", "d4"]
    )
    ledger.edit("d2", "revenue", "25")
    ledger.verify("d1", "revenue", 10.0)
    ledger.edit("d3", "revenue", "35")
    ledger.undo("d3", "revenue")  # undone: no gold
    ledger.edit("d4", "auditor", "")  # cleared: the document does not say
    gold = corrections_gold(workspace, cells)
    assert gold.rows() == [
        ("d1", "revenue", "10.0", 3, "verified"),
        ("d2", "revenue", "25.0", None, "corrected"),
        ("d4", "auditor", "null", None, "corrected"),
    ]
    assert gold.schema == pl.Schema({**GOLD_SCHEMA, "evidence": pl.String})
    # Only this plan's cells: a correction of another plan's field stays out.
    assert corrections_gold(ledger, cells.filter(pl.col("field") == "revenue")).height == 2
    assert corrections_gold(workspace, include_verified=False)["doc_id"].to_list() == ["d2", "d4"]
    # usable by cell_accuracy: the reader was right on d1 only; its page is the verified page
    acc = cell_accuracy(cells, gold).filter(pl.col("field") == "ALL").row(0, named=True)
    assert (acc["n"], acc["correct"], acc["evidence_n"], acc["evidence_correct"]) == (3, 1, 1, 1)


def test_calibration_curve_known_values() -> None:
    cells = _cells(
        [
            ("a", "x", 1.0, "found", 0.95, 1),  # right
            ("b", "x", 2.0, "found", 0.9, 1),  # wrong (gold 3)
            ("c", "x", 4.0, "found", 0.6, 1),  # right
            ("d", "x", 5.0, "found", 0.3, 1),  # wrong (the document does not hold it)
            ("e", "x", None, "not_found", 0.0, None),  # right blank (gold null)
            ("f", "x", None, "not_found", 0.0, None),  # wrong blank (gold 7)
        ]
    )
    gold = _gold(
        [
            ("a", "x", 1.0),
            ("b", "x", 3.0),
            ("c", "x", 4.0),
            ("d", "x", None),
            ("e", "x", None),
            ("f", "x", 7.0),
            ("g", "x", 8.0),
        ]
    )
    curve = calibration_curve(cells, gold, thresholds=[0.0, 0.5, 0.8, 0.92, 1.0])
    assert curve.columns == [
        "threshold", "n", "returned", "correct", "coverage", "precision",
        "precision_low", "precision_high", "accuracy",
    ]  # fmt: skip
    rows = {r["threshold"]: r for r in curve.iter_rows(named=True)}
    n = 7  # g has gold but no cell: never returned, wrong
    assert all(r["n"] == n for r in rows.values())
    # t = 0: a, b, c, d returned; a and c right; blanks: e right (gold null), f and g wrong
    assert (rows[0.0]["returned"], rows[0.0]["correct"]) == (4, 2)
    assert rows[0.0]["coverage"] == pytest.approx(4 / 7, abs=1e-4)
    assert rows[0.0]["precision"] == 0.5 and rows[0.0]["accuracy"] == pytest.approx(3 / 7, abs=1e-4)
    # t = 0.5: d is blanked, and its gold is null: accuracy rises
    assert (rows[0.5]["returned"], rows[0.5]["correct"]) == (3, 2)
    assert rows[0.5]["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert rows[0.5]["accuracy"] == pytest.approx(4 / 7, abs=1e-4)
    # t = 0.8: a, b; t = 0.92: a only, precision 1; t = 1: nothing returned
    assert (rows[0.8]["returned"], rows[0.8]["precision"]) == (2, 0.5)
    assert (rows[0.92]["returned"], rows[0.92]["precision"], rows[0.92]["coverage"]) == (
        1,
        1.0,
        round(1 / 7, 4),
    )
    assert rows[0.92]["accuracy"] == pytest.approx(3 / 7, abs=1e-4)
    assert rows[1.0]["returned"] == 0 and rows[1.0]["precision"] is None
    assert rows[1.0]["accuracy"] == pytest.approx(2 / 7, abs=1e-4)  # d and e: right blanks
    assert rows[0.92]["precision_low"] < 1.0 == rows[0.92]["precision_high"]
    # default thresholds: 0, every answered confidence, 1
    assert calibration_curve(cells, gold)["threshold"].to_list() == [0.0, 0.3, 0.6, 0.9, 0.95, 1.0]
    # at t = 0 the accuracy is cell_accuracy's (every answer returned)
    acc = cell_accuracy(cells, gold).filter(pl.col("field") == "ALL")["accuracy"][0]
    assert rows[0.0]["accuracy"] == pytest.approx(acc, abs=1e-4)


def test_calibration_curve_empty_gold() -> None:
    cells = _cells([("a", "x", 1.0, "found", 0.9, 1)])
    curve = calibration_curve(cells, pl.DataFrame(schema=GOLD_SCHEMA))
    assert curve["threshold"].to_list() == [0.0, 1.0] and curve["coverage"].to_list() == [None, None]
