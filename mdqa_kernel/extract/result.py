"""ExtractionResult: the cells of one plan over one collection, read back from the workspace store.

`cells` is the long form (one row per document × field, with status, confidence and evidence);
`rows` is the wide form (one row per document, metadata then one typed column per field). Both are
computed from the `extractions` table, so a new kernel reopens them with `ExtractionResult.open`.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import polars as pl

from mdqa_kernel.extract.tasks import as_reader, plan_tasks
from mdqa_kernel.store import Workspace, open_workspace
from mdqa_kernel.text.fieldtypes import FIELD_TYPES, field_type

CELL_SCHEMA = pl.Schema(
    {
        "doc_id": pl.String(),
        "field": pl.String(),
        "value": pl.String(),
        "status": pl.String(),
        "confidence": pl.Float64(),
        "reader": pl.String(),
        "page": pl.Int64(),
        "bbox": pl.List(pl.Float64),
        "char_start": pl.Int64(),
        "char_end": pl.Int64(),
        "snippet": pl.String(),
        "supported": pl.Boolean(),
        "llm_calls": pl.Int64(),
        "message": pl.String(),
        "seconds": pl.Float64(),
        "task_key": pl.String(),
        "value_json": pl.String(),
    }
)


class ExtractionResult:
    def __init__(
        self, workspace: Workspace, plan: Any, tasks: list[Any], docs: dict[str, dict[str, Any]]
    ) -> None:
        self.workspace = workspace
        self.plan = plan
        self.tasks = tasks
        self.docs = docs
        self.run: dict[str, Any] = {}
        self._records: dict[str, dict[str, Any]] | None = None

    @classmethod
    def open(
        cls,
        workspace: Any,
        plan: Any,
        collection: str = "default",
        reader: Any = "table",
        limit_docs: int | None = None,
        **reader_options: Any,
    ) -> ExtractionResult:
        """Reopen the cells of a plan (same collection, reader configuration and document limit)."""
        from mdqa_kernel.collection.collection import Collection

        ws = open_workspace(workspace)
        coll = Collection.open(ws, collection)
        rdr = as_reader(reader, ws, reader_options)
        documents = coll.documents.head(limit_docs) if limit_docs else coll.documents
        tasks, docs = plan_tasks(plan, documents, rdr)
        return cls(ws, plan, tasks, docs)

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._records is None:
            keys = [t.task_key for t in self.tasks]
            out: dict[str, dict[str, Any]] = {}
            for i in range(0, len(keys), 500):
                part = keys[i : i + 500]
                marks = ",".join("?" * len(part))
                for r in self.workspace.query(
                    f"SELECT task_key, result, seconds FROM extractions WHERE task_key IN ({marks})",
                    tuple(part),
                ):
                    out[r["task_key"]] = {**json.loads(r["result"]), "_seconds": r["seconds"]}
            self._records = out
        return self._records

    def refresh(self) -> ExtractionResult:
        self._records = None
        return self

    @property
    def missing(self) -> int:
        """Tasks with no committed cell yet (an interrupted run)."""
        return sum(1 for t in self.tasks if t.task_key not in self._load())

    @property
    def cells(self) -> pl.DataFrame:
        recs = self._load()
        rows = []
        for t in self.tasks:
            r = recs.get(t.task_key)
            if r is None:
                rows.append(
                    {"doc_id": t.doc_id, "field": t.field, "status": "pending", "task_key": t.task_key}
                )
                continue
            ev = r.get("evidence") or {}
            span = ev.get("char_span") or [None, None]
            rows.append(
                {
                    "doc_id": t.doc_id,
                    "field": t.field,
                    "value": _display(r.get("value")),
                    "status": r["status"],
                    "confidence": r.get("confidence"),
                    "reader": r.get("reader"),
                    "page": ev.get("page"),
                    "bbox": list(ev["bbox"]) if ev.get("bbox") else None,
                    "char_start": span[0],
                    "char_end": span[1],
                    "snippet": ev.get("snippet"),
                    "supported": r.get("supported"),
                    "llm_calls": r.get("llm_calls", 0),
                    "message": r.get("message"),
                    "seconds": r.get("_seconds"),
                    "task_key": t.task_key,
                    "value_json": json.dumps(r.get("value"), ensure_ascii=False, default=str),
                }
            )
        return pl.DataFrame(rows, schema=CELL_SCHEMA)

    @property
    def rows(self) -> pl.DataFrame:
        """One row per document: doc_id, metadata columns, then one typed column per plan field."""
        recs = self._load()
        values: dict[str, dict[str, Any]] = {d: {} for d in self.docs}
        for t in self.tasks:
            r = recs.get(t.task_key)
            if r is not None and r["status"] == "found":
                values[t.doc_id][t.field] = r.get("value")
        meta_cols = [
            c for c in next(iter(self.docs.values()), {}) if c not in ("path", "message", "error_kind")
        ]
        base = pl.DataFrame(
            [{c: d.get(c) for c in meta_cols} for d in self.docs.values()], infer_schema_length=None
        )
        columns = [
            pl.Series(
                spec.name,
                [_typed(values[d].get(spec.name), spec.type) for d in self.docs],
                dtype=field_type(spec.type).dtype if spec.type in FIELD_TYPES else pl.String,
                strict=False,
            )
            for spec in self.plan.fields
        ]
        return base.with_columns(columns) if base.width else pl.DataFrame(columns)

    def summary(self) -> dict[str, Any]:
        cells = self.cells
        counts = dict(cells.group_by("status").len().iter_rows())
        return {
            "cells": cells.height,
            **counts,
            "llm_calls": int(cells["llm_calls"].fill_null(0).sum()),
            **self.run,
        }

    def __repr__(self) -> str:
        return f"ExtractionResult({len(self.docs)} documents × {len(self.plan.fields)} fields, {len(self.tasks)} cells)"


def _display(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        return f"{value:.15g}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _typed(value: Any, field_type: str) -> Any:
    if value is None:
        return None
    if field_type == "date" and isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    if field_type == "list_text" and isinstance(value, list):
        return [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value]
    if field_type == "integer" and isinstance(value, float):
        return round(value)
    return value
