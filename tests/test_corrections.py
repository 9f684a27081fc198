"""The corrections ledger: typed edits, verify, undo, overlay on cells, durability, gold export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.rows.corrections import CorrectionError, Ledger, typed_correction
from mdqa_kernel.store import Workspace


def _cells() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "doc_id": ["d1", "d1", "d2"],
            "field": ["revenue", "auditor", "revenue"],
            "value": [100.0, None, 250.5],
            "status": ["found", "not_found", "found"],
            "reader": ["table", "llm", "table"],
            "page": [3, None, 7],
        },
        schema_overrides={"page": pl.Int64},
    )


@pytest.mark.parametrize(
    ("value", "ftype", "expected"),
    [
        ("1,234.5", "number", 1234.5),
        ("(12)", "number", -12.0),
        ("15.78%", "percent", 15.78),
        ("42", "integer", 42),
        ("是", "boolean", True),
        ("no", "boolean", False),
        ("2022-03-31", "date", "2022-03-31"),
        ("a; b，c", "list_text", ["a", "b", "c"]),
        ("  KPMG Huazhen ", "text", "KPMG Huazhen"),
        ("", "number", None),
    ],
)
def test_typed_correction(value: str, ftype: str, expected: object) -> None:
    assert typed_correction(value, ftype) == expected


@pytest.mark.parametrize(
    ("value", "ftype"), [("abc", "number"), ("1.5", "integer"), ("maybe", "boolean"), ("31/12/2022", "date")]
)
def test_bad_values_are_refused_with_a_hint(value: str, ftype: str) -> None:
    with pytest.raises(CorrectionError, match=f"not a valid {ftype}"):
        typed_correction(value, ftype, where="d1/x: ")


def test_edit_verify_and_overlay(workspace: Workspace) -> None:
    ledger = Ledger(workspace, reviewer="ana")
    ledger.edit(
        "d1", "revenue", "120", old_value=100.0, field_type="number", note="prior-year column was read"
    )
    ledger.verify("d2", "revenue", 250.5)
    out = ledger.apply(_cells())
    r = {
        (d, f): (v, s, rd)
        for d, f, v, s, rd in out.select("doc_id", "field", "value", "status", "reader").iter_rows()
    }
    assert r[("d1", "revenue")] == (120.0, "corrected", "human")
    assert r[("d2", "revenue")] == (250.5, "verified", "table")
    assert r[("d1", "auditor")] == (None, "not_found", "llm")
    assert out.filter(pl.col("doc_id") == "d1", pl.col("field") == "revenue")["extracted_value"][0] == 100.0
    hist = ledger.history()
    assert hist["action"].to_list() == ["edit", "verify"] and hist["reviewer"].to_list() == ["ana", "ana"]


def test_undo_restores_the_previous_state(workspace: Workspace) -> None:
    ledger = Ledger(workspace)
    ledger.edit("d1", "revenue", 110.0)
    ledger.edit("d1", "revenue", 120.0)
    ledger.undo("d1", "revenue")
    assert ledger.current()[("d1", "revenue")]["value"] == 110.0
    ledger.undo()
    assert ledger.current() == {}
    with pytest.raises(CorrectionError, match="nothing to undo"):
        ledger.undo("d1", "revenue")
    assert len(ledger.history()) == 4  # history keeps everything


def test_corrections_survive_a_new_process(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    code = (
        "from mdqa_kernel.rows.corrections import Ledger; from mdqa_kernel.store import Workspace; "
        f"Ledger(Workspace({str(ws_path)!r})).edit('d9', 'ratio', 15.5, note='from page 4')"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    live = Ledger(Workspace(ws_path)).current()
    assert live[("d9", "ratio")]["value"] == 15.5 and live[("d9", "ratio")]["note"] == "from page 4"


def test_export_gold_uses_the_realdocs_format(workspace: Workspace, tmp_path: Path) -> None:
    ledger = Ledger(workspace, reviewer="ana")
    ledger.edit("d1", "revenue", 120.0, note="fixed")
    ledger.verify("d2", "revenue")
    docs = pl.DataFrame(
        {
            "doc_id": ["d1", "d2"],
            "symbol": ["600036", "601166"],
            "year": [2022, 2022],
            "doctype": ["A股年报"] * 2,
        }
    )
    n = ledger.export_gold(
        tmp_path / "gold.jsonl", documents=docs, evidence=_cells(), descriptions={"revenue": "营业收入"}
    )
    assert n == 2
    rows = [json.loads(line) for line in (tmp_path / "gold.jsonl").read_text("utf-8").splitlines()]
    required = {
        "doc",
        "entity",
        "year",
        "doctype",
        "field",
        "field_description",
        "value_text",
        "value",
        "unit",
        "scale",
        "value_base_units",
        "page",
        "snippet",
        "evidence",
        "period",
        "language",
        "note",
    }
    assert all(required <= set(r) for r in rows)
    by_doc = {r["doc"]: r for r in rows}
    assert by_doc["d1"]["value"] == 120.0 and by_doc["d1"]["evidence"] == "correction"
    assert (
        by_doc["d2"]["value"] == 250.5
        and by_doc["d2"]["page"] == 7
        and by_doc["d2"]["field_description"] == "营业收入"
    )
