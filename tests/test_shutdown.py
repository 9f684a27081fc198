"""Clean shutdown: kill -9 of an mdqa command leaves no process behind (its pools, the forkserver and
the resource tracker die with it), the workspace stays usable, and its run is marked interrupted on
the next open of the workspace."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from mdqa_kernel.benchmarks.chaos import (
    build_cmd,
    committed,
    extract_cmd,
    group_members,
    make_filings,
    run,
    start,
    wait_group_gone,
    write_plan,
)
from mdqa_kernel.lifeline import pool_initializer, process_start_time, tied
from mdqa_kernel.store import DB_NAME, Workspace, host_key

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc; PDEATHSIG is Linux"
)


def kill_parent_midway(cmd: list[str], workspace: Path, table: str, at: int, log: Path) -> list[int]:
    """Start cmd in its own process group, kill -9 the parent once `at` rows of `table` are committed,
    and return the group's processes still alive 5 s later."""
    proc = start(cmd, log)
    deadline = time.monotonic() + 120
    while committed(workspace, table) < at:
        assert proc.poll() is None, f"{cmd} ended before the kill (exit {proc.returncode}): {log.read_text()}"
        assert time.monotonic() < deadline, "no progress in 120 s"
        time.sleep(0.01)
    helpers = group_members(proc.pid)
    assert len(helpers) >= 3, helpers  # the parent and its workers are running
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    survivors, _ = wait_group_gone(proc.pid, timeout=5)
    for pid in survivors:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    return survivors


def assert_usable_and_interrupted(workspace: Path, kind: str) -> None:
    # Writable at once: no survivor holds the write lock (a 2 s busy timeout instead of 60 s).
    conn = sqlite3.connect(workspace / DB_NAME, timeout=2)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("ROLLBACK")
    conn.close()
    ws = Workspace(workspace, create=False)
    rows = ws.query("SELECT status, pid, host, summary FROM runs WHERE kind=?", (kind,))
    assert [r["status"] for r in rows] == ["interrupted"]
    assert rows[0]["host"] == host_key() and rows[0]["pid"] > 0
    assert "killed" in json.loads(rows[0]["summary"])["interrupted"]
    with ws.transaction() as c:
        c.execute("INSERT INTO collections(name, spec, created, updated) VALUES ('probe', '{}', 0, 0)")


@pytest.fixture(scope="module")
def filings(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    folder = tmp_path_factory.mktemp("filings")
    pdfs, meta = make_filings(folder, 240)
    return pdfs, meta, write_plan(folder / "plan.yaml")


def test_kill_9_of_collection_build_leaves_no_process_and_an_interrupted_run(filings, tmp_path: Path) -> None:
    pdfs, meta, _plan = filings
    ws = tmp_path / "ws"
    survivors = kill_parent_midway(build_cmd(pdfs, meta, ws, 2), ws, "parses", 20, tmp_path / "log")
    assert survivors == [], "the forkserver, its workers or the resource tracker outlived the build"
    assert_usable_and_interrupted(ws, "collection build")
    run(build_cmd(pdfs, meta, ws, 2), tmp_path / "log")  # the resume finishes the collection
    assert committed(ws, "parses") == 240


def test_kill_9_of_extract_leaves_no_process_and_an_interrupted_run(filings, tmp_path: Path) -> None:
    pdfs, meta, plan = filings
    ws = tmp_path / "ws"
    run(build_cmd(pdfs, meta, ws, 1), tmp_path / "log")
    survivors = kill_parent_midway(extract_cmd(ws, plan, 2), ws, "extractions", 40, tmp_path / "log")
    assert survivors == [], "extract workers outlived the command"
    assert_usable_and_interrupted(ws, "extract")


def _sleep(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_pool_workers_die_with_their_owner_even_forked_by_a_forkserver(tmp_path: Path) -> None:
    """The owner is a plain script; its forkserver pool's workers are not its children."""
    script = tmp_path / "owner.py"
    script.write_text(
        "import multiprocessing as mp, sys, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from mdqa_kernel.lifeline import pool_initializer\n"
        "import os\n"
        "def _sleep(seconds):\n"
        "    time.sleep(seconds)\n"
        "    return os.getpid()\n"
        "if __name__ == '__main__':\n"
        "    init, args = pool_initializer()\n"
        "    ctx = mp.get_context(sys.argv[1])\n"
        "    with ProcessPoolExecutor(2, mp_context=ctx, initializer=init, initargs=args) as pool:\n"
        "        print(*pool.map(_sleep, [0, 0]), flush=True)\n"
        "        pool.submit(_sleep, 600).result()\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    for method in ("forkserver", "spawn"):
        proc = subprocess.Popen(
            [sys.executable, str(script), method],
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": root},
            start_new_session=True,
            text=True,
        )
        assert proc.stdout is not None
        workers = [int(p) for p in proc.stdout.readline().split()]
        assert workers and all(w != proc.pid for w in workers)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        survivors, _ = wait_group_gone(proc.pid, timeout=5)
        for pid in survivors:
            os.kill(pid, signal.SIGKILL)
        assert survivors == [], f"{method}: {survivors} outlived the owner"


def test_a_tied_command_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    """`mdqa reproduce` starts papermill this way: killing mdqa takes papermill (and its kernel) along."""
    script = tmp_path / "owner.py"
    script.write_text(
        "import subprocess, sys\n"
        "from mdqa_kernel.lifeline import tied\n"
        "child = [sys.executable, '-c', 'import time; print(\"up\", flush=True); time.sleep(600)']\n"
        "subprocess.run(tied(child))\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": root},
        start_new_session=True,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "up"
    assert len(group_members(proc.pid)) == 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    survivors, _ = wait_group_gone(proc.pid, timeout=5)
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert survivors == []


def test_a_tied_command_keeps_its_exit_status_and_output() -> None:
    done = subprocess.run(tied(["sh", "-c", "echo out; exit 3"]), capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (3, "out\n")


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_a_pool_with_the_lifeline_still_works_in_this_process(method: str) -> None:
    init, args = pool_initializer()
    ctx = multiprocessing.get_context(method)
    with ProcessPoolExecutor(2, mp_context=ctx, initializer=init, initargs=args) as pool:
        pids = list(pool.map(_sleep, [0.1, 0.1, 0.1]))
    assert os.getpid() not in pids and len(pids) == 3


def test_runs_of_dead_processes_are_marked_interrupted_on_open(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    here, now = host_key(), time.time()
    rows = [
        ("dead", dead.pid, here, now - 5),  # its process has ended
        ("alive", os.getpid(), here, now),  # this process: still running
        ("alive-child", sleeper.pid, here, now + 5),  # a live process that started before the run
        ("elsewhere", dead.pid, "another-host", now - 5),  # cannot be checked from here
        ("reused", sleeper.pid, here, now - 3600),  # the run is older than the process: pid reused
        ("reused-by-me", os.getpid(), here, now - 3600),  # a dead run's pid that this process reuses
        ("bare-host", dead.pid, socket.gethostname(), now - 5),  # written before the boot id was kept
        ("other-kernel", dead.pid, f"{socket.gethostname()}/another-boot", now - 5),  # same name
        ("old", None, None, now - 5),  # written before runs recorded their process
    ]
    with ws.transaction() as conn:
        conn.executemany(
            "INSERT INTO runs(run_id, kind, config, status, started, pid, host) VALUES (?,'extract','{}','running',?,?,?)",
            [(r, started, pid, host) for r, pid, host, started in rows],
        )
    ws.close()
    try:
        reopened = Workspace(tmp_path / "ws")
    finally:
        sleeper.kill()
        sleeper.wait()
    status = {r["run_id"]: r["status"] for r in reopened.query("SELECT run_id, status FROM runs")}
    assert status == {
        "dead": "interrupted",
        "alive": "running",
        "alive-child": "running",
        "elsewhere": "running",
        "reused": "interrupted",
        "reused-by-me": "interrupted",
        "bare-host": "interrupted",
        "other-kernel": "running",
        "old": "running",
    }
    finished = reopened.query("SELECT finished FROM runs WHERE run_id='dead'")[0][0]
    assert finished is not None


def test_run_context_records_done_failed_and_interrupted(workspace: Workspace) -> None:
    with workspace.run("collection build", {"n": 1}) as summary:
        summary["pages"] = 3
    with pytest.raises(ValueError), workspace.run("collection build", {}):
        raise ValueError("boom")
    with pytest.raises(KeyboardInterrupt), workspace.run("collection build", {}):
        raise KeyboardInterrupt
    rows = workspace.query("SELECT status, summary, pid FROM runs ORDER BY rowid")
    assert [r["status"] for r in rows] == ["done", "failed", "interrupted"]
    assert json.loads(rows[0]["summary"])["pages"] == 3 and rows[0]["pid"] == os.getpid()


def test_the_host_key_names_the_kernel_boot() -> None:
    boot = Path("/proc/sys/kernel/random/boot_id")
    if boot.exists():  # Linux: hostname/boot_id
        assert host_key() == f"{socket.gethostname()}/{boot.read_text().strip()}"
    else:
        assert host_key() == socket.gethostname()


def test_process_start_time_is_read_from_proc() -> None:
    started = process_start_time(os.getpid())
    assert started is not None and time.time() - 3600 < started <= time.time()
    assert process_start_time(2**22 + 12345) is None


def _gc_thresholds() -> tuple[int, int, int]:
    import gc

    return gc.get_threshold()


def test_pool_workers_run_with_the_worker_gc_thresholds() -> None:
    """Pool workers collect garbage less often than an interactive process (see lifeline._tune_gc);
    the process that starts the pool keeps Python's own thresholds."""
    import gc
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from mdqa_kernel.lifeline import WORKER_GC_THRESHOLDS

    before = gc.get_threshold()
    initializer, initargs = pool_initializer()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context, initializer=initializer, initargs=initargs) as pool:
        assert pool.submit(_gc_thresholds).result(timeout=60) == WORKER_GC_THRESHOLDS
    assert gc.get_threshold() == before
