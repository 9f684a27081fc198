"""Stage 4, rows: the extracted rows frame with the corrections ledger applied (`rows`:
`corrected_rows`, and `apply_corrections` for any {(doc_id, field): value} overlay); the ledger
itself (`corrections`), durable and keyed by (document, field), so a re-extraction never erases an edit."""

from __future__ import annotations

from mdqa_kernel.rows.corrections import CorrectionError, Ledger
from mdqa_kernel.rows.rows import apply_corrections, corrected_rows, live_edits

__all__ = ["CorrectionError", "Ledger", "apply_corrections", "corrected_rows", "live_edits"]
