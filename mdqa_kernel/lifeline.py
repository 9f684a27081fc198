"""Worker processes that die with the process that started them.

`kill -9` of an mdqa command gives it no chance to stop its process pool. Without a lifeline its
workers wait for jobs forever, and multiprocessing's helpers live on through them: the forkserver
exits only when every process holding its "alive" pipe is gone, the resource tracker only when every
holder of its pipe is, and a worker holds both. So every pool worker runs `hold` as its initializer:

- On Linux, `PR_SET_PDEATHSIG` makes the kernel send SIGKILL when the worker's parent exits; that is
  instant for workers the owner started itself (the spawn pools). It is set only when the pool was
  created on the main thread, because the signal follows the thread that forked, not the process.
- A watchdog thread waits for the owner process itself to end (a pidfd where the kernel has one,
  else polling) and then kills the worker. This covers workers forked by a forkserver, whose parent
  is the forkserver, not the owner; once they are gone the forkserver and the resource tracker see
  their pipes close and exit on their own.

The same initializer also tunes the worker's garbage collector (`_tune_gc`): a worker makes hundreds
of thousands of small objects per document (words, lines, rows) and almost none form cycles, so with
Python's default thresholds the collector rescans them thousands of times per document; fewer, larger
young-generation passes made `mdqa extract --jobs 2` about 10 % faster on the 43 FinanceBench filings.

`pool_initializer()` gives the (initializer, initargs) pair for a `ProcessPoolExecutor`; `tied(cmd)`
turns a command line into one whose process the kernel kills when this one dies (it starts through
`python -m mdqa_kernel.lifeline`, which sets the death signal and then execs the command: the signal
survives exec). A Jupyter kernel under a tied papermill exits on its own when papermill dies.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_POLL_SECONDS = 0.5


def pool_initializer(
    then: Callable[..., None] | None = None, args: tuple[Any, ...] = ()
) -> tuple[Callable[..., None], tuple[Any, ...]]:
    """(initializer, initargs) for a pool created here: its workers die when this process dies, and
    then run the pool's own initializer `then(*args)`, if any."""
    on_main_thread = threading.current_thread() is threading.main_thread()
    return hold, (os.getpid(), on_main_thread, then, args)


def hold(
    owner_pid: int,
    parent_is_owner_process: bool = False,
    then: Callable[..., None] | None = None,
    args: tuple[Any, ...] = (),
) -> None:
    """Pool initializer: die (SIGKILL to self) as soon as process `owner_pid` has ended."""
    if parent_is_owner_process and os.getppid() == owner_pid:
        _set_parent_death_signal()
    if not alive(owner_pid):  # the owner died before the initializer ran
        _die()
    watchdog = threading.Thread(target=_watch, args=(owner_pid,), name="mdqa-lifeline", daemon=True)
    watchdog.start()
    _tune_gc()
    if then is not None:
        then(*args)


# Young-generation collections every 50,000 net allocations instead of 700 (the older generations
# every 20 and 100 of those): cyclic garbage is still collected, in fewer passes.
WORKER_GC_THRESHOLDS = (50_000, 20, 100)


def _tune_gc() -> None:
    """Fewer collector passes in a worker; the modules it imported are frozen out of them for good."""
    gc.freeze()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)


def _set_parent_death_signal() -> None:
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _watch(owner_pid: int) -> None:
    _wait_for_exit(owner_pid)
    _die()


def _wait_for_exit(pid: int) -> None:
    """Block until process `pid` has ended (it may be a zombie not yet reaped by its parent)."""
    fd = _pidfd(pid)
    if fd is not None:
        try:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            while not poller.poll():  # readable once the process has exited
                pass
            return
        finally:
            os.close(fd)
    parent = os.getppid()
    while alive(pid) and os.getppid() == parent:
        time.sleep(_POLL_SECONDS)


def _pidfd(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return int(opener(pid))
    except OSError:  # an old kernel, a sandbox without the syscall, or the process is gone already
        return None


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        pass
    return process_state(pid) != "Z"


def process_state(pid: int) -> str | None:
    """The state letter of /proc/<pid>/stat ('R', 'S', 'Z', …); None where /proc cannot say."""
    fields = _stat_fields(pid)
    return fields[0] if fields else None


def process_group(pid: int) -> int | None:
    """The process group id of `pid`, from /proc/<pid>/stat; None where /proc cannot say."""
    fields = _stat_fields(pid)
    try:
        return int(fields[2]) if fields else None  # state, ppid, pgrp
    except (ValueError, IndexError):
        return None


def parent_pid(pid: int) -> int | None:
    """The parent of `pid` (from /proc/<pid>/stat), None when it is gone."""
    fields = _stat_fields(pid)
    try:
        return int(fields[1]) if fields else None
    except (ValueError, IndexError):
        return None


def process_start_time(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), from /proc; None where /proc cannot say."""
    fields = _stat_fields(pid)
    if not fields:
        return None
    try:
        boot = _boot_time()
        ticks = int(fields[19])  # field 22 of stat: starttime, in clock ticks since boot
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()


def boot_id() -> str | None:
    """This kernel's boot identity (/proc/sys/kernel/random/boot_id, new at each boot); None where
    the system has none. Two containers that share a hostname but not a kernel differ here."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _boot_time() -> float:
    with open("/proc/stat", encoding="ascii") as f:
        for line in f:
            if line.startswith("btime "):
                return float(line.split()[1])
    raise OSError("/proc/stat has no btime line")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def tied(cmd: list[str]) -> list[str]:
    """`cmd`, started so that it gets SIGKILL when this process dies (Linux; elsewhere `cmd` as is).
    Start it from a thread that waits for it: the signal follows the thread that forked."""
    if not sys.platform.startswith("linux"):
        return list(cmd)
    return [sys.executable, "-m", "mdqa_kernel.lifeline", str(os.getpid()), "--", *cmd]


def _exec_tied(argv: list[str]) -> None:
    """`python -m mdqa_kernel.lifeline PARENT_PID -- CMD...`: die with PARENT_PID, then become CMD."""
    if len(argv) < 3 or argv[1] != "--":
        raise SystemExit("usage: python -m mdqa_kernel.lifeline PARENT_PID -- COMMAND [ARGS...]")
    parent = int(argv[0])
    _set_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the signal was set
        raise SystemExit(1)
    os.execvp(argv[2], argv[2:])


if __name__ == "__main__":
    _exec_tied(sys.argv[1:])
