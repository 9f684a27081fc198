"""Readers: one per file, all returning `ReadResult` (value, unit, scale, status, confidence, evidence).

make_reader("table")                                # deterministic tables and safe text facts
make_reader("llm", llm_config=LLMConfig(...), k=5)  # retrieval + schema-constrained LLM
make_reader("cascade", llm_config=..., k=5)         # table first, LLM where not confident
make_reader("oracle", source="mudabench:simple")    # gold values (upper bound)
make_reader("my_pkg.readers:MyReader")              # any class with name/config()/read()
"""

from __future__ import annotations

import importlib
from typing import Any

from mdqa_kernel.readers.base import (
    DocumentView,
    Evidence,
    Reader,
    ReaderError,
    ReadResult,
    Status,
    UnknownReaderError,
    timed_read,
    view_from_parse,
)

READER_NAMES = ("table", "llm", "cascade", "oracle")

__all__ = [
    "READER_NAMES",
    "DocumentView",
    "Evidence",
    "ReadResult",
    "Reader",
    "ReaderError",
    "Status",
    "UnknownReaderError",
    "make_reader",
    "timed_read",
    "view_from_parse",
]


def make_reader(name: str, **options: Any) -> Reader:
    """A reader by name. Options: k, llm_config, client, workspace, embedder, embedding_model
    (llm, cascade), threshold and fields (cascade), source (oracle), min_label_score (table)."""
    if name == "table":
        from mdqa_kernel.readers.table.reader import TableReader

        return TableReader(**_pick(options, "min_label_score"))
    if name == "llm":
        from mdqa_kernel.readers.llm import LLMReader

        return LLMReader(
            **_pick(options, "client", "k", "llm_config", "workspace", "embedder", "embedding_model")
        )
    if name == "cascade":
        from mdqa_kernel.readers.cascade import CascadeReader

        return CascadeReader(
            make_reader("table", **options),
            make_reader("llm", **options),
            **_pick(options, "threshold", "fields"),
        )
    if name == "oracle":
        from mdqa_kernel.readers.oracle import OracleReader

        return OracleReader(**_pick(options, "source"))
    if ":" in name:
        module, _, cls = name.partition(":")
        try:
            return getattr(importlib.import_module(module), cls)(**options.get("custom", {}))
        except (ImportError, AttributeError) as e:
            raise UnknownReaderError(f"cannot load reader {name!r}: {e}") from e
    raise UnknownReaderError(
        f"unknown reader {name!r}; use one of {', '.join(READER_NAMES)} or 'module:Class'"
    )


def _pick(options: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: options[k] for k in keys if options.get(k) is not None}
