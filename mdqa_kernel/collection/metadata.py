"""Collection metadata: read a table (CSV, JSON, NDJSON, parquet) and match its rows to PDF files.

A row names its document by a file column (`file`, `path`, `filename`) or by an id column (`doc_id`,
`id`, `doc`, matched to `<id>.pdf`). Every problem becomes a per-document status with a message
that says where and what to do; only a table that cannot name documents at all raises MetadataError.

Choices (documented for users): a PDF in the folder that no metadata row names is kept as a
document with status 'error' (error_kind 'no_metadata_row') and is not parsed, because it cannot be
selected by metadata filters; rows that share an id become one 'duplicate_id' error document.
Files are untrusted (collection/files.py): a link or a row's path that leads out of the folder is
refused ('outside_folder') and never opened; dangling links, loops, folders named `x.pdf`, FIFOs and
devices get their own error status instead of vanishing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.collection.files import MISSING, FolderEntry, inspect, scan_folder
from mdqa_kernel.errors import MdqaError

FILE_COLUMNS = ("file", "path", "filename")
ID_COLUMNS = ("doc_id", "id", "doc")
# Columns of Collection.documents that metadata may not overwrite: clashing ones get a 'meta_' prefix.
RESERVED = ("doc_id", "path", "sha256", "n_pages", "language", "status", "error_kind", "message")
_LEADING_ZERO = re.compile(r"^0\d+$")


class CollectionError(MdqaError):
    """A collection could not be built, opened or queried."""


class MetadataError(CollectionError):
    """The metadata table cannot be read or does not name documents."""


class PdfDirError(CollectionError):
    """The PDF folder is missing or is not a folder."""


@dataclass
class DocEntry:
    """One planned document: where its PDF is and any problem found before parsing."""

    doc_id: str
    path: Path | None
    metadata: dict[str, Any] = field(default_factory=dict)
    error_kind: str | None = None
    message: str = ""
    listed: Path | None = None  # the folder entry this document stands for (even when refused)
    ident: tuple[int, int] | None = None  # (st_dev, st_ino) of `path` when it was checked


def read_metadata(source: str | Path | pl.DataFrame | Sequence[dict[str, Any]]) -> tuple[pl.DataFrame, str]:
    """The metadata as a typed polars frame, plus a label naming it in messages."""
    if isinstance(source, pl.DataFrame):
        return source, "the metadata frame"
    if not isinstance(source, str | Path):
        return pl.DataFrame(list(source), infer_schema_length=None), "the metadata records"
    path = Path(source)
    if not path.is_file():
        raise MetadataError(
            f"metadata file {path} does not exist; pass --metadata with a CSV, JSON or parquet file"
        )
    suffix = path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv", ".txt"):
            return _read_csv(path, "\t" if suffix == ".tsv" else ","), str(path)
        if suffix in (".jsonl", ".ndjson"):
            return pl.read_ndjson(path), str(path)
        if suffix == ".json":
            return pl.read_json(path), str(path)
        if suffix in (".parquet", ".pq"):
            return pl.read_parquet(path), str(path)
    except (pl.exceptions.PolarsError, OSError, ValueError) as e:
        raise MetadataError(
            f"metadata file {path} could not be read ({type(e).__name__}: {e}); check its format"
        ) from e
    raise MetadataError(
        f"metadata file {path} has an unknown format '{suffix}'; use .csv, .tsv, .json, .jsonl or .parquet"
    )


def _read_csv(path: Path, sep: str) -> pl.DataFrame:
    """Typed CSV read that keeps codes like '002142' as text (type inference would drop the zeros)."""
    raw = pl.read_csv(path, separator=sep, infer_schema=False)
    keep_text = {
        c: pl.String
        for c in raw.columns
        if c.lower() in FILE_COLUMNS + ID_COLUMNS
        or raw[c].drop_nulls().str.contains(_LEADING_ZERO.pattern).any()
    }
    return pl.read_csv(path, separator=sep, infer_schema_length=None, schema_overrides=keep_text)


def _key_columns(df: pl.DataFrame, label: str) -> tuple[str | None, str | None]:
    lower = {c.lower(): c for c in df.columns}
    file_col = next((lower[c] for c in FILE_COLUMNS if c in lower), None)
    id_col = next((lower[c] for c in ID_COLUMNS if c in lower), None)
    if file_col is None and id_col is None:
        raise MetadataError(
            f"{label} has columns {df.columns} but none names a document; expected a file column "
            f"({', '.join(FILE_COLUMNS)}) or an id column ({', '.join(ID_COLUMNS)}, matched to <id>.pdf). "
            "Rename the column that holds file names or ids."
        )
    if df.height == 0:
        raise MetadataError(f"{label} has no rows; add one row per document")
    return file_col, id_col


def _check_dir(pdf_dir: Path) -> None:
    if not pdf_dir.exists():
        raise PdfDirError(f"PDF folder {pdf_dir} does not exist; check the path")
    if not pdf_dir.is_dir():
        raise PdfDirError(f"{pdf_dir} is a file, not a folder of PDFs; pass the folder that holds them")


def list_entries(pdf_dir: str | Path) -> list[FolderEntry]:
    """Every `*.pdf` name in the folder, each a readable file inside it or an error saying why not."""
    pdf_dir = Path(pdf_dir)
    _check_dir(pdf_dir)
    return scan_folder(pdf_dir)


def list_pdfs(pdf_dir: str | Path) -> list[Path]:
    """The PDFs of the folder that may be read (see `list_entries` for the refused ones)."""
    return [e.path for e in list_entries(pdf_dir) if e.ok]


def free_columns(df: pl.DataFrame, file_col: str | None, id_col: str | None) -> pl.DataFrame:
    """Metadata columns other than the keys, renamed away from the reserved document columns."""
    free = df.drop([c for c in (file_col, id_col) if c is not None])
    return free.rename({c: f"meta_{c}" for c in free.columns if c in RESERVED})


def _accepted(doc_id: str, entry: FolderEntry) -> DocEntry:
    """A document whose file passed the checks: its path is the resolved file that was checked (not
    the listed name, which may be a link someone re-points later), with that file's identity."""
    return DocEntry(doc_id, entry.target, listed=entry.path, ident=entry.ident)


def _refused(doc_id: str, entry: FolderEntry, meta: dict[str, Any], where: str = "") -> DocEntry:
    """A document whose file is refused: no path is kept, so nothing later opens it."""
    return DocEntry(doc_id, None, meta, entry.error_kind, where + entry.message, listed=entry.path)


def plan_documents(
    pdf_dir: str | Path, metadata: pl.DataFrame | None, label: str = ""
) -> tuple[list[DocEntry], pl.DataFrame]:
    """Match metadata rows to files. Returns the documents in metadata order (then unnamed PDFs)
    and the typed metadata frame: doc_id plus the free columns, one row per document."""
    listed = list_entries(pdf_dir)
    if metadata is None:
        plain = [_accepted(e.path.stem, e) if e.ok else _refused(e.path.stem, e, {}) for e in listed]
        return _dedupe(plain, {}, label), pl.DataFrame({"doc_id": [e.doc_id for e in plain]})
    file_col, id_col = _key_columns(metadata, label)
    free = free_columns(metadata, file_col, id_col)
    by_name = {e.path.name.lower(): e for e in listed}
    root = Path(pdf_dir).resolve()
    entries: list[DocEntry] = []
    rows: dict[str, list[int]] = {}
    for i, row in enumerate(metadata.iter_rows(named=True)):
        entry = _match_row(Path(pdf_dir), root, by_name, row, file_col, id_col, i + 1, label)
        entry.metadata = free.row(i, named=True)
        rows.setdefault(entry.doc_id, []).append(i + 1)
        entries.append(entry)
    named = {e.path.resolve() for e in entries if e.path is not None}
    claimed = {os.path.abspath(e.listed) for e in entries if e.listed is not None}
    known = {e.doc_id for e in entries}
    for f in listed:
        if os.path.abspath(f.path) in claimed or (f.target is not None and f.target in named):
            continue
        p = f.path
        doc_id = p.stem if p.stem not in known else p.name
        empty = dict.fromkeys(free.columns)
        if not f.ok:  # its own problem says more than a missing metadata row
            entries.append(_refused(doc_id, f, empty))
            continue
        entries.append(
            DocEntry(
                doc_id,
                p,
                empty,
                "no_metadata_row",
                f"{p.name} is in {pdf_dir} but no row of {label} names it; add a row for it "
                "(or remove the file) and rebuild",
            )
        )
    entries = _dedupe(entries, rows, label)
    meta = pl.DataFrame(
        [{"doc_id": e.doc_id, **e.metadata} for e in entries],
        schema={"doc_id": pl.String, **free.schema},
    )
    return entries, meta


def _match_row(
    pdf_dir: Path,
    root: Path,
    by_name: dict[str, FolderEntry],
    row: dict[str, Any],
    file_col: str | None,
    id_col: str | None,
    line: int,
    label: str,
) -> DocEntry:
    file_value = row.get(file_col) if file_col else None
    id_value = row.get(id_col) if id_col else None
    if file_value is None and id_value is None:
        return DocEntry(
            f"row-{line}", None, {}, "missing_key", f"{label} row {line}: no file name and no id; fill one in"
        )
    if file_value is not None:
        name = str(file_value)
        doc_id = str(id_value) if id_value is not None else Path(name).stem
        candidate = Path(name) if Path(name).is_absolute() else pdf_dir / name
    else:
        doc_id = str(id_value)
        name = f"{doc_id}.pdf"
        candidate = pdf_dir / name
    # Resolved and checked like a folder entry: `../../etc/passwd` or a link out is refused unopened.
    found = inspect(candidate, root)
    if found.error_kind == MISSING:
        found = by_name.get(Path(name).name.lower(), found)
    if found.error_kind == MISSING:
        return DocEntry(
            doc_id,
            None,
            {},
            "missing_file",
            f"{label} row {line} names {name}, which is not in {pdf_dir}; fix the name or add the PDF",
        )
    if not found.ok:
        return _refused(doc_id, found, {}, f"{label} row {line}: ")
    return _accepted(doc_id, found)


def _dedupe(entries: list[DocEntry], rows: dict[str, list[int]], label: str) -> list[DocEntry]:
    """Rows sharing an id collapse into one error document (which row is right is the user's call)."""
    out: dict[str, DocEntry] = {}
    for e in entries:
        if e.doc_id not in out:
            out[e.doc_id] = e
            continue
        first = out[e.doc_id]
        where = (
            f"rows {', '.join(map(str, rows.get(e.doc_id, [])))} of {label}" if rows else f"{pdf_dir_of(e)}"
        )
        first.error_kind = "duplicate_id"
        first.message = (
            f"doc_id {e.doc_id!r} appears more than once ({where}); make the ids unique and rebuild"
        )
    return list(out.values())


def pdf_dir_of(entry: DocEntry) -> str:
    return str(entry.path.parent) if entry.path else "the PDF folder"


def mudabench_metadata(dataset: str | Path | Sequence[dict[str, Any]]) -> pl.DataFrame:
    """doc_id, symbol, year, doctype for every document a MuDABench question file mentions.
    The value_* gold fields and the schema stay out: they are answers, not metadata."""
    import json

    if isinstance(dataset, str | Path):
        path = Path(dataset)
        if not path.is_file():
            raise MetadataError(
                f"MuDABench file {path} does not exist; pass the path to simple.json or complex.json"
            )
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise MetadataError(f"MuDABench file {path} is not valid JSON ({e})") from e
        label = str(path)
    else:
        records, label = list(dataset), "the MuDABench records"
    if isinstance(records, dict):
        records = [records]
    seen: dict[str, dict[str, Any]] = {}
    for q, record in enumerate(records):
        items = record.get("metadata") if isinstance(record, dict) else None
        if not isinstance(items, list):
            raise MetadataError(f"{label} record {q}: no 'metadata' list; is this a MuDABench question file?")
        for item in items:
            if "id" not in item:
                raise MetadataError(
                    f"{label} record {q}: a metadata entry has no 'id' (keys: {sorted(item)})"
                )
            doc = {
                "doc_id": str(item["id"]),
                "symbol": _text(item.get("symbol")),
                "year": item.get("year"),
                "doctype": item.get("doctype"),
            }
            seen.setdefault(doc["doc_id"], doc)
    if not seen:
        raise MetadataError(f"{label} names no documents")
    return pl.DataFrame(
        list(seen.values()),
        schema={"doc_id": pl.String, "symbol": pl.String, "year": pl.Int64, "doctype": pl.String},
        strict=False,
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
