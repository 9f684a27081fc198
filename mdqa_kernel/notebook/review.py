"""The review model behind the rows widget: server-side paging, filters, evidence and edits.

Pure Python (no widget imports) so it can be tested and timed without a browser. It keeps the
extracted cells (long form) plus the corrections overlay; only one page of rows ever leaves it. An edit
goes to the ledger first (durable), then patches the in-memory overlay for that one cell and calls
`on_change` with the effective cells so the aggregate and answer can be recomputed.

Besides the rows, it serves the "needs review" queue: the cells ranked by their risk
(mdqa_kernel.rows.risk: implausible, readers disagree, low confidence, not found), highest first; a
cell a person corrected or verified leaves it. Documents are shown by a label made from their
metadata (entity, year, document type: `document_labels`), their id kept beside it.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.rows.corrections import CorrectionError, Ledger, LedgerScope, typed_correction
from mdqa_kernel.rows.risk import REVIEWED, review_queue, risk_scores

STATUSES = ("found", "needs_review", "absent", "not_found", "error", "unsupported", "corrected", "verified")
CELL_COLUMNS = ("doc_id", "field", "value", "status", "confidence", "reader", "page", "bbox", "snippet")


# The metadata columns a document label is made of, by role, the first present of each (collections
# name them differently: a MuDABench symbol, a realdocs entity, a FinanceBench company).
LABEL_COLUMNS: tuple[tuple[str, ...], ...] = (
    ("entity", "company", "name", "symbol", "ticker"),
    ("year", "period", "fiscal_year", "doc_period"),
    ("doctype", "doc_type", "form"),
)


class ReviewError(MdqaError, ValueError):
    """A review request referred to an unknown document/field or an unknown filter."""


def document_labels(documents: pl.DataFrame) -> pl.DataFrame:
    """doc_id and label: "entity · year · doctype" from the first present metadata column of each
    role (LABEL_COLUMNS), blanks skipped; the doc_id when the document has none of them. Two documents
    with one label get their doc_id appended, so a label always names one document."""
    if "doc_id" not in documents.columns:
        raise ReviewError("the documents frame has no doc_id column")
    parts = []
    for names in LABEL_COLUMNS:
        present = [n for n in names if n in documents.columns]
        if present:
            text = pl.coalesce([pl.col(n).cast(pl.Utf8).str.strip_chars().replace("", None) for n in present])
            parts.append(text)
    label = (
        pl.concat_str(parts, separator=" · ", ignore_nulls=True).replace("", None)
        if parts
        else pl.lit(None, dtype=pl.Utf8)
    )
    out = documents.select(pl.col("doc_id").cast(pl.Utf8), label.alias("label")).with_columns(
        pl.col("label").fill_null(pl.col("doc_id"))
    )
    shared = pl.col("label").is_duplicated() & (pl.col("label") != pl.col("doc_id"))
    return out.with_columns(
        pl.when(shared).then(pl.format("{} ({})", "label", "doc_id")).otherwise("label").alias("label")
    )


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
        readings: pl.DataFrame | None = None,
        threshold: float = CONFIDENT,
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
        self.labels: dict[str, str] = dict(document_labels(documents).iter_rows())
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
        # The risk is the reader's (extracted status and value): a correction takes a cell out of the
        # queue through its status, and an undo puts it back with the risk it had.
        self.threshold = threshold
        self._cells = risk_scores(
            self._cells.with_columns(pl.col("extracted_json").alias("value_json")),
            readings=readings,
            threshold=threshold,
            status_column="extracted_status",
        ).with_columns(self._cells["value_json"])

    def label(self, doc_id: str) -> str:
        """The document's metadata label (its id when the documents frame has none)."""
        return self.labels.get(doc_id, doc_id)

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
            "value_json",
            "extracted_json",
            "extracted_status",
            "extracted_reader",
            "value_num",
            "bbox_json",
            "risk",
            "reasons",
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
                "label": self.label(d["doc_id"]),
                "meta": {c: d.get(c) for c in self.meta_columns},
                "cells": by_doc.get(d["doc_id"], {}),
            }
            for d in page_docs.iter_rows(named=True)
        ]
        return {"total": total, "page": page, "page_size": page_size, "rows": rows}

    # -- the needs-review queue ---------------------------------------------------------------------
    def queue_size(self) -> int:
        """How many cells still need review."""
        return review_queue(self._cells.select("doc_id", "field", "status", "risk")).height

    def queue(self, page: int = 0, page_size: int = 50, *, field: str | None = None) -> dict[str, Any]:
        """One page of the needs-review queue, highest risk first: {'total', 'page', 'page_size',
        'items': [{doc_id, label, field, value, status, confidence, risk, reasons, page}]}."""
        if field and field not in self.field_types:
            raise ReviewError(f"unknown field {field!r}; the plan's fields are {', '.join(self.field_types)}")
        sel = self._cells if not field else self._cells.filter(pl.col("field") == field)
        ranked = review_queue(sel)
        items = [
            {
                "doc_id": r["doc_id"],
                "label": self.label(r["doc_id"]),
                "field": r["field"],
                "value": json.loads(r["value_json"]),
                "status": r["status"],
                "confidence": r["confidence"],
                "risk": r["risk"],
                "reasons": r["reasons"],
                "page": r["page"],
            }
            for r in ranked.slice(page * page_size, page_size).iter_rows(named=True)
        ]
        return {"total": ranked.height, "page": page, "page_size": page_size, "items": items}

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
            "label": self.label(doc_id),
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
            # a cell a person corrected or verified needs no more review, whatever the reader said
            "risk": 0.0 if r["status"] in REVIEWED else r["risk"],
            "reasons": "" if r["status"] in REVIEWED else r["reasons"],
            "bbox": bbox,
            "path": str(self._paths.get(doc_id, "")),
            "image": "",
            "image_box": None,  # the value's box in the image's pixels: the panel scrolls to it
            "image_scale": None,
        }
        path = self._paths.get(doc_id)
        if with_image and path and r["page"]:
            try:
                crop = page_crop(path, int(r["page"]), bbox)
                out["image"], out["image_scale"] = crop.url, crop.scale
                out["image_box"] = list(crop.box) if crop.box else None
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


def crop_window(
    page_size: tuple[float, float], bbox: tuple[float, float, float, float] | None, *, margin: float = 72.0
) -> tuple[float, float, float, float]:
    """The part of the page an evidence crop shows (x0, top, x1, bottom in points from the top-left):
    the page's whole width (a value is read with its row label, usually at the left margin) over the
    band from `margin` above the value's box to `margin` below it (its column head, the rows around);
    the whole page when no box is known. `page_crop` then trims the blank side margins of the band."""
    width, height = page_size
    if bbox is None:
        return (0.0, 0.0, width, height)
    return (0.0, max(0.0, bbox[1] - margin), width, min(height, bbox[3] + margin))


@dataclass(frozen=True)
class PageCrop:
    """A rendered evidence crop: a PNG data URL, its size in pixels, where the value's box lies in it
    (x0, y0, x1, y1 in pixels, None without a box) and its pixels per point."""

    url: str
    width: int
    height: int
    box: tuple[int, int, int, int] | None
    scale: float


def page_crop(
    path: str | Path, page: int, bbox: Any, *, scale: float = 3.0, margin: float = 72.0
) -> PageCrop:
    """The `crop_window` of a page around bbox (x0, top, x1, bottom in points from the top-left), its
    blank side margins trimmed, rendered at `scale` pixels per point so that its text stays readable
    when the panel shows it smaller, with the value's box tinted and outlined. Rendered offline with
    pypdfium2."""
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    pdf = pdfium.PdfDocument(str(path))
    try:
        pg = pdf[page - 1]
        width, height = pg.get_size()
        box = _bbox_tuple(bbox)
        left, top, right, bottom = crop_window((width, height), box, margin=margin)
        # pdfium crops by the amounts cut from each side: left, bottom, right, top
        crop = (left, height - bottom, width - right, top)
        image = pg.render(scale=scale, crop=crop).to_pil().convert("RGB")
        if box is not None:
            image, trimmed = _trim_blank_sides(image, box, left, scale)
            left += trimmed / scale
        rect: tuple[int, int, int, int] | None = None
        if box is not None:
            pad = 4
            rect = (
                round((box[0] - left) * scale) - pad,
                round((box[1] - top) * scale) - pad,
                round((box[2] - left) * scale) + pad,
                round((box[3] - top) * scale) + pad,
            )
            tint = Image.new("RGBA", image.size, (0, 0, 0, 0))
            ImageDraw.Draw(tint).rectangle(rect, fill=(255, 200, 0, 70))
            image = Image.alpha_composite(image.convert("RGBA"), tint).convert("RGB")
            ImageDraw.Draw(image).rectangle(rect, outline=(230, 120, 0), width=max(2, round(scale)))
        buf = io.BytesIO()
        image.save(buf, format="PNG", optimize=True)
        url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
        return PageCrop(url, image.width, image.height, rect, scale)
    finally:
        pdf.close()


def _trim_blank_sides(
    image: Any, box: tuple[float, float, float, float], left: float, scale: float, pad: float = 12.0
) -> tuple[Any, int]:
    """The band without the page's blank side margins (the text's extent plus `pad` points, the value's
    box always kept), so the panel shows text rather than paper; and the pixels cut on the left."""
    from PIL import Image, ImageChops

    ink = ImageChops.difference(image, Image.new("RGB", image.size, (255, 255, 255))).getbbox()
    if ink is None:
        return image, 0
    p = round(pad * scale)
    x0 = max(0, min(ink[0] - p, round((box[0] - left) * scale) - p))
    x1 = min(image.width, max(ink[2] + p, round((box[2] - left) * scale) + p))
    return image.crop((x0, 0, x1, image.height)), x0


def render_page_crop(
    path: str | Path, page: int, bbox: Any, *, scale: float = 3.0, margin: float = 72.0
) -> str:
    """The PNG data URL of `page_crop`."""
    return page_crop(path, page, bbox, scale=scale, margin=margin).url


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


__all__ = [
    "LABEL_COLUMNS",
    "STATUSES",
    "CorrectionError",
    "PageCrop",
    "ReviewError",
    "ReviewModel",
    "crop_window",
    "document_labels",
    "page_crop",
    "render_page_crop",
]
