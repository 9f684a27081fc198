"""Sandbox: run free polars code (the `code` aggregation step, a last resort) in an isolated process.

The code gets `rows` (a polars DataFrame) and `pl`, and must set `result` (a DataFrame). The
security boundary is bubblewrap (`bwrap`, Debian package `bubblewrap`), an audited tool, not
Python: the child runs in new pid, network, IPC, UTS and mount namespaces as an unprivileged host
user with no capabilities (started by root: no user namespace, `setpriv` makes it uid 65534 with
an empty capability set, and without setpriv the sandbox refuses; started by anyone else: a user
namespace mapping it to the caller's uid, every capability dropped, no further user namespaces),
with no network, no /proc, and a read-only view of only /usr, the system libraries, the Python
installation and its input folder (the input parquet and the code). Its one writable folder is a size-capped scratch tmpfs (`/tmp`, also its
working folder); nothing of the host is writable. The result frame comes back through a pipe the
parent reads with a cap. Limits: wall clock (the parent kills bwrap; the pid namespace takes every
grandchild with it, `setsid` or not), and rlimits set by `prlimit` before bwrap starts (address
space, CPU seconds, file size, processes (per sandbox, see `isolation._nproc_cap`), open files, no core
dumps).

The parent decides the outcome from what it observes: the exit status and the result frame read
back and checked; never from a line the child prints (the child may be fully hostile). Its stdout
and stderr are read with a cap (the tail is kept, the rest drained), so printing a gigabyte costs
the parent no memory. Inside, a Python audit hook and guarded polars readers refuse forbidden calls
with clear messages for an LLM to retry on (`run_with_retries`); they are friendliness, not the
boundary (tests turn them off with `python_guards=False` and the boundary still holds).

Isolation is required by default, for every caller: where it is unavailable, the call refuses
before running anything. There is one opt-out, for trusted code only: `require_isolation=False`, or
the environment variable MDQA_SANDBOX_UNISOLATED=1 (which the default honours). Opted out and
without bubblewrap, the code runs with rlimits and the Python guards only, and the result says so:
`isolation="none"` and a `note`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from mdqa_kernel.aggregate.isolation import (
    IN_DIR,
    WORK_DIR,
    SandboxError,
    SandboxLimits,
    bwrap_argv,
    bwrap_path,
    child_env,
    isolation_available,
    isolation_problem,
    root_setpriv,
    with_rlimits,
)

MARKER = "__MDQA_SANDBOX_ERROR__"  # the child's failure report on stderr (describes, never decides)
_CHILD_SOURCE = (Path(__file__).with_name("sandbox_child.py")).read_text(encoding="utf-8")
UNISOLATED_ENV = "MDQA_SANDBOX_UNISOLATED"  # "1": the operator's opt-out of isolation (trusted code)
ISOLATION = "bubblewrap"
NO_ISOLATION_NOTE = (
    "ran WITHOUT OS isolation (bubblewrap unavailable): only rlimits and Python-level guards, "
    "which are not a security boundary, and a process the code detaches (setsid) is not killed; "
    "install bubblewrap (apt-get install bubblewrap)"
)
STREAM_CAP = 1 << 20  # bytes of the child's stdout / stderr kept (the tail); the rest is discarded
_KILL_GRACE_S = 2.0  # after killing, how long the parent still waits for the pipes to close


@dataclass
class SandboxResult:
    frame: pl.DataFrame | None
    error: SandboxError | None = None
    isolation: str = "unknown"  # "bubblewrap", or "none" (see `note`); decided by the parent
    stdout: str = ""  # the tail of what the code printed (shown, never trusted)
    seconds: float = 0.0
    attempts: list[str] = field(default_factory=list)  # error messages of earlier attempts (retries)
    note: str = ""  # said when the code ran without isolation

    @property
    def ok(self) -> bool:
        return self.error is None


def run_polars_code(
    code: str,
    rows: pl.DataFrame,
    *,
    limits: SandboxLimits | None = None,
    require_isolation: bool | None = None,
    python_guards: bool = True,
) -> pl.DataFrame:
    """Run `code` on `rows` in the sandbox and return its `result` frame, or raise SandboxError."""
    res = run_sandboxed(
        code, rows, limits=limits, require_isolation=require_isolation, python_guards=python_guards
    )
    if res.error is not None:
        raise res.error
    assert res.frame is not None
    return res.frame


def run_sandboxed(
    code: str,
    rows: pl.DataFrame,
    *,
    limits: SandboxLimits | None = None,
    require_isolation: bool | None = None,
    python_guards: bool = True,
) -> SandboxResult:
    """Like run_polars_code, but returns a SandboxResult (error included) instead of raising.

    `require_isolation`: None (default) requires it unless $MDQA_SANDBOX_UNISOLATED is "1"; True
    requires it; required, the call refuses before running anything where it is unavailable. False
    allows the unisolated fallback (trusted code only; said in the result). `python_guards=False`
    leaves out the friendly Python-level refusals (tests use it to show that the OS boundary holds
    on its own).
    """
    limits = limits or SandboxLimits()
    started = time.monotonic()
    problem = isolation_problem()
    isolated = problem is None
    if require_isolation is None:
        require_isolation = os.environ.get(UNISOLATED_ENV) != "1"
    if require_isolation and problem is not None:
        return SandboxResult(None, _isolation_error(problem), isolation="none")
    if not isolated:
        warnings.warn(f"sandbox: {NO_ISOLATION_NOTE}", RuntimeWarning, stacklevel=2)
    with tempfile.TemporaryDirectory(prefix="mdqa-sandbox-") as tmp:
        root = Path(tmp)
        (root / "in").mkdir()
        rows.write_parquet(root / "in" / "input.parquet")
        (root / "in" / "code.py").write_text(code, encoding="utf-8")
        bwrap = bwrap_path() if isolated else None
        if bwrap is not None:
            setpriv = root_setpriv(bwrap) if os.geteuid() == 0 else None
            prefix, in_dir, work = bwrap_argv(bwrap, root / "in", limits, setpriv=setpriv), IN_DIR, WORK_DIR
        else:
            (root / "work").mkdir()
            prefix, in_dir, work = [], str(root / "in"), str(root / "work")

        def argv(result_fd: int) -> list[str]:
            child = _child_argv(in_dir, work, result_fd, limits, python_guards)
            return with_rlimits([*prefix, *child], limits)

        run = _run(argv, limits, cwd=root)
        result = _interpret(run, limits)
    result.isolation = ISOLATION if isolated else "none"
    result.note = "" if isolated else NO_ISOLATION_NOTE
    result.seconds = time.monotonic() - started
    return result


def _isolation_error(why: str) -> SandboxError:
    return SandboxError(
        "isolation",
        f"{why}; refusing to run untrusted code without OS isolation. Install bubblewrap and setpriv "
        "(apt-get install bubblewrap util-linux, or `make sysdeps`) and allow unprivileged user "
        f"namespaces; or, for trusted code only, opt out with {UNISOLATED_ENV}=1 in the environment "
        "(or require_isolation=False)",
    )


def _child_argv(
    in_dir: str, work: str, result_fd: int, limits: SandboxLimits, python_guards: bool
) -> list[str]:
    memory = limits.memory_mb * 1024 * 1024
    cpu = max(1, int(limits.timeout_s))
    return [sys.executable, "-I", "-c", _CHILD_SOURCE, in_dir, work, str(result_fd), str(memory), str(cpu),
            str(limits.max_output_mb * 1024 * 1024), str(int(python_guards))]  # fmt: skip


@dataclass
class _Run:
    """What the parent observed."""

    returncode: int | None
    timed_out: bool
    result: bytes  # what came through the result pipe (up to the cap)
    result_overflow: bool
    stdout: str  # tails
    stderr: str


def _run(argv: Callable[[int], list[str]], limits: SandboxLimits, *, cwd: Path) -> _Run:
    """Start the child (`argv(result_fd)`), read its three pipes with caps until it exits or the
    deadline passes; then kill what is left."""
    deadline = time.monotonic() + limits.timeout_s
    result_r, result_w = os.pipe()
    try:
        proc = subprocess.Popen(
            argv(result_w), cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, close_fds=True, pass_fds=(result_w,),
        )  # fmt: skip
    except BaseException:
        os.close(result_r)
        raise
    finally:
        os.close(result_w)
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    reader = _CappedReader({out_fd: STREAM_CAP, err_fd: STREAM_CAP, result_r: limits.max_output_mb << 20})
    try:
        timed_out = not reader.read_until(deadline, stop_on_overflow=(result_r,))
        if timed_out or result_r in reader.overflow:
            _kill(proc)
            reader.read_until(time.monotonic() + _KILL_GRACE_S)  # the pid namespace is gone: EOF
        if not _exited(proc, max(0.1, deadline - time.monotonic()) if not timed_out else _KILL_GRACE_S):
            timed_out = True
        # Stragglers in its process group (the fallback has no pid namespace), killed while the
        # child is still unreaped: its pid, hence the group id, cannot belong to anyone else yet.
        _kill(proc)
        rc = proc.wait(timeout=_KILL_GRACE_S)
    finally:
        _kill(proc)  # only if an error came before the reaping above (a no-op once reaped)
        reader.close()
        os.close(result_r)
        proc.stdout.close()
        proc.stderr.close()
    return _Run(rc, timed_out, reader.data(result_r), result_r in reader.overflow,
                reader.text(out_fd), reader.text(err_fd))  # fmt: skip


class _CappedReader:
    """Reads several pipes at once; keeps at most `cap` bytes of each (the tail), drains the rest."""

    def __init__(self, caps: dict[int, int]) -> None:
        self.caps = caps
        self.buffers = {fd: bytearray() for fd in caps}
        self.overflow: set[int] = set()
        self.selector = selectors.DefaultSelector()
        for fd in caps:
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ)

    def read_until(self, deadline: float, *, stop_on_overflow: tuple[int, ...] = ()) -> bool:
        """Read until every pipe reached EOF (True) or the deadline (False)."""
        while self.selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in self.selector.select(timeout=left):
                fd = int(key.fd)
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    self.selector.unregister(fd)
                    continue
                self._keep(fd, chunk)
                if fd in self.overflow and fd in stop_on_overflow:
                    return True
        return True

    def _keep(self, fd: int, chunk: bytes) -> None:
        buf, cap = self.buffers[fd], self.caps[fd]
        buf += chunk
        if len(buf) > cap:
            self.overflow.add(fd)
            del buf[: len(buf) - cap]

    def data(self, fd: int) -> bytes:
        return bytes(self.buffers[fd])

    def text(self, fd: int) -> str:
        return self.buffers[fd].decode("utf-8", "replace")

    def close(self) -> None:
        self.selector.close()


def _exited(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait up to `timeout` for the child to exit WITHOUT reaping it (waitid WNOWAIT)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:  # reaped already (cannot happen here: only _run reaps)
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL bwrap's process group; bwrap dying takes its pid namespace, grandchildren included.
    Only while the child is unreaped (`returncode` is None): a reaped pid may be reused."""
    if proc.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _interpret(run: _Run, limits: SandboxLimits) -> SandboxResult:
    """The outcome from what the parent saw: exit status, then the result frame and its schema."""
    out = run.stdout[-2000:]
    if run.timed_out:
        return SandboxResult(
            None, SandboxError("timeout", f"time limit exceeded ({limits.timeout_s:g} s)"), stdout=out
        )
    if run.result_overflow:
        return SandboxResult(
            None, SandboxError("output", f"the result is larger than {limits.max_output_mb} MB")
        )
    if run.returncode != 0:
        return SandboxResult(None, _failure(run, limits), stdout=out)
    try:
        frame = _read_result(run.result)
    except SandboxError as exc:
        return SandboxResult(None, exc, stdout=out)
    return SandboxResult(frame, None, stdout=out)


def _failure(run: _Run, limits: SandboxLimits) -> SandboxError:
    """Why a run failed. The child's report, if any, only words the failure (it cannot make one a
    success); without one, the exit status says what killed it."""
    report = _child_report(run.stderr)
    rc = run.returncode if run.returncode is not None else -1
    signum = -rc if rc < 0 else rc - 128 if rc > 128 else 0  # bwrap exits 128+N when N killed the child
    if report is not None and signum == 0:
        kind, msg = report
        if kind == "memory":
            msg = f"memory limit exceeded ({limits.memory_mb} MB): {msg}"
        return SandboxError(
            kind if kind in ("refused", "error", "memory") else "error", msg, stdout=run.stdout[-2000:]
        )
    tail = " | ".join(line for line in run.stderr.strip().splitlines()[-3:])[-500:]
    if signum in (signal.SIGXCPU, signal.SIGKILL) and "allocation" not in run.stderr:
        return SandboxError("timeout", f"CPU time limit exceeded ({int(limits.timeout_s)} s)")
    if (
        "memory allocation" in run.stderr
        or "MemoryError" in run.stderr
        or signum in (signal.SIGABRT, signal.SIGSEGV)
    ):
        return SandboxError(
            "memory", f"the process died, most likely over the memory limit ({limits.memory_mb} MB): {tail}"
        )
    return SandboxError("crashed", f"the sandbox process exited with code {rc} without a result: {tail}")


def _child_report(stderr: str) -> tuple[str, str] | None:
    for line in reversed(stderr.splitlines()):
        if line.startswith(MARKER):
            try:
                report = json.loads(line[len(MARKER) :])
                return str(report["kind"]), str(report["error"])
            except (json.JSONDecodeError, KeyError, TypeError):
                return None
    return None


def _read_result(data: bytes) -> pl.DataFrame:
    """The result frame from the bytes the child sent: a valid parquet frame with named columns."""
    if not data:
        raise SandboxError("output", "the code finished without a result frame (did it exit early?)")
    try:
        frame = pl.read_parquet(io.BytesIO(data))
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise SandboxError("output", f"the result is not a valid parquet frame: {exc}") from exc
    if frame.width == 0:
        raise SandboxError("output", "the result frame has no columns")
    if any(not name for name in frame.columns):
        raise SandboxError("output", "the result frame has a column without a name")
    return frame


def run_with_retries(
    generate: Callable[[str | None], str],
    rows: pl.DataFrame,
    *,
    max_attempts: int = 3,
    limits: SandboxLimits | None = None,
    require_isolation: bool | None = None,
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
        result = run_sandboxed(code, rows, limits=limits, require_isolation=require_isolation)
        if result.ok:
            break
        assert result.error is not None
        errors.append(str(result.error))
    result.attempts = errors[:-1] if not result.ok else errors
    return result


@dataclass
class ShellResult:
    """One shell command's outcome, as the parent observed it."""

    output: str  # stdout then stderr (the tails kept under STREAM_CAP each)
    returncode: int | None
    timed_out: bool
    isolation: str  # "bubblewrap" or "none"
    seconds: float


def run_shell(
    command: str,
    in_dir: Path,
    *,
    limits: SandboxLimits | None = None,
    require_isolation: bool | None = None,
) -> ShellResult:
    """Run one bash command in the sandbox, `in_dir` mounted read-only at IN_DIR, a fresh scratch
    tmpfs as its working folder (nothing it writes survives the command), no network, the same
    rlimits and kill-on-deadline as the code step. For an agent's commands (untrusted, like code):
    isolation is required as in `run_sandboxed`; an error (SandboxError "isolation") where it is
    unavailable, before anything runs."""
    limits = limits or SandboxLimits()
    started = time.monotonic()
    problem = isolation_problem()
    if require_isolation is None:
        require_isolation = os.environ.get(UNISOLATED_ENV) != "1"
    if problem is not None and require_isolation:
        raise _isolation_error(problem)
    bwrap = bwrap_path() if problem is None else None
    with tempfile.TemporaryDirectory(prefix="mdqa-shell-") as tmp:
        if bwrap is not None:
            setpriv = root_setpriv(bwrap) if os.geteuid() == 0 else None
            prefix = bwrap_argv(bwrap, in_dir, limits, setpriv=setpriv)
        else:
            prefix = []
        run = _run(lambda _fd: with_rlimits([*prefix, "/bin/bash", "-c", command], limits), limits,
                   cwd=Path(tmp))  # fmt: skip
    output = run.stdout + (("\n" if run.stdout and not run.stdout.endswith("\n") else "") + run.stderr
                           if run.stderr else "")  # fmt: skip
    return ShellResult(output, run.returncode, run.timed_out, ISOLATION if bwrap else "none",
                       time.monotonic() - started)  # fmt: skip


__all__ = [
    "SandboxError",
    "SandboxLimits",
    "SandboxResult",
    "ShellResult",
    "isolation_available",
    "run_polars_code",
    "run_sandboxed",
    "run_shell",
    "run_with_retries",
]
