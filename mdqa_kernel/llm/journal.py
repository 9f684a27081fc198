"""A portable copy of the LLM cache: one JSON line per answer the model gave.

The workspace's `llm_cache` table lives in SQLite beside rendered files and parse caches that any
machine can rebuild; the model's answers are the one expensive part (a benchmark grid is hours of
model time). A journal kept beside a grid's results.jsonl holds them in a form git can keep, so a
grid resumes on a fresh clone without asking the model again, even half-way through a question.

    append_entry(path, entry)            # the client writes each new answer as it stores it
    load_journal(path, workspace)        # a run copies the journal into its workspace's cache first

Entries are keyed by the client's cache key, which names the model by the hash of its weights, so an
entry is only ever reused for the same model, prompt, schema and parameters.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdqa_kernel.store import Workspace, open_workspace

FIELDS = ("key", "backend", "model", "response", "prompt_tokens", "completion_tokens", "seconds", "created")


@dataclass(frozen=True)
class JournalLoad:
    """What loading a journal did: entries new to the workspace, entries it had, unreadable lines."""

    added: int
    known: int
    bad_lines: int


def append_entry(path: str | os.PathLike[str], entry: dict[str, Any]) -> None:
    """Append one entry as a single write (O_APPEND), so that concurrent writers never interleave
    and a crash leaves at most one truncated last line, which `load_journal` skips (the next entry
    starts on a line of its own)."""
    line = json.dumps({f: entry.get(f) for f in FIELDS}, ensure_ascii=False) + "\n"
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = "\n" + line
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


def _entries(path: Path) -> tuple[list[dict[str, Any]], int]:
    good: list[dict[str, Any]] = []
    bad = 0
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                bad += 1  # a line cut by a crash mid-write: that one answer is asked again
                continue
            if (
                not isinstance(entry, dict)
                or not entry.get("key")
                or not isinstance(entry.get("response"), str)
            ):
                bad += 1
                continue
            good.append(entry)
    return good, bad


def take_entries(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The journal's entries, removing the file (a worker hands its new answers to the driver this way;
    only the process named in the file's name writes it)."""
    path = Path(path)
    if not path.is_file():
        return []
    entries, _bad = _entries(path)
    path.unlink()
    return entries


def insert_entries(conn: Any, entries: list[dict[str, Any]], *, replace: bool) -> None:
    """Write entries into the workspace's llm_cache table (its columns are FIELDS): a new answer
    replaces an older one of its key; a loaded journal keeps what the workspace already has."""
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    conn.executemany(
        f"{verb} INTO llm_cache({', '.join(FIELDS)}) VALUES ({','.join('?' * len(FIELDS))})",
        [_row(e) for e in entries],
    )


def _row(entry: dict[str, Any]) -> tuple[Any, ...]:
    defaults = {"backend": "", "model": "", "created": 0.0}
    return tuple(entry.get(f) if entry.get(f) is not None else defaults.get(f) for f in FIELDS)


def load_journal(path: str | os.PathLike[str], workspace: Workspace | str | os.PathLike[str]) -> JournalLoad:
    """Copy the journal's answers into the workspace's LLM cache (entries it already has are kept
    as they are). A missing journal loads nothing."""
    path = Path(path)
    if not path.is_file():
        return JournalLoad(0, 0, 0)
    entries, bad = _entries(path)
    ws = open_workspace(workspace)
    with ws.transaction() as conn:
        before = conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0]
        insert_entries(conn, entries, replace=False)
        after = conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0]
    added = after - before
    return JournalLoad(added=added, known=len(entries) - added, bad_lines=bad)
