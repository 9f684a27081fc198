"""Executors: where the jobs of a run execute. A new executor is one small class.

The contract keeps a later Ray executor trivial: a job and its result are plain picklable data, the
function is a module-level function, results may come back in any order, and workers share nothing
but the workspace store (they commit their own results there).
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Protocol, TypeVar

J = TypeVar("J")
R = TypeVar("R")


class ExecutorError(Exception):
    """A worker process died (killed, out of memory) while running a job."""


class Executor(Protocol):
    name: str

    def map_unordered(self, fn: Callable[[J], R], jobs: Iterable[J]) -> Iterator[R]: ...


class InlineExecutor:
    """Runs jobs one by one in this process (the LLM reader's default: one model in memory)."""

    name = "inline"

    def map_unordered(self, fn: Callable[[J], R], jobs: Iterable[J]) -> Iterator[R]:
        for job in jobs:
            yield fn(job)


class LocalPoolExecutor:
    """A pool of worker processes on this machine; at most `2 × workers` jobs in flight."""

    name = "local"

    def __init__(self, workers: int = 2, start_method: str = "spawn") -> None:
        self.workers = max(1, workers)
        # spawn: a forked child would inherit llama.cpp threads and open SQLite handles.
        self.start_method = start_method

    def map_unordered(self, fn: Callable[[J], R], jobs: Iterable[J]) -> Iterator[R]:
        pending: set[Future[R]] = set()
        todo = iter(jobs)
        ctx = mp.get_context(self.start_method)
        with ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx) as pool:
            for job in todo:
                pending.add(pool.submit(fn, job))
                if len(pending) >= 2 * self.workers:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    nxt = next(todo, None)
                    if nxt is not None:
                        pending.add(pool.submit(fn, nxt))
                    yield _result(fut)


def _result(fut: Future[Any]) -> Any:
    try:
        return fut.result()
    except Exception as e:
        if type(e).__name__ == "BrokenProcessPool":
            raise ExecutorError(f"a worker process died ({e}); re-run to resume the unfinished tasks") from e
        raise


def make_executor(jobs: int | None = 1) -> Executor:
    """jobs <= 1: inline; otherwise a local process pool of that many workers."""
    return InlineExecutor() if not jobs or jobs <= 1 else LocalPoolExecutor(jobs)
