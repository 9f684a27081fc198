"""What every reader returns, and what every reader is given.

A reader turns (one document, one field) into a `ReadResult`: a typed value in the field's unit and
scale, a status (found / explicitly absent / not found / error), a confidence, and the evidence
(page, bbox or character span, verbatim snippet). All of it is plain, picklable data so that results
travel between processes (a local pool now, Ray later) and land in the store as JSON.

`DocumentView` is the reader's window on one document: metadata plus the parsed pages, words and
chunks (polars frames), and an on-demand table extractor. Readers never open the workspace
themselves; the run builds the view.

`READERS` names the reader classes: each registers itself in its own module (`@READERS.register`)
and says in `options` which `make_reader` keywords its constructor takes; other packages add
readers through the `mdqa.readers` entry-point group.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import polars as pl
from pydantic import BaseModel, Field

from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.parsing.pdf import CHUNKS_SCHEMA
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from mdqa_kernel.registry import Registry
from mdqa_kernel.text.fiscal_names import fiscal_naming, needs_name
from mdqa_kernel.text.holders import names_noncontrolling_income
from mdqa_kernel.text.language import CJK_RE
from mdqa_kernel.text.periods import ReportPeriod, counted_quarter, report_period
from mdqa_kernel.text.values import has_scaled_caption, standing_scale, to_json_value


class ReaderError(MdqaError):
    """A reader could not run at all (bad configuration, missing model); the task becomes an error row."""


class UnknownReaderError(ReaderError, UnknownNameError):
    """No reader is registered under the requested name."""


# Built-ins: the reader modules of this package (readers.table's __init__ imports its reader).
READERS: Registry[Any] = Registry(
    "reader",
    "mdqa.readers",
    packages=("mdqa_kernel.readers",),
    error=UnknownReaderError,
    hint=" or 'module:Class'",
)


class Status(StrEnum):
    FOUND = "found"
    ABSENT = "absent"  # the document says explicitly that the fact does not exist / does not apply
    NOT_FOUND = "not_found"
    ERROR = "error"
    # a value the reader is not sure of (confidence under REVIEW_BELOW): kept for a reviewer, never
    # used as an answer (`held_for_review`)
    NEEDS_REVIEW = "needs_review"


class Evidence(BaseModel):
    """Where a value was read: page (1-based), box in PDF points (x0, top, x1, bottom, origin top-left)
    or character span in the page text, and the verbatim snippet."""

    doc_id: str
    page: int | None = None
    bbox: tuple[float, float, float, float] | None = None
    char_span: tuple[int, int] | None = None
    snippet: str = ""
    reader: str = ""


class Choice(BaseModel):
    """One candidate reading of a cell as a deterministic reader ranked it: the value typed and scaled
    for the field, and where it is printed. The cascade shows a reader's choices to the LLM, which
    picks one by its number: the value returned is this one, never a number the model typed."""

    value: Any
    printed: str  # the value as the page prints it ("28,455", "(1,234)", "12.5%")
    kind: str  # the finder: table | key_value | prose | statement | ...
    page: int
    snippet: str = ""  # the row or line it was read from
    label: str = ""  # the row label, where the value is a table cell
    column: str = ""  # the column header above the cell, where one names a period
    period: str | None = None  # asked | other: whether the column's period is the one the field asks for
    bbox: tuple[float, float, float, float] | None = None
    char_span: tuple[int, int] | None = None
    scale: float | None = None  # the printed scale applied to `printed` (1e3 for "in thousands")
    scale_word: str | None = None
    score: float = 0.0  # the reader's own score, the rank order

    def evidence(self, doc_id: str, reader: str) -> Evidence:
        return Evidence(
            doc_id=doc_id,
            page=self.page,
            bbox=self.bbox,
            char_span=self.char_span,
            snippet=self.snippet,
            reader=reader,
        )


class ReadResult(BaseModel):
    """One cell: the value of one field in one document, with its provenance."""

    doc_id: str
    field: str
    reader: str
    status: Status
    value: Any = None
    unit: str | None = None
    scale: float | None = None  # the printed scale that was applied (1e4 for a 万元 table)
    confidence: float = 0.0
    evidence: Evidence | None = None
    message: str = ""
    supported: bool | None = None  # LLM reader: did the quote occur in the retrieved text?
    llm_calls: int = 0
    cache_hits: int = 0
    trail: list[str] = Field(default_factory=list)  # cascade: the readers tried, in order

    @property
    def found(self) -> bool:
        return self.status == Status.FOUND

    def to_json_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        data["value"] = to_json_value(self.value) if not isinstance(self.value, list) else self.value
        return data


def held_for_review(result: ReadResult, below: float = REVIEW_BELOW) -> ReadResult:
    """`result`, or, when it is a found value under `below`, a copy with status NEEDS_REVIEW that keeps
    the value, the evidence and the reason: what an extraction returns, whichever reader read it."""
    if result.status != Status.FOUND or result.confidence >= below:
        return result
    note = f"needs review: confidence {result.confidence:.2f} is under {below:g}"
    message = "; ".join(m for m in (note, result.message) if m)
    return result.model_copy(update={"status": Status.NEEDS_REVIEW, "message": message})


def not_found(doc_id: str, field_name: str, reader: str, message: str, confidence: float = 0.0) -> ReadResult:
    return ReadResult(
        doc_id=doc_id,
        field=field_name,
        reader=reader,
        status=Status.NOT_FOUND,
        message=message,
        confidence=confidence,
    )


def found(doc_id: str, field_name: str, reader: str, value: Any, **extra: Any) -> ReadResult:
    """A found value; `extra` sets the other ReadResult fields (confidence, evidence, unit, ...)."""
    return ReadResult(
        doc_id=doc_id, field=field_name, reader=reader, status=Status.FOUND, value=value, **extra
    )


def error_result(doc_id: str, field_name: str, reader: str, exc: BaseException) -> ReadResult:
    return ReadResult(
        doc_id=doc_id,
        field=field_name,
        reader=reader,
        status=Status.ERROR,
        message=f"{type(exc).__name__}: {exc}",
    )


_EMPTY_CHUNKS = CHUNKS_SCHEMA  # the parser's chunk columns, for a document without chunks


@dataclass
class DocumentView:
    """One parsed document as readers see it. `metadata` holds symbol, year, doctype, language…"""

    doc_id: str
    sha256: str = ""
    path: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    pages: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema={"page": pl.Int32, "text": pl.String})
    )
    words: pl.DataFrame | None = None
    chunks: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=_EMPTY_CHUNKS))
    tables: Callable[[int], list[list[list[str | None]]]] | None = None
    status: str = "ok"
    message: str = ""
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    _whole: DocumentView | None = field(default=None, repr=False)  # the document a restricted view reads

    @property
    def language(self) -> str:
        lang = self.metadata.get("language")
        if lang:
            return str(lang)
        text = "".join(self.pages["text"].head(3).to_list()) if self.pages.height else ""
        cjk = len(CJK_RE.findall(text))
        return "zh" if cjk > 0.1 * max(len(text), 1) else "en"

    @property
    def year(self) -> int | None:
        # "2021", 2021, "FY2016" and "2025Q3" all name their fiscal year by four digits.
        match = re.search(r"(?<!\d)(19|20)\d\d(?!\d)", str(self.metadata.get("year") or ""))
        return int(match.group(0)) if match else None

    def page_text(self, page: int) -> str:
        rows = self.pages.filter(pl.col("page") == page)
        return rows["text"][0] if rows.height else ""

    def cover_text(self) -> str:
        """The text of the document's first two pages, where a filing states the period it reports ("For
        the fiscal year ended January 28, 2023"). A view restricted to other pages keeps its document's
        (`readers.pages.restrict`): the period is the filing's, whichever pages are read."""

        def build(whole: DocumentView) -> str:
            first = sorted(whole.pages["page"].to_list())[:2] if whole.pages.height else []
            return "\n".join(whole.page_text(p) for p in first)

        return str(self._document_wide("cover_text", build))

    def standing_scales(self) -> list[tuple[int, float, str]]:
        """(page, factor, word) of each filing-wide scale declaration ("Unless otherwise noted, tabular
        dollars are in millions"), in page order; a restricted view keeps its document's."""

        def build(whole: DocumentView) -> list[tuple[int, float, str]]:
            out = []
            for page, text in whole.pages.select("page", "text").iter_rows():
                found = standing_scale(text or "")
                if found is not None:
                    out.append((int(page), found[0], found[1]))
            return sorted(out)

        return list(self._document_wide("standing_scales", build))

    def standing_scale(self, page: int) -> tuple[float, str] | None:
        """The filing-wide scale in force on `page`: the last declaration on it or before it."""
        before = [(f, w) for p, f, w in self.standing_scales() if p <= page]
        return before[-1] if before else None

    def captions_scaled(self) -> bool:
        """Whether the filing heads any table with a scale other than units ("(In millions)", "单位：万元");
        a restricted view keeps its document's."""
        return bool(
            self._document_wide("captions_scaled", lambda whole: has_scaled_caption(whole.pages["text"]))
        )

    def cover_period(self) -> ReportPeriod:
        """The period the metadata and the cover state (`text.periods.report_period`), before anything read
        from the pages; a restricted view keeps its document's."""
        return self._document_wide(
            "cover_period", lambda whole: report_period(whole.metadata, whole.cover_text())
        )

    def fiscal_naming(self) -> tuple[int, float] | None:
        """What the filing calls a fiscal year that ends in January, relative to the calendar year it
        ends in, and how sure (`text.fiscal_names.fiscal_naming`); None without reading the pages when the
        cover's period is not such a year. A restricted view keeps its document's."""

        def build(whole: DocumentView) -> tuple[int, float] | None:
            return fiscal_naming(whole._full_text()) if needs_name(whole.cover_period()) else None

        return self._document_wide("fiscal_naming", build)

    def counted_quarter(self) -> int | None:
        """Which quarter of its fiscal year a quarterly report is, counted from the year to date it prints
        (`text.periods.counted_quarter`), when neither its metadata nor its cover says; None otherwise. A
        restricted view keeps its document's."""

        def build(whole: DocumentView) -> int | None:
            report = whole.cover_period()
            if not report.quarterly or report.quarter is not None or report.end is None:
                return None
            return counted_quarter(whole._full_text(), report.end)

        return self._document_wide("counted_quarter", build)

    def noncontrolling_income(self) -> bool:
        """Whether the filing names income attributable to a noncontrolling interest anywhere
        (`text.statement_context.names_noncontrolling_income`); a restricted view keeps its document's."""
        return bool(
            self._document_wide(
                "noncontrolling_income", lambda whole: names_noncontrolling_income(whole._full_text())
            )
        )

    def _full_text(self) -> str:
        """The whole filing's text, pages joined, for the document-wide facts above: joined once."""
        return str(
            self._document_wide(
                "full_text", lambda whole: "\n".join(t or "" for t in whole.pages["text"].to_list())
            )
        )

    def _document_wide(self, key: str, build: Callable[[DocumentView], Any]) -> Any:
        """A fact of the whole filing (its cover, its scale declarations, its year's name): a view restricted
        to some pages asks its document, which computes it once, when a reader first needs it."""
        whole = self._whole or self
        return whole.memo(key, lambda: build(whole))

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        """Per-document cache for derived structures (line index, BM25 index) shared by all fields."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]


class FieldLike(Protocol):
    """What readers need from a plan field (mdqa_kernel.plan.ir.FieldSpec satisfies it)."""

    # Read-only properties, so a FieldSpec whose `type` is a Literal of names satisfies the protocol.
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def question(self) -> str: ...
    @property
    def unit(self) -> str | None: ...
    @property
    def scale(self) -> float: ...


class Reader(Protocol):
    """A reader: `read(doc, field, question)` → ReadResult. `name` and `config()` enter the task key."""

    name: str

    def config(self) -> dict[str, Any]: ...

    def read(self, doc: DocumentView, field: FieldLike, question: str) -> ReadResult: ...


def make_reader(name: str, **options: Any) -> Reader:
    """A reader by registered name, built from the `options` its class names (None values are left
    out, so the class default applies); or "module:Class", built from `options["custom"]`."""
    if ":" in name:
        module, _, cls_name = name.partition(":")
        try:
            return getattr(importlib.import_module(module), cls_name)(**options.get("custom", {}))
        except (ImportError, AttributeError) as e:
            raise UnknownReaderError(f"cannot load reader {name!r}: {e}") from e
    cls = READERS.get(name)
    build = getattr(cls, "from_options", None)
    if build is not None:  # a reader made of readers (the cascade) builds its parts from the options
        return build(**options)
    return cls(**pick_options(options, *getattr(cls, "options", ())))


def needs_llm(reader: Any) -> bool:
    """Whether `reader` names a registered reader that calls an LLM (its class says `needs_llm`), so
    the caller must give it a client or an LLM config."""
    return isinstance(reader, str) and reader in READERS and getattr(READERS.get(reader), "needs_llm", False)


def pick_options(options: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The given, non-None `options` among `keys`."""
    return {k: options[k] for k in keys if options.get(k) is not None}


def timed_read(
    reader: Reader, doc: DocumentView, field_spec: FieldLike, question: str
) -> tuple[ReadResult, float]:
    """Run one reader on one cell; any exception becomes an error result (a run never stops on one cell)."""
    t0 = time.perf_counter()
    try:
        result = reader.read(doc, field_spec, question)
    except Exception as exc:  # one bad cell must not stop the run: it becomes a row with the message
        result = error_result(doc.doc_id, field_spec.name, reader.name, exc)
    return result, time.perf_counter() - t0


def view_from_parse(
    parsed: Any, doc_id: str, metadata: dict[str, Any] | None = None, sha256: str = ""
) -> DocumentView:
    """A DocumentView from a parsing.ParseResult (used when no collection is at hand: tests, scripts)."""
    meta = dict(metadata or {})
    meta.setdefault("language", getattr(parsed, "language", None))
    return DocumentView(
        doc_id=doc_id,
        sha256=sha256,
        path=str(getattr(parsed, "path", "")),
        metadata=meta,
        pages=parsed.pages,
        words=parsed.words,
        chunks=parsed.chunks,
        status=getattr(parsed, "status", "ok"),
        message=getattr(parsed, "message", ""),
    )
