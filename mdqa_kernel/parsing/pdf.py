"""PDF parsing: text in reading order, word boxes and retrieval chunks for every page, fast.

The common path uses only pypdfium2 (about 40× faster than pdfplumber on real filings): one pass over
each page's characters gives the page text, words with boxes, lines, and chunks (`parsing.page`).
Tables are found
on demand, one page at a time, with pdfplumber (`extract_tables`), and cached in the workspace.
A page with drawn content but no text layer (a scan) is read by OCR (`parsing.ocr`, tesseract) when
an engine is installed: its page row and words say `source="ocr"`, each OCR word keeps its
confidence (`conf`, 0-100; null for text-layer words), and the result lists the pages in `ocr_pages`.

`parse_pdf` never raises on bad input: a file that is not a PDF, corrupt, encrypted, empty or
scanned comes back as a `ParseResult` whose status, error_kind and message say what happened and
what to do.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import polars as pl
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from mdqa_kernel.parsing import ocr
from mdqa_kernel.parsing.page import PageLayout, lay_out, page_chunks, page_words
from mdqa_kernel.text.language import CJK_RE

# Bump when the output of parse_pdf changes: cached parses are keyed by (sha256, PARSER_VERSION).
# pdfium-2: OCR of pages without a text layer; `source` on pages and words, `conf` on words.
# pdfium-3: OCR reads a page's inked region only (nearly blank pages cost nothing; a small logo is read).
PARSER_VERSION = "pdfium-3"

Status = Literal["ok", "partial", "error"]

PAGES_SCHEMA = {
    "page": pl.Int32,
    "text": pl.String,
    "width": pl.Float64,
    "height": pl.Float64,
    "has_text": pl.Boolean,  # the page has text, from its text layer or from OCR
    "source": pl.String,  # "text" (text layer), "ocr", or "none" (blank, unreadable, or OCR found nothing)
}
WORDS_SCHEMA = {
    "page": pl.Int32,
    "line": pl.Int32,
    "text": pl.String,
    "x0": pl.Float64,
    "top": pl.Float64,
    "x1": pl.Float64,
    "bottom": pl.Float64,
    "char_start": pl.Int32,
    "char_end": pl.Int32,
    "source": pl.String,  # "text" or "ocr"
    "conf": pl.Float64,  # OCR confidence 0-100; null for text-layer words
}
CHUNKS_SCHEMA = {
    "chunk_id": pl.Int32,
    "page": pl.Int32,
    "kind": pl.String,
    "text": pl.String,
    "x0": pl.Float64,
    "top": pl.Float64,
    "x1": pl.Float64,
    "bottom": pl.Float64,
    "char_start": pl.Int32,
    "char_end": pl.Int32,
}

_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]")


@dataclass
class ParseResult:
    """What parse_pdf found in one file. Picklable; frames are empty (with their schema) on error."""

    path: str
    status: Status
    error_kind: str | None = None
    message: str = ""
    n_pages: int = 0
    language: str = "unknown"
    scanned_pages: list[int] = field(default_factory=list)  # drawn pages without a text layer (OCR'd or not)
    ocr_pages: list[int] = field(default_factory=list)  # the scanned pages whose text OCR read
    ocr_missing: bool = False  # scanned pages were left unread because no OCR engine is installed
    pages: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=PAGES_SCHEMA))
    words: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=WORDS_SCHEMA))
    chunks: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=CHUNKS_SCHEMA))
    seconds: float = 0.0
    parser_version: str = PARSER_VERSION

    def __repr__(self) -> str:
        return (
            f"ParseResult({Path(self.path).name!r}, status={self.status!r}, error_kind={self.error_kind!r}, "
            f"n_pages={self.n_pages}, language={self.language!r}, chunks={self.chunks.height})"
        )


def guess_language(text: str) -> str:
    """'zh', 'ja', 'ko', 'en' or 'unknown', from the share of CJK characters among letters."""
    sample = text[:20000]
    cjk, kana, hangul, latin = (len(p.findall(sample)) for p in (CJK_RE, _KANA, _HANGUL, _LATIN))
    letters = cjk + kana + hangul + latin
    if letters == 0:
        return "unknown"
    if kana > 0.1 * letters:
        return "ja"
    if hangul > 0.3 * letters:
        return "ko"
    if cjk > 0.2 * letters:
        return "zh"
    return "en"


# -- the document ------------------------------------------------------------------------------


def _error(path: str, kind: str, message: str, t0: float, n_pages: int = 0) -> ParseResult:
    return ParseResult(path, "error", kind, message, n_pages=n_pages, seconds=time.perf_counter() - t0)


def _open(path: Path, t0: float, sha256: str | None = None) -> pdfium.PdfDocument | ParseResult:
    """Open with pdfium, or return the ParseResult that explains why the file cannot be read. The
    file is opened once and pdfium reads the bytes read then. Given `sha256` (the hash taken when a
    collection checked the file), the path is not followed if it became a link and the bytes must
    have that hash: a file swapped after the check is refused unparsed ('changed')."""
    data = _read_file(path, t0, sha256)
    return data if isinstance(data, ParseResult) else _open_bytes(data, str(path), t0, sha256)


def read_pdf_bytes(path: str | Path, *, sha256: str | None = None) -> bytes | ParseResult:
    """A file's bytes for a parser elsewhere (a worker on another machine), read as `parse_pdf` reads
    them, or the ParseResult that says why it cannot be read."""
    return _read_file(Path(path), time.perf_counter(), sha256)


def _read_file(path: Path, t0: float, sha256: str | None) -> bytes | ParseResult:
    name = str(path)
    try:
        data = _read_regular(path, follow=sha256 is None)
    except OSError as e:
        if e.errno == errno.ENOENT:
            return _error(name, "missing_file", f"{name} does not exist; check the path", t0)
        if e.errno == errno.ELOOP and sha256 is not None:
            return _error(
                name,
                "changed",
                f"{name} was replaced by a symlink after it was checked; not read. Rebuild",
                t0,
            )
        return _error(name, "unreadable", f"{name} cannot be read ({e.strerror}); check its permissions", t0)
    if data is None:
        return _error(
            name, "not_a_file", f"{name} is not a regular file (a FIFO, socket or device?); not read", t0
        )
    return data


def _open_bytes(data: bytes, name: str, t0: float, sha256: str | None) -> pdfium.PdfDocument | ParseResult:
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        return _error(
            name, "changed", f"{name} changed after it was checked (other bytes); not parsed. Rebuild", t0
        )
    head = data[:1024]
    if not head:
        return _error(name, "empty", f"{name} is an empty file (0 bytes); replace it with the real PDF", t0)
    if b"%PDF-" not in head:
        # What kind of file it looks like, never its bytes: the file may be anyone's (a link to a secret).
        return _error(
            name,
            "not_pdf",
            f"{name} is not a PDF (no %PDF- header; it looks like {_looks_like(head)}); "
            "remove it or convert it to PDF",
            t0,
        )
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        return _explain_open_failure(name, data, e, t0)


def _read_regular(path: Path, *, follow: bool) -> bytes | None:
    """The file's bytes, or None when `path` is not a regular file. Opened without blocking, so a FIFO
    (which would wait for a writer forever) is seen by fstat and never read; with follow=False a path
    that is a symlink fails with ELOOP."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    with os.fdopen(os.open(path, flags), "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        return f.read()


_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive (an Office document?)"),
    (b"\xd0\xcf\x11\xe0", "an old Office document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"{\\rtf", "an RTF document"),
)


def _looks_like(head: bytes) -> str:
    """A kind of file named from its first bytes ('an HTML page', 'text'), without quoting them."""
    for magic, kind in _SIGNATURES:
        if head.startswith(magic):
            return kind
    start = head.lstrip()[:15].lower()
    if start.startswith((b"<!doctype html", b"<html")):
        return "an HTML page"
    controls = sum(1 for b in head if b < 9 or (13 < b < 32 and b != 27))
    return "binary data" if controls else "text"


def _explain_open_failure(name: str, data: bytes, error: pdfium.PdfiumError, t0: float) -> ParseResult:
    """Classify a failed open from the file's bytes: pdfium's error code is process-global and can
    be stale (a zero-page file fails with the code left by the previous encrypted one)."""
    if b"/Encrypt" in data:
        return _error(
            name,
            "encrypted",
            f"{name} is password-protected; save an unencrypted copy (e.g. qpdf --decrypt) and rebuild",
            t0,
        )
    if re.search(rb"/Count\s+0\b", data) and not re.search(rb"/Count\s+[1-9]", data):
        return _error(
            name, "no_pages", f"{name} is a PDF with zero pages; replace it with the complete file", t0
        )
    detail = "truncated: no %EOF marker" if b"%%EOF" not in data[-2048:] else str(error)
    return _error(
        name, "corrupt", f"{name} is damaged and cannot be opened ({detail}); re-download or re-export it", t0
    )


def parse_pdf(path: str | Path, *, sha256: str | None = None) -> ParseResult:
    """Parse one PDF: pages, words and chunks from pypdfium2. Never raises on bad input. `sha256`:
    the hash of the file as checked (a collection build passes it), so a swapped file is refused."""
    t0 = time.perf_counter()
    path = Path(path)
    try:
        return _parse_opened(_open(path, t0, sha256), str(path), t0)
    except Exception as e:  # a parser bug or an exotic file must not take a whole build down
        return _unexpected(str(path), e, t0)


def parse_pdf_bytes(data: bytes, name: str, *, sha256: str | None = None) -> ParseResult:
    """Parse a PDF's bytes read elsewhere (`read_pdf_bytes`): a worker on another machine parses what
    the driver shipped. `name`: the file the messages name. Never raises on bad input."""
    t0 = time.perf_counter()
    try:
        return _parse_opened(_open_bytes(data, name, t0, sha256), name, t0)
    except Exception as e:
        return _unexpected(name, e, t0)


def _unexpected(name: str, error: Exception, t0: float) -> ParseResult:
    return _error(
        name, "parser_error", f"{name}: unexpected {type(error).__name__}: {error}; report this file", t0
    )


def _parse_opened(opened: pdfium.PdfDocument | ParseResult, name: str, t0: float) -> ParseResult:
    if isinstance(opened, ParseResult):
        return opened
    try:
        return _parse_document(opened, name, t0)
    finally:
        opened.close()


@dataclass
class _PageOut:
    """One page's rows for the frames: the page row, its words as the layout made them (line, text,
    box, offsets, then an OCR confidence), where they came from, and its chunk rows."""

    row: tuple[Any, ...]
    words: list[tuple[Any, ...]] = field(default_factory=list)
    source: str = "text"
    chunks: list[tuple[Any, ...]] = field(default_factory=list)


def _page_out(page_no: int, width: float, height: float, layout: PageLayout, source: str) -> _PageOut:
    has_text = bool(layout.words)
    row = (page_no, layout.text, width, height, has_text, source if has_text else "none")
    # In page order: by start offset, the text chunk before the table rows it contains.
    chunks = sorted(page_chunks(page_no, layout), key=lambda c: (c[-2], c[1] != "text"))
    return _PageOut(row, layout.words, source, chunks)


_LAYOUT_COLUMNS = ("line", "text", "x0", "top", "x1", "bottom", "char_start", "char_end")


def _words_frame(pages: list[_PageOut]) -> pl.DataFrame:
    """The words frame, built column by column (far quicker than from row tuples on 10^5 words)."""
    columns: dict[str, list[Any]] = {name: [] for name in WORDS_SCHEMA}
    for page in pages:
        n = len(page.words)
        if not n:
            continue
        transposed = list(zip(*page.words, strict=False))
        columns["page"].extend([page.row[0]] * n)
        for name, values in zip(_LAYOUT_COLUMNS, transposed, strict=False):
            columns[name].extend(values)
        columns["source"].extend([page.source] * n)
        # OCR words carry their confidence after the offsets; text-layer words have none.
        columns["conf"].extend(transposed[8] if page.source == "ocr" else [None] * n)
    return pl.DataFrame(columns, schema=WORDS_SCHEMA)


@dataclass
class _OcrOutcome:
    read: list[int] = field(default_factory=list)  # pages whose text OCR read
    failed: dict[int, str] = field(default_factory=dict)  # page -> why the engine failed
    engine: str | None = None  # None: no engine, the pages stay unread


def _ocr_pages(
    doc: pdfium.PdfDocument, pages: dict[int, _PageOut], scanned: list[int], language: str
) -> _OcrOutcome:
    """Read the scanned pages by OCR, replacing their (empty) rows in `pages`. A document without any
    text layer has no language yet: its first page is read with every language pack, the rest with
    those of the language that page shows (one pack is faster and misreads less)."""
    outcome = _OcrOutcome()
    lang = ocr.languages_for(language)
    if lang is None:
        return outcome
    outcome.engine = ocr.engine_name(lang)
    for page_no in scanned:
        if language == "unknown" and outcome.read:
            language = guess_language(pages[outcome.read[0]].row[1])
            lang = ocr.languages_for(language) or lang
        # A failing fallback costs its page, never the document's text pages.
        try:
            page = doc[page_no - 1]
            try:
                found = ocr.ocr_page(page, lang)
            finally:
                page.close()
        except (ocr.OcrError, pdfium.PdfiumError, OSError, ValueError) as e:
            outcome.failed[page_no] = str(e)
            continue
        if found:
            raw = [(w.text, w.x0, w.top, w.x1, w.bottom, w.conf) for w in found]
            _, _, width, height, _, _ = pages[page_no].row
            pages[page_no] = _page_out(page_no, width, height, lay_out(raw), "ocr")
            outcome.read.append(page_no)
    return outcome


def _parse_document(doc: pdfium.PdfDocument, name: str, t0: float) -> ParseResult:
    n_pages = len(doc)
    if n_pages == 0:
        return _error(
            name, "no_pages", f"{name} is a PDF with zero pages; replace it with the complete file", t0
        )
    pages: dict[int, _PageOut] = {}
    scanned: list[int] = []
    broken: list[int] = []
    for index in range(n_pages):
        page_no = index + 1
        try:
            page = doc[index]
            width, height = page.get_size()
            textpage = page.get_textpage()
            raw_words = page_words(textpage, height)
            textpage.close()
            # No text and nothing drawn is a blank page, not a scan: only pages with content need OCR.
            drawn = pdfium_c.FPDFPage_CountObjects(page.raw) > 0
            page.close()
        except pdfium.PdfiumError:
            broken.append(page_no)
            pages[page_no] = _PageOut((page_no, "", 0.0, 0.0, False, "none"))
            continue
        pages[page_no] = _page_out(page_no, width, height, lay_out(raw_words), "text")
        if not raw_words and drawn:
            scanned.append(page_no)
    # OCR after the text pages, so that their language picks the OCR language packs.
    outcome = _OcrOutcome()
    if scanned:
        text_language = guess_language("".join(p.row[1] for p in pages.values()))
        outcome = _ocr_pages(doc, pages, scanned, text_language)
    ordered = [pages[k] for k in sorted(pages)]
    page_rows = [p.row for p in ordered]
    frame_pages = pl.DataFrame(page_rows, schema=PAGES_SCHEMA, orient="row")
    words = _words_frame(ordered)
    chunk_rows = [c for p in ordered for c in p.chunks]
    chunks = pl.DataFrame([(k, *c) for k, c in enumerate(chunk_rows)], schema=CHUNKS_SCHEMA, orient="row")
    n_text = sum(1 for r in page_rows if r[4])
    status, kind, message = _verdict(name, n_pages, scanned, broken, n_text, outcome)
    language = guess_language("".join(r[1] for r in page_rows))
    return ParseResult(
        name,
        status,
        kind,
        message,
        n_pages,
        language,
        scanned_pages=scanned,
        ocr_pages=outcome.read,
        ocr_missing=bool(scanned) and outcome.engine is None,
        pages=frame_pages,
        words=words,
        chunks=chunks,
        seconds=time.perf_counter() - t0,
    )


def _page_list(pages: list[int]) -> str:
    """'page 3' or 'pages 2, 5 and 40 more'."""
    shown = ", ".join(map(str, pages[:10]))
    return (
        ("page " if len(pages) == 1 else "pages ")
        + shown
        + (f" and {len(pages) - 10} more" if len(pages) > 10 else "")
    )


def _unread_note(unread: list[int], outcome: _OcrOutcome) -> str:
    """Why scanned pages stayed unread, and what to do."""
    if outcome.engine is None:
        return f"no text layer (scanned?) and no OCR engine; {ocr.INSTALL_HINT} and rebuild to OCR them"
    failed = [p for p in unread if p in outcome.failed]
    if failed:
        return f"no text layer, and OCR failed ({outcome.failed[failed[0]]})"
    return f"no text layer, and OCR ({outcome.engine}) found no text"


def _verdict(
    name: str, n_pages: int, scanned: list[int], broken: list[int], n_text: int, outcome: _OcrOutcome
) -> tuple[Status, str | None, str]:
    unread = [p for p in scanned if p not in outcome.read]
    if n_text == 0:
        if broken and not scanned:
            return (
                "error",
                "corrupt",
                f"{name}: no page could be read (damaged file); re-download or re-export it",
            )
        if scanned:
            return (
                "error",
                "scanned_pages",
                f"{name}: none of its {n_pages} pages has a text layer (scanned images): {_unread_note(unread, outcome)}",
            )
        return "error", "no_text", f"{name}: all {n_pages} pages are blank; replace it with the complete file"
    notes = []
    if broken:
        notes.append(f"{_page_list(broken)} could not be read (damaged)")
    if unread:
        notes.append(f"{_page_list(unread)}: {_unread_note(unread, outcome)}")
    if outcome.read:  # read, but by OCR: said, not a problem
        notes.append(f"{_page_list(outcome.read)} read by OCR ({outcome.engine}; no text layer)")
    if broken or unread:
        kind = "scanned_pages" if unread else "corrupt"
        return "partial", kind, f"{name}: " + "; ".join(notes)
    return "ok", None, f"{name}: " + "; ".join(notes) if notes else ""
