"""Collections: a set of PDF documents with typed metadata, parsed once and kept in the workspace.

    coll = Collection.build("pdfs/", metadata="metadata.csv", workspace="ws")
    coll.where(year=2021, doctype=["A股年报"]).documents
    coll.chunks(doc_id)            # what retrieval reads

Building hashes every file, reuses any parse already in the workspace (same sha256 and parser
version), parses the rest in worker processes and commits each result as it arrives. Bad files and
bad metadata rows never stop a build: they become documents with status 'error' and a message.
"""

from __future__ import annotations

import errno
import hashlib
import html
import json
import os
import re
import stat
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.collection.files import inspect
from mdqa_kernel.collection.metadata import (
    CollectionError,
    DocEntry,
    MetadataError,
    PdfDirError,
    mudabench_metadata,
    plan_documents,
    read_metadata,
)
from mdqa_kernel.errors import UnknownNameError
from mdqa_kernel.parsing import cache as parse_cache
from mdqa_kernel.parsing.pdf import PARSER_VERSION
from mdqa_kernel.parsing.tables import Table, extract_tables
from mdqa_kernel.store import StoreError, Workspace, open_workspace, stable_hash

__all__ = [
    "BuildStats",
    "Collection",
    "CollectionError",
    "CollectionNotFoundError",
    "DocumentNotFoundError",
    "MetadataError",
    "PdfDirError",
]

DEFAULT_NAME = "default"
DOC_SCHEMA = {
    "doc_id": pl.String,
    "path": pl.String,
    "sha256": pl.String,
    "n_pages": pl.Int64,
    "language": pl.String,
    "status": pl.String,
    "error_kind": pl.String,
    "message": pl.String,
}


class CollectionNotFoundError(CollectionError):
    """No collection of that name in the workspace."""


class DocumentNotFoundError(CollectionError, UnknownNameError):
    """No document with that id in the collection, or it has no parsed pages (a KeyError too, whose
    message UnknownNameError keeps unquoted)."""


@dataclass
class BuildStats:
    """What one build did: how many documents were parsed now and how many came from the cache."""

    documents: int
    parsed: int
    cached: int
    not_parsed: int  # documents with a metadata or file problem (nothing to parse)
    seconds: float
    pages_parsed: int
    pages_ocr: int = 0  # of the pages parsed, those without a text layer that OCR read

    def line(self) -> str:
        ocr = f" ({self.pages_ocr} read by OCR)" if self.pages_ocr else ""
        return (
            f"{self.documents} documents: {self.parsed} parsed, {self.cached} from cache, "
            f"{self.not_parsed} not parseable; {self.pages_parsed} pages parsed{ocr} in {self.seconds:.1f} s"
        )


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name)[:40] + "-" + stable_hash(name)[:8]


class Collection:
    """A named set of documents in a workspace. `documents` is a polars frame: doc_id, path, sha256,
    n_pages, language, status, error_kind, message, then the metadata columns."""

    def __init__(
        self, workspace: Workspace, name: str, documents: pl.DataFrame, spec: dict[str, Any] | None = None
    ) -> None:
        self.workspace = workspace
        self.name = name
        self.documents = documents
        self.spec = spec or {}
        self.last_build: BuildStats | None = None

    # -- building ------------------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        pdf_dir: str | Path,
        metadata: str | Path | pl.DataFrame | Sequence[dict[str, Any]] | None = None,
        *,
        workspace: str | Path | Workspace | None = None,
        name: str = DEFAULT_NAME,
        jobs: int | None = None,
        progress: bool = True,
        executor: Any | None = None,
    ) -> Collection:
        """Build (or rebuild) collection `name` from a folder of PDFs and a metadata table. `executor`:
        where the parsing runs (`mdqa_kernel.extract.executors.make_executor("ray", …)`); by default
        `jobs` processes on this machine."""
        ws = open_workspace(workspace)
        meta_df, label = read_metadata(metadata) if metadata is not None else (None, "")
        entries, meta = plan_documents(pdf_dir, meta_df, label)
        spec = {"pdf_dir": str(Path(pdf_dir).resolve()), "metadata": label or None}
        return cls._build(ws, name, entries, meta, spec, jobs, progress, executor)

    @classmethod
    def from_mudabench(
        cls,
        dataset: str | Path | Sequence[dict[str, Any]],
        pdf_dir: str | Path,
        *,
        workspace: str | Path | Workspace | None = None,
        name: str = DEFAULT_NAME,
        jobs: int | None = None,
        progress: bool = True,
    ) -> Collection:
        """A collection of the documents a MuDABench question file names, from `<id>.pdf` files.
        Metadata: doc_id, symbol, year, doctype (the value_* gold fields are left out)."""
        ws = open_workspace(workspace)
        meta = mudabench_metadata(dataset)
        entries, meta = plan_documents(pdf_dir, meta, "the MuDABench metadata")
        spec = {
            "pdf_dir": str(Path(pdf_dir).resolve()),
            "metadata": f"mudabench:{dataset if isinstance(dataset, str | Path) else 'records'}",
        }
        return cls._build(ws, name, entries, meta, spec, jobs, progress)

    @classmethod
    def _build(
        cls,
        ws: Workspace,
        name: str,
        entries: list[DocEntry],
        meta: pl.DataFrame,
        spec: dict[str, Any],
        jobs: int | None,
        progress: bool,
        executor: Any | None = None,
    ) -> Collection:
        t0 = time.perf_counter()
        shas = _hash_files(entries, Path(spec["pdf_dir"]))
        hits = parse_cache.cached(ws, shas.values())
        spec["metadata_file"] = ws.write_parquet(meta, f"parquet/collections/{_slug(name)}/metadata.parquet")
        rows = [_document_row(name, e, shas.get(e.doc_id), hits) for e in entries]
        _save_collection(ws, name, spec, rows)
        todo = list(
            {sha: str(e.path) for e in entries if (sha := shas.get(e.doc_id)) and sha not in hits}.items()
        )
        pages = pages_ocr = 0

        def on_done(record: dict[str, Any]) -> None:
            nonlocal pages, pages_ocr
            pages += record["n_pages"] or 0
            pages_ocr += len(json.loads(record.get("ocr_pages") or "[]"))
            parse_cache.commit(ws, record, lambda conn: _set_status(conn, name, record))

        config = {
            "collection": name,
            **spec,
            "documents": len(entries),
            "to_parse": len(todo),
            "executor": getattr(executor, "name", "local"),
        }
        with ws.run("collection build", config) as summary:  # a killed build is marked interrupted later
            parse_cache.parse_many(
                ws, todo, on_done, jobs=jobs, progress=progress, desc=f"parsing {name}", executor=executor
            )
            summary.update(
                parsed=len(todo), pages=pages, pages_ocr=pages_ocr, seconds=time.perf_counter() - t0
            )
        coll = cls.open(ws, name)
        not_parsed = sum(1 for e in entries if e.doc_id not in shas)
        n_cached = sum(1 for e in entries if shas.get(e.doc_id) in hits)
        coll.last_build = BuildStats(
            len(entries), len(todo), n_cached, not_parsed, time.perf_counter() - t0, pages, pages_ocr
        )
        return coll

    @classmethod
    def open(cls, workspace: str | Path | Workspace, name: str = DEFAULT_NAME) -> Collection:
        """Reopen a built collection from the workspace store."""
        try:
            ws = open_workspace(workspace, create=False)
        except StoreError as e:
            raise CollectionNotFoundError(str(e)) from e
        found = ws.query("SELECT spec FROM collections WHERE name=?", (name,))
        if not found:
            names = cls.names(ws)
            raise CollectionNotFoundError(
                f"no collection {name!r} in workspace {ws.path} (it has: {', '.join(names) or 'none'}); "
                f"build it with: mdqa collection build PDF_DIR --metadata FILE --workspace {ws.path} --name {name}"
            )
        spec = json.loads(found[0]["spec"])
        return cls(ws, name, _load_documents(ws, name, spec), spec)

    @staticmethod
    def names(workspace: str | Path | Workspace) -> list[str]:
        ws = open_workspace(workspace)
        return [r["name"] for r in ws.query("SELECT name FROM collections ORDER BY name")]

    # -- selecting -----------------------------------------------------------------------------
    def where(self, *predicates: pl.Expr, **equals: Any) -> Collection:
        """Documents matching every condition: `where(year=2021, doctype=[...])` (a list/tuple/set
        means 'one of') and/or polars expressions, `where(pl.col("year") > 2021)`."""
        expr = pl.lit(True)
        described = [str(p) for p in predicates]
        for column, value in equals.items():
            if column not in self.documents.columns:
                raise CollectionError(
                    f"collection {self.name!r} has no column {column!r}; columns: {', '.join(self.documents.columns)}"
                )
            many = isinstance(value, list | tuple | set | frozenset)
            expr = expr & (pl.col(column).is_in(list(value)) if many else pl.col(column) == value)
            described.append(f"{column}={value!r}")
        for p in predicates:
            expr = expr & p
        try:
            docs = self.documents.filter(expr)
        except pl.exceptions.PolarsError as e:
            raise CollectionError(
                f"filter {', '.join(described)} failed on collection {self.name!r}: {e}; "
                f"column types are {dict(zip(self.documents.columns, map(str, self.documents.dtypes), strict=True))}"
            ) from e
        spec = {**self.spec, "filters": [*self.spec.get("filters", []), *described]}
        return Collection(self.workspace, self.name, docs, spec)

    def __len__(self) -> int:
        return self.documents.height

    @property
    def doc_ids(self) -> list[str]:
        return self.documents["doc_id"].to_list()

    # -- parsed content ------------------------------------------------------------------------
    def document(self, doc_id: str) -> dict[str, Any]:
        rows = self.documents.filter(pl.col("doc_id") == doc_id)
        if rows.height == 0:
            raise DocumentNotFoundError(
                f"no document {doc_id!r} in collection {self.name!r} ({len(self)} documents)"
            )
        return rows.row(0, named=True)

    def _parse_record(self, doc_id: str) -> dict[str, Any]:
        doc = self.document(doc_id)
        rows = self.workspace.query(
            "SELECT * FROM parses WHERE sha256=? AND parser_version=?", (doc["sha256"] or "", PARSER_VERSION)
        )
        if not rows or not rows[0]["pages_file"]:
            why = doc["message"] or "it has not been parsed"
            raise DocumentNotFoundError(f"document {doc_id!r} has no parsed pages: {why}")
        return dict(rows[0])

    def pages(self, doc_id: str) -> pl.DataFrame:
        """page, text (reading order), width, height, has_text."""
        return parse_cache.load_frame(self.workspace, self._parse_record(doc_id), "pages")

    def words(self, doc_id: str) -> pl.DataFrame:
        """page, line, text, x0, top, x1, bottom (points, top from the page top), char_start, char_end."""
        return parse_cache.load_frame(self.workspace, self._parse_record(doc_id), "words")

    def chunks(self, doc_id: str) -> pl.DataFrame:
        """chunk_id, page, kind ('text' | 'table_row'), text, box, char_start/char_end in the page text."""
        return parse_cache.load_frame(self.workspace, self._parse_record(doc_id), "chunks")

    def tables(self, doc_id: str, page: int) -> list[Table]:
        """pdfplumber's tables on one page (1-based), computed once and cached in the workspace."""
        doc = self.document(doc_id)
        if not doc["path"] or not Path(doc["path"]).is_file():
            raise DocumentNotFoundError(
                f"the PDF of {doc_id!r} is no longer at {doc['path']}; put it back or rebuild the collection"
            )
        return extract_tables(doc["path"], page, workspace=self.workspace, sha256=doc["sha256"])

    # -- display -------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """Counts by status, language, doctype and year, total pages, and the documents with problems."""
        docs = self.documents
        out: dict[str, Any] = {
            "name": self.name,
            "workspace": str(self.workspace.path),
            "documents": docs.height,
            "pages": int(docs["n_pages"].sum() or 0),
            "by_status": _counts(docs, "status"),
            "by_language": _counts(docs, "language"),
        }
        for column in ("doctype", "year"):
            if column in docs.columns:
                out[f"by_{column}"] = _counts(docs, column)
        if self.spec.get("filters"):
            out["filters"] = self.spec["filters"]
        problems = docs.filter(pl.col("status") != "ok").select("doc_id", "status", "error_kind", "message")
        out["problems"] = problems.head(50).to_dicts()
        if self.last_build is not None:
            out["last_build"] = asdict(self.last_build)
        return out

    def report(self) -> str:
        """Plain text for a terminal: one line per document (doc_id, pages, status, message), then a
        summary line with what the last build parsed and took from the cache."""
        docs = self.documents.select("doc_id", "n_pages", "status", "message")
        width = max([6, *(len(d) for d in docs["doc_id"].to_list())])
        lines = [f"{'doc_id':<{width}}  {'pages':>5}  {'status':<8}  message"]
        for doc_id, n_pages, status, message in docs.iter_rows():
            pages = "" if n_pages is None else n_pages
            lines.append(f"{doc_id:<{width}}  {pages:>5}  {status:<8}  {message or ''}".rstrip())
        d = self.describe()
        counts = ", ".join(f"{n} {s}" for s, n in d["by_status"].items())
        built = self.last_build.line() if self.last_build is not None else f"{d['documents']} documents"
        lines.append(f"{self.name}: {built}; status: {counts}; workspace {d['workspace']}")
        return "\n".join(lines)

    def report_data(self) -> dict[str, Any]:
        """The same as `report`, as JSON-ready data: the describe() summary and one dict per document."""
        docs = self.documents.select("doc_id", "n_pages", "status", "error_kind", "message")
        return {"summary": self.describe(), "documents": docs.to_dicts()}

    def __repr__(self) -> str:
        d = self.describe()
        status = ", ".join(f"{n} {s}" for s, n in d["by_status"].items())
        return f"<Collection {self.name!r}: {d['documents']} documents ({status}), {d['pages']} pages, {self.workspace.path}>"

    def _repr_html_(self) -> str:
        d = self.describe()
        esc = html.escape
        parts = [
            f"<div class='mdqa-collection'><b>Collection {esc(self.name)}</b>: {d['documents']} documents, "
            f"{d['pages']} pages &middot; <code>{esc(d['workspace'])}</code>"
        ]
        for key in ("by_status", "by_language", "by_doctype", "by_year"):
            if d.get(key):
                items = ", ".join(f"{esc(str(k))}: {v}" for k, v in d[key].items())
                parts.append(f"<div><i>{key[3:]}</i>: {items}</div>")
        if d.get("filters"):
            parts.append(f"<div><i>filters</i>: {esc('; '.join(d['filters']))}</div>")
        parts.append(html_table(self.documents.drop("path", "sha256").head(10)))
        if self.documents.height > 10:
            parts.append(f"<div>… {self.documents.height - 10} more</div>")
        parts.append("</div>")
        return "\n".join(parts)


# -- helpers -----------------------------------------------------------------------------------


def _hash_files(entries: list[DocEntry], root: Path) -> dict[str, str]:
    """doc_id -> sha256 for every document that has a readable file (others get an error). `root`
    is the PDF folder, to explain a file that was swapped after its check."""
    shas: dict[str, str] = {}
    for e in entries:
        if e.error_kind is not None or e.path is None:
            continue
        try:
            shas[e.doc_id] = _sha256_checked(e.path, e.ident)
        except FileSwappedError:
            _refuse_swapped(e, root)
        except OSError as err:
            e.error_kind, e.message = (
                "unreadable",
                f"{e.path} cannot be read ({err.strerror}); check permissions",
            )
    return shas


class FileSwappedError(CollectionError, OSError):
    """The file at a checked path is no longer the file that was checked (a link, another file)."""


def _sha256_checked(path: Path, ident: tuple[int, int] | None) -> str:
    """sha256 of the regular file checked at `path` (resolved, no link in it when checked). Opened
    without following a link and without blocking, then checked by fstat: a PDF swapped for a link
    out of the folder, for another file or for a FIFO after the folder was listed is refused here,
    unread, instead of being hashed (and parsed) or hanging the build."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as e:
        if e.errno == errno.ELOOP:  # the last part of the path became a link
            raise FileSwappedError(errno.ELOOP, "replaced by a symlink", str(path)) from e
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (ident is not None and (st.st_dev, st.st_ino) != ident):
            raise FileSwappedError(errno.EINVAL, "not the file that was checked", str(path))
        h = hashlib.sha256()
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _refuse_swapped(e: DocEntry, root: Path) -> None:
    """Refuse a document whose file changed after its check, with what its name leads to now (a
    link out of the folder is 'outside_folder', like one found by the check)."""
    again = inspect(e.listed or e.path or root, root)
    if again.ok:
        e.error_kind, e.message = (
            "changed",
            f"{e.listed or e.path} was replaced while the build read it; not read. Rebuild",
        )
    else:
        e.error_kind, e.message = again.error_kind, again.message
    e.path = None  # nothing later opens it


def _document_row(
    name: str, e: DocEntry, sha: str | None, hits: dict[str, dict[str, Any]]
) -> tuple[Any, ...]:
    if e.error_kind is not None:
        status, kind, message = "error", e.error_kind, e.message
    elif sha in hits:
        hit = hits[sha]
        status, kind, message = hit["status"], hit["error_kind"], hit["message"]
    else:
        status, kind, message = "pending", None, "not parsed yet (the build was interrupted?); rebuild"
    meta = json.dumps(e.metadata, ensure_ascii=False, default=str)
    return (name, e.doc_id, str(e.path) if e.path else None, sha, status, kind, message, meta)


def _save_collection(ws: Workspace, name: str, spec: dict[str, Any], rows: list[tuple[Any, ...]]) -> None:
    now = time.time()
    with ws.transaction() as conn:
        conn.execute(
            "INSERT INTO collections(name, spec, created, updated) VALUES (?,?,?,?) "
            "ON CONFLICT(name) DO UPDATE SET spec=excluded.spec, updated=excluded.updated",
            (name, json.dumps(spec, default=str), now, now),
        )
        conn.execute("DELETE FROM collection_documents WHERE collection=?", (name,))
        conn.executemany(
            "INSERT INTO collection_documents(collection, doc_id, path, sha256, status, error_kind, message, metadata) "
            "VALUES (?,?,?,?,?,?,?,?)",
            rows,
        )


def _set_status(conn: Any, name: str, record: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE collection_documents SET status=?, error_kind=?, message=? "
        "WHERE collection=? AND sha256=? AND status='pending'",
        (record["status"], record["error_kind"], record["message"], name, record["sha256"]),
    )


def _load_documents(ws: Workspace, name: str, spec: dict[str, Any]) -> pl.DataFrame:
    rows = ws.query(
        "SELECT d.doc_id, d.path, d.sha256, p.n_pages, p.language, d.status, d.error_kind, d.message, d.metadata "
        "FROM collection_documents d LEFT JOIN parses p ON p.sha256 = d.sha256 AND p.parser_version = ? "
        "WHERE d.collection = ? ORDER BY d.rowid",
        (PARSER_VERSION, name),
    )
    docs = pl.DataFrame([tuple(r)[:8] for r in rows], schema=DOC_SCHEMA, orient="row")
    meta_file = spec.get("metadata_file")
    if meta_file and (ws.path / meta_file).exists():
        meta = ws.read_parquet(meta_file)
    else:  # typed parquet lost: fall back to the JSON copy in SQLite (types inferred again)
        meta = pl.DataFrame([{"doc_id": r["doc_id"], **json.loads(r["metadata"])} for r in rows])
    if meta.width > 1:
        docs = docs.join(meta.unique("doc_id", keep="first"), on="doc_id", how="left", maintain_order="left")
    return docs


def _counts(docs: pl.DataFrame, column: str) -> dict[Any, int]:
    counts = docs.group_by(column).len().sort(column, nulls_last=True)
    return {k: int(v) for k, v in counts.iter_rows()}


def html_table(
    df: pl.DataFrame, *, missing: str = "", max_chars: int | None = 120, css_class: str = ""
) -> str:
    """A plain HTML table of a small frame, cells escaped (and cut to max_chars) for notebook views."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(missing if v is None else str(v))[:max_chars]}</td>" for v in row)
        + "</tr>"
        for row in df.iter_rows()
    )
    cls = f" class='{css_class}'" if css_class else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
