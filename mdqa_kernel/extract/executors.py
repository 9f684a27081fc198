"""Executors: where the jobs of a run execute. A new executor is one small class.

The contract: a job and its result are plain picklable data, the function is a module-level function,
and results may come back in any order. Workers of the local executors share the workspace store and
commit their own results there; an executor whose workers may be on other machines says `away = True`,
and the run then ships each job's document and commits the returned results itself (see `extract`).

- `InlineExecutor`: one job after another in this process (one model in memory).
- `LocalPoolExecutor`: worker processes on this machine.
- `RayExecutor`: Ray tasks on a local Ray instance or a cluster (`address="ray://head:10001"` or
  `"auto"`), for a collection one machine cannot read in time. The cluster's machines need mdqa
  installed (the same version); they never open the workspace.

`EXECUTORS` names the kinds `make_executor` (and `mdqa extract --executor`) accept: a class registered
with `@EXECUTORS.register(kind)` and built by its `create(jobs, address)` classmethod; other packages
add kinds through the `mdqa.executors` entry-point group.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from typing import Any, Protocol, TypeVar

from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.lifeline import pool_initializer
from mdqa_kernel.registry import Registry

J = TypeVar("J")
R = TypeVar("R")


class ExecutorError(MdqaError):
    """A worker process died (killed, out of memory) while running a job, or the executor cannot start."""


class UnknownExecutorError(ExecutorError, UnknownNameError):
    """No executor kind is registered under the requested name."""


EXECUTORS: Registry[Any] = Registry(
    "executor", "mdqa.executors", packages=(__name__,), error=UnknownExecutorError
)


class Executor(Protocol):
    name: str

    def map_unordered(self, fn: Callable[[J], R], jobs: Iterable[J]) -> Iterator[R]: ...


class InlineExecutor:
    """Runs jobs one by one in this process (the LLM reader's default: one model in memory)."""

    name = "inline"

    def map_unordered(self, fn: Callable[[J], R], jobs: Iterable[J]) -> Iterator[R]:
        for job in jobs:
            yield fn(job)


@EXECUTORS.register("local")
class LocalPoolExecutor:
    """A pool of worker processes on this machine; at most `2 × workers` jobs in flight. The workers
    die with this process, even when it is killed with SIGKILL (see `mdqa_kernel.lifeline`)."""

    name = "local"

    def __init__(self, workers: int = 2, start_method: str = "spawn") -> None:
        self.workers = max(1, workers)
        # spawn: a forked child would inherit llama.cpp threads and open SQLite handles.
        self.start_method = start_method

    @classmethod
    def create(cls, jobs: int | None, address: str | None = None) -> Executor:
        """kind "local": jobs <= 1 runs inline (one model in memory), more a pool of `jobs` processes."""
        return InlineExecutor() if not jobs or jobs <= 1 else cls(jobs)

    def map_unordered(self, fn: Callable[[J], R], jobs: Iterable[J]) -> Iterator[R]:
        pending: set[Future[R]] = set()
        todo = iter(jobs)
        ctx = mp.get_context(self.start_method)
        initializer, initargs = pool_initializer()  # the workers die with this process, kill -9 included
        with ProcessPoolExecutor(
            max_workers=self.workers, mp_context=ctx, initializer=initializer, initargs=initargs
        ) as pool:
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


@EXECUTORS.register("ray")
class RayExecutor:
    """Jobs as Ray tasks, at most `2 × parallelism` in flight; results in the order they finish.

    `address`: None starts a Ray instance on this machine with `workers` CPUs (and stops it after the
    run); "auto" or "ray://…" joins a running cluster (left running). A job whose worker died is retried
    by Ray (`retries` times) before the run stops with `ExecutorError`; the finished jobs stay committed."""

    name = "ray"
    away = True  # workers may be on other machines: the run ships documents and commits results

    def __init__(
        self, address: str | None = None, workers: int = 2, cpus_per_job: float = 1.0, retries: int = 2
    ) -> None:
        self.address = address
        self.workers = max(1, workers)
        self.cpus_per_job = cpus_per_job
        self.retries = retries

    @classmethod
    def create(cls, jobs: int | None, address: str | None = None) -> Executor:
        """kind "ray": `jobs` CPUs when it starts Ray itself, else the cluster at `address`."""
        return cls(address, workers=max(1, jobs or 1))

    def map_unordered(self, fn: Callable[[J], R], jobs: Iterable[J]) -> Iterator[R]:
        ray = _ray()
        started = not ray.is_initialized()
        if started:
            _start_ray(ray, self.address, self.workers)
        try:
            task = ray.remote(num_cpus=self.cpus_per_job, max_retries=self.retries)(fn)
            in_flight = 2 * max(1, int(ray.cluster_resources().get("CPU", self.workers) / self.cpus_per_job))
            todo = iter(jobs)
            pending = [task.remote(job) for job in islice(todo, in_flight)]
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                pending += [task.remote(job) for job in islice(todo, 1)]
                yield _ray_result(ray, done[0])
        finally:
            if started:
                ray.shutdown()


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise ExecutorError(
            "the ray executor needs Ray: pip install 'mdqa[ray]' (make install includes it)"
        ) from e
    return ray


def _start_ray(ray: Any, address: str | None, workers: int) -> None:
    try:
        if address is None:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except Exception as e:
        where = "a local Ray instance" if address is None else f"the Ray cluster at {address!r}"
        raise ExecutorError(f"could not start {where}: {e}; check `ray status` and the address") from e


def _ray_result(ray: Any, ref: Any) -> Any:
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as e:
        raise e.as_instanceof_cause() from None  # the job's own exception, as the local executors raise it
    except ray.exceptions.RayError as e:
        raise ExecutorError(
            f"a Ray worker died ({type(e).__name__}: {e}); re-run to resume the unfinished tasks"
        ) from e


def make_executor(jobs: int | None = 1, kind: str = "local", address: str | None = None) -> Executor:
    """kind "local": jobs <= 1 inline, otherwise a local process pool of that many workers; kind "ray":
    Ray tasks (`address` as `RayExecutor`), `jobs` CPUs when it starts Ray itself; any other kind of
    `EXECUTORS`, by its `create(jobs, address)`."""
    return EXECUTORS.get(kind).create(jobs, address)
