"""Sandbox: run free polars code (the `code` aggregation step, a last resort) in a separate process.

The code gets `rows` (a polars DataFrame) and `pl`, and must set `result` (a DataFrame). It runs in a
child Python process (`python -I`, minimal environment) whose only files are the run's temp folder
holding `input.parquet` and `code.py`. Limits: wall-clock time (the parent kills the process group),
CPU seconds, address space (so a 10 GB allocation fails), output file size, open files. Isolation,
strongest available first (see `sandbox_child`): new mount/network/IPC namespaces + chroot into
the temp folder + root dropped to nobody — this holds even for file or network access from polars'
Rust code — and always an audit hook refusing file access outside the folder, sockets, processes,
ctypes and introspection with clear messages. Errors come back as `SandboxError` (kind + message)
that a planner can show to an LLM and retry on, a bounded number of times (`run_with_retries`).

The audit hook alone is not a security boundary (CPython's docs say so); when the OS layer is not
available (not root and no unprivileged user namespaces) `SandboxResult.isolation` says
"audit-hook", and `require_isolation=True` refuses to run untrusted code that way.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from mdqa_kernel.errors import MdqaError

MARKER = "__MDQA_SANDBOX_STATUS__"
_CHILD_SOURCE = (Path(__file__).with_name("sandbox_child.py")).read_text(encoding="utf-8")


class SandboxError(MdqaError, RuntimeError):
    """The sandboxed code failed. `kind`: refused | error | timeout | memory | crashed | output | isolation."""

    def __init__(self, kind: str, message: str, *, stdout: str = "") -> None:
        self.kind, self.message, self.stdout = kind, message, stdout
        super().__init__(f"sandbox {kind}: {message}")


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 20.0  # wall clock for the whole child, start-up (importing polars) included
    memory_mb: int = 2048  # address space; polars itself runs in well under 512 MB
    max_output_mb: int = 256  # largest file the child may write (the result parquet)


@dataclass
class SandboxResult:
    frame: pl.DataFrame | None
    error: SandboxError | None = None
    isolation: str = "unknown"
    stdout: str = ""
    seconds: float = 0.0
    attempts: list[str] = field(default_factory=list)  # error messages of earlier attempts (retries)

    @property
    def ok(self) -> bool:
        return self.error is None


def run_polars_code(
    code: str, rows: pl.DataFrame, *, limits: SandboxLimits | None = None, require_isolation: bool = False
) -> pl.DataFrame:
    """Run `code` on `rows` in the sandbox and return its `result` frame, or raise SandboxError."""
    res = run_sandboxed(code, rows, limits=limits, require_isolation=require_isolation)
    if res.error is not None:
        raise res.error
    assert res.frame is not None
    return res.frame


def run_sandboxed(
    code: str, rows: pl.DataFrame, *, limits: SandboxLimits | None = None, require_isolation: bool = False
) -> SandboxResult:
    """Like run_polars_code, but returns a SandboxResult (error included) instead of raising."""
    limits = limits or SandboxLimits()
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="mdqa-sandbox-"))
    try:
        work = root / "sandbox"  # the chroot shows `root` as "/" and the code runs in "/sandbox"
        work.mkdir()
        root.chmod(0o711)  # the dropped-privilege child must traverse "/" of its chroot, nothing more
        rows.write_parquet(work / "input.parquet")
        (work / "code.py").write_text(code, encoding="utf-8")
        status, rc, stderr = _run_child(root, work, limits)
        result = _interpret(status, rc, stderr, work, limits)
        result.seconds = time.monotonic() - started
        if require_isolation and result.isolation == "audit-hook":
            result.frame, result.error = (
                None,
                SandboxError(
                    "isolation",
                    "OS isolation (namespaces + chroot) is unavailable here; refusing untrusted code",
                ),
            )
        return result
    finally:
        _safe_rmtree(root)


def _safe_rmtree(root: Path) -> None:
    """Delete the run folder, but never through a mount point: the child bind-mounts libraries
    under it in its own (private) mount namespace; should one ever be visible here, deleting it
    would delete the real files."""
    for dirpath, dirnames, _ in os.walk(root):
        for name in dirnames:
            if os.path.ismount(os.path.join(dirpath, name)):
                return  # leave it (a few empty folders in /tmp) rather than risk the libraries
    shutil.rmtree(root, ignore_errors=True)


def _run_child(root: Path, work: Path, limits: SandboxLimits) -> tuple[dict | None, int, str]:
    memory = limits.memory_mb * 1024 * 1024
    cpu = max(1, int(limits.timeout_s))
    argv = [sys.executable, "-I", "-c", _CHILD_SOURCE, str(work), str(root), str(memory), str(cpu),
            str(limits.max_output_mb * 1024 * 1024)]  # fmt: skip
    # A minimal environment: no credentials or proxies from ours; one polars thread (2 shared cores,
    # and fewer threads keep the address-space limit meaningful).
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "POLARS_MAX_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, close_fds=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        return {"kind": "timeout"}, proc.returncode, err.decode("utf-8", "replace")
    finally:
        _kill_group(proc)  # threads or stragglers the code may have left in its group
    return _parse_status(out.decode("utf-8", "replace")), proc.returncode, err.decode("utf-8", "replace")


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _parse_status(stdout: str) -> dict | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                return json.loads(line[len(MARKER) :])
            except json.JSONDecodeError:
                return None
    return None


def _interpret(status: dict | None, rc: int, stderr: str, work: Path, limits: SandboxLimits) -> SandboxResult:
    if status is not None and status.get("kind") == "timeout":
        return SandboxResult(None, SandboxError("timeout", f"time limit exceeded ({limits.timeout_s:g} s)"))
    if status is None:
        return SandboxResult(None, _crash_error(rc, stderr, limits))
    iso, out = status.get("isolation", "unknown"), status.get("stdout", "")
    if not status.get("ok"):
        kind = status.get("kind", "error")
        msg = status.get("error", "unknown error")
        if kind == "memory":
            msg = f"memory limit exceeded ({limits.memory_mb} MB): {msg}"
        return SandboxResult(None, SandboxError(kind, msg, stdout=out), isolation=iso, stdout=out)
    try:
        frame = _read_result(work / "result.parquet", limits)
    except SandboxError as exc:
        return SandboxResult(None, exc, isolation=iso, stdout=out)
    return SandboxResult(frame, None, isolation=iso, stdout=out)


def _crash_error(rc: int, stderr: str, limits: SandboxLimits) -> SandboxError:
    tail = " | ".join(stderr.strip().splitlines()[-3:])[-500:]
    if rc in (-signal.SIGXCPU, -signal.SIGKILL) and "allocation" not in stderr:
        return SandboxError("timeout", f"CPU time limit exceeded ({int(limits.timeout_s)} s)")
    if "memory allocation" in stderr or "MemoryError" in stderr or rc in (-signal.SIGABRT, -signal.SIGSEGV):
        return SandboxError(
            "memory", f"the process died, most likely over the memory limit ({limits.memory_mb} MB): {tail}"
        )
    return SandboxError("crashed", f"the sandbox process exited with code {rc} without a result: {tail}")


def _read_result(path: Path, limits: SandboxLimits) -> pl.DataFrame:
    """Read the child's result without following links it may have planted (host paths!)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise SandboxError("output", "the sandbox produced no result file") from None
    if not stat.S_ISREG(st.st_mode):
        raise SandboxError("output", "the result is not a regular file (links are refused)")
    if st.st_size > limits.max_output_mb * 1024 * 1024:
        raise SandboxError("output", f"the result is larger than {limits.max_output_mb} MB")
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        try:
            return pl.read_parquet(fh)
        except pl.exceptions.PolarsError as exc:
            raise SandboxError("output", f"the result file is not a valid parquet frame: {exc}") from exc


def run_with_retries(
    generate: Callable[[str | None], str],
    rows: pl.DataFrame,
    *,
    max_attempts: int = 3,
    limits: SandboxLimits | None = None,
) -> SandboxResult:
    """Ask `generate(previous_error)` for code and run it, at most `max_attempts` times.

    `generate` gets None the first time and then the last error message (what a planner shows
    the LLM). Refusals are retried too: the next attempt may avoid the refused call. Returns the
    first success, or the last failure with every earlier error in `attempts`.
    """
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    errors: list[str] = []
    result = SandboxResult(None)
    for _ in range(max_attempts):
        code = generate(errors[-1] if errors else None)
        result = run_sandboxed(code, rows, limits=limits)
        if result.ok:
            break
        assert result.error is not None
        errors.append(str(result.error))
    result.attempts = errors[:-1] if not result.ok else errors
    return result


__all__ = [
    "SandboxError",
    "SandboxLimits",
    "SandboxResult",
    "run_polars_code",
    "run_sandboxed",
    "run_with_retries",
]
