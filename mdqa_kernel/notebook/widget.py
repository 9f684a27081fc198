"""The rows review widget (anywidget): the notebook face of `ReviewModel`.

Two tabs: the rows (documents × fields) and "Needs review (N)", the cells ranked by risk, highest
first (a corrected or verified cell leaves it). Only the current page of either is synced to the browser. The browser sends small messages (select,
edit, verify, undo); each edit is written to the corrections ledger before the widget answers, and the
answer panel is recomputed from the corrected cells. The front end is widgets/rows_review.js + .css,
plain ES module and CSS with no build step, found through mdqa_kernel.resources.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from typing import Any

import anywidget
import polars as pl
import traitlets

from mdqa_kernel.notebook.review import STATUSES, ReviewError, ReviewModel
from mdqa_kernel.resources import widget_asset
from mdqa_kernel.rows.corrections import CorrectionError, Ledger


class RowsReview(anywidget.AnyWidget):
    """Page through extracted rows, open a cell's evidence, fix values; the answer updates."""

    _esm = widget_asset("rows_review.js")
    _css = widget_asset("rows_review.css")

    fields = traitlets.List().tag(sync=True)
    meta_columns = traitlets.List().tag(sync=True)
    statuses = traitlets.List(list(STATUSES)).tag(sync=True)
    rows = traitlets.List().tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    tab = traitlets.Unicode("rows").tag(sync=True)  # "rows" or "queue"
    queue_items = traitlets.List().tag(sync=True)
    queue_total = traitlets.Int(0).tag(sync=True)
    queue_page = traitlets.Int(0).tag(sync=True)
    page = traitlets.Int(0).tag(sync=True)
    page_size = traitlets.Int(50).tag(sync=True)
    filter_status = traitlets.Unicode("").tag(sync=True)
    filter_field = traitlets.Unicode("").tag(sync=True)
    max_confidence = traitlets.Float(1.0).tag(sync=True)
    sort_by = traitlets.Unicode("doc_id").tag(sync=True)
    descending = traitlets.Bool(False).tag(sync=True)
    evidence = traitlets.Dict().tag(sync=True)
    answer_html = traitlets.Unicode("").tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    edits = traitlets.Int(0).tag(sync=True)
    last_edit_ms = traitlets.Float(0.0).tag(sync=True)

    def __init__(
        self,
        model: ReviewModel,
        *,
        recompute: Callable[[pl.DataFrame], Any] | None = None,
        page_size: int = 50,
        **kwargs: Any,
    ) -> None:
        super().__init__(fields=model.fields, meta_columns=model.meta_columns, page_size=page_size, **kwargs)
        self.model = model
        self.recompute = recompute
        self.on_msg(self._on_message)
        self.observe(
            self._on_view_change,
            names=[
                "page",
                "page_size",
                "filter_status",
                "filter_field",
                "max_confidence",
                "sort_by",
                "descending",
                "tab",
                "queue_page",
            ],
        )
        self.refresh()
        self._update_answer(model.effective_cells())

    @classmethod
    def from_frames(
        cls,
        cells: pl.DataFrame,
        documents: pl.DataFrame,
        fields: list[dict[str, str]],
        workspace: Any,
        *,
        recompute: Callable[[pl.DataFrame], Any] | None = None,
        reviewer: str | None = None,
        page_size: int = 50,
    ) -> RowsReview:
        model = ReviewModel(cells, documents, fields, Ledger(workspace, reviewer=reviewer))
        return cls(model, recompute=recompute, page_size=page_size)

    # -- view --------------------------------------------------------------------------------
    def refresh(self) -> None:
        try:
            page = self.model.view(
                self.page,
                self.page_size,
                status=self.filter_status or None,
                field=self.filter_field or None,
                max_confidence=self.max_confidence if self.max_confidence < 1.0 else None,
                sort_by=self.sort_by or None,
                descending=self.descending,
            )
        except ReviewError as e:
            self.message = str(e)
            return
        last_page = max(0, (page["total"] - 1) // max(1, self.page_size))
        if self.page > last_page:
            self.page = last_page  # re-enters refresh through the observer
            return
        self.total = page["total"]
        self.rows = page["rows"]
        self.refresh_queue()

    def refresh_queue(self) -> None:
        """The queue's page (its field filter is the grid's); the tab shows its size in any case."""
        try:
            queue = self.model.queue(self.queue_page, self.page_size, field=self.filter_field or None)
        except ReviewError as e:
            self.message = str(e)
            return
        last_page = max(0, (queue["total"] - 1) // max(1, self.page_size))
        if self.queue_page > last_page:
            self.queue_page = last_page  # re-enters refresh through the observer
            return
        self.queue_total = queue["total"]
        self.queue_items = queue["items"]

    def _on_view_change(self, _change: dict[str, Any]) -> None:
        self.refresh()

    def _update_answer(self, effective: pl.DataFrame) -> None:
        if self.recompute is None:
            return
        try:
            out = self.recompute(effective)
        except Exception as e:  # the grid must stay usable when the aggregate cannot be computed
            self.answer_html = f"<div class='mdqa-error'>answer not recomputed: {html.escape(str(e))}</div>"
            return
        rich = getattr(out, "_repr_html_", None)
        self.answer_html = rich() if callable(rich) else f"<pre>{html.escape(str(out))}</pre>"

    # -- messages from the browser -------------------------------------------------------------
    def _on_message(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        kind = content.get("type")
        doc_id, field = content.get("doc_id", ""), content.get("field", "")
        t0 = time.perf_counter()
        try:
            if kind == "select":
                self.evidence = self.model.evidence(doc_id, field)
                return
            if kind == "edit":
                self.model.edit(doc_id, field, content.get("value"), note=content.get("note"))
            elif kind == "verify":
                self.model.verify(doc_id, field)
            elif kind == "undo":
                self.model.undo(doc_id, field)
            else:
                self.message = f"unknown message {kind!r}"
                return
        except (CorrectionError, ReviewError) as e:
            self.message = str(e)
            return
        self.message = ""
        self._update_answer(self.model.effective_cells())
        self.refresh()
        self.evidence = self.model.evidence(doc_id, field)
        self.edits += 1
        self.last_edit_ms = (time.perf_counter() - t0) * 1000
