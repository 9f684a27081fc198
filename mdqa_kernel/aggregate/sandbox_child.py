"""The program the sandbox runs in its child process (passed to `python -I -c`; not imported).

This program is NOT the security boundary. The parent starts it inside bubblewrap (new user, pid,
network, IPC, UTS namespaces, no capabilities, read-only binds of the interpreter and the input, a
size-capped scratch tmpfs, rlimits) and decides the outcome from what it observes: the exit status
and the result frame read back from a pipe. What this program adds is friendliness for an LLM that
writes the code: clear refusal messages (an audit hook, guarded polars readers) it can retry on.

Order: resource limits (again: also for the fallback without bubblewrap); read the code; import
polars and read the input; guards; run the code with `rows` bound, expect `result`; write it as
parquet to the result pipe and exit 0. On failure: one JSON line on stderr (`MARKER{kind, error}`),
used by the parent only to describe a failure, never to declare success, then exit 1.

argv: [input_dir, work_dir, result_fd, memory_bytes, cpu_seconds, max_output_bytes, guards (0|1)].
"""

import json
import os
import resource
import sys

MARKER = "__MDQA_SANDBOX_ERROR__"
EXIT_FAILED = 1  # the code raised or set no frame; the stderr report says what

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
    """Lower-only limits (raising a hard limit needs a capability the sandbox does not have)."""
    for res, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu),
                       (resource.RLIMIT_FSIZE, max_output), (resource.RLIMIT_CORE, 0)):  # fmt: skip
        _soft, hard = resource.getrlimit(res)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(res, (cap, cap))


def library_dirs() -> tuple[str, ...]:
    """Folders the guards let the code read: the Python installation (stdlib, site-packages)."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return tuple(sorted(prefixes))


def make_hook(work: str, read_roots: tuple[str, ...]):
    """An audit hook that refuses, with a message an LLM can act on, what the sandbox forbids.

    Everything it consults is bound here, in the closure: rebinding this module's globals (the
    `import __main__` trick) or `os.path.realpath` afterwards changes nothing.
    """
    realpath, fsdecode, startswith = os.path.realpath, os.fsdecode, str.startswith
    is_instance, to_str, any_of = isinstance, str, any
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    refused_prefixes, path_events = tuple(REFUSED_PREFIXES), tuple(PATH_EVENTS)
    refused_imports = frozenset(REFUSED_IMPORTS)
    work = realpath(work)
    work_roots = (work,)

    def inside(path: str, roots: tuple[str, ...]) -> bool:
        real = realpath(path)
        return any_of(real == r or startswith(real, r.rstrip("/") + "/") for r in roots)

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = ([*list(args), None, None])[:3]
            if is_instance(path, int):
                if path > 2:
                    raise PermissionError(f"sandbox: opening file descriptor {path} is not allowed")
                return
            path = fsdecode(path)
            writing = (is_instance(mode, str) and any_of(c in mode for c in "wax+")) or (
                is_instance(flags, int) and flags & write_flags
            )
            if inside(path, work_roots) or (not writing and inside(path, read_roots)):
                return
            verb = "writing" if writing else "reading"
            raise PermissionError(
                f"sandbox: {verb} {path!r} is not allowed; only files in the sandbox folder"
            )
        if startswith(event, refused_prefixes):
            raise PermissionError(
                f"sandbox: {event} is not allowed (no processes, network, ctypes or introspection)"
            )
        if startswith(event, path_events):
            for arg in args:
                if is_instance(arg, (str, bytes)) and not inside(fsdecode(arg), work_roots):
                    raise PermissionError(f"sandbox: {event} on {fsdecode(arg)!r} is not allowed")
        if event == "import" and args:
            name = to_str(args[0])
            if name in refused_imports or name.split(".")[0] in refused_imports:
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
    input_dir, work, (result_fd, memory, cpu, max_output, guards) = (
        sys.argv[1], sys.argv[2], map(int, sys.argv[3:8]),
    )  # fmt: skip
    set_limits(memory, cpu, max_output)
    result_out = os.fdopen(result_fd, "wb")  # before the hook, which refuses opening descriptors
    with open(os.path.join(input_dir, "code.py"), encoding="utf-8") as fh:
        source = fh.read()
    os.chdir(work)
    import importlib
    import io
    import traceback

    import polars as pl

    for mod in PRELOAD:
        importlib.import_module(mod)
    rows = pl.read_parquet(os.path.join(input_dir, "input.parquet"))
    write_parquet = pl.DataFrame.write_parquet
    if guards:
        refuse_polars_io(pl)
        _forget_refused_modules()
        sys.addaudithook(make_hook(work, (*library_dirs(), os.path.realpath(input_dir))))
    namespace = {"rows": rows, "pl": pl, "result": None, "__name__": "__sandbox__"}
    try:
        exec(compile(source, "<sandbox>", "exec"), namespace)
        frame = _as_frame(namespace.get("result"), pl)
        buffer = io.BytesIO()  # parquet needs a seekable target; the pipe is not
        write_parquet(frame, buffer)
        result_out.write(buffer.getbuffer())
        result_out.close()
    except MemoryError:
        _fail("memory", "MemoryError: the code exceeded the sandbox memory limit")
    except BaseException as exc:  # everything the code raises goes back as a message to retry on
        tb = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<sandbox>"]
        line = f" (line {tb[-1].lineno})" if tb else ""
        kind = "refused" if isinstance(exc, PermissionError) and "sandbox:" in str(exc) else "error"
        _fail(kind, f"{type(exc).__name__}{line}: {exc}")


def _as_frame(result, pl):
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    if isinstance(result, pl.Series):
        result = result.to_frame()
    if not isinstance(result, pl.DataFrame):
        raise TypeError(f"the code must set `result` to a polars DataFrame, got {type(result).__name__}")
    return result


def _fail(kind: str, error: str) -> None:
    sys.stdout.flush()
    sys.__stderr__.write("\n" + MARKER + json.dumps({"kind": kind, "error": error[-2000:]}) + "\n")
    sys.__stderr__.flush()
    os._exit(EXIT_FAILED)  # no atexit, no flushing of what the code left behind


if __name__ == "__main__":
    main()
