"""Readers: one per file, all returning `ReadResult` (value, unit, scale, status, confidence, evidence).

make_reader("table")                                # deterministic tables and safe text facts
make_reader("llm", llm_config=LLMConfig(...), k=5)  # retrieval + schema-constrained LLM
make_reader("cascade", llm_config=..., k=5)         # table first; where not confident the LLM
                                                    # chooses among the table reader's candidates
make_reader("oracle", source="mudabench:simple")    # gold values (upper bound)
make_reader("my_pkg.readers:MyReader")              # any class with name/config()/read()

The names are those of `READERS` (mdqa_kernel.registry.Registry, entry-point group "mdqa.readers"):
each reader class registers itself in its module and lists the options it takes. Options: k,
llm_config, client, workspace, embedder, embedding_model (llm, cascade), threshold and fields
(cascade), source (oracle), min_label_score (table).
"""

from __future__ import annotations

from mdqa_kernel.readers.base import (
    READERS,
    Choice,
    DocumentView,
    Evidence,
    Reader,
    ReaderError,
    ReadResult,
    Status,
    UnknownReaderError,
    held_for_review,
    make_reader,
    needs_llm,
    timed_read,
    view_from_parse,
)

__all__ = [
    "READERS",
    "Choice",
    "DocumentView",
    "Evidence",
    "ReadResult",
    "Reader",
    "ReaderError",
    "Status",
    "UnknownReaderError",
    "held_for_review",
    "make_reader",
    "needs_llm",
    "timed_read",
    "view_from_parse",
]
