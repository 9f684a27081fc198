"""The corrections ledger: an analyst's edits and verifications, durable in the workspace store.

Every action is one row, written at once in its own transaction (nothing is lost if the kernel dies a
moment later). The ledger is an overlay keyed by (doc_id, field): it is applied when rows are read, so
a re-extraction never erases it. Undo appends an `undo` row that cancels the latest live action of that
cell, keeping the full history. Every live correction is also a gold label (`export_gold`).
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import time
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.store import Workspace, open_workspace
from mdqa_kernel.text.fieldtypes import FieldValueError, UnknownFieldTypeError
from mdqa_kernel.text.fieldtypes import field_type as field_type_named
from mdqa_kernel.text.values import to_json_value

ACTIONS = ("edit", "verify", "undo")


class CorrectionError(MdqaError, ValueError):
    """A correction could not be recorded (bad value for the field's type, nothing to undo...)."""


def typed_correction(value: Any, field_type: str, *, where: str = "") -> Any:
    """An edited value typed for its field (`fieldtypes.coerce`, as a reader would type it) and made
    JSON for the ledger (a date as YYYY-MM-DD); an empty edit clears the cell (None).
    The browser checks too; this is final."""
    try:
        ftype = field_type_named(field_type)
    except UnknownFieldTypeError as e:
        raise CorrectionError(f"{where}{e}") from e
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return to_json_value(ftype.coerce(value))
    except FieldValueError as e:
        raise CorrectionError(
            f"{where}{value!r} is not a valid {field_type} ({e}); enter {ftype.hint}"
        ) from e


class Ledger:
    """Read and write corrections of one workspace."""

    def __init__(self, workspace: Workspace | str | Path | None = None, reviewer: str | None = None) -> None:
        self.workspace = open_workspace(workspace)
        self.reviewer = reviewer or _default_reviewer()

    # -- writing -----------------------------------------------------------------------------
    def edit(
        self,
        doc_id: str,
        field: str,
        new_value: Any,
        *,
        old_value: Any = None,
        field_type: str | None = None,
        note: str | None = None,
        reviewer: str | None = None,
    ) -> int:
        """Record a new value for one cell. With field_type, the value is validated and typed first."""
        if field_type is not None:
            new_value = typed_correction(new_value, field_type, where=f"{doc_id}/{field}: ")
        return self._append(doc_id, field, "edit", old_value, new_value, reviewer, note)

    def verify(
        self,
        doc_id: str,
        field: str,
        value: Any = None,
        *,
        note: str | None = None,
        reviewer: str | None = None,
    ) -> int:
        """Mark the extracted value of one cell as checked by a person (it becomes a gold label)."""
        return self._append(doc_id, field, "verify", value, value, reviewer, note)

    def undo(
        self, doc_id: str | None = None, field: str | None = None, *, reviewer: str | None = None
    ) -> int:
        """Cancel the latest live action (of that cell, or of the whole ledger)."""
        live = self._live_actions()
        if doc_id is not None:
            live = live.filter(pl.col("doc_id") == doc_id)
        if field is not None:
            live = live.filter(pl.col("field") == field)
        if live.is_empty():
            where = f" for {doc_id}/{field}" if doc_id or field else ""
            raise CorrectionError(f"nothing to undo{where}: the ledger has no live correction there")
        last = live.sort("id").row(-1, named=True)
        return self._append(
            last["doc_id"], last["field"], "undo", None, None, reviewer, json.dumps({"undoes": last["id"]})
        )

    def _append(
        self,
        doc_id: str,
        field: str,
        action: str,
        old_value: Any,
        new_value: Any,
        reviewer: str | None,
        note: str | None,
    ) -> int:
        with self.workspace.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO corrections(doc_id, field, old_value, new_value, action, reviewer, note, created)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (
                    doc_id,
                    field,
                    json.dumps(old_value, ensure_ascii=False, default=str),
                    json.dumps(new_value, ensure_ascii=False, default=str),
                    action,
                    reviewer or self.reviewer,
                    note,
                    time.time(),
                ),
            )
            return int(cur.lastrowid or 0)

    # -- reading -----------------------------------------------------------------------------
    def history(self) -> pl.DataFrame:
        """Every action ever recorded, oldest first, values decoded from JSON."""
        rows = self.workspace.query(
            "SELECT id, doc_id, field, old_value, new_value, action, reviewer, note, created FROM corrections ORDER BY id"
        )
        return pl.DataFrame(
            {
                "id": [r["id"] for r in rows],
                "doc_id": [r["doc_id"] for r in rows],
                "field": [r["field"] for r in rows],
                "old_value": [_loads(r["old_value"]) for r in rows],
                "new_value": [_loads(r["new_value"]) for r in rows],
                "action": [r["action"] for r in rows],
                "reviewer": [r["reviewer"] for r in rows],
                "note": [r["note"] for r in rows],
                "time": [dt.datetime.fromtimestamp(r["created"], tz=dt.UTC) for r in rows],
            },
            schema={
                "id": pl.Int64,
                "doc_id": pl.Utf8,
                "field": pl.Utf8,
                "old_value": pl.Object,
                "new_value": pl.Object,
                "action": pl.Utf8,
                "reviewer": pl.Utf8,
                "note": pl.Utf8,
                "time": pl.Datetime("us", "UTC"),
            },
        )

    def _live_actions(self) -> pl.DataFrame:
        hist = self.history()
        undone = {
            json.loads(n)["undoes"] for n, a in zip(hist["note"], hist["action"], strict=True) if a == "undo"
        }
        return hist.filter((pl.col("action") != "undo") & ~pl.col("id").is_in(list(undone)))

    def current(self) -> dict[tuple[str, str], dict[str, Any]]:
        """The live correction per (doc_id, field): the latest edit or verification not undone."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for row in self._live_actions().sort("id").iter_rows(named=True):
            out[(row["doc_id"], row["field"])] = {
                "value": row["new_value"],
                "status": "corrected" if row["action"] == "edit" else "verified",
                "reviewer": row["reviewer"],
                "note": row["note"],
                "id": row["id"],
                "time": row["time"],
            }
        return out

    def apply(self, cells: pl.DataFrame) -> pl.DataFrame:
        """Overlay live corrections on a long cells frame (doc_id, field, value, status, ...).

        A verified cell keeps its extracted value; an edited cell takes the analyst's value, and its
        reader becomes 'human'. Cells keep their original value in `extracted_value` for review.
        """
        live = self.current()
        if not live or cells.is_empty():
            return cells
        values = cells["value"].to_list()
        statuses = cells["status"].to_list()
        readers = cells["reader"].to_list() if "reader" in cells.columns else [None] * len(cells)
        for i, key in enumerate(zip(cells["doc_id"], cells["field"], strict=True)):
            c = live.get(key)
            if c is None:
                continue
            statuses[i] = c["status"]
            if c["status"] == "corrected":
                values[i] = c["value"]
                readers[i] = "human"
        dtype = cells.schema["value"]
        out = cells.with_columns(
            pl.Series("extracted_value", cells["value"].to_list(), dtype=dtype, strict=False),
            pl.Series("status", statuses, dtype=pl.Utf8),
        )
        out = out.with_columns(pl.Series("value", values, dtype=dtype, strict=False))
        if "reader" in cells.columns:
            out = out.with_columns(pl.Series("reader", readers, dtype=pl.Utf8))
        return out

    # -- export ------------------------------------------------------------------------------
    def export_gold(
        self,
        path: str | Path,
        *,
        documents: pl.DataFrame | None = None,
        descriptions: dict[str, str] | None = None,
        evidence: pl.DataFrame | None = None,
    ) -> int:
        """Write live corrections as gold labels in the realdocs gold.jsonl format; returns the count.

        documents (doc_id + metadata such as symbol/year/doctype/language) and evidence (long cells with
        page and snippet) fill the descriptive columns when given.
        """
        meta = {r["doc_id"]: r for r in documents.iter_rows(named=True)} if documents is not None else {}
        ev = (
            {(r["doc_id"], r["field"]): r for r in evidence.iter_rows(named=True)}
            if evidence is not None
            else {}
        )
        descriptions = descriptions or {}
        lines = []
        for (doc_id, field), c in sorted(self.current().items()):
            m = meta.get(doc_id, {})
            e = ev.get((doc_id, field), {})
            value = c["value"] if c["status"] == "corrected" else e.get("value", c["value"])
            lines.append(
                {
                    "doc": doc_id,
                    "entity": m.get("entity") or m.get("symbol"),
                    "year": m.get("year"),
                    "doctype": m.get("doctype"),
                    "field": field,
                    "field_description": descriptions.get(field),
                    "value_text": None if value is None else str(value),
                    "value": value,
                    "unit": e.get("unit"),
                    "scale": "1",
                    "value_base_units": value if isinstance(value, int | float) else None,
                    "page": e.get("page"),
                    "snippet": e.get("snippet"),
                    "evidence": "correction" if c["status"] == "corrected" else "verified",
                    "period": m.get("year"),
                    "language": m.get("language"),
                    "note": c["note"],
                    "reviewer": c["reviewer"],
                }
            )
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in lines), "utf-8"
        )
        return len(lines)


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _default_reviewer() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "analyst"
