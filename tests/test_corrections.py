"""The corrections ledger: typed edits, verify, undo, overlay on cells, durability, gold export; each
operation one transaction (concurrent undos and writers in real processes), typed at write time from
the plan's field types, unknown fields and documents refused, a bad stored value never made null."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from mdqa_kernel.rows import apply_corrections, corrected_rows
from mdqa_kernel.rows.corrections import CorrectionError, Ledger, LedgerScope, typed_correction
from mdqa_kernel.store import Workspace

TYPES = {"revenue": "number", "auditor": "text", "employees": "integer", "ratio": "number"}
DOCS = ["d1", "d2"]


def _ledger(workspace: Workspace | Path | str, reviewer: str | None = None) -> Ledger:
    """A ledger that writes: it knows the plan's field types and the documents."""
    return Ledger(workspace, reviewer, fields=TYPES, doc_ids=DOCS)


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
    ledger = _ledger(workspace, reviewer="ana")
    ledger.edit("d1", "revenue", "120", old_value=100.0, note="prior-year column was read")
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
    ledger = _ledger(workspace)
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
        f"Ledger(Workspace({str(ws_path)!r}), fields={{'ratio': 'number'}}, doc_ids=['d9'])"
        ".edit('d9', 'ratio', 15.5, note='from page 4')"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    live = Ledger(Workspace(ws_path)).current()
    assert live[("d9", "ratio")]["value"] == 15.5 and live[("d9", "ratio")]["note"] == "from page 4"


def test_export_gold_uses_the_realdocs_format(workspace: Workspace, tmp_path: Path) -> None:
    ledger = _ledger(workspace, reviewer="ana")
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


# -- one transaction per operation: concurrent processes on a real SQLite file ----------------------


def _undo_once(ws_path: str, barrier: Any, results: Any) -> None:
    ledger = _ledger(ws_path)
    ledger.current()  # connected and warm, so that every process undoes at the same moment
    barrier.wait()
    try:
        results.put(("ok", ledger.undo("d1", "revenue")))
    except CorrectionError as e:
        results.put(("refused", str(e)))


def _edit_many(ws_path: str, worker: int, n: int, barrier: Any) -> None:
    ledger = Ledger(ws_path, fields=TYPES, doc_ids=[f"own{worker}", "shared"])
    barrier.wait()
    for i in range(n):
        # Alternate between this process's own cell and the cell every process writes.
        ledger.edit(f"own{worker}" if i % 2 else "shared", "revenue", worker * 1000 + i)


def _run_processes(target: Any, args: list[tuple[Any, ...]]) -> None:
    ctx = multiprocessing.get_context("spawn")  # polars' threads do not survive fork
    procs = [ctx.Process(target=target, args=a) for a in args]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=180)
        assert p.exitcode == 0, f"worker exit code {p.exitcode}"


def _concurrent_undos(ws_path: Path, n_edits: int, n_undos: int) -> list[tuple[str, Any]]:
    ledger = _ledger(ws_path)
    for i in range(n_edits):
        ledger.edit("d1", "revenue", float(i))
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(n_undos), ctx.Queue()
    _run_processes(_undo_once, [(str(ws_path), barrier, results)] * n_undos)
    return [results.get(timeout=10) for _ in range(n_undos)]


def test_eight_concurrent_undos_cancel_all_eight_edits(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    outcomes = _concurrent_undos(ws_path, n_edits=8, n_undos=8)
    assert [kind for kind, _ in outcomes] == ["ok"] * 8, outcomes
    ledger = _ledger(ws_path)
    assert ledger.current() == {}  # every edit cancelled, none twice
    hist = ledger.history()
    undone = [json.loads(n)["undoes"] for n in hist.filter(pl.col("action") == "undo")["note"]]
    assert sorted(undone) == hist.filter(pl.col("action") == "edit")["id"].to_list()
    with pytest.raises(CorrectionError, match="nothing to undo for d1/revenue"):
        ledger.undo("d1", "revenue")


def test_more_undos_than_edits_refuse_the_rest_clearly(tmp_path: Path) -> None:
    outcomes = _concurrent_undos(tmp_path / "ws", n_edits=3, n_undos=5)
    kinds = sorted(kind for kind, _ in outcomes)
    assert kinds == ["ok"] * 3 + ["refused"] * 2, outcomes
    assert all("nothing to undo" in msg for kind, msg in outcomes if kind == "refused")
    assert _ledger(tmp_path / "ws").current() == {}


def test_concurrent_writers_lose_no_edit(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    Workspace(ws_path)
    n_workers, n_edits = 8, 20
    barrier = multiprocessing.get_context("spawn").Barrier(n_workers)
    _run_processes(_edit_many, [(str(ws_path), w, n_edits, barrier) for w in range(n_workers)])
    ledger = Ledger(ws_path)
    hist = ledger.history()
    assert hist.height == n_workers * n_edits
    expected = {w * 1000 + i for w in range(n_workers) for i in range(n_edits)}
    assert set(hist["new_value"].to_list()) == expected  # none lost, none duplicated
    live = ledger.current()
    for w in range(n_workers):  # a process's own cell ends with its own last edit
        assert live[(f"own{w}", "revenue")]["value"] == w * 1000 + n_edits - 1
    shared = hist.filter(pl.col("doc_id") == "shared").sort("id")
    assert live[("shared", "revenue")]["value"] == shared["new_value"][-1]  # the last one committed
    assert isinstance(live[("shared", "revenue")]["value"], float)  # typed as a number when written


# -- typed at write time; unknown fields and documents refused ---------------------------------------


def test_a_ledger_without_the_plan_types_refuses_to_write(workspace: Workspace) -> None:
    ledger = Ledger(workspace)
    with pytest.raises(CorrectionError, match="without the plan's fields and documents"):
        ledger.edit("d1", "revenue", "abc")
    with pytest.raises(CorrectionError, match="without the plan's fields"):
        ledger.verify("d1", "revenue", 1.0)
    with pytest.raises(CorrectionError, match="fields= and doc_ids= together"):
        Ledger(workspace, fields=TYPES)
    with pytest.raises(CorrectionError, match="field 'revenue' has no type"):
        Ledger(workspace, fields=[{"name": "revenue"}], doc_ids=DOCS)
    with pytest.raises(CorrectionError, match="unknown field type 'money'"):
        Ledger(workspace, fields={"revenue": "money"}, doc_ids=DOCS)
    assert ledger.history().is_empty()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("employees", 1e20, r"d1/employees: 1e\+20 is not a valid integer \(out of range"),
        ("employees", 10**20, r"d1/employees: 100000000000000000000 is not a valid integer"),
        ("employees", "1.5", r"d1/employees: '1.5' is not a valid integer"),
        ("revenue", "abc", r"d1/revenue: 'abc' is not a valid number"),
    ],
)
def test_values_that_do_not_fit_the_field_are_refused_at_write(
    workspace: Workspace, field: str, value: object, message: str
) -> None:
    ledger = _ledger(workspace)
    with pytest.raises(CorrectionError, match=message):
        ledger.edit("d1", field, value)
    assert ledger.history().is_empty()
    ledger.edit("d1", "employees", "9,000,000,000,000,000,000")  # within Int64 it fits
    assert ledger.current()[("d1", "employees")]["value"] == 9 * 10**18


def test_unknown_fields_and_documents_are_refused(workspace: Workspace) -> None:
    ledger = _ledger(workspace)
    with pytest.raises(CorrectionError, match=r"d1/profit: unknown field 'profit'; the plan's fields are"):
        ledger.edit("d1", "profit", 1.0)
    with pytest.raises(CorrectionError, match=r"d9/revenue: unknown document 'd9'"):
        ledger.edit("d9", "revenue", 1.0)
    with pytest.raises(CorrectionError, match="unknown document 'd9'"):
        ledger.verify("d9", "revenue", 1.0)
    with pytest.raises(CorrectionError, match="unknown field 'profit'"):
        ledger.undo("d1", "profit")
    assert ledger.history().is_empty()
    # A field the plan reads only from some documents (`only`): the other cells are not the plan's.
    scoped = Ledger(workspace).scoped(LedgerScope.of(TYPES, DOCS, [("d1", "revenue"), ("d2", "auditor")]))
    with pytest.raises(CorrectionError, match="does not read 'revenue' from document 'd2'"):
        scoped.edit("d2", "revenue", 1.0)


def _store_untyped(workspace: Workspace, doc_id: str, field: str, value: object) -> None:
    """A row as an older mdqa wrote it: no type check."""
    with workspace.transaction() as conn:
        conn.execute(
            "INSERT INTO corrections(doc_id, field, old_value, new_value, action, reviewer, note, created)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (doc_id, field, "null", json.dumps(value), "edit", "old", None, time.time()),
        )


def test_a_bad_stored_value_is_an_error_never_a_null(workspace: Workspace) -> None:
    _store_untyped(workspace, "d1", "revenue", "abc")
    with pytest.raises(
        CorrectionError, match=r"#1 holds a bad value: d1/revenue: 'abc' is not a valid number.*undo"
    ):
        _ledger(workspace).apply(_cells())
    with pytest.raises(
        CorrectionError, match=r"d1/revenue: the ledger's correction #1 \('abc'\) does not fit"
    ):
        Ledger(workspace).apply(_cells())  # without the plan types, the value column's dtype decides
    rows = pl.DataFrame({"doc_id": DOCS, "revenue": [100.0, 250.5], "employees": [10, 20]})
    with pytest.raises(CorrectionError, match=r"d1/revenue: 'abc' is not a valid number.*undo it"):
        corrected_rows(rows, _ledger(workspace))
    _ledger(workspace).undo("d1", "revenue")  # the way out the message names
    assert corrected_rows(rows, _ledger(workspace)).equals(rows)


def test_apply_corrections_types_values_and_refuses_unknown_documents() -> None:
    rows = pl.DataFrame({"doc_id": DOCS, "revenue": [100.0, 250.5], "employees": [10, 20]})
    with pytest.raises(CorrectionError, match=r"d1/employees: 1.5 is not a valid integer"):
        apply_corrections(rows, {("d1", "employees"): 1.5})  # was truncated to 1
    with pytest.raises(CorrectionError, match=r"d1/employees: 1e\+20 is not a valid integer"):
        apply_corrections(rows, {("d1", "employees"): 1e20})
    with pytest.raises(CorrectionError, match=r"d9/revenue: correction for unknown document 'd9'"):
        apply_corrections(rows, {("d9", "revenue"): 1.0})
    with pytest.raises(CorrectionError, match="unknown field 'employees'"):
        apply_corrections(rows, {("d1", "employees"): 5}, fields={"revenue": "number"})
    fixed = apply_corrections(rows, {("d1", "revenue"): "1,234.5"}, fields=TYPES)
    assert fixed["revenue"].to_list() == [1234.5, 250.5]


def test_gold_export_only_for_known_cells(workspace: Workspace, tmp_path: Path) -> None:
    other_plan = Ledger(workspace, fields={"profit": "number"}, doc_ids=["d1", "d7"])
    other_plan.edit("d1", "profit", 5.0)
    other_plan.edit("d7", "profit", 6.0)
    _store_untyped(workspace, "d8", "revenue", 7.0)  # a document this extraction does not have
    ledger = _ledger(workspace)
    ledger.edit("d1", "revenue", 120.0)
    n = ledger.export_gold(tmp_path / "gold.jsonl", evidence=_cells())
    rows = [json.loads(line) for line in (tmp_path / "gold.jsonl").read_text("utf-8").splitlines()]
    assert n == 1 and [(r["doc"], r["field"], r["value"]) for r in rows] == [("d1", "revenue", 120.0)]
    with pytest.raises(CorrectionError, match="gold export needs"):
        Ledger(workspace).export_gold(tmp_path / "all.jsonl")


def test_the_review_model_needs_typed_fields_and_writes_only_its_cells(workspace: Workspace) -> None:
    from mdqa_kernel.notebook.review import ReviewError, ReviewModel

    docs = pl.DataFrame({"doc_id": DOCS})
    with pytest.raises(ReviewError, match=r"fields \['auditor'\] have no type"):
        ReviewModel(
            _cells(), docs, [{"name": "revenue", "type": "number"}, {"name": "auditor"}], Ledger(workspace)
        )
    model = ReviewModel(
        _cells(),
        docs,
        [{"name": "revenue", "type": "number"}, {"name": "auditor", "type": "text"}],
        Ledger(workspace),
    )
    with pytest.raises(CorrectionError, match="does not read 'auditor' from document 'd2'"):
        model.ledger.edit("d2", "auditor", "KPMG")  # the model's cells: d2 has no auditor cell
    assert model.edit("d1", "revenue", "1,000") == 1000.0


def test_a_plan_field_missing_from_the_rows_is_named_as_such() -> None:
    rows = pl.DataFrame({"doc_id": ["d1"], "revenue": [1.0]})
    with pytest.raises(CorrectionError, match="plan field but these rows have no column"):
        apply_corrections(
            rows, {("d1", "employees"): 5}, fields={"revenue": "number", "employees": "integer"}
        )
