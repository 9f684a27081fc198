"""Peak memory of a command and every process below it, sampled from /proc while it runs.

`measure(cmd)` runs one mdqa command in its own session and samples every `interval` seconds: the peak
resident memory (VmHWM, and VmRSS summed at each sample) of the command and of each process below it,
labelled by `role` (parent, pool worker, forkserver, resource tracker, Ray processes). Linux only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mdqa_kernel.benchmarks.chaos import mdqa_env
from mdqa_kernel.errors import MdqaError
from mdqa_kernel.lifeline import parent_pid


class ScaleError(MdqaError):
    """The scale benchmark could not run: no source filings, or a command failed."""


def _status_kb(pid: int) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in kB of a live process, None when it is gone or a zombie."""
    rss = hwm = -1
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (OSError, ValueError):
        return None
    return (rss, hwm) if rss >= 0 and hwm >= 0 else None


def _ppids() -> dict[int, int]:
    """pid -> parent pid of every process, from /proc."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (ppid := parent_pid(int(entry))) is not None:
            out[int(entry)] = ppid
    return out


def descendants(roots: Sequence[int], parents: dict[int, int] | None = None) -> set[int]:
    """The roots and every process below them (`parents`: a pid -> parent pid snapshot)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in (parents if parents is not None else _ppids()).items():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, []))
    return found


def role(pid: int, root: int, parent: int | None = None) -> str:
    """What a process is: the command itself, a pool worker, the forkserver, the resource tracker, Ray.
    Workers forked by a forkserver carry its command line, so they are told apart by their parent."""
    if pid == root:
        return "parent"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return "other"
    if "resource_tracker" in cmd:
        return "resource_tracker"
    if "forkserver" in cmd:
        return "forkserver" if parent == root else "worker"
    if "ray::" in cmd or "default_worker.py" in cmd:
        return "ray_worker"
    if any(p in cmd for p in ("raylet", "gcs_server", "ray/dashboard", "log_monitor", "monitor.py")):
        return "ray_system"
    if "multiprocessing" in cmd or "spawn_main" in cmd:
        return "worker"
    return "other"


@dataclass
class Usage:
    """What one command used: wall seconds, its exit code, and memory per process."""

    seconds: float
    returncode: int
    peak_kb: dict[int, int] = field(default_factory=dict)  # pid -> VmHWM
    roles: dict[int, str] = field(default_factory=dict)
    peak_total_kb: int = 0  # the largest sum of VmRSS over the processes at one sample

    def by_role(self) -> dict[str, int]:
        """The largest peak (kB) of any process of each role."""
        out: dict[str, int] = {}
        for pid, kb in self.peak_kb.items():
            r = self.roles.get(pid, "other")
            out[r] = max(out.get(r, 0), kb)
        return out

    def count(self, which: str) -> int:
        return sum(1 for r in self.roles.values() if r == which)


def measure(
    cmd: list[str], log: Path, *, extra_roots: Sequence[int] = (), env: dict[str, str] | None = None,
    interval: float = 0.2, timeout: float = 7200,
) -> Usage:  # fmt: skip
    """Run `cmd` to its end, sampling the memory of its process tree (and of `extra_roots`' trees,
    e.g. a Ray cluster's processes) every `interval` seconds. `env`: variables added to the command's."""
    log.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**mdqa_env(), **(env or {})},
            start_new_session=True,
        )
    usage = Usage(0.0, 0)
    try:
        while proc.poll() is None:
            _sample(usage, proc.pid, extra_roots)
            if time.perf_counter() - t0 > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise ScaleError(f"{' '.join(cmd)} ran longer than {timeout:.0f} s; see {log}")
            time.sleep(interval)
    finally:
        if proc.poll() is None:  # interrupted (KeyboardInterrupt): leave nothing behind
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    usage.seconds = time.perf_counter() - t0
    usage.returncode = proc.returncode
    if proc.returncode != 0:
        raise ScaleError(f"{' '.join(cmd)} failed (exit {proc.returncode}); see {log}")
    return usage


def _sample(usage: Usage, root: int, extra_roots: Sequence[int]) -> None:
    total = 0
    parents = _ppids()
    for pid in descendants([root, *extra_roots], parents):
        kb = _status_kb(pid)
        if kb is None:
            continue
        rss, hwm = kb
        total += rss
        usage.peak_kb[pid] = max(usage.peak_kb.get(pid, 0), hwm)
        kind = role(pid, root, parents.get(pid))
        if kind != "other" or pid not in usage.roles:  # a child seen between fork and exec is told later
            usage.roles[pid] = kind
    usage.peak_total_kb = max(usage.peak_total_kb, total)
