"""Rows as an analyst sees them: the extracted rows frame with the corrections ledger applied.

Extraction writes what the readers found; the ledger holds what people changed. Reading rows through
here is the one place the two meet, so every later stage (aggregate, answer, charts) sees corrections,
and a re-extraction never erases them. Every overlaid value is typed as its field (the plan's type, or
the one its column's dtype stands for) and must be of a known field and document: a value that does
not fit is a CorrectionError, never a silent null or a truncated number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from mdqa_kernel.rows.corrections import (
    CorrectionError,
    FieldTypes,
    Ledger,
    field_types_of,
    typed_value,
)

if TYPE_CHECKING:
    from mdqa_kernel.extract.result import ExtractionResult


def live_edits(ledger: Ledger, rows: pl.DataFrame) -> dict[tuple[str, str], Any]:
    """{(doc_id, field): value} for every live edit that concerns a document and a field of `rows`
    (a plan field of the ledger's scope when it has one; edits of another plan's fields stay out)."""
    docs = set(rows["doc_id"].to_list()) if "doc_id" in rows.columns else set()
    fields = set(rows.columns) - {"doc_id"}
    if ledger.scope is not None:
        fields &= set(ledger.scope.field_types)
    return {
        key: c["value"]
        for key, c in ledger.current().items()
        if c["status"] == "corrected" and key[0] in docs and key[1] in fields
    }


def corrected_rows(result: ExtractionResult | pl.DataFrame, ledger: Ledger | None = None) -> pl.DataFrame:
    """`result.rows` (an ExtractionResult, or a rows frame plus a ledger) with live edits applied."""
    rows = result if isinstance(result, pl.DataFrame) else result.rows
    if ledger is None:
        if isinstance(result, pl.DataFrame):
            return rows
        ledger = Ledger.for_extraction(result)
    edits = live_edits(ledger, rows)
    if not edits:
        return rows
    try:
        return apply_corrections(rows, edits, fields=ledger.scope.field_types if ledger.scope else None)
    except CorrectionError as e:  # a stored edit: say where it lives and how to remove it
        raise CorrectionError(
            f"{e}. The edit is stored in the corrections ledger of {ledger.workspace.path}; undo it with "
            f"Ledger({str(ledger.workspace.path)!r}).undo(doc_id, field) or record a valid value"
        ) from e


# The field type a rows column's dtype stands for, to type a correction when no plan is given.
_TYPE_OF_DTYPE: dict[pl.DataType, str] = {
    pl.Float64(): "number",
    pl.Float32(): "number",
    pl.Int64(): "integer",
    pl.Int32(): "integer",
    pl.Boolean(): "boolean",
    pl.Date(): "date",
    pl.String(): "text",
    pl.List(pl.String): "list_text",
}


def apply_corrections(
    rows: pl.DataFrame,
    corrections: Mapping[tuple[str, str], Any] | pl.DataFrame,
    *,
    fields: FieldTypes | None = None,
) -> pl.DataFrame:
    """Overlay corrected cells onto the rows frame: {(doc_id, field): value} or a (doc_id, field, value) frame.

    `fields` (a plan, its fields or a {field: type} map) types each value and names the fields that
    may be corrected; without it, any column but doc_id may be, typed as its dtype says. An unknown
    field or document, or a value that does not fit its type or column, is a CorrectionError.
    """
    if isinstance(corrections, pl.DataFrame):
        items = [((r["doc_id"], r["field"]), r["value"]) for r in corrections.iter_rows(named=True)]
    else:
        items = list(corrections.items())
    types = field_types_of(fields) if fields is not None else None
    docs = set(rows["doc_id"].to_list()) if "doc_id" in rows.columns else set()
    by_field: dict[str, dict[str, Any]] = {}
    for (doc_id, field_name), value in items:
        where = f"{doc_id}/{field_name}: "
        _check_cell(rows, docs, types, doc_id, field_name)
        by_field.setdefault(field_name, {})[doc_id] = _typed_for_column(
            value,
            types.get(field_name) if types else _TYPE_OF_DTYPE.get(rows.schema[field_name]),
            rows.schema[field_name],
            where,
        )
    updates = []
    for field_name, mapping in by_field.items():
        dtype = rows.schema[field_name]
        try:
            new = pl.Series(list(mapping.values()), dtype=dtype, strict=True)
        except (TypeError, OverflowError, pl.exceptions.PolarsError) as exc:
            raise CorrectionError(f"correction values for {field_name!r} do not fit {dtype}: {exc}") from exc
        hit = pl.col("doc_id").is_in(list(mapping))
        replaced = pl.col("doc_id").replace_strict(list(mapping), new, default=None, return_dtype=dtype)
        updates.append(pl.when(hit).then(replaced).otherwise(pl.col(field_name)).alias(field_name))
    return rows.with_columns(updates) if updates else rows


def _check_cell(
    rows: pl.DataFrame, docs: set[str], types: Mapping[str, str] | None, doc_id: str, field_name: str
) -> None:
    where = f"{doc_id}/{field_name}: "
    known = sorted(types) if types is not None else [c for c in rows.columns if c != "doc_id"]
    if field_name not in known:
        raise CorrectionError(
            f"{where}correction for unknown field {field_name!r}; the fields are {', '.join(known)}"
        )
    if field_name not in rows.columns:
        raise CorrectionError(
            f"{where}{field_name!r} is a plan field but these rows have no column for it; extract it "
            "first, or correct the rows of the extraction that has it"
        )
    if doc_id not in docs:
        raise CorrectionError(
            f"{where}correction for unknown document {doc_id!r}; the rows have {len(docs)} documents "
            f"({', '.join(sorted(docs)[:5])}{', …' if len(docs) > 5 else ''})"
        )


def _typed_for_column(value: Any, type_name: str | None, dtype: pl.DataType, where: str) -> Any:
    """The value typed as its field (when a type is known), checked to fit the column exactly."""
    if type_name is not None:
        return typed_value(value, type_name, where=where)
    if value is None:
        return None
    try:
        pl.Series([value], dtype=dtype, strict=True)
    except (TypeError, OverflowError, pl.exceptions.PolarsError) as exc:
        raise CorrectionError(f"{where}correction value {value!r} is not a {dtype}") from exc
    return value
