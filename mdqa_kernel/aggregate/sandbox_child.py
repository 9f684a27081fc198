"""The program the sandbox runs in its child process (passed to `python -I -c`; not imported).

Order matters, each layer is set up before untrusted code exists:
1. resource limits (address space, CPU seconds, file size, open files, no core dumps);
2. OS confinement when possible, before polars exists (its threads must be born inside): new
   mount + network + IPC namespaces, the Python installation and system libraries bind-mounted
   read-only, chroot into the run's temp folder (the workspace, /etc, /proc … do not exist there),
   root dropped to nobody, no new privileges. This is the real boundary: it also holds for file or
   network access done inside polars' Rust code, which Python audit hooks cannot see;
3. imports the user code may need, then read the input parquet;
4. polars' file readers/writers wrapped to refuse paths (in-memory buffers allowed);
5. an audit hook that refuses, with a clear message, opening files outside the work folder, sockets,
   subprocesses, os.system/exec/fork/spawn, ctypes, gc introspection, and new audit hooks;
6. run the code with `rows` bound, expect `result`, write it as parquet, print one status line.

argv: [work_dir, root_dir, memory_bytes, cpu_seconds, max_output_bytes]. Status: one JSON line on
stdout prefixed by the marker below.
"""

import json
import os
import resource
import sys

MARKER = "__MDQA_SANDBOX_STATUS__"
NOBODY = 65534
CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUSER = 0x00020000, 0x40000000, 0x08000000, 0x10000000
PR_SET_NO_NEW_PRIVS = 38

REFUSED_PREFIXES = (
    "socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
    "os.forkpty", "os.kill", "os.killpg", "os.chdir", "os.chroot", "os.putenv", "os.unsetenv",
    "os.symlink", "os.link", "os.chmod", "os.chown", "os.setxattr", "os.removexattr", "pty.",
    "ctypes.", "sys.addaudithook", "sys._current_frames", "sys.setprofile",
    "sys.settrace", "gc.get_objects", "gc.get_referrers", "gc.get_referents", "resource.setrlimit",
    "resource.prlimit", "signal.pthread_kill", "fcntl.ioctl", "urllib.Request", "http.client.",
    "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.", "telnetlib.", "webbrowser.", "winreg.",
    "_posixsubprocess.", "mmap.",
)  # fmt: skip
PATH_EVENTS = ("os.listdir", "os.scandir", "os.remove", "os.rename", "os.mkdir", "os.rmdir",
               "os.truncate", "os.utime", "glob.glob", "shutil.")  # fmt: skip
# Whole packages (first component) and single dotted modules whose import alone is refused.
REFUSED_IMPORTS = ("socket", "_socket", "ssl", "ctypes", "_ctypes", "subprocess", "_posixsubprocess",
                   "multiprocessing", "pty", "urllib.request", "http.client", "ftplib", "smtplib",
                   "concurrent.futures.process", "mmap")  # fmt: skip
PRELOAD = ("math", "statistics", "datetime", "re", "json", "collections", "itertools", "functools",
           "decimal", "fractions", "operator", "string", "unicodedata", "io", "traceback", "encodings.idna")  # fmt: skip
POLARS_IO = ("read_csv", "read_csv_batched", "read_parquet", "read_ipc", "read_ipc_stream", "read_json",
             "read_ndjson", "read_avro", "read_excel", "read_ods", "read_delta", "read_database",
             "read_database_uri", "read_clipboard", "read_iceberg", "read_parquet_schema",
             "read_parquet_metadata", "read_ipc_schema", "scan_csv", "scan_parquet", "scan_ipc",
             "scan_ndjson", "scan_delta", "scan_iceberg", "scan_pyarrow_dataset", "scan_lines")  # fmt: skip
FRAME_IO = ("write_csv", "write_parquet", "write_ipc", "write_ipc_stream", "write_json", "write_ndjson",
            "write_avro", "write_excel", "write_database", "write_delta", "write_iceberg", "write_clipboard",
            "sink_csv", "sink_parquet", "sink_ipc", "sink_ndjson", "serialize", "deserialize")  # fmt: skip


def set_limits(memory: int, cpu: int, max_output: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (max_output, max_output))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))


MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
SYSTEM_LIBS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib")


def library_dirs() -> list[str]:
    """Folders the child needs to read after the chroot: the Python installation (stdlib and the
    environment's site-packages, never the project tree an editable install points at) and the
    system's shared libraries. Nested folders are folded into their parent."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    dirs = {os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}
    dirs = {d for d in dirs if any(d == p or d.startswith(p + "/") for p in prefixes)}
    dirs |= {os.path.realpath(os.path.join(sys.base_prefix, "lib"))}  # libpython*.so for pyenv builds
    dirs |= {os.path.realpath(d) for d in SYSTEM_LIBS if os.path.isdir(d)}
    ordered = sorted(dirs)
    return [d for d in ordered if not any(d.startswith(o + "/") for o in ordered if o != d)]


def confine(work: str, root: str) -> str:
    """Namespaces + read-only library mounts + chroot + drop privileges; returns the level reached.

    Must run while the process has one thread: unshare(CLONE_NEWNS) gives only the calling thread
    a new root, so threads started earlier (polars starts some at import) would keep the host's.
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC
    if os.geteuid() != 0:
        flags |= CLONE_NEWUSER  # unprivileged user namespace, where the kernel allows it
    if libc.unshare(flags) != 0:
        return "audit-hook"
    # Private propagation first: without it our bind mounts would appear on the host (and the
    # parent's clean-up would delete through them). If that fails, stop: no mounts, no chroot.
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return "audit-hook"
    for src in library_dirs():
        dst = os.path.join(root, src.lstrip("/"))
        os.makedirs(dst, mode=0o755, exist_ok=True)
        if libc.mount(src.encode(), dst.encode(), None, MS_BIND | MS_REC, None) != 0:
            return "audit-hook"
        libc.mount(None, dst.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)
    if os.geteuid() == 0:
        os.chown(work, NOBODY, NOBODY)  # nobody must be able to write the result, and only here
    os.chroot(root)
    os.chdir("/" + os.path.relpath(work, root))
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)  # after this no chroot escape: chroot() needs CAP_SYS_CHROOT
        resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))  # enforced for non-root: no fork bombs
    return "namespaces+chroot"


def make_hook(work: str, read_roots: tuple[str, ...]):
    work = os.path.realpath(work)

    def inside(path: str, roots: tuple[str, ...]) -> bool:
        real = os.path.realpath(path)
        return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = ([*list(args), None, None])[:3]
            if isinstance(path, int):
                if path > 2:
                    raise PermissionError(f"sandbox: opening file descriptor {path} is not allowed")
                return
            path = os.fsdecode(path)
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int)
                and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC)
            )
            if inside(path, (work,)) or (not writing and inside(path, read_roots)):
                return
            verb = "writing" if writing else "reading"
            raise PermissionError(
                f"sandbox: {verb} {path!r} is not allowed; only files in the sandbox folder"
            )
        if event.startswith(REFUSED_PREFIXES):
            raise PermissionError(
                f"sandbox: {event} is not allowed (no processes, network, ctypes or introspection)"
            )
        if event.startswith(PATH_EVENTS):
            for arg in args:
                if isinstance(arg, (str, bytes)) and not inside(os.fsdecode(arg), (work,)):
                    raise PermissionError(f"sandbox: {event} on {os.fsdecode(arg)!r} is not allowed")
        if event == "import" and args:
            name = str(args[0])
            if name in REFUSED_IMPORTS or name.split(".")[0] in REFUSED_IMPORTS:
                raise PermissionError(f"sandbox: importing {name!r} is not allowed")

    return hook


def refuse_polars_io(pl) -> None:
    """Replace polars' file readers/writers with guards that allow in-memory buffers only.

    Defence in depth with a clear message: polars does its I/O in Rust, invisible to the audit
    hook; with OS isolation the paths do not exist anyway, without it this guard is what stops
    `pl.read_csv('/etc/passwd')`. Buffers stay allowed (StringIO CSV parsing, our own result).
    """
    import io

    frames = (pl.DataFrame, pl.LazyFrame, pl.Series, pl.Expr)

    def guard(name: str, original):
        def guarded(*args: object, **kwargs: object) -> object:
            target = next((kwargs[k] for k in ("source", "file", "target", "path") if k in kwargs), None)
            positional = [a for a in args if not isinstance(a, frames)]  # skip `self`
            if target is None and positional:
                target = positional[0]
            if target is None or isinstance(target, (io.BytesIO, io.StringIO, bytes)):
                return original(*args, **kwargs)
            raise PermissionError(
                f"sandbox: polars {name}() on {target!r} is not allowed; use the `rows` frame you were given"
            )

        return guarded

    for name in POLARS_IO:
        if hasattr(pl, name):
            setattr(pl, name, guard(name, getattr(pl, name)))
    for cls in (pl.DataFrame, pl.LazyFrame, pl.Series, pl.Expr):
        for name in FRAME_IO:
            if name in vars(cls):
                setattr(cls, name, guard(name, getattr(cls, name)))
    if hasattr(pl, "plugins"):

        def no_plugins(*_a: object, **_k: object) -> None:
            raise PermissionError("sandbox: polars plugins (native code) are not allowed")

        pl.plugins.register_plugin_function = no_plugins


def _forget_refused_modules() -> None:
    """polars itself imports ctypes/socket/subprocess; drop them from the module cache so that the
    user's `import socket` really imports (and the hook sees it). Modules already holding a
    reference keep working; their operations still go through the audit events."""
    for name in list(sys.modules):
        if name in REFUSED_IMPORTS or name.split(".")[0] in REFUSED_IMPORTS:
            del sys.modules[name]


def main() -> None:
    work, root, memory, cpu, max_output = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    out = sys.stdout
    status: dict = {"ok": False}
    set_limits(memory, cpu, max_output)
    with open(os.path.join(work, "code.py"), encoding="utf-8") as fh:
        source = fh.read()
    read_roots = tuple(library_dirs())
    status["isolation"] = confine(work, root)  # before polars: see confine's docstring
    here = os.getcwd() if status["isolation"] != "audit-hook" else work
    import importlib
    import io
    import traceback

    import polars as pl

    for mod in PRELOAD:
        importlib.import_module(mod)
    rows = pl.read_parquet(os.path.join(here, "input.parquet"))
    write_parquet = pl.DataFrame.write_parquet
    refuse_polars_io(pl)
    _forget_refused_modules()
    sys.addaudithook(make_hook(here, read_roots))
    captured = io.StringIO()
    namespace = {"rows": rows, "pl": pl, "result": None, "__name__": "__sandbox__"}
    try:
        code = compile(source, "<sandbox>", "exec")
        sys.stdout = sys.stderr = captured
        exec(code, namespace)
        status.update(_finish(namespace.get("result"), pl, write_parquet, here))
    except MemoryError:
        status.update(kind="memory", error="MemoryError: the code exceeded the sandbox memory limit")
    except BaseException as exc:  # everything the code raises goes back as a message to retry on
        tb = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<sandbox>"]
        line = f" (line {tb[-1].lineno})" if tb else ""
        kind = "refused" if isinstance(exc, PermissionError) and "sandbox:" in str(exc) else "error"
        status.update(kind=kind, error=f"{type(exc).__name__}{line}: {exc}")
    finally:
        sys.stdout = sys.stderr = out
    status["stdout"] = captured.getvalue()[-2000:]
    out.write(MARKER + json.dumps(status) + "\n")
    out.flush()


def _finish(result, pl, write_parquet, here: str) -> dict:
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    if isinstance(result, pl.Series):
        result = result.to_frame()
    if not isinstance(result, pl.DataFrame):
        return {
            "kind": "error",
            "error": f"the code must set `result` to a polars DataFrame, got {type(result).__name__}",
        }
    import io

    buffer = io.BytesIO()  # polars writes to memory (allowed by the guard); Python writes the file
    write_parquet(result, buffer)
    with open(os.path.join(here, "result.parquet"), "wb") as fh:
        fh.write(buffer.getvalue())
    return {"ok": True, "kind": "ok", "shape": list(result.shape)}


if __name__ == "__main__":
    main()
