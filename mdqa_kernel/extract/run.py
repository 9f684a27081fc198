"""The extraction run: (document × field) tasks → typed cells with evidence, committed one by one.

    result = extract(plan, Collection.open(ws, "default"), reader="cascade", k=5)
    result.rows    # one row per document: metadata + one typed column per field
    result.cells   # long form: doc_id, field, value, status, confidence, reader, page, bbox, snippet

Tasks are the documents passing the plan's filters (and each field's `only` restriction) × fields.
A task's key is the hash of the document's sha256, that field's spec and question, and the reader's
configuration for that field, so an edited field re-runs alone and a finished plan re-runs nothing.
Each finished task is committed to the workspace at once by the worker that ran it: a run killed
with -9 resumes where it stopped. A failing task becomes a row with status=error and the message.
Jobs (one document and its pending fields) and their outcomes are plain picklable data.

Workers on other machines (a Ray cluster) cannot open the workspace, a local SQLite file: for an executor
that says so (`away = True`), each job carries its parsed document, the worker returns its cells and the
new LLM answers it got (asked on a scratch workspace of its own machine), and the driver commits them
as each job comes back, so a run killed there too resumes at the last document returned.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.extract.executors import Executor, make_executor
from mdqa_kernel.extract.result import ExtractionResult
from mdqa_kernel.extract.tasks import (
    Task,
    as_reader,
    plan_tasks,
)
from mdqa_kernel.readers import DocumentView, Reader, ReadResult, held_for_review, timed_read
from mdqa_kernel.readers.base import error_result
from mdqa_kernel.store import Workspace, stable_hash
from mdqa_kernel.text import clear_caches

if TYPE_CHECKING:
    from mdqa_kernel.collection.collection import Collection
    from mdqa_kernel.plan.ir import Plan

__all__ = ["ExtractError", "ExtractionResult", "Job", "Outcome", "Task", "extract", "plan_tasks", "run_job"]


class ExtractError(MdqaError):
    """An extraction run could not start (no documents, unknown collection, bad plan)."""


@dataclass
class Job:
    """One document and its pending tasks: what a worker receives (picklable)."""

    workspace: str
    collection: str | None
    doc: dict[str, Any]  # the collection's document row: doc_id, path, sha256, status, metadata…
    fields: list[dict[str, Any]]  # FieldSpec dumps
    tasks: list[Task]
    reader: Any  # a Reader instance (pickled to workers; LLM clients are re-opened there)
    view: DocumentView | None = None  # the parsed document, shipped when the worker is away
    away: bool = False  # the worker may be on another machine: it returns cells, the driver commits
    unreadable: Exception | None = None  # why the driver could not load the document it would ship


@dataclass
class Outcome:
    doc_id: str
    statuses: list[str] = field(default_factory=list)
    llm_calls: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    cells: list[tuple[Task, ReadResult, float]] = field(default_factory=list)  # only when away
    llm_answers: list[dict[str, Any]] = field(default_factory=list)  # new LLM cache entries, when away


def finished_keys(ws: Workspace, keys: list[str], retry_errors: bool = True) -> set[str]:
    """Keys of tasks already committed; error rows count as unfinished when `retry_errors`
    (a timeout or a missing model deserves another try; a finished cell never does)."""
    done: set[str] = set()
    skip_errors = " AND status != 'error'" if retry_errors else ""
    for i in range(0, len(keys), 500):
        part = keys[i : i + 500]
        marks = ",".join("?" * len(part))
        sql = f"SELECT task_key FROM extractions WHERE task_key IN ({marks}){skip_errors}"
        done |= {r["task_key"] for r in ws.query(sql, tuple(part))}
    return done


# -- the worker side -------------------------------------------------------------------------------

_READERS: dict[str, Reader] = {}  # a worker's readers, by configuration (see `_worker_reader`)


def load_view(job: Job) -> DocumentView:
    """The parsed document from the workspace collection, or parsed now when there is no collection."""
    doc = job.doc
    meta = {k: v for k, v in doc.items() if k not in ("path", "message", "error_kind")}
    if doc.get("status") == "error":
        raise DocumentUnreadableError(doc.get("message") or f"document {doc['doc_id']} could not be parsed")
    if job.collection is not None:
        # Read the parse by the document's hash: no need to reopen the whole collection per document.
        from mdqa_kernel.parsing import cache as parse_cache
        from mdqa_kernel.store import open_workspace

        ws = open_workspace(job.workspace)
        sha = doc.get("sha256") or ""
        record = parse_cache.cached(ws, [sha]).get(sha)
        if record is None or not record.get("pages_file"):
            raise DocumentUnreadableError(
                f"document {doc['doc_id']} has no parsed pages in {ws.path}; rebuild the collection"
            )
        return DocumentView(
            doc_id=doc["doc_id"],
            sha256=sha,
            path=doc.get("path") or "",
            metadata=meta,
            pages=parse_cache.load_frame(ws, record, "pages"),
            words=parse_cache.load_frame(ws, record, "words"),
            chunks=parse_cache.load_frame(ws, record, "chunks"),
            status=doc.get("status") or "ok",
            message=doc.get("message") or "",
        )
    from mdqa_kernel.parsing.pdf import parse_pdf
    from mdqa_kernel.readers import view_from_parse

    parsed = parse_pdf(doc["path"], sha256=doc.get("sha256") or None)  # the file as the build checked it
    if parsed.status == "error":
        raise DocumentUnreadableError(parsed.message)
    return view_from_parse(parsed, doc["doc_id"], meta, doc.get("sha256") or "")


class DocumentUnreadableError(MdqaError):
    """The document has no parse (encrypted, corrupt, not a PDF): its cells become error rows."""


def run_job(job: Job) -> Outcome:
    """Read every pending field of one document, committing each cell as soon as it is read (or, when
    the worker is away, returning the cells for the driver to commit)."""
    from mdqa_kernel.plan.ir import FieldSpec

    ws = None if job.away else Workspace(job.workspace)
    reader = _worker_reader(job.reader) if job.away else job.reader
    journal = _away_llm(reader, job.workspace) if job.away else None
    out = Outcome(job.doc["doc_id"])
    specs = {f["name"]: FieldSpec.model_validate(f) for f in job.fields}
    t0 = time.perf_counter()
    try:
        view: DocumentView | None = _job_view(job)
        load_error: Exception | None = None
    except Exception as e:  # the document cannot be read: every cell says why
        view, load_error = None, e
    done: dict[str, tuple[Task, ReadResult, float]] = {}
    for task in job.tasks:
        spec = specs[task.field]
        if view is None:
            result, seconds = error_result(task.doc_id, task.field, reader.name, load_error), 0.0  # type: ignore[arg-type]
        else:
            result, seconds = timed_read(reader, view, spec, task.question)
            result = held_for_review(result)
        if ws is None:
            out.cells.append((task, result, seconds))
        else:
            commit(ws, task, job.doc.get("sha256"), result, seconds)
        done[task.field] = (task, result, seconds)
        out.llm_calls += result.llm_calls
        out.cache_hits += result.cache_hits
    if view is not None:
        _hold_broken_identities(view, specs, done, out, ws, job.doc.get("sha256"))
    out.statuses = [result.status.value for _task, result, _s in done.values()]
    out.seconds = time.perf_counter() - t0
    clear_caches()  # the label caches are per document (see text.clear_caches)
    for llm in llm_readers(reader):
        flush = getattr(llm._client, "flush", None)
        if callable(flush):
            flush()
    if journal is not None:
        from mdqa_kernel.llm.journal import take_entries

        out.llm_answers = take_entries(journal)
    return out


def _hold_broken_identities(
    view: DocumentView,
    specs: dict[str, Any],
    done: dict[str, tuple[Task, ReadResult, float]],
    out: Outcome,
    ws: Workspace | None,
    sha256: str | None,
) -> None:
    """Hold for review the cells of this document that break an accounting identity with another of its
    cells (readers/identities.py): each is committed again, or replaced among the cells returned."""
    from mdqa_kernel.readers.identities import check_document
    from mdqa_kernel.readers.table.columns import document_period

    held = check_document(specs, {f: r for f, (_t, r, _s) in done.items()}, document_period(view))
    for name, result in held.items():
        task, _old, seconds = done[name]
        result = held_for_review(result)
        done[name] = (task, result, seconds)
        if ws is None:
            out.cells = [(t, result if t is task else r, s) for t, r, s in out.cells]
        else:
            commit(ws, task, sha256, result, seconds)


def _job_view(job: Job) -> DocumentView:
    """The document: shipped with a job run away (whose worker must not open the workspace), else loaded."""
    if not job.away:
        return load_view(job)
    if job.view is None:
        raise job.unreadable or DocumentUnreadableError(f"document {job.doc['doc_id']} was not shipped")
    return job.view


def llm_readers(reader: Any) -> list[Any]:
    """The LLM readers inside a reader (a cascade holds one as its second reader)."""
    if reader is None:
        return []
    if hasattr(reader, "relocate"):
        return [reader]
    return [r for part in ("first", "second") for r in llm_readers(getattr(reader, part, None))]


def _worker_reader(reader: Reader) -> Reader:
    """One reader per configuration in a worker process: each job arrives with its own unpickled copy,
    and an LLM reader's copy would open its client, and load the model, again for every document."""
    if not llm_readers(reader):
        return reader
    return _READERS.setdefault(stable_hash({"name": reader.name, "config": reader.config()}), reader)


def _away_llm(reader: Reader, workspace: str) -> Path | None:
    """On a worker away from the workspace: the LLM readers ask through a scratch workspace of this
    machine (its cache serves this machine's later jobs) and journal every new answer, which the job
    returns to the driver. Returns the journal, or None when the reader asks no LLM."""
    readers = llm_readers(reader)
    if not readers:
        return None
    scratch = Path(tempfile.gettempdir()) / "mdqa-away" / stable_hash(workspace)[:16]
    journal = scratch / f"answers-{os.getpid()}.jsonl"
    for llm in readers:
        llm.relocate(scratch, journal)
    return journal


def commit(ws: Workspace, task: Task, sha256: str | None, result: ReadResult, seconds: float) -> None:
    with ws.transaction() as conn:
        _insert(conn, task, sha256, result, seconds)


def _insert(conn: Any, task: Task, sha256: str | None, result: ReadResult, seconds: float) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO extractions(task_key, doc_id, sha256, field, reader, result, status, seconds, created)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        (
            task.task_key,
            task.doc_id,
            sha256,
            task.field,
            result.reader,
            json.dumps(result.to_json_dict(), ensure_ascii=False, default=str),
            result.status.value,
            seconds,
            time.time(),
        ),
    )


def _shipped(job_list: list[Job]) -> Iterator[Job]:
    """Jobs with their parsed document, loaded as the executor asks for the next job (not all at once)."""
    for job in job_list:
        try:
            shipped = replace(job, view=load_view(job))
        except Exception as e:  # the worker turns it into the cells' message, as when it loads it
            shipped = replace(job, unreadable=e)
        yield shipped


def commit_returned(ws: Workspace, outcome: Outcome, sha256: str | None) -> None:
    """The driver's side of a job run away: its cells, and its new LLM answers into the LLM cache, in one
    transaction."""
    from mdqa_kernel.llm.journal import insert_entries

    with ws.transaction() as conn:
        for task, result, seconds in outcome.cells:
            _insert(conn, task, sha256, result, seconds)
        insert_entries(conn, outcome.llm_answers, replace=False)


# -- the run ---------------------------------------------------------------------------------------


def extract(
    plan: Plan,
    collection: Collection,
    reader: str | Reader = "table",
    *,
    executor: Executor | None = None,
    jobs: int = 1,
    progress: bool = True,
    limit_docs: int | None = None,
    retry_errors: bool = True,
    **reader_options: Any,
) -> ExtractionResult:
    """Run (or resume) the extraction of a plan over a collection; return the result from the store."""
    ws = collection.workspace
    rdr = as_reader(reader, ws, reader_options)
    documents = collection.documents.head(limit_docs) if limit_docs else collection.documents
    tasks, docs = plan_tasks(plan, documents, rdr)
    done = finished_keys(ws, [t.task_key for t in tasks], retry_errors)
    pending = [t for t in tasks if t.task_key not in done]
    by_doc: dict[str, list[Task]] = {}
    for t in pending:
        by_doc.setdefault(t.doc_id, []).append(t)
    fields = [f.model_dump(mode="json") for f in plan.fields]
    runner = executor or make_executor(jobs)
    away = bool(getattr(runner, "away", False))
    job_list = [
        Job(str(ws.path), getattr(collection, "name", None), docs[d], fields, ts, rdr, away=away)
        for d, ts in by_doc.items()
    ]
    run_id = ws.start_run(
        "extract",
        {
            "plan": plan.question,
            "reader": rdr.name,
            "tasks": len(tasks),
            "pending": len(pending),
            "reader_config": rdr.config(),
        },
    )
    counts: Counter[str] = Counter()
    llm_calls = hits = 0
    t0 = time.perf_counter()
    status = "failed"
    bar = tqdm(total=len(job_list), desc=f"extract ({rdr.name})", unit="doc", disable=not progress)
    try:
        for outcome in runner.map_unordered(run_job, _shipped(job_list) if away else job_list):
            if away:
                commit_returned(ws, outcome, docs[outcome.doc_id].get("sha256"))
            counts.update(outcome.statuses)
            llm_calls += outcome.llm_calls
            hits += outcome.cache_hits
            bar.update(1)
            bar.set_postfix(
                found=counts["found"],
                not_found=counts["not_found"] + counts["absent"],
                review=counts["needs_review"],
                errors=counts["error"],
                llm=llm_calls,
                cached=hits,
                refresh=False,
            )
        status = "done"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        bar.close()
        seconds = time.perf_counter() - t0
        ws.finish_run(
            run_id,
            status,
            {
                "tasks": len(tasks),
                "skipped": len(done),
                "ran": sum(counts.values()),
                "statuses": dict(counts),
                "llm_calls": llm_calls,
                "cache_hits": hits,
                "seconds": seconds,
                "cells_per_second": sum(counts.values()) / seconds if seconds > 0 else None,
            },
        )
    result = ExtractionResult(ws, plan, tasks, docs)
    result.run = {
        "run_id": run_id,
        "ran": sum(counts.values()),
        "skipped": len(done),
        "llm_calls": llm_calls,
        "cache_hits": hits,
        "seconds": seconds,
        "statuses": dict(counts),
    }
    return result
