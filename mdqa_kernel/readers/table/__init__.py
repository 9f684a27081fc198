"""The deterministic table reader: labels, period columns and scales in tables (`reader`), the
candidate facts it weighs (`candidates`: key-value lines, columns, counts, statements), facts stated
in sentences (`prose`), meeting votes (`votes`) and values derived from a table's other rows (`derived`)."""

from __future__ import annotations

from mdqa_kernel.readers.table.reader import TABLE_READER_VERSION, TableReader

__all__ = ["TABLE_READER_VERSION", "TableReader"]
