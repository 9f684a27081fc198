"""The workspace store: one folder holding a SQLite database (WAL mode) plus parquet files.

Every stage keeps its output here, keyed by content hashes, so a re-run is free, an interrupted run
resumes, and two processes (two papermill runs) can share one workspace. Durability rests on SQLite:
each write is one transaction, so a process killed mid-write leaves the database at its last commit.
Parquet files are written to a temporary name and renamed into place, so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.lifeline import alive, boot_id, process_start_time

DEFAULT_WORKSPACE = "mdqa-workspace"
DB_NAME = "mdqa.sqlite"
BUSY_TIMEOUT_MS = 60_000


class StoreError(MdqaError):
    """A workspace could not be opened or written."""


class WorkspaceLockedError(StoreError):
    """Another process held the database write lock for longer than the busy timeout."""


# Versioned migrations: append a new (version, description, sql) at the end; never edit a released one.
# Each stage owns its tables; later stages add theirs here with the next version number.
MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "documents, parses, collections, runs, llm cache and call log, extractions, corrections",
        """
        CREATE TABLE parses (
            sha256 TEXT NOT NULL,
            parser_version TEXT NOT NULL,
            status TEXT NOT NULL,             -- ok | partial | error
            error_kind TEXT,
            message TEXT,
            n_pages INTEGER,
            language TEXT,
            scanned_pages TEXT,               -- JSON list of 1-based page numbers without a text layer
            pages_file TEXT,                  -- parquet path relative to the workspace
            chunks_file TEXT,
            seconds REAL,
            created REAL NOT NULL,
            PRIMARY KEY (sha256, parser_version)
        );
        CREATE TABLE collections (
            name TEXT PRIMARY KEY,
            spec TEXT NOT NULL,               -- JSON: how it was built (pdf dir, metadata file, filters)
            created REAL NOT NULL,
            updated REAL NOT NULL
        );
        CREATE TABLE collection_documents (
            collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
            doc_id TEXT NOT NULL,
            path TEXT,
            sha256 TEXT,
            status TEXT NOT NULL,             -- ok | partial | error
            error_kind TEXT,
            message TEXT,
            metadata TEXT NOT NULL,           -- JSON object of the metadata columns
            PRIMARY KEY (collection, doc_id)
        );
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            config TEXT NOT NULL,
            status TEXT NOT NULL,             -- running | done | failed | interrupted
            started REAL NOT NULL,
            finished REAL,
            summary TEXT
        );
        CREATE TABLE llm_cache (
            key TEXT PRIMARY KEY,             -- sha256 of (backend, model, prompt, schema, parameters)
            backend TEXT NOT NULL,
            model TEXT NOT NULL,
            response TEXT NOT NULL,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            seconds REAL,
            created REAL NOT NULL
        );
        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id TEXT,
            stage TEXT NOT NULL,
            key TEXT NOT NULL,
            backend TEXT NOT NULL,
            model TEXT NOT NULL,
            cache_hit INTEGER NOT NULL,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            seconds REAL,
            error TEXT,
            created REAL NOT NULL
        );
        CREATE INDEX llm_calls_run ON llm_calls(run_id, stage);
        CREATE TABLE extractions (
            task_key TEXT PRIMARY KEY,        -- sha256 of (document sha256, field spec, reader config)
            doc_id TEXT NOT NULL,
            sha256 TEXT,
            field TEXT NOT NULL,
            reader TEXT NOT NULL,
            result TEXT NOT NULL,             -- JSON of the reader result (value, status, evidence...)
            status TEXT NOT NULL,
            seconds REAL,
            created REAL NOT NULL
        );
        CREATE INDEX extractions_doc_field ON extractions(doc_id, field);
        CREATE TABLE corrections (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            doc_id TEXT NOT NULL,
            field TEXT NOT NULL,
            old_value TEXT,
            new_value TEXT,
            action TEXT NOT NULL,             -- edit | verify | undo
            reviewer TEXT,
            note TEXT,
            created REAL NOT NULL
        );
        CREATE INDEX corrections_doc_field ON corrections(doc_id, field);
        """,
    ),
    (
        2,
        "runs: the process (pid, host) that runs it, so a run whose process died is marked interrupted",
        """
        ALTER TABLE runs ADD COLUMN pid INTEGER;
        ALTER TABLE runs ADD COLUMN host TEXT;
        """,
    ),
    (
        3,
        "parses: the pages read by OCR (NULL: scanned pages left unread for want of an OCR engine)",
        """
        ALTER TABLE parses ADD COLUMN ocr_pages TEXT;
        """,
    ),
]


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def stable_hash(obj: Any) -> str:
    """sha256 of a JSON-serialisable object, independent of dict ordering."""
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class Workspace:
    """A workspace folder. Cheap to construct; each thread gets its own SQLite connection."""

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_WORKSPACE, *, create: bool = True) -> None:
        self.path = Path(path).expanduser().resolve()
        if not self.path.exists():
            if not create:
                raise StoreError(
                    f"workspace {self.path} does not exist; build a collection first "
                    f"(mdqa collection build PDF_DIR --metadata FILE --workspace {path})"
                )
            self.path.mkdir(parents=True, exist_ok=True)
        elif not self.path.is_dir():
            raise StoreError(
                f"workspace path {self.path} is a file, not a folder; choose another --workspace"
            )
        self.db_path = self.path / DB_NAME
        self.parquet_dir = self.path / "parquet"
        self.parquet_dir.mkdir(exist_ok=True)
        self._local = threading.local()
        self._migrate()
        self.mark_interrupted_runs()

    def __repr__(self) -> str:
        return f"Workspace({str(self.path)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Workers in other processes reopen the workspace by path; connections never cross processes.
        return (Workspace, (str(self.path),))

    # -- connections -------------------------------------------------------------------------
    def connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        pid = getattr(self._local, "pid", None)
        if conn is None or pid != os.getpid():
            conn = sqlite3.connect(self.db_path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit survives power loss, not only a killed process.
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
            self._local.pid = os.getpid()
        return conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. BEGIN IMMEDIATE takes the write lock up front so that two
        writers wait for each other instead of failing half-way."""
        conn = self.connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            raise WorkspaceLockedError(
                f"workspace {self.path} stayed locked for {BUSY_TIMEOUT_MS / 1000:.0f} s by another process; "
                "wait for it to finish or use another --workspace"
            ) from e
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    def query(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        return self.connect().execute(sql, params).fetchall()

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- schema ------------------------------------------------------------------------------
    def schema_version(self) -> int:
        row = self.connect().execute("PRAGMA user_version").fetchone()
        return int(row[0])

    def _migrate(self) -> None:
        target = MIGRATIONS[-1][0]
        current = self.schema_version()
        if current > target:
            raise StoreError(
                f"workspace {self.path} was written by a newer mdqa (schema {current} > {target}); upgrade mdqa"
            )
        if current == target:
            return
        with self.transaction() as conn:
            # Re-read inside the lock: another process may have migrated meanwhile.
            current = int(conn.execute("PRAGMA user_version").fetchone()[0])
            for version, _desc, sql in MIGRATIONS:
                if version > current:
                    for statement in _split_sql(sql):
                        conn.execute(statement)
                    conn.execute(f"PRAGMA user_version={version}")

    # -- parquet -----------------------------------------------------------------------------
    def write_parquet(self, df: pl.DataFrame, relpath: str) -> str:
        """Write atomically (temp file + rename) and return the path relative to the workspace."""
        target = self.path / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".parquet")
        os.close(fd)
        try:
            df.write_parquet(tmp)
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        return relpath

    def read_parquet(self, relpath: str) -> pl.DataFrame:
        target = self.path / relpath
        if not target.exists():
            raise StoreError(
                f"{target} is missing from workspace {self.path}; rebuild the collection to restore it"
            )
        return pl.read_parquet(target)

    # -- runs --------------------------------------------------------------------------------
    def start_run(self, kind: str, config: dict[str, Any], run_id: str | None = None) -> str:
        """Record a run as 'running', with this process's pid and host (see `mark_interrupted_runs`)."""
        run_id = run_id or f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{os.urandom(3).hex()}"
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO runs(run_id, kind, config, status, started, pid, host) "
                "VALUES (?,?,?,?,?,?,?)",
                (
                    run_id,
                    kind,
                    json.dumps(config, default=str),
                    "running",
                    time.time(),
                    os.getpid(),
                    host_key(),
                ),
            )
        return run_id

    @contextlib.contextmanager
    def run(self, kind: str, config: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """A run row around a block: 'done' when it ends, 'interrupted' on Ctrl-C, else 'failed'.
        The block fills the yielded dict, which becomes the run's summary."""
        run_id = self.start_run(kind, config)
        summary: dict[str, Any] = {"run_id": run_id}
        status = "failed"
        try:
            yield summary
            status = "done"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            self.finish_run(run_id, status, summary)

    def mark_interrupted_runs(self) -> list[str]:
        """Mark 'interrupted' every run still 'running' whose process, on this host, has ended (a
        killed command never finishes its run); return their ids. Runs of other hosts are left alone:
        their processes cannot be seen from here. A host is its `host_key` (hostname and boot id);
        rows written before the boot id was recorded (a bare hostname) are judged by hostname."""
        here = host_key()
        rows = self.query(
            "SELECT run_id, pid, started FROM runs "
            "WHERE status='running' AND pid IS NOT NULL AND host IN (?, ?)",
            (here, socket.gethostname()),
        )
        dead = [r["run_id"] for r in rows if not _process_running(int(r["pid"]), float(r["started"]))]
        if dead:
            note = json.dumps({"interrupted": "its process ended without finishing the run (killed?)"})
            with self.transaction() as conn:
                conn.executemany(
                    "UPDATE runs SET status='interrupted', finished=?, summary=? "
                    "WHERE run_id=? AND status='running'",
                    [(time.time(), note, run_id) for run_id in dead],
                )
        return dead

    def finish_run(self, run_id: str, status: str, summary: dict[str, Any] | None = None) -> None:
        with self.transaction() as conn:
            conn.execute(
                "UPDATE runs SET status=?, finished=?, summary=? WHERE run_id=?",
                (status, time.time(), json.dumps(summary or {}, default=str), run_id),
            )


def host_key() -> str:
    """Which machine's processes a run's pid names: `hostname/boot_id` where the kernel has a boot id,
    else the hostname. The boot id tells apart two containers that share a hostname but not a kernel
    (their pids are unrelated); the cost is that runs left 'running' by a killed command before a
    reboot stay 'running' (another kernel's runs, never judged from here)."""
    boot = boot_id()
    return f"{socket.gethostname()}/{boot}" if boot else socket.gethostname()


def _process_running(pid: int, since: float) -> bool:
    """Whether `pid` is still the live process that started a run at `since` (epoch seconds). This
    process too is checked by start time: a run older than it is a dead run whose pid it reuses."""
    if not alive(pid):  # gone, or a zombie: killed, not yet reaped by its parent
        return False
    started = process_start_time(pid)
    # A process that started after the run did is another one that reuses the pid (1 s: clock ticks).
    return started is None or started <= since + 1.0


def _split_sql(script: str) -> list[str]:
    # executescript() would COMMIT our open transaction; run statements one by one instead.
    return [s.strip() for s in script.split(";") if s.strip() and not s.strip().startswith("--")]


def open_workspace(
    path: str | os.PathLike[str] | Workspace | None = None, *, create: bool = True
) -> Workspace:
    if isinstance(path, Workspace):
        return path
    return Workspace(path or os.environ.get("MDQA_WORKSPACE", DEFAULT_WORKSPACE), create=create)
