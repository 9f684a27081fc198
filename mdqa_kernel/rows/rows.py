"""Rows as an analyst sees them: the extracted rows frame with the corrections ledger applied.

Extraction writes what the readers found; the ledger holds what people changed. Reading rows through
here is the one place the two meet, so every later stage (aggregate, answer, charts) sees corrections,
and a re-extraction never erases them.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from mdqa_kernel.aggregate.run import apply_corrections
from mdqa_kernel.rows.corrections import Ledger


def live_edits(ledger: Ledger, rows: pl.DataFrame) -> dict[tuple[str, str], Any]:
    """{(doc_id, field): value} for every live edit that concerns a document and field of `rows`."""
    docs = set(rows["doc_id"].to_list()) if "doc_id" in rows.columns else set()
    return {
        key: c["value"]
        for key, c in ledger.current().items()
        if c["status"] == "corrected" and key[0] in docs and key[1] in rows.columns and key[1] != "doc_id"
    }


def corrected_rows(result: Any, ledger: Ledger | None = None) -> pl.DataFrame:
    """`result.rows` (an ExtractionResult, or a rows frame plus a ledger) with live edits applied."""
    rows = result if isinstance(result, pl.DataFrame) else result.rows
    if ledger is None:
        if isinstance(result, pl.DataFrame):
            return rows
        ledger = Ledger(result.workspace)
    edits = live_edits(ledger, rows)
    return apply_corrections(rows, edits) if edits else rows
