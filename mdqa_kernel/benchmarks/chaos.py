"""Chaos: kill -9 mdqa commands at random moments, resume them, and compare with an uninterrupted run.

`chaos()` builds a collection of generated filings with `mdqa collection build --jobs J` and reads it
with `mdqa extract --reader table --jobs J`, killing the command (SIGKILL, the parent process only)
at random points of its progress, `kills` times in all, each kill followed by a resume (the next
start of the same command). After each kill it checks that no process of the command's process group
survives (the pools die with their parent, see mdqa_kernel.lifeline). Then it compares the cells with
a reference workspace built and read without interruption: lost, duplicated and changed cells must
all be 0, and every killed run must be marked 'interrupted'. `concurrent_extracts()` runs two
`mdqa extract` at once on one workspace and compares the same way.

Used by tests/test_chaos.py (5 kills) and notebooks/benchmarks/chaos.ipynb (`mdqa reproduce chaos`).
"""

from __future__ import annotations

import contextlib
import csv
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.examples import EXAMPLES, write_filing
from mdqa_kernel.lifeline import process_group, process_state
from mdqa_kernel.store import DB_NAME

PLAN_YAML = """\
question: chaos test plan (every figure of the generated filings)
fields:
  - name: total_revenue
    type: number
    description: Total revenue (营业收入) of the fiscal year
    question: What was the total revenue of {symbol} in {year}?
  - name: net_income
    type: number
    description: Net income (归属于上市公司股东的净利润) of the fiscal year
    question: What was the net income of {symbol} in {year}?
  - name: total_assets
    type: number
    description: Total assets at the end of the fiscal year
    question: What were the total assets of {symbol} at the end of {year}?
  - name: capital_adequacy_ratio
    type: percent
    unit: "%"
    description: Capital adequacy ratio (资本充足率) at the end of the fiscal year
    question: What was the capital adequacy ratio (资本充足率) of {symbol} at the end of {year}?
"""


class ChaosError(MdqaError):
    """A chaos run could not proceed: a command failed, or it never made progress."""


@dataclass
class Kill:
    """One kill -9: of which command, at what progress (rows committed), and what survived it."""

    command: str
    progress_before: int
    progress_at_kill: int
    survivors: list[int] = field(default_factory=list)
    seconds_to_clean: float = 0.0


# -- the collection ----------------------------------------------------------------------------


def make_filings(out_dir: str | Path, n_docs: int) -> tuple[Path, Path]:
    """`n_docs` one-page filings (the example filings with distinct company names, so distinct bytes)
    and their metadata.csv; returns (pdf folder, metadata file)."""
    out = Path(out_dir)
    pdfs = out / "pdfs"
    pdfs.mkdir(parents=True, exist_ok=True)
    rows = []
    for k in range(n_docs):
        doc_id, company, symbol, year, doctype, language, figures = EXAMPLES[k % len(EXAMPLES)]
        name = f"{doc_id}_{k:05d}"
        write_filing(pdfs / f"{name}.pdf", f"{company} {k}", year, language, figures)
        rows.append([name, company, symbol, year, doctype])
    meta = out / "metadata.csv"
    with open(meta, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["doc_id", "company", "symbol", "year", "doctype"])
        writer.writerows(rows)
    return pdfs, meta


def write_plan(path: str | Path) -> Path:
    target = Path(path)
    target.write_text(PLAN_YAML, encoding="utf-8")
    return target


# -- commands and their processes --------------------------------------------------------------


def mdqa(*args: str) -> list[str]:
    """The command line of `mdqa ARGS` with this interpreter (the source tree on its path)."""
    return [sys.executable, "-m", "mdqa_kernel.cli", *args]


def mdqa_env() -> dict[str, str]:
    """This environment, with the source tree that holds this mdqa first on PYTHONPATH, for `mdqa(...)`."""
    root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{path}" if path else root}


def start(cmd: list[str], log: Path) -> subprocess.Popen[bytes]:
    """Start a command in its own session (so its process group holds it and every helper it starts)."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=mdqa_env(), start_new_session=True
        )


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes whose process group is `pgid`, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        if process_state(pid) not in (None, "Z", "X") and process_group(pid) == pgid:
            found.append(pid)
    return found


def wait_group_gone(pgid: int, timeout: float) -> tuple[list[int], float]:
    """Wait until no live process of group `pgid` is left; return (survivors, seconds waited)."""
    t0 = time.monotonic()
    while True:
        alive = group_members(pgid)
        waited = time.monotonic() - t0
        if not alive or waited >= timeout:
            return alive, waited
        time.sleep(0.05)


def committed(workspace: Path, table: str) -> int:
    """Rows of `table` committed so far, read without opening the workspace (no migration, no lock)."""
    db = workspace / DB_NAME
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:  # the database is being created, or its tables are not there yet
        return 0


def kill_during(
    cmd: list[str], progress: Callable[[], int], target: int, log: Path, *, clean_timeout: float = 10.0
) -> Kill | None:
    """Start `cmd`, kill -9 its parent process once `progress()` reaches `target`, and wait for its
    process group to end. None when the command finished before reaching the target."""
    before = progress()
    proc = start(cmd, log)
    while proc.poll() is None and progress() < target:
        time.sleep(0.01)
    if proc.poll() is not None:
        if proc.returncode != 0:
            raise ChaosError(f"{' '.join(cmd)} failed (exit {proc.returncode}); see {log}")
        return None
    at_kill = progress()
    os.kill(proc.pid, signal.SIGKILL)  # the parent only: its pools must follow on their own
    proc.wait()
    survivors, seconds = wait_group_gone(proc.pid, clean_timeout)
    for pid in survivors:  # leave no stray process behind, whatever the result
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return Kill(_label(cmd), before, at_kill, survivors, seconds)


def _label(cmd: list[str]) -> str:
    """'collection build' or 'extract': the mdqa command of a command line."""
    words = cmd[cmd.index("mdqa_kernel.cli") + 1 :] if "mdqa_kernel.cli" in cmd else cmd
    return " ".join(w for w in words[:2] if not w.startswith("-") and "/" not in w)


def run(cmd: list[str], log: Path, timeout: float = 600) -> None:
    code = wait_all([start(cmd, log)], timeout, f"{' '.join(cmd)}", log)[0]
    if code != 0:
        raise ChaosError(f"{' '.join(cmd)} failed (exit {code}); see {log}")


def wait_all(procs: list[subprocess.Popen[bytes]], timeout: float, what: str, log: Path) -> list[int]:
    """The exit codes of `procs` (each started by `start`), waiting `timeout` seconds in all. On a
    timeout, or anything else that stops the wait, the process groups of those still running are
    killed: no command outlives the experiment."""
    deadline = time.monotonic() + timeout
    try:
        return [p.wait(max(0.0, deadline - time.monotonic())) for p in procs]
    except subprocess.TimeoutExpired:
        raise ChaosError(f"{what} ran longer than {timeout:.0f} s; see {log}") from None
    finally:
        for p in procs:
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def with_kills(
    cmd: list[str], progress: Callable[[], int], total: int, kills: int, rng: random.Random, log: Path
) -> list[Kill]:
    """Run `cmd` to completion, killing it `kills` times at random points of its progress (each kill
    lands in the first part of what is left, so the next kill still has work to interrupt)."""
    done: list[Kill] = []
    while len(done) < kills:
        now = progress()
        left = total - now
        if left <= 1:
            break
        target = now + rng.randint(1, max(1, left // (kills - len(done) + 1)))
        kill = kill_during(cmd, progress, target, log)
        if kill is None:  # it finished first: the run is complete
            break
        done.append(kill)
    run(cmd, log)  # the last resume, to the end
    return done


# -- comparing cells ---------------------------------------------------------------------------


def cells(workspace: Path) -> pl.DataFrame:
    """Every committed cell: doc_id, field, status, result (the reader's JSON, value and evidence)."""
    conn = sqlite3.connect(f"file:{workspace / DB_NAME}?mode=ro", uri=True, timeout=30)
    try:
        rows = conn.execute("SELECT doc_id, field, status, result FROM extractions").fetchall()
    finally:
        conn.close()
    schema = {"doc_id": pl.String, "field": pl.String, "status": pl.String, "result": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


def compare(reference: pl.DataFrame, tested: pl.DataFrame) -> dict[str, int]:
    """Cells lost (in the reference, not in the tested run), extra, duplicated ((doc_id, field) more
    than once) and changed (a different status or result)."""
    key = ["doc_id", "field"]
    dup = tested.group_by(key).len().filter(pl.col("len") > 1)
    lost = reference.join(tested, on=key, how="anti").height
    extra = tested.join(reference, on=key, how="anti").height
    both = reference.unique(key).join(tested.unique(key), on=key, suffix="_t")
    changed = both.filter(
        (pl.col("status") != pl.col("status_t")) | (pl.col("result") != pl.col("result_t"))
    ).height
    return {
        "cells": reference.height,
        "cells_tested": tested.height,
        "lost": lost,
        "extra": extra,
        "duplicated": int(dup["len"].sum() - dup.height) if dup.height else 0,
        "changed": changed,
    }


def run_statuses(workspace: Path) -> dict[str, int]:
    """Runs by status, after opening the workspace (which marks the runs of dead processes)."""
    from mdqa_kernel.store import Workspace

    ws = Workspace(workspace, create=False)
    try:
        rows = ws.query("SELECT status, count(*) AS n FROM runs GROUP BY status")
    finally:
        ws.close()
    return {r["status"]: int(r["n"]) for r in rows}


# -- the whole experiment ----------------------------------------------------------------------


def build_cmd(pdfs: Path, meta: Path, workspace: Path, jobs: int) -> list[str]:
    return mdqa(
        "collection", "build", str(pdfs), "--metadata", str(meta), "--workspace", str(workspace),
        "--jobs", str(jobs), "--json",
    )  # fmt: skip


def extract_cmd(workspace: Path, plan: Path, jobs: int) -> list[str]:
    return mdqa(
        "extract", "--workspace", str(workspace), "--plan", str(plan), "--reader", "table",
        "--jobs", str(jobs), "--json",
    )  # fmt: skip


def reference(folder: Path, pdfs: Path, meta: Path, plan: Path, jobs: int) -> Path:
    """A workspace built and read without interruption."""
    ws = folder / "reference"
    run(build_cmd(pdfs, meta, ws, jobs), folder / "reference.log")
    run(extract_cmd(ws, plan, jobs), folder / "reference.log")
    return ws


def chaos(
    folder: str | Path, *, kills: int = 5, docs: int = 300, jobs: int = 2, seed: int = 0
) -> dict[str, Any]:
    """Kill build and extract `kills` times in all (about half each), resume, compare with a reference."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    pdfs, meta = make_filings(out / "filings", docs)
    plan = write_plan(out / "plan.yaml")
    ref = reference(out, pdfs, meta, plan, jobs)
    expected = cells(ref)
    ws = out / "chaos"
    rng = random.Random(seed)
    log = out / "chaos.log"
    build_kills = with_kills(
        build_cmd(pdfs, meta, ws, jobs), lambda: committed(ws, "parses"), docs, (kills + 1) // 2, rng, log
    )
    extract_kills = with_kills(
        extract_cmd(ws, plan, jobs),
        lambda: committed(ws, "extractions"),
        expected.height,
        kills - len(build_kills),
        rng,
        log,
    )
    landed = build_kills + extract_kills
    return {
        "kills": len(landed),
        "build_kills": len(build_kills),
        "extract_kills": len(extract_kills),
        "documents": docs,
        "jobs": jobs,
        "seed": seed,
        **compare(expected, cells(ws)),
        "orphans": sum(len(k.survivors) for k in landed),
        "max_seconds_to_clean": max((k.seconds_to_clean for k in landed), default=0.0),
        "runs": run_statuses(ws),
        "seconds": time.perf_counter() - t0,
        "kill_log": [asdict(k) for k in landed],
    }


def concurrent_extracts(folder: str | Path, *, docs: int = 60, jobs: int = 1) -> dict[str, Any]:
    """Two `mdqa extract` at once on one workspace, compared with one run on another workspace."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    pdfs, meta = make_filings(out / "filings", docs)
    plan = write_plan(out / "plan.yaml")
    expected = cells(reference(out, pdfs, meta, plan, jobs))
    ws = out / "shared"
    log = out / "concurrent.log"
    run(build_cmd(pdfs, meta, ws, jobs), log)
    both = [start(extract_cmd(ws, plan, jobs), log) for _ in range(2)]
    codes = wait_all(both, 600, "two concurrent extracts", log)
    if any(codes):
        raise ChaosError(f"a concurrent extract failed (exit codes {codes}); see {log}")
    return {"runs": run_statuses(ws), **compare(expected, cells(ws))}
