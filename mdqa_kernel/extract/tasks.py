"""Extraction tasks: which (document, field) pairs a plan asks for, and the key that names each one.

A task's key is the hash of the document's sha256, the field's spec and question, and the reader's
configuration for that field, so an edited field re-runs alone and a finished plan re-runs nothing.
Both the run (`run`) and the reopening of its results (`result`) plan tasks the same way, from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from mdqa_kernel.readers import Reader, make_reader, needs_llm
from mdqa_kernel.store import Workspace, stable_hash

if TYPE_CHECKING:
    from mdqa_kernel.plan.ir import Plan

# 2: a document's cells are checked against each other after reading (readers/identities.py); cells
# stored before that are read, and checked, again.
TASK_KEY_VERSION = 2


@dataclass(frozen=True)
class Task:
    task_key: str
    doc_id: str
    field: str
    question: str


# -- planning ------------------------------------------------------------------------------------


def reader_config_for(reader: Reader, field_name: str) -> dict[str, Any]:
    per_field = getattr(reader, "field_config", None)
    return per_field(field_name) if callable(per_field) else reader.config()


def task_key(doc: dict[str, Any], spec: Any, question: str, reader: Reader) -> str:
    return stable_hash(
        {
            "v": TASK_KEY_VERSION,
            "doc_id": doc["doc_id"],
            "sha256": doc.get("sha256"),
            "field": spec.model_dump(mode="json"),
            "question": question,
            "reader": reader.name,
            "reader_config": reader_config_for(reader, spec.name),
        }
    )


def plan_tasks(
    plan: Plan, documents: pl.DataFrame, reader: Reader
) -> tuple[list[Task], dict[str, dict[str, Any]]]:
    """All tasks of a plan over a collection's documents, and the document rows by id."""
    docs = documents.filter(plan.filter_expr()) if plan.filters else documents
    tasks: list[Task] = []
    rows: dict[str, dict[str, Any]] = {}
    for doc in docs.iter_rows(named=True):
        rows[doc["doc_id"]] = doc
        for spec in plan.fields:
            if not spec.applies_to(doc):
                continue
            try:
                question = spec.render(doc)
            except Exception:  # a template naming a missing column: the reader still gets the description
                question = spec.description
            tasks.append(Task(task_key(doc, spec, question, reader), doc["doc_id"], spec.name, question))
    return tasks, rows


def as_reader(reader: str | Reader, workspace: Workspace, options: dict[str, Any]) -> Reader:
    """A reader instance from a name and options (an LLM reader gets the workspace and a configured model)."""
    if not isinstance(reader, str):
        return reader
    opts = dict(options)
    if needs_llm(reader):
        opts.setdefault("workspace", str(workspace.path))
        if opts.get("client") is None and opts.get("llm_config") is None:
            from mdqa_kernel.llm import LLMConfig

            opts["llm_config"] = LLMConfig.from_env()
    return make_reader(reader, **opts)
