"""The parse cache: parse PDFs in worker processes and keep the results in the workspace.

A parse is keyed by (file sha256, PARSER_VERSION) in the `parses` table; its pages, words and
chunks are parquet files under `parquet/parses/`. A parse that left scanned pages unread because no
OCR engine was installed (`ocr_pages` NULL) is not taken from the cache once one is: it is parsed again. Workers write the parquet files (atomically) and
return a small record; the parent commits each record as soon as it arrives, so an interrupted
build keeps everything that finished and the next build parses only the rest.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import polars as pl
from tqdm.auto import tqdm

from mdqa_kernel.lifeline import pool_initializer
from mdqa_kernel.parsing import ocr
from mdqa_kernel.parsing.pdf import PARSER_VERSION, ParseResult, parse_pdf, parse_pdf_bytes, read_pdf_bytes
from mdqa_kernel.store import Workspace
from mdqa_kernel.text import clear_caches

FRAMES = ("pages", "words", "chunks")
# Failures that depend on the machine, not on the file's bytes: never cached, retried next build.
# 'changed': the file was swapped after it was hashed; the hash's genuine file may parse fine.
_TRANSIENT = {"missing_file", "unreadable", "not_a_file", "parser_error", "worker_crashed", "changed"}


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parse_folder(sha256: str) -> str:
    return f"parquet/parses/{sha256[:2]}/{sha256}-{PARSER_VERSION}"


def cached(workspace: Workspace, shas: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The parse records already in the workspace for these hashes (current parser version)."""
    wanted = list(dict.fromkeys(shas))
    found: dict[str, dict[str, Any]] = {}
    for k in range(0, len(wanted), 500):  # stay under SQLite's bound-parameter limit
        part = wanted[k : k + 500]
        marks = ",".join("?" * len(part))
        rows = workspace.query(
            f"SELECT * FROM parses WHERE parser_version=? AND sha256 IN ({marks})", (PARSER_VERSION, *part)
        )
        found.update({r["sha256"]: dict(r) for r in rows})
    if ocr.executable() is not None:  # OCR can read now what an earlier parse could not
        found = {sha: r for sha, r in found.items() if not _waits_for_ocr(r)}
    return found


def _waits_for_ocr(record: dict[str, Any]) -> bool:
    return record.get("ocr_pages") is None and record.get("scanned_pages") not in (None, "", "[]")


_WORKER_WS: dict[str, Workspace] = {}


def _parse_job(path: str, sha256: str, workspace_path: str) -> dict[str, Any]:
    """Runs in a worker: parse, write the frames, return the record for the `parses` table."""
    ws = _WORKER_WS.get(workspace_path)
    if ws is None:
        ws = _WORKER_WS[workspace_path] = Workspace(workspace_path)
    return store_result(ws, sha256, _parse_fresh(path, sha256))


def _parse_fresh(path: str, sha256: str, data: bytes | None = None) -> ParseResult:
    """parse_pdf (refused if the file is no longer the one hashed), or of the bytes shipped to a remote
    worker, then the text caches cleared, as an extraction clears them after each document: copies of
    one filing parse no faster than distinct ones."""
    result = parse_pdf(path, sha256=sha256) if data is None else parse_pdf_bytes(data, path, sha256=sha256)
    clear_caches()
    return result


def store_result(workspace: Workspace, sha256: str, result: ParseResult) -> dict[str, Any]:
    folder = parse_folder(sha256)
    files: dict[str, str | None] = dict.fromkeys(FRAMES)
    if result.n_pages and result.pages.height:
        for name in FRAMES:
            files[name] = workspace.write_parquet(getattr(result, name), f"{folder}/{name}.parquet")
    return {
        "sha256": sha256,
        "parser_version": result.parser_version,
        "status": result.status,
        "error_kind": result.error_kind,
        "message": result.message,
        "n_pages": result.n_pages,
        "language": result.language,
        "scanned_pages": json.dumps(result.scanned_pages),
        "ocr_pages": None if result.ocr_missing else json.dumps(result.ocr_pages),
        "pages_file": files["pages"],
        "chunks_file": files["chunks"],
        "seconds": result.seconds,
        "created": time.time(),
    }


def commit(workspace: Workspace, record: dict[str, Any], also: Callable[[Any], None] | None = None) -> None:
    """Record one parse (unless its failure is transient) plus the caller's own rows, atomically."""
    with workspace.transaction() as conn:
        if record["error_kind"] not in _TRANSIENT:
            cols = ",".join(record)
            conn.execute(
                f"INSERT OR REPLACE INTO parses({cols}) VALUES ({','.join('?' * len(record))})",
                tuple(record.values()),
            )
        if also is not None:
            also(conn)


def _script_hint() -> str:
    """Worker processes import the running script again, so a script whose calls are not under a
    main guard kills every worker; that is the usual cause when every document of a build fails."""
    main = sys.modules.get("__main__")
    if getattr(main, "__file__", None) and not getattr(main, "__spec__", None):
        return (
            f"; if every document failed, put the code of {os.path.basename(main.__file__)} under "
            '`if __name__ == "__main__":` (each worker process imports the script again)'
        )
    return ""


def _crashed(sha256: str, path: str, error: BaseException) -> dict[str, Any]:
    return {
        "sha256": sha256,
        "parser_version": PARSER_VERSION,
        "status": "error",
        "error_kind": "worker_crashed",
        "message": f"{path}: the parser process died ({type(error).__name__}); "
        "rebuild with --jobs 1 to find the file that crashes it" + _script_hint(),
        "n_pages": 0,
        "language": "unknown",
        "scanned_pages": "[]",
        "ocr_pages": "[]",
        "pages_file": None,
        "chunks_file": None,
        "seconds": 0.0,
        "created": time.time(),
    }


def _mp_context() -> multiprocessing.context.BaseContext:
    """Not fork: polars keeps a thread pool, and forking a threaded process can deadlock. A forkserver
    that has imported the parser already starts workers in milliseconds (once per session); spawn
    (a fresh interpreter per worker) is the portable fallback."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["mdqa_kernel.parsing.cache"])
        return context
    return multiprocessing.get_context("spawn")


def parse_many(
    workspace: Workspace,
    todo: list[tuple[str, str]],
    on_done: Callable[[dict[str, Any]], None],
    *,
    jobs: int | None = None,
    progress: bool = True,
    desc: str = "parsing",
    executor: Any | None = None,
) -> None:
    """Parse (sha256, path) pairs, calling on_done(record) in this process as each one finishes.

    `executor` (an object with `map_unordered(fn, jobs)`, such as the Ray executor of
    `mdqa_kernel.extract.executors`): the files' bytes are shipped to its workers, which may be on
    other machines and never open the workspace; this process writes each returned parse."""
    jobs = max(1, jobs or default_jobs())
    bar = tqdm(total=len(todo), desc=desc, unit="doc", disable=not progress or not todo)
    try:
        if executor is not None:
            _parse_away(workspace, todo, on_done, executor, bar.update)
            return
        if jobs == 1 or len(todo) <= 1:
            for sha, path in todo:
                on_done(store_result(workspace, sha, _parse_fresh(path, sha)))
                bar.update()
            return
        # The workers die with this process (kill -9 included), and the forkserver and resource
        # tracker with them (see mdqa_kernel.lifeline).
        initializer, initargs = pool_initializer()
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(todo)),
            mp_context=_mp_context(),
            initializer=initializer,
            initargs=initargs,
        ) as pool:
            futures: dict[Future[dict[str, Any]], tuple[str, str]] = {
                pool.submit(_parse_job, path, sha, str(workspace.path)): (sha, path) for sha, path in todo
            }
            try:
                for future in as_completed(futures):
                    sha, path = futures[future]
                    try:
                        record = future.result()
                    except (BrokenProcessPool, OSError, RuntimeError) as e:
                        record = _crashed(sha, path, e)
                    on_done(record)
                    bar.update()
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
    finally:
        bar.close()


def _parse_shipped(job: tuple[str, str, bytes]) -> tuple[str, ParseResult]:
    """Runs on a worker that may be on another machine: parse the shipped bytes, return the frames."""
    sha, path, data = job
    return sha, _parse_fresh(path, sha, data)


def _parse_away(
    workspace: Workspace,
    todo: list[tuple[str, str]],
    on_done: Callable[[dict[str, Any]], None],
    executor: Any,
    tick: Callable[[], Any],
) -> None:
    def shipped() -> Iterator[tuple[str, str, bytes]]:
        # Read lazily: the executor keeps only a few jobs in flight, so only their bytes are in memory.
        for sha, path in todo:
            data = read_pdf_bytes(path, sha256=sha)
            if isinstance(data, ParseResult):  # not readable here: its record says why, nothing shipped
                on_done(store_result(workspace, sha, data))
                tick()
                continue
            yield sha, path, data

    for sha, result in executor.map_unordered(_parse_shipped, shipped()):
        on_done(store_result(workspace, sha, result))
        tick()


def load_frame(workspace: Workspace, record: dict[str, Any], name: str) -> pl.DataFrame:
    """One of the parsed frames ('pages', 'words', 'chunks') of a parse record."""
    if name not in FRAMES:
        raise ValueError(f"unknown frame {name!r}; expected one of {FRAMES}")
    if not record.get("pages_file"):
        raise FileNotFoundError(record.get("message") or "this document has no parsed pages")
    folder = str(record["pages_file"]).rsplit("/", 1)[0]
    return workspace.read_parquet(f"{folder}/{name}.parquet")
