"""The rows review widget's Python side: only one page is synced; messages edit through the ledger."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.notebook.widget import RowsReview
from mdqa_kernel.rows.corrections import Ledger
from mdqa_kernel.store import Workspace

from .test_review import FIELDS, _frames


def test_widget_pages_and_edits(workspace: Workspace) -> None:
    cells, docs = _frames(120)

    def total(eff: pl.DataFrame) -> str:
        s = sum(v for v, f in zip(eff["value"].to_list(), eff["field"], strict=True) if f == "revenue")
        return f"total revenue {s:.1f}"

    w = RowsReview.from_frames(cells, docs, FIELDS, workspace, recompute=total, page_size=50)
    assert len(w.rows) == 50 and w.total == 120
    assert "7140.0" in w.answer_html
    w.page = 2
    assert len(w.rows) == 20
    w._on_message(w, {"type": "edit", "doc_id": "d00100", "field": "revenue", "value": "1100"}, None)
    assert w.message == "" and w.edits == 1 and "8140.0" in w.answer_html
    assert w.evidence["status"] == "corrected" and w.evidence["value"] == 1100.0
    assert Ledger(workspace).current()[("d00100", "revenue")]["value"] == 1100.0
    w._on_message(w, {"type": "edit", "doc_id": "d00100", "field": "revenue", "value": "eleven"}, None)
    assert "not a valid number" in w.message
    w._on_message(w, {"type": "undo", "doc_id": "d00100", "field": "revenue"}, None)
    assert "7140.0" in w.answer_html
    w.filter_status = "not_found"
    assert w.total == 12 and w.page == 0
