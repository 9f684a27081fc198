"""The review model behind the rows widget: server-side paging, filters, evidence and edits.

Pure Python (no widget imports) so it can be tested and timed without a browser. It keeps the
extracted cells (long form) plus the corrections overlay; only one page of rows ever leaves it. An edit
goes to the ledger first (durable), then patches the in-memory overlay for that one cell and calls
`on_change` with the effective cells so the aggregate and answer can be recomputed.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.rows.corrections import CorrectionError, Ledger, LedgerScope, typed_correction

STATUSES = ("found", "absent", "not_found", "error", "unsupported", "corrected", "verified")
CELL_COLUMNS = ("doc_id", "field", "value", "status", "confidence", "reader", "page", "bbox", "snippet")


class ReviewError(MdqaError, ValueError):
    """A review request referred to an unknown document/field or an unknown filter."""


def _to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _number_or_none(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    return None


class ReviewModel:
    """Rows of one extraction, with the analyst's corrections applied, served one page at a time."""

    def __init__(
        self,
        cells: pl.DataFrame,
        documents: pl.DataFrame,
        fields: list[dict[str, str]],
        ledger: Ledger,
        *,
        on_change: Callable[[pl.DataFrame], Any] | None = None,
        meta_columns: list[str] | None = None,
    ) -> None:
        missing = [c for c in ("doc_id", "field", "value", "status") if c not in cells.columns]
        if missing:
            raise ReviewError(f"cells frame lacks columns {missing}; pass ExtractionResult.cells")
        untyped = [f.get("name") for f in fields if not f.get("type")]
        if untyped:
            raise ReviewError(
                f"fields {untyped} have no type; give each field its plan type (number, text, ...)"
            )
        self.fields = fields
        self.field_types = {f["name"]: f["type"] for f in fields}
        # The ledger writes only the cells shown here, typed as the plan's fields.
        self.ledger = ledger.scoped(
            LedgerScope.of(
                self.field_types,
                cells["doc_id"].to_list(),
                cells.select("doc_id", "field").iter_rows(),
            )
        )
        self.on_change = on_change
        self.documents = documents
        self.meta_columns = meta_columns or [
            c for c in ("symbol", "year", "doctype") if c in documents.columns
        ]
        self._paths = (
            dict(zip(documents["doc_id"], documents["path"], strict=True))
            if "path" in documents.columns
            else {}
        )
        # ExtractionResult.cells shows values as text and keeps the typed value as JSON in value_json.
        if "value_json" in cells.columns:
            typed = [None if v is None else json.loads(v) for v in cells["value_json"].to_list()]
            cells = cells.drop("value_json").with_columns(pl.Series("value", typed, dtype=pl.Object))
        # Keep what the reader said, so an undo can restore it after the overlay replaced it.
        self._cells = self._normalise(
            self.ledger.apply(
                cells.with_columns(
                    pl.col("status").alias("extracted_status"),
                    (pl.col("reader") if "reader" in cells.columns else pl.lit(None, dtype=pl.Utf8)).alias(
                        "extracted_reader"
                    ),
                )
            )
        )

    # -- state ---------------------------------------------------------------------------------
    @staticmethod
    def _normalise(cells: pl.DataFrame) -> pl.DataFrame:
        """One flat frame with JSON-encoded values and a numeric sort key, whatever the value types."""
        values = cells["value"].to_list()
        extracted = cells["extracted_value"].to_list() if "extracted_value" in cells.columns else values
        cols: dict[str, Any] = {
            "doc_id": cells["doc_id"].cast(pl.Utf8),
            "field": cells["field"].cast(pl.Utf8),
            "value_json": pl.Series([_to_json(v) for v in values], dtype=pl.Utf8),
            "extracted_json": pl.Series([_to_json(v) for v in extracted], dtype=pl.Utf8),
            "value_num": pl.Series([_number_or_none(v) for v in values], dtype=pl.Float64),
            "status": cells["status"].cast(pl.Utf8),
            "extracted_status": cells["extracted_status"].cast(pl.Utf8)
            if "extracted_status" in cells.columns
            else cells["status"].cast(pl.Utf8),
            "extracted_reader": cells["extracted_reader"].cast(pl.Utf8)
            if "extracted_reader" in cells.columns
            else pl.repeat(None, len(cells), dtype=pl.Utf8, eager=True),
        }
        for name, dtype in (
            ("confidence", pl.Float64),
            ("reader", pl.Utf8),
            ("page", pl.Int64),
            ("snippet", pl.Utf8),
            ("message", pl.Utf8),
        ):
            cols[name] = (
                cells[name].cast(dtype, strict=False)
                if name in cells.columns
                else pl.repeat(None, len(cells), dtype=dtype, eager=True)
            )
        cols["bbox_json"] = pl.Series(
            [_to_json(b) for b in cells["bbox"].to_list()]
            if "bbox" in cells.columns
            else ["null"] * len(cells),
            dtype=pl.Utf8,
        )
        return pl.DataFrame(cols)

    def effective_cells(self) -> pl.DataFrame:
        """Cells with corrections applied, values decoded (what aggregation should read)."""
        return self._cells.with_columns(
            pl.Series("value", [json.loads(v) for v in self._cells["value_json"]], dtype=pl.Object)
        ).drop(
            "value_json", "extracted_json", "extracted_status", "extracted_reader", "value_num", "bbox_json"
        )

    # -- paging ----------------------------------------------------------------------------------
    def view(
        self,
        page: int = 0,
        page_size: int = 50,
        *,
        status: str | None = None,
        field: str | None = None,
        max_confidence: float | None = None,
        sort_by: str | None = None,
        descending: bool = False,
    ) -> dict[str, Any]:
        """One page of rows: {'total': documents matching, 'rows': [...]} with only page_size rows."""
        if status and status not in STATUSES:
            raise ReviewError(f"unknown status filter {status!r}; use one of {', '.join(STATUSES)}")
        if field and field not in self.field_types:
            raise ReviewError(f"unknown field {field!r}; the plan's fields are {', '.join(self.field_types)}")
        sel = self._cells
        if field:
            sel = sel.filter(pl.col("field") == field)
        if status:
            sel = sel.filter(pl.col("status") == status)
        if max_confidence is not None:
            sel = sel.filter(pl.col("confidence").fill_null(0.0) <= max_confidence)
        docs = sel.select("doc_id").unique()
        docs = docs.join(self.documents.select("doc_id", *self.meta_columns), on="doc_id", how="left")
        docs = self._sort(docs, sort_by, descending)
        total = docs.height
        page_docs = docs.slice(page * page_size, page_size)
        cells = self._cells.join(page_docs.select("doc_id"), on="doc_id", how="semi")
        by_doc: dict[str, dict[str, Any]] = {}
        for r in cells.iter_rows(named=True):
            by_doc.setdefault(r["doc_id"], {})[r["field"]] = {
                "value": json.loads(r["value_json"]),
                "status": r["status"],
                "confidence": r["confidence"],
                "page": r["page"],
            }
        rows = [
            {
                "doc_id": d["doc_id"],
                "meta": {c: d.get(c) for c in self.meta_columns},
                "cells": by_doc.get(d["doc_id"], {}),
            }
            for d in page_docs.iter_rows(named=True)
        ]
        return {"total": total, "page": page, "page_size": page_size, "rows": rows}

    def _sort(self, docs: pl.DataFrame, sort_by: str | None, descending: bool) -> pl.DataFrame:
        if not sort_by or sort_by == "doc_id":
            return docs.sort("doc_id", descending=descending)
        if sort_by in self.meta_columns:
            return docs.sort([sort_by, "doc_id"], descending=[descending, False], nulls_last=True)
        if sort_by.endswith(":confidence") or sort_by in self.field_types:
            fname, _, what = sort_by.partition(":")
            key = "confidence" if what == "confidence" else "value_num"
            keys = self._cells.filter(pl.col("field") == fname).select("doc_id", pl.col(key).alias("_k"))
            if key == "value_num" and keys["_k"].null_count() == keys.height:
                keys = self._cells.filter(pl.col("field") == fname).select(
                    "doc_id", pl.col("value_json").alias("_k")
                )
            return (
                docs.join(keys, on="doc_id", how="left")
                .sort(["_k", "doc_id"], descending=[descending, False], nulls_last=True)
                .drop("_k")
            )
        raise ReviewError(f"cannot sort by {sort_by!r}; use doc_id, a metadata column or a field name")

    # -- evidence --------------------------------------------------------------------------------
    def cell(self, doc_id: str, field: str) -> dict[str, Any]:
        hit = self._cells.filter((pl.col("doc_id") == doc_id) & (pl.col("field") == field))
        if hit.is_empty():
            raise ReviewError(f"no cell for document {doc_id!r}, field {field!r}")
        return hit.row(0, named=True)

    def evidence(self, doc_id: str, field: str, *, with_image: bool = True) -> dict[str, Any]:
        """What the evidence panel shows: document, page, snippet, value, reader and a page crop."""
        r = self.cell(doc_id, field)
        bbox = json.loads(r["bbox_json"])
        out = {
            "doc_id": doc_id,
            "field": field,
            "type": self.field_types.get(field, "text"),
            "value": json.loads(r["value_json"]),
            "extracted_value": json.loads(r["extracted_json"]),
            "status": r["status"],
            "confidence": r["confidence"],
            "reader": r["reader"],
            "page": r["page"],
            "snippet": r["snippet"],
            "message": r["message"],
            "bbox": bbox,
            "path": str(self._paths.get(doc_id, "")),
            "image": "",
        }
        path = self._paths.get(doc_id)
        if with_image and path and r["page"]:
            try:
                out["image"] = render_page_crop(path, int(r["page"]), bbox)
            except Exception as e:  # a broken page image must not break the review
                out["message"] = f"page image unavailable: {e}"
        return out

    # -- edits ----------------------------------------------------------------------------------
    def edit(self, doc_id: str, field: str, value: Any, *, note: str | None = None) -> Any:
        """Validate, record durably, patch the overlay, recompute. Returns the typed value."""
        r = self.cell(doc_id, field)
        ftype = self.field_types.get(field, "text")
        typed = typed_correction(value, ftype, where=f"{doc_id}/{field}: ")
        self.ledger.edit(doc_id, field, typed, old_value=json.loads(r["value_json"]), note=note)
        self._patch(doc_id, field, typed, "corrected", reader="human")
        return typed

    def verify(self, doc_id: str, field: str, *, note: str | None = None) -> None:
        r = self.cell(doc_id, field)
        self.ledger.verify(doc_id, field, json.loads(r["value_json"]), note=note)
        self._patch(doc_id, field, json.loads(r["value_json"]), "verified", reader=r["reader"])

    def undo(self, doc_id: str, field: str) -> None:
        """Cancel the latest correction of this cell and rebuild its state from the ledger."""
        self.ledger.undo(doc_id, field)
        live = self.ledger.current().get((doc_id, field))
        r = self.cell(doc_id, field)
        original = json.loads(r["extracted_json"])
        if live is None:
            self._patch(doc_id, field, original, str(r["extracted_status"]), reader=r["extracted_reader"])
        else:
            corrected = live["status"] == "corrected"
            value = live["value"] if corrected else original
            self._patch(
                doc_id, field, value, live["status"], reader="human" if corrected else r["extracted_reader"]
            )

    def _patch(self, doc_id: str, field: str, value: Any, status: str, *, reader: str | None) -> None:
        mask = (pl.col("doc_id") == doc_id) & (pl.col("field") == field)
        updates = [
            pl.when(mask).then(pl.lit(_to_json(value))).otherwise(pl.col("value_json")).alias("value_json"),
            pl.when(mask)
            .then(pl.lit(_number_or_none(value), dtype=pl.Float64))
            .otherwise(pl.col("value_num"))
            .alias("value_num"),
            pl.when(mask).then(pl.lit(status)).otherwise(pl.col("status")).alias("status"),
        ]
        if reader is not None:
            updates.append(pl.when(mask).then(pl.lit(reader)).otherwise(pl.col("reader")).alias("reader"))
        self._cells = self._cells.with_columns(updates)
        if self.on_change is not None:
            self.on_change(self.effective_cells())


def render_page_crop(
    path: str | Path, page: int, bbox: Any, *, scale: float = 2.0, margin: float = 60.0
) -> str:
    """A PNG data URL of the page band around bbox (x0, top, x1, bottom in points from the top-left),
    with the box outlined; the whole page when no bbox is known. Rendered offline with pypdfium2."""
    import pypdfium2 as pdfium
    from PIL import ImageDraw

    pdf = pdfium.PdfDocument(str(path))
    try:
        pg = pdf[page - 1]
        _width, height = pg.get_size()
        box = _bbox_tuple(bbox)
        if box is None:
            crop = (0.0, 0.0, 0.0, 0.0)
        else:
            top = max(0.0, box[1] - margin)
            bottom = min(height, box[3] + margin)
            crop = (0.0, height - bottom, 0.0, top)  # left, bottom, right, top amounts to cut
        image = pg.render(scale=scale, crop=crop).to_pil().convert("RGB")
        if box is not None:
            draw = ImageDraw.Draw(image)
            y0 = (box[1] - crop[3]) * scale
            y1 = (box[3] - crop[3]) * scale
            draw.rectangle(
                [box[0] * scale - 3, y0 - 3, box[2] * scale + 3, y1 + 3], outline=(230, 120, 0), width=3
            )
        buf = io.BytesIO()
        image.save(buf, format="PNG", optimize=True)
        return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    finally:
        pdf.close()


def _bbox_tuple(bbox: Any) -> tuple[float, float, float, float] | None:
    if bbox is None:
        return None
    if isinstance(bbox, dict):
        try:
            return (float(bbox["x0"]), float(bbox["top"]), float(bbox["x1"]), float(bbox["bottom"]))
        except (KeyError, TypeError, ValueError):
            return None
    if isinstance(bbox, list | tuple) and len(bbox) == 4 and all(v is not None for v in bbox):
        return (float(bbox[0]), float(bbox[1]), float(bbox[2]), float(bbox[3]))
    return None


__all__ = ["STATUSES", "CorrectionError", "ReviewError", "ReviewModel", "render_page_crop"]
