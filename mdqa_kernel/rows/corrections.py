"""The corrections ledger: an analyst's edits and verifications, durable in the workspace store.

Every operation is one SQLite transaction: an edit or a verification is one INSERT, and an undo reads
the live actions and appends its `undo` row inside the same write transaction (BEGIN IMMEDIATE), so N
concurrent undos of one cell cancel exactly N actions. The ledger is an overlay keyed by
(doc_id, field): it is applied when rows are read, so a re-extraction never erases it. Undo keeps the
full history. Every live correction of a known cell is also a gold label (`export_gold`).

A value is typed when it is written, from the plan's field types (`fieldtypes.coerce`, as a reader
types it), and only for a field and a document the ledger knows: a ledger that writes is opened with
its scope (`Ledger.for_extraction(result)`, or `Ledger(ws, fields=plan, doc_ids=...)`). A ledger
opened on a workspace alone reads and undoes but refuses to write, so an untyped value is never stored.
A stored value that does not fit its field (a row from an older mdqa) is an error when applied, never
a silent null.
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.store import Workspace, open_workspace
from mdqa_kernel.text.fieldtypes import FIELD_TYPES, FieldValueError, UnknownFieldTypeError
from mdqa_kernel.text.fieldtypes import field_type as field_type_named
from mdqa_kernel.text.values import to_json_value

if TYPE_CHECKING:
    from mdqa_kernel.extract.result import ExtractionResult

ACTIONS = ("edit", "verify", "undo")


class CorrectionError(MdqaError, ValueError):
    """A correction could not be recorded or applied (a value that does not fit the field's type, an
    unknown field or document, nothing to undo...)."""


class _TypedField(Protocol):
    """A plan field as the ledger needs it (a FieldSpec satisfies it)."""

    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...


class _HasFields(Protocol):
    """A plan: anything with typed `fields`."""

    @property
    def fields(self) -> Sequence[_TypedField]: ...


FieldTypes = Mapping[str, str] | _HasFields | Iterable[_TypedField | Mapping[str, Any]]
"""The plan's field types: a {field: type} map, a Plan, or its fields (FieldSpecs or {name, type} dicts)."""


def field_types_of(fields: FieldTypes) -> dict[str, str]:
    """{field: type name} from a map, a plan or a list of fields; every field needs a known type."""
    if isinstance(fields, Mapping):
        pairs: list[tuple[Any, Any]] = list(fields.items())
    else:
        listed = cast(Iterable[Any], getattr(fields, "fields", fields))
        pairs = [
            (f.get("name"), f.get("type")) if isinstance(f, Mapping) else (f.name, f.type) for f in listed
        ]
    out: dict[str, str] = {}
    for name, type_name in pairs:
        if not isinstance(name, str) or not isinstance(type_name, str):
            raise CorrectionError(
                f"field {name!r} has no type ({type_name!r}); give every field one of "
                f"{', '.join(FIELD_TYPES)} so that its corrections are typed"
            )
        try:
            field_type_named(type_name)
        except UnknownFieldTypeError as e:
            raise CorrectionError(f"field {name!r}: {e}") from e
        out[name] = type_name
    return out


def typed_value(value: Any, field_type: str, *, where: str = "") -> Any:
    """An edited value as its field type's Python value (`fieldtypes.coerce`, as a reader would type
    it) that also fits the type's column (an integer within Int64); blank is None. `where` prefixes
    the message ("doc/field: ")."""
    try:
        ftype = field_type_named(field_type)
    except UnknownFieldTypeError as e:
        raise CorrectionError(f"{where}{e}") from e
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        typed = ftype.coerce(value)
    except FieldValueError as e:
        raise CorrectionError(
            f"{where}{value!r} is not a valid {field_type} ({e}); enter {ftype.hint}"
        ) from e
    try:  # the column the value lands in: 1e20 is a whole number, but no Int64
        pl.Series([typed], dtype=ftype.dtype, strict=True)
    except (TypeError, OverflowError, pl.exceptions.PolarsError) as e:
        raise CorrectionError(
            f"{where}{value!r} is not a valid {field_type} (out of range: its column is {ftype.dtype}); "
            f"enter {ftype.hint} that fits"
        ) from e
    return typed


def typed_correction(value: Any, field_type: str, *, where: str = "") -> Any:
    """`typed_value` made JSON for the ledger (a date as YYYY-MM-DD); an empty edit clears the cell
    (None). The browser checks too; this is final."""
    return to_json_value(typed_value(value, field_type, where=where))


@dataclass(frozen=True)
class LedgerScope:
    """What a ledger may write: the plan's field types, the documents of the extraction and, when
    known, its exact (doc_id, field) cells (a field's `only` filter leaves some documents out)."""

    field_types: Mapping[str, str]
    doc_ids: frozenset[str]
    cells: frozenset[tuple[str, str]] | None = None

    @classmethod
    def of(
        cls,
        fields: FieldTypes,
        doc_ids: Iterable[str],
        cells: Iterable[tuple[str, str]] | None = None,
    ) -> LedgerScope:
        return cls(
            field_types=field_types_of(fields),
            doc_ids=frozenset(str(d) for d in doc_ids),
            cells=None if cells is None else frozenset((str(d), str(f)) for d, f in cells),
        )

    @classmethod
    def of_extraction(cls, result: ExtractionResult) -> LedgerScope:
        """The scope of one extraction: its plan's fields, its documents and the cells it reads."""
        return cls.of(result.plan, result.docs, [(t.doc_id, t.field) for t in result.tasks])

    def knows(self, doc_id: str, field: str) -> bool:
        if field not in self.field_types or doc_id not in self.doc_ids:
            return False
        return self.cells is None or (doc_id, field) in self.cells

    def type_of(self, doc_id: str, field: str) -> str:
        """The field's type name; a CorrectionError naming what is unknown otherwise."""
        if field not in self.field_types:
            raise CorrectionError(
                f"{doc_id}/{field}: unknown field {field!r}; the plan's fields are "
                f"{', '.join(sorted(self.field_types)) or '(none)'}"
            )
        self.check_document(doc_id, field)
        if self.cells is not None and (doc_id, field) not in self.cells:
            raise CorrectionError(
                f"{doc_id}/{field}: the plan does not read {field!r} from document {doc_id!r} "
                "(the field's `only` filter leaves it out); correct a cell the extraction has"
            )
        return self.field_types[field]

    def check_document(self, doc_id: str, field: str | None = None) -> None:
        if doc_id not in self.doc_ids:
            sample = ", ".join(sorted(self.doc_ids)[:5])
            raise CorrectionError(
                f"{doc_id}/{field or '*'}: unknown document {doc_id!r}; it is not one of the "
                f"{len(self.doc_ids)} documents of this extraction ({sample}{', …' if len(self.doc_ids) > 5 else ''})"
            )


class Ledger:
    """Read and write corrections of one workspace.

    `Ledger(ws)` reads (history, current, apply) and undoes; writing needs the scope, so that each
    value is typed and each cell checked: `Ledger.for_extraction(result)` or
    `Ledger(ws, fields=plan_or_types, doc_ids=documents)`.
    """

    def __init__(
        self,
        workspace: Workspace | str | Path | None = None,
        reviewer: str | None = None,
        *,
        fields: FieldTypes | None = None,
        doc_ids: Iterable[str] | None = None,
    ) -> None:
        self.workspace = open_workspace(workspace)
        self.reviewer = reviewer or _default_reviewer()
        if (fields is None) != (doc_ids is None):
            raise CorrectionError(
                "a ledger that writes needs both the plan's fields (with their types) and the documents: "
                "give fields= and doc_ids= together, or use Ledger.for_extraction(result)"
            )
        self.scope: LedgerScope | None = (
            LedgerScope.of(fields, doc_ids) if fields is not None and doc_ids is not None else None
        )

    @classmethod
    def for_extraction(cls, result: ExtractionResult, reviewer: str | None = None) -> Ledger:
        """The ledger of an extraction's workspace, scoped to its plan's fields and its cells."""
        return cls(result.workspace, reviewer).scoped(LedgerScope.of_extraction(result))

    def scoped(self, scope: LedgerScope) -> Ledger:
        """The same workspace and reviewer, writing within `scope`."""
        other = Ledger(self.workspace, self.reviewer)
        other.scope = scope
        return other

    # -- writing -----------------------------------------------------------------------------
    def edit(
        self,
        doc_id: str,
        field: str,
        new_value: Any,
        *,
        old_value: Any = None,
        note: str | None = None,
        reviewer: str | None = None,
    ) -> int:
        """Record a new value for one cell, typed by the field's type (blank clears the cell)."""
        typed = self._typed(doc_id, field, new_value, "edit")
        return self._append(doc_id, field, "edit", old_value, typed, reviewer, note)

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
        typed = self._typed(doc_id, field, value, "verify")
        return self._append(doc_id, field, "verify", typed, typed, reviewer, note)

    def undo(
        self, doc_id: str | None = None, field: str | None = None, *, reviewer: str | None = None
    ) -> int:
        """Cancel the latest live action (of that cell, of that document or field, or of the whole
        ledger; a scoped ledger only within its scope). The live actions are read inside the write
        transaction, so concurrent undos never cancel the same action twice."""
        if self.scope is not None:
            if doc_id is not None and field is not None:
                self.scope.type_of(doc_id, field)
            elif field is not None:
                _known_field(self.scope, field)
            elif doc_id is not None:
                self.scope.check_document(doc_id)
        with self.workspace.transaction() as conn:
            live = [
                r
                for r in _live_rows(conn, doc_id, field)
                if self.scope is None or self.scope.knows(r["doc_id"], r["field"])
            ]
            if not live:
                where = f" for {doc_id or '*'}/{field or '*'}" if doc_id or field else ""
                raise CorrectionError(f"nothing to undo{where}: the ledger has no live correction there")
            last = live[-1]
            return _insert(
                conn,
                last["doc_id"],
                last["field"],
                "undo",
                None,
                None,
                reviewer or self.reviewer,
                json.dumps({"undoes": last["id"]}),
            )

    def _typed(self, doc_id: str, field: str, value: Any, action: str) -> Any:
        if self.scope is None:
            raise CorrectionError(
                f"cannot {action} {doc_id}/{field}: this ledger was opened without the plan's fields and "
                "documents, so the value can be neither typed nor checked; open it with "
                "Ledger.for_extraction(result) or Ledger(workspace, fields={field: type}, doc_ids=[...])"
            )
        return typed_correction(value, self.scope.type_of(doc_id, field), where=f"{doc_id}/{field}: ")

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
            return _insert(conn, doc_id, field, action, old_value, new_value, reviewer or self.reviewer, note)

    # -- reading -----------------------------------------------------------------------------
    def history(self) -> pl.DataFrame:
        """Every action ever recorded, oldest first, values decoded from JSON (one consistent read)."""
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
        undone = _undone_ids(zip(hist["action"], hist["note"], strict=True))
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

    def stored_value(self, doc_id: str, field: str, correction: Mapping[str, Any]) -> Any:
        """A live correction's value, checked against the field's type when the scope knows it: a
        value that does not fit (written untyped by an older mdqa) is a CorrectionError that says how
        to remove it, never a null."""
        value = correction["value"]
        if self.scope is None or field not in self.scope.field_types:
            return value
        try:
            typed_value(value, self.scope.field_types[field], where=f"{doc_id}/{field}: ")
        except CorrectionError as e:
            raise CorrectionError(
                f"the ledger's correction #{correction['id']} holds a bad value: {e}. Undo it with "
                f"Ledger({str(self.workspace.path)!r}).undo({doc_id!r}, {field!r}) or record a valid value"
            ) from e
        return value

    def apply(self, cells: pl.DataFrame) -> pl.DataFrame:
        """Overlay live corrections on a long cells frame (doc_id, field, value, status, ...).

        A verified cell keeps its extracted value; an edited cell takes the analyst's value, and its
        reader becomes 'human'. Cells keep their original value in `extracted_value` for review. A
        corrected value that does not fit the field or the value column raises CorrectionError.
        """
        live = self.current()
        if not live or cells.is_empty():
            return cells
        values = cells["value"].to_list()
        statuses = cells["status"].to_list()
        readers = cells["reader"].to_list() if "reader" in cells.columns else [None] * len(cells)
        corrected: list[tuple[int, tuple[str, str], int]] = []
        for i, key in enumerate(zip(cells["doc_id"], cells["field"], strict=True)):
            c = live.get(key)
            if c is None:
                continue
            statuses[i] = c["status"]
            if c["status"] == "corrected":
                values[i] = self.stored_value(key[0], key[1], c)
                readers[i] = "human"
                corrected.append((i, key, c["id"]))
        dtype = cells.schema["value"]
        out = cells.with_columns(
            pl.Series("extracted_value", cells["value"].to_list(), dtype=dtype, strict=False),
            pl.Series("status", statuses, dtype=pl.Utf8),
        )
        out = out.with_columns(_value_column(values, dtype, corrected))
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
        """Write live corrections of the scope's cells as gold labels in the realdocs gold.jsonl
        format; returns the count. Corrections of other fields or documents (another plan's) are
        not this extraction's gold and stay out.

        documents (doc_id + metadata such as symbol/year/doctype/language) and evidence (long cells with
        page and snippet) fill the descriptive columns when given.
        """
        if self.scope is None:
            raise CorrectionError(
                "gold export needs to know which (document, field) cells are the plan's: open the ledger "
                "with Ledger.for_extraction(result) or Ledger(workspace, fields=..., doc_ids=...)"
            )
        meta = {r["doc_id"]: r for r in documents.iter_rows(named=True)} if documents is not None else {}
        ev = (
            {(r["doc_id"], r["field"]): r for r in evidence.iter_rows(named=True)}
            if evidence is not None
            else {}
        )
        descriptions = descriptions or {}
        lines = []
        for (doc_id, field), c in sorted(self.current().items()):
            if not self.scope.knows(doc_id, field):
                continue
            m = meta.get(doc_id, {})
            e = ev.get((doc_id, field), {})
            value = (
                self.stored_value(doc_id, field, c) if c["status"] == "corrected" else _evidence_value(e, c)
            )
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


# -- helpers -----------------------------------------------------------------------------------------
def _insert(
    conn: sqlite3.Connection,
    doc_id: str,
    field: str,
    action: str,
    old_value: Any,
    new_value: Any,
    reviewer: str,
    note: str | None,
) -> int:
    cur = conn.execute(
        "INSERT INTO corrections(doc_id, field, old_value, new_value, action, reviewer, note, created)"
        " VALUES (?,?,?,?,?,?,?,?)",
        (
            doc_id,
            field,
            json.dumps(old_value, ensure_ascii=False, default=str),
            json.dumps(new_value, ensure_ascii=False, default=str),
            action,
            reviewer,
            note,
            time.time(),
        ),
    )
    return int(cur.lastrowid or 0)


def _live_rows(conn: sqlite3.Connection, doc_id: str | None, field: str | None) -> list[sqlite3.Row]:
    """The live edits and verifications (oldest first), read on `conn`, i.e. inside the caller's
    transaction. An undo row carries its cell's doc_id and field, so the filter keeps it."""
    where = [(c, v) for c, v in (("doc_id", doc_id), ("field", field)) if v is not None]
    clause = " WHERE " + " AND ".join(f"{c} = ?" for c, _ in where) if where else ""
    rows = conn.execute(
        f"SELECT id, doc_id, field, action, note FROM corrections{clause} ORDER BY id",
        tuple(v for _, v in where),
    ).fetchall()
    undone = _undone_ids((r["action"], r["note"]) for r in rows)
    return [r for r in rows if r["action"] != "undo" and r["id"] not in undone]


def _undone_ids(actions: Iterable[tuple[str, str | None]]) -> set[int]:
    out: set[int] = set()
    for action, note in actions:
        if action == "undo" and note:
            out.add(int(json.loads(note)["undoes"]))
    return out


def _known_field(scope: LedgerScope, field: str) -> None:
    if field not in scope.field_types:
        raise CorrectionError(
            f"*/{field}: unknown field {field!r}; the plan's fields are {', '.join(sorted(scope.field_types))}"
        )


def _value_column(
    values: list[Any], dtype: pl.DataType, corrected: list[tuple[int, tuple[str, str], int]]
) -> pl.Series:
    """The overlaid value column in the cells' own dtype; a corrected value the dtype cannot hold is
    an error (a strict=False cast would have made it null)."""
    if dtype == pl.String:  # the cells frame shows values as text
        for i, _key, _id in corrected:
            values[i] = _as_text(values[i])
    series = pl.Series("value", values, dtype=dtype, strict=False)
    cast = series.to_list()
    for i, (doc_id, field), correction_id in corrected:
        if values[i] is not None and cast[i] is None:
            raise CorrectionError(
                f"{doc_id}/{field}: the ledger's correction #{correction_id} ({values[i]!r}) does not fit "
                f"the cells' {dtype} value column; undo it or record a value of the field's type"
            )
    return series


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        return f"{value:.15g}"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _evidence_value(evidence: Mapping[str, Any], correction: Mapping[str, Any]) -> Any:
    """A verified cell's value: the extracted typed value (value_json) when the evidence has it."""
    if evidence.get("value_json") is not None:
        return json.loads(evidence["value_json"])
    return evidence.get("value", correction["value"])


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _default_reviewer() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "analyst"
