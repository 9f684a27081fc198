"""A lower layer: PDF pages to words, lines, chunks and tables (`pdf`), parsed in worker processes and
cached in the workspace by content hash (`cache`); pdfplumber tables for one page on demand (`tables`)."""

from __future__ import annotations

from mdqa_kernel.parsing.pdf import PARSER_VERSION, ParseResult, parse_pdf
from mdqa_kernel.parsing.tables import Table, TableExtractionError, extract_tables

__all__ = ["PARSER_VERSION", "ParseResult", "Table", "TableExtractionError", "extract_tables", "parse_pdf"]
