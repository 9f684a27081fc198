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
space, CPU seconds, file size, processes (per sandbox, see `_nproc_cap`), open files, no core
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
import functools
import io
import json
import os
import selectors
import shutil
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

from mdqa_kernel.errors import MdqaError

MARKER = "__MDQA_SANDBOX_ERROR__"  # the child's failure report on stderr (describes, never decides)
_CHILD_SOURCE = (Path(__file__).with_name("sandbox_child.py")).read_text(encoding="utf-8")
BWRAP_ENV = "MDQA_BWRAP"  # path of the bwrap binary; empty: act as if bubblewrap were not installed
SETPRIV_ENV = "MDQA_SETPRIV"  # path of setpriv (util-linux); empty: act as if it were not installed
UNISOLATED_ENV = "MDQA_SANDBOX_UNISOLATED"  # "1": the operator's opt-out of isolation (trusted code)
ISOLATION = "bubblewrap"
NO_ISOLATION_NOTE = (
    "ran WITHOUT OS isolation (bubblewrap unavailable): only rlimits and Python-level guards, "
    "which are not a security boundary, and a process the code detaches (setsid) is not killed; "
    "install bubblewrap (apt-get install bubblewrap)"
)
STREAM_CAP = 1 << 20  # bytes of the child's stdout / stderr kept (the tail); the rest is discarded
SANDBOX_UID = 65534  # nobody, inside the user namespace
IN_DIR, WORK_DIR = "/sandbox/in", "/tmp"  # the read-only input folder and the scratch tmpfs, inside
_KILL_GRACE_S = 2.0  # after killing, how long the parent still waits for the pipes to close
SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")


class SandboxError(MdqaError, RuntimeError):
    """The sandboxed code failed. `kind`: refused | error | timeout | memory | crashed | output | isolation."""

    def __init__(self, kind: str, message: str, *, stdout: str = "") -> None:
        self.kind, self.message, self.stdout = kind, message, stdout
        super().__init__(f"sandbox {kind}: {message}")


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 20.0  # wall clock for the whole child, start-up (importing polars) included
    memory_mb: int = 2048  # address space per process; polars itself runs in well under 512 MB
    max_output_mb: int = 256  # largest file the child may write, and largest result frame
    scratch_mb: int = 64  # the scratch tmpfs (/tmp, the working folder): all files together
    max_processes: int = 256  # processes and threads the sandbox may add (see _nproc_cap)


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


def bwrap_path() -> str | None:
    """The bwrap binary to use: $MDQA_BWRAP when set (empty: none), else the one on PATH."""
    configured = os.environ.get(BWRAP_ENV)
    if configured is not None:
        return configured or None
    return shutil.which("bwrap")


def setpriv_path() -> str | None:
    """The setpriv binary to use: $MDQA_SETPRIV when set (empty: none), else the one on PATH."""
    configured = os.environ.get(SETPRIV_ENV)
    if configured is not None:
        return configured or None
    return shutil.which("setpriv")


def isolation_available() -> bool:
    """Whether bubblewrap is installed and can create its namespaces here (tried once per binary)."""
    return _isolation_problem() is None


def _isolation_problem() -> str | None:
    """Why the isolation is unavailable here, or None when it works."""
    path = bwrap_path()
    if path is None:
        return "bubblewrap (bwrap) is not installed"
    if os.geteuid() == 0 and _root_setpriv(path) is None:
        # The user-namespace path would map the sandbox's uid to host root: never fall back to it.
        return (
            f"running as root, the sandbox needs setpriv (util-linux; {SETPRIV_ENV}="
            f"{os.environ.get(SETPRIV_ENV, '<unset>')!r}) and bubblewrap >= 0.6 (--perms) to run the code "
            "as an unprivileged uid, and one of them is missing"
        )
    if not _bwrap_works(path, _root_setpriv(path) if os.geteuid() == 0 else None):
        return f"{path} cannot create its namespaces here"
    return None


def _root_setpriv(bwrap: str) -> str | None:
    """As root: the setpriv binary of the safe path, or None when that path is unavailable."""
    setpriv = setpriv_path()
    usable = setpriv is not None and os.access(setpriv, os.X_OK)
    return setpriv if usable and "--perms" in _bwrap_options(bwrap) else None


@functools.lru_cache(maxsize=8)
def _bwrap_works(path: str, setpriv: str | None) -> bool:
    if not os.access(path, os.X_OK):
        return False
    # The real requirement: this interpreter starts inside the sandbox as it will be set up.
    argv = [
        *_bwrap_argv(path, Path("/nonexistent"), SandboxLimits(), setpriv=setpriv, probe=True),
        sys.executable,
        "-I",
        "-c",
        "pass",
    ]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


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
    problem = _isolation_problem()
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
            setpriv = _root_setpriv(bwrap) if os.geteuid() == 0 else None
            prefix, in_dir, work = _bwrap_argv(bwrap, root / "in", limits, setpriv=setpriv), IN_DIR, WORK_DIR
        else:
            (root / "work").mkdir()
            prefix, in_dir, work = [], str(root / "in"), str(root / "work")

        def argv(result_fd: int) -> list[str]:
            child = _child_argv(in_dir, work, result_fd, limits, python_guards)
            return _with_rlimits([*prefix, *child], limits)

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


@functools.lru_cache(maxsize=8)
def _bwrap_options(bwrap: str) -> frozenset[str]:
    """The options this bwrap knows (`--disable-userns` came in 0.8, `--size` in 0.7)."""
    try:
        shown = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(word for word in (shown.stdout + shown.stderr).split() if word.startswith("--"))


def _bwrap_argv(
    bwrap: str, in_dir: Path, limits: SandboxLimits, *, setpriv: str | None, probe: bool = False
) -> list[str]:
    """bubblewrap's command line: new namespaces, no capabilities, an unprivileged uid, read-only
    binds of what the interpreter needs and of the input folder, a size-capped scratch tmpfs, "/"
    read-only, no /proc (nothing needs it; it is where a uid-0 process could write sysctls).

    The sandbox's uid must not be root on the host. Started by root, bwrap would map any uid of a
    new user namespace to root, so there it makes no user namespace and `setpriv` turns the child
    into host uid 65534 with an empty capability set before the code's interpreter starts. Started
    by anyone else, a user namespace maps the child's uid 65534 to the caller's own uid, every
    capability dropped and no further user namespaces. `setpriv` is given exactly when running as
    root (the caller refuses root without it). An older bwrap without `--size` gets an
    uncapped scratch tmpfs (RLIMIT_FSIZE still caps each file)."""
    known = _bwrap_options(bwrap)
    perms = "--perms" in known  # bwrap >= 0.6: modes of the folders it creates
    if os.geteuid() == 0 and setpriv is None:
        raise SandboxError("isolation", "as root the sandbox runs only through setpriv (internal error)")
    argv = [bwrap, "--die-with-parent", "--new-session", "--clearenv"]
    if setpriv is not None:
        argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    else:
        argv += ["--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
                 "--cap-drop", "ALL"]  # fmt: skip
        if "--disable-userns" in known:
            argv.append("--disable-userns")
    for key, value in _child_env().items():
        argv += ["--setenv", key, value]
    binds = [*_read_only_dirs(), *([] if probe else [IN_DIR])]
    for parent in _parents(binds) if perms else []:  # else bwrap copies the host's (/root: 0700)
        argv += ["--perms", "0755", "--dir", parent]
    for src in _read_only_dirs():
        if os.path.islink(src):  # merged /usr: /lib -> usr/lib stays a link
            argv += ["--symlink", os.readlink(src), src]
        else:
            argv += ["--ro-bind", src, src]
    if not probe:
        argv += ["--ro-bind", str(in_dir), IN_DIR]
    argv += ["--dev-bind", "/dev/null", "/dev/null"]
    if "--size" in known:
        argv += ["--size", str(limits.scratch_mb * 1024 * 1024)]
    argv += [*(["--perms", "1777"] if perms else []), "--tmpfs", WORK_DIR]
    argv += ["--remount-ro", "/", "--chdir", WORK_DIR, "--"]
    if setpriv is not None:
        argv += [setpriv, f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]  # fmt: skip
    return argv


def _parents(paths: list[str]) -> list[str]:
    """Every proper ancestor folder of `paths` (but "/"), parents first."""
    found: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path.rstrip("/"))
        while parent not in ("/", ""):
            found.add(parent)
            parent = os.path.dirname(parent)
    return sorted(found, key=lambda p: (p.count("/"), p))


def _read_only_dirs() -> list[str]:
    """The system folders and the Python installation (venv and base interpreter), nested ones
    folded into their parent. The project tree an editable install points at is not among them."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    prefixes |= {os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    dirs = sorted(d for d in prefixes if os.path.isdir(d))
    folded = [d for d in dirs if not any(d.startswith(o + "/") for o in (*dirs, *SYSTEM_DIRS) if o != d)]
    return [d for d in SYSTEM_DIRS if os.path.lexists(d)] + [d for d in folded if d not in SYSTEM_DIRS]


def _child_env() -> dict[str, str]:
    # No credentials or proxies from ours; one polars thread (shared cores, and fewer threads keep
    # the address-space limit meaningful).
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "POLARS_MAX_THREADS": "1", "OMP_NUM_THREADS": "1",
            "TMPDIR": WORK_DIR, "HOME": WORK_DIR}  # fmt: skip


def _child_argv(
    in_dir: str, work: str, result_fd: int, limits: SandboxLimits, python_guards: bool
) -> list[str]:
    memory = limits.memory_mb * 1024 * 1024
    cpu = max(1, int(limits.timeout_s))
    return [sys.executable, "-I", "-c", _CHILD_SOURCE, in_dir, work, str(result_fd), str(memory), str(cpu),
            str(limits.max_output_mb * 1024 * 1024), str(int(python_guards))]  # fmt: skip


def _with_rlimits(argv: list[str], limits: SandboxLimits) -> list[str]:
    """rlimits for bwrap and everything under it, set before it starts (the child sets them too,
    for systems without prlimit; an unprivileged process can only lower them)."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return argv
    memory = limits.memory_mb * 1024 * 1024
    cpu = max(1, int(limits.timeout_s))
    nproc = _nproc_cap(limits, os.getuid())
    return [prlimit, f"--as={memory}", f"--cpu={cpu}:{cpu + 1}", f"--fsize={limits.max_output_mb * 1024 * 1024}",
            f"--nproc={nproc}", "--nofile=256", "--core=0", "--", *argv]  # fmt: skip


def _nproc_cap(limits: SandboxLimits, uid: int) -> int:
    """RLIMIT_NPROC for the sandbox. The kernel counts every process and thread of the real uid on
    the whole host against it, not those of the sandbox. Root is exempt, and its sandbox runs as
    uid 65534 (setpriv), which nothing else uses: a fixed cap. Anyone else's sandbox runs as their
    own uid (the user namespace maps it there), so the cap is what that uid already runs plus the
    sandbox's share; a fixed 256 would refuse to start for an analyst who already has 256 tasks."""
    if uid == 0:
        return limits.max_processes
    return _tasks_of(uid) + limits.max_processes


def _tasks_of(uid: int) -> int:
    """Processes and threads whose real uid is `uid`, counted from /proc (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError, KeyError):
            fields = dict(line.split(":", 1) for line in Path(entry.path, "status").read_text().splitlines())
            if int(fields["Uid"].split()[0]) == uid:
                count += int(fields["Threads"])
    return count


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
            argv(result_w), cwd=cwd, env=_child_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
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


__all__ = [
    "SandboxError",
    "SandboxLimits",
    "SandboxResult",
    "isolation_available",
    "run_polars_code",
    "run_sandboxed",
    "run_with_retries",
]
