"""How the sandbox isolates a child: the bubblewrap (bwrap) command line, the read-only view of the
system it gets, the environment and the resource limits (prlimit), and whether this machine can do it.

`sandbox` runs code with what this module builds and decides the outcome; this module decides nothing
about results. As root, the child runs as an unprivileged uid through setpriv (a user namespace would
map its uid to host root); as another user, in a user namespace with every capability dropped.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from mdqa_kernel.errors import MdqaError

IN_DIR, WORK_DIR = "/sandbox/in", "/tmp"  # the read-only input folder and the scratch tmpfs, inside


class SandboxError(MdqaError, RuntimeError):
    """The sandboxed code failed. `kind`: refused | error | timeout | memory | crashed | output | isolation."""

    def __init__(self, kind: str, message: str, *, stdout: str = "") -> None:
        self.kind, self.message, self.stdout = kind, message, stdout
        super().__init__(f"sandbox {kind}: {message}")


def child_env() -> dict[str, str]:
    # No credentials or proxies from ours; one polars thread (shared cores, and fewer threads keep
    # the address-space limit meaningful).
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "POLARS_MAX_THREADS": "1", "OMP_NUM_THREADS": "1",
            "TMPDIR": WORK_DIR, "HOME": WORK_DIR}  # fmt: skip


BWRAP_ENV = "MDQA_BWRAP"  # path of the bwrap binary; empty: act as if bubblewrap were not installed


SETPRIV_ENV = "MDQA_SETPRIV"  # path of setpriv (util-linux); empty: act as if it were not installed


SANDBOX_UID = 65534  # nobody, inside the user namespace


SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 20.0  # wall clock for the whole child, start-up (importing polars) included
    memory_mb: int = 2048  # address space per process; polars itself runs in well under 512 MB
    max_output_mb: int = 256  # largest file the child may write, and largest result frame
    scratch_mb: int = 64  # the scratch tmpfs (/tmp, the working folder): all files together
    max_processes: int = 256  # processes and threads the sandbox may add (see _nproc_cap)


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
    return isolation_problem() is None


def isolation_problem() -> str | None:
    """Why the isolation is unavailable here, or None when it works."""
    path = bwrap_path()
    if path is None:
        return "bubblewrap (bwrap) is not installed"
    if os.geteuid() == 0 and root_setpriv(path) is None:
        # The user-namespace path would map the sandbox's uid to host root: never fall back to it.
        return (
            f"running as root, the sandbox needs setpriv (util-linux; {SETPRIV_ENV}="
            f"{os.environ.get(SETPRIV_ENV, '<unset>')!r}) and bubblewrap >= 0.6 (--perms) to run the code "
            "as an unprivileged uid, and one of them is missing"
        )
    if not _bwrap_works(path, root_setpriv(path) if os.geteuid() == 0 else None):
        return f"{path} cannot create its namespaces here"
    return None


def root_setpriv(bwrap: str) -> str | None:
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
        *bwrap_argv(path, Path("/nonexistent"), SandboxLimits(), setpriv=setpriv, probe=True),
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


@functools.lru_cache(maxsize=8)
def _bwrap_options(bwrap: str) -> frozenset[str]:
    """The options this bwrap knows (`--disable-userns` came in 0.8, `--size` in 0.7)."""
    try:
        shown = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(word for word in (shown.stdout + shown.stderr).split() if word.startswith("--"))


def bwrap_argv(
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
    for key, value in child_env().items():
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


def with_rlimits(argv: list[str], limits: SandboxLimits) -> list[str]:
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
