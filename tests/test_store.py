"""The workspace store: migrations, atomic parquet, two writers, and kill -9 mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.store import MIGRATIONS, StoreError, Workspace, sha256_file, stable_hash


def test_new_workspace_is_migrated_and_in_wal_mode(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    assert ws.schema_version() == MIGRATIONS[-1][0]
    assert ws.query("PRAGMA journal_mode")[0][0] == "wal"
    tables = {r[0] for r in ws.query("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "parses",
        "collections",
        "collection_documents",
        "llm_cache",
        "extractions",
        "corrections",
    } <= tables
    # Reopening does not re-run migrations.
    assert Workspace(tmp_path / "ws").schema_version() == MIGRATIONS[-1][0]


def test_missing_workspace_without_create_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="mdqa collection build"):
        Workspace(tmp_path / "nope", create=False)


def test_workspace_path_that_is_a_file(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(StoreError, match="is a file"):
        Workspace(f)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.connect().execute("PRAGMA user_version=999")
    ws.close()
    with pytest.raises(StoreError, match="newer mdqa"):
        Workspace(tmp_path / "ws")


def test_transaction_rolls_back_on_error(workspace: Workspace) -> None:
    with pytest.raises(RuntimeError), workspace.transaction() as conn:
        conn.execute(
            "INSERT INTO runs(run_id, kind, config, status, started) VALUES ('r1','x','{}','running',0)"
        )
        raise RuntimeError("boom")
    assert workspace.query("SELECT count(*) FROM runs")[0][0] == 0


def test_parquet_round_trip_is_atomic(workspace: Workspace) -> None:
    df = pl.DataFrame({"page": [1, 2], "text": ["营业收入", "net income"]})
    rel = workspace.write_parquet(df, "pages/abc.parquet")
    assert workspace.read_parquet(rel).equals(df)
    leftovers = [p.name for p in (workspace.path / "pages").iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []
    with pytest.raises(StoreError, match="rebuild"):
        workspace.read_parquet("pages/missing.parquet")


def test_hashes(tmp_path: Path) -> None:
    f = tmp_path / "a.bin"
    f.write_bytes(b"abc")
    assert sha256_file(f) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert stable_hash({"a": 1, "b": 2}) == stable_hash({"b": 2, "a": 1})


def test_runs_are_recorded(workspace: Workspace) -> None:
    run_id = workspace.start_run("extract", {"k": 3})
    workspace.finish_run(run_id, "done", {"cells": 10})
    row = workspace.query("SELECT status, summary FROM runs WHERE run_id=?", (run_id,))[0]
    assert row["status"] == "done" and '"cells": 10' in row["summary"]


WRITER = textwrap.dedent(
    """
    import sys, time
    from mdqa_kernel.store import Workspace
    ws = Workspace(sys.argv[1])
    tag, n = sys.argv[2], int(sys.argv[3])
    for i in range(n):
        with ws.transaction() as conn:
            conn.execute(
                "INSERT INTO llm_cache(key, backend, model, response, created) VALUES (?,?,?,?,?)",
                (f"{tag}-{i}", "test", "m", "x" * 200, time.time()),
            )
        print(i, flush=True)
    """
)


def _spawn_writer(ws_path: Path, tag: str, n: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(ws_path), tag, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_write_one_workspace(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    Workspace(ws_path)
    procs = [_spawn_writer(ws_path, tag, 300) for tag in ("a", "b")]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    ws = Workspace(ws_path)
    assert ws.query("PRAGMA integrity_check")[0][0] == "ok"
    assert ws.query("SELECT count(*) FROM llm_cache")[0][0] == 600


def test_kill_9_mid_write_keeps_every_commit(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    Workspace(ws_path)
    proc = _spawn_writer(ws_path, "k", 1_000_000)
    committed = -1
    assert proc.stdout is not None
    deadline = time.time() + 60
    while committed < 200 and time.time() < deadline:
        committed = int(proc.stdout.readline())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    ws = Workspace(ws_path)
    assert ws.query("PRAGMA integrity_check")[0][0] == "ok"
    rows = ws.query("SELECT count(*) FROM llm_cache")[0][0]
    # Every transaction the writer reported as committed survived; at most one more landed after it.
    assert committed + 1 <= rows <= committed + 2
    # And the store is still writable.
    with ws.transaction() as conn:
        conn.execute(
            "INSERT INTO llm_cache(key, backend, model, response, created) VALUES ('z','t','m','r',0)"
        )
