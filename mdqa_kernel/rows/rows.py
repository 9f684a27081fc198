"""Rows as an analyst sees them: the extracted rows frame with the corrections ledger applied.

Extraction writes what the readers found; the ledger holds what people changed. Reading rows through
here is the one place the two meet, so every later stage (aggregate, answer, charts) sees corrections,
and a re-extraction never erases them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from mdqa_kernel.rows.corrections import CorrectionError, Ledger

if TYPE_CHECKING:
    from mdqa_kernel.extract.result import ExtractionResult


def live_edits(ledger: Ledger, rows: pl.DataFrame) -> dict[tuple[str, str], Any]:
    """{(doc_id, field): value} for every live edit that concerns a document and field of `rows`."""
    docs = set(rows["doc_id"].to_list()) if "doc_id" in rows.columns else set()
    return {
        key: c["value"]
        for key, c in ledger.current().items()
        if c["status"] == "corrected" and key[0] in docs and key[1] in rows.columns and key[1] != "doc_id"
    }


def corrected_rows(result: ExtractionResult | pl.DataFrame, ledger: Ledger | None = None) -> pl.DataFrame:
    """`result.rows` (an ExtractionResult, or a rows frame plus a ledger) with live edits applied."""
    rows = result if isinstance(result, pl.DataFrame) else result.rows
    if ledger is None:
        if isinstance(result, pl.DataFrame):
            return rows
        ledger = Ledger(result.workspace)
    edits = live_edits(ledger, rows)
    return apply_corrections(rows, edits) if edits else rows


def apply_corrections(
    rows: pl.DataFrame, corrections: Mapping[tuple[str, str], Any] | pl.DataFrame
) -> pl.DataFrame:
    """Overlay corrected cells onto the rows frame: {(doc_id, field): value} or a (doc_id, field, value) frame.

    Values are cast to the column's type; an unknown field or a value of the wrong type is a
    CorrectionError.
    """
    if isinstance(corrections, pl.DataFrame):
        items = [((r["doc_id"], r["field"]), r["value"]) for r in corrections.iter_rows(named=True)]
    else:
        items = list(corrections.items())
    by_field: dict[str, dict[str, Any]] = {}
    for (doc_id, field_name), value in items:
        if field_name not in rows.columns or field_name == "doc_id":
            raise CorrectionError(f"correction for unknown field {field_name!r}")
        by_field.setdefault(field_name, {})[doc_id] = value
    updates = []
    for field_name, mapping in by_field.items():
        dtype = rows.schema[field_name]
        try:
            new = pl.Series(list(mapping.values()), dtype=dtype, strict=False)
        except (TypeError, pl.exceptions.PolarsError) as exc:
            raise CorrectionError(f"correction values for {field_name!r} do not fit {dtype}: {exc}") from exc
        bad = [v for v, n in zip(mapping.values(), new.to_list(), strict=True) if v is not None and n is None]
        if bad:
            raise CorrectionError(f"correction value {bad[0]!r} for {field_name!r} is not a {dtype}")
        hit = pl.col("doc_id").is_in(list(mapping))
        replaced = pl.col("doc_id").replace_strict(list(mapping), new, default=None, return_dtype=dtype)
        updates.append(pl.when(hit).then(replaced).otherwise(pl.col(field_name)).alias(field_name))
    return rows.with_columns(updates) if updates else rows
