"""A reader that reads only the pages it is given: the statement pages an analyst points at, or a
benchmark's evidence pages (FinanceBench's `oracle` setting), with any other reader doing the reading.

    extract(plan, coll, "pages", inner="cascade", pages={doc_id: [statement_page, ...]}, client=llm)

The document view the inner reader sees holds those pages only (their text, words and chunks) and
its document's cover (the period the filing reports: `DocumentView.cover_text`); a document without
listed pages is read whole. The pages enter the task key, so a cached cell read from
other pages is never reused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from mdqa_kernel.readers.base import READERS, DocumentView, FieldLike, Reader, ReadResult, make_reader


@READERS.register("pages")
class PagesReader:
    """`inner` reads each document restricted to `pages[doc_id]` (1-based page numbers)."""

    name = "pages"
    # 2: the restricted view keeps its document's cover (the period the filing reports)
    version = "pages-2"

    def __init__(self, inner: Reader, pages: Mapping[str, Sequence[int]]) -> None:
        self.inner = inner
        self.pages = {str(doc): sorted({int(p) for p in listed}) for doc, listed in pages.items()}

    @classmethod
    def from_options(cls, **options: Any) -> PagesReader:
        inner = str(options.pop("inner", None) or "table")
        pages = options.pop("pages", None) or {}
        return cls(make_reader(inner, **options), pages)

    def config(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "inner": {"name": self.inner.name, **self.inner.config()},
            "pages": self.pages,
        }

    def field_config(self, name: str) -> dict[str, Any]:
        inner = getattr(self.inner, "field_config", None)
        part = inner(name) if inner is not None else self.inner.config()
        return {"version": self.version, "inner": {"name": self.inner.name, **part}, "pages": self.pages}

    def read(self, doc: DocumentView, field: FieldLike, question: str) -> ReadResult:
        return self.inner.read(restrict(doc, self.pages.get(doc.doc_id)), field, question)


def restrict(doc: DocumentView, pages: Sequence[int] | None) -> DocumentView:
    """The document with only `pages` (all of it when None or empty)."""
    if not pages:
        return doc
    keep = pl.col("page").is_in(list(pages))
    words = doc.words.filter(keep) if doc.words is not None and "page" in doc.words.columns else doc.words
    chunks = doc.chunks.filter(keep) if "page" in doc.chunks.columns else doc.chunks
    # the cover, the filing-wide scales and the name of its fiscal year stay the document's (`_whole`): they
    # do not change with the pages read
    whole = doc._whole or doc
    return replace(doc, pages=doc.pages.filter(keep), words=words, chunks=chunks, _cache={}, _whole=whole)
