"""`mdqa reproduce`: run the benchmark notebooks with papermill and collect their figures.

Every benchmark notebook in notebooks/benchmarks/ takes papermill parameters and displays its
figures as a custom mime bundle (`application/vnd.mdqa.<what>+json`); this module executes a
notebook into results/<name>/, reads the bundles back from the executed notebook (no scrapbook)
and writes them to figures.json. A notebook whose executed copy is newer than its source and holds
figures is not run again.

`mudabench-table2` is a grid: one notebook execution per system config, each resuming from the
results store (finished (config, question) pairs are never redone), a config whose executed
notebook already reports a complete run is skipped without starting a kernel, and the figures of
all configs become table2.csv / table2.md / table2.png / table2.svg.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.lifeline import tied
from mdqa_kernel.resources import checkout_root, folder

NOTEBOOKS: dict[str, str] = {
    "parse": "parse.ipynb",
    "llm": "llm.ipynb",
    "extraction": "extraction.ipynb",
    "aggregate": "aggregate.ipynb",
    "chaos": "chaos.ipynb",
    "scale": "scale.ipynb",
    "mudabench-table2": "mudabench.ipynb",
    "realfacts": "realfacts.ipynb",
    "financebench": "financebench.ipynb",
}
MIME_PREFIX = "application/vnd.mdqa."


class ReproduceError(MdqaError):
    """A benchmark could not be reproduced (unknown name, missing notebook, failed execution)."""


class GridLockedError(ReproduceError):
    """Another `mdqa reproduce` is running this grid."""


def notebook_dir() -> Path:
    """notebooks/benchmarks/ among the files mdqa ships (the checkout's, or the installed copy)."""
    return folder("notebooks") / "benchmarks"


def run_dir() -> Path:
    """Where the notebooks run: the source checkout (their relative paths, e.g. results/ and
    examples/, are the checkout's), or the current directory for an installed mdqa."""
    return checkout_root() or Path.cwd()


def notebook_path(name: str) -> Path:
    if name not in NOTEBOOKS:
        raise ReproduceError(f"unknown benchmark {name!r}; choose one of {', '.join(NOTEBOOKS)}")
    return notebook_dir() / NOTEBOOKS[name]


def listing() -> list[dict[str, Any]]:
    nb_dir = notebook_dir()
    return [{"name": n, "notebook": str(nb_dir / f), "exists": (nb_dir / f).is_file()}
            for n, f in NOTEBOOKS.items()]  # fmt: skip


def read_figures(executed: str | Path) -> list[dict[str, Any]]:
    """Every `application/vnd.mdqa.*` bundle displayed in an executed notebook, in order."""
    import nbformat

    nb = nbformat.read(str(executed), as_version=4)
    found = []
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            for mime, value in (output.get("data") or {}).items():
                if mime.startswith(MIME_PREFIX):
                    data = json.loads(value) if isinstance(value, str) else value
                    found.append({"mime": mime, **(data if isinstance(data, dict) else {"value": data})})
    return found


def execute(source: Path, output: Path, parameters: dict[str, Any], log: Path | None = None) -> None:
    """papermill in a child process (isolated kernel, its own log); raises ReproduceError on failure.
    Cell output streams into the log as it happens (one line per finished question on the grid), so
    a background run can be followed with `tail -f`."""
    output.parent.mkdir(parents=True, exist_ok=True)
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "papermill", str(source), str(output), "-y", yaml.safe_dump(parameters),
           "--cwd", str(run_dir()), "--no-progress-bar", "--log-output", "-k", "python3"]  # fmt: skip
    with open(log or os.devnull, "a", encoding="utf-8") as fh:
        # tied: a killed `mdqa reproduce` takes papermill (and so its kernel) with it.
        proc = subprocess.run(tied(cmd), stdout=fh, stderr=subprocess.STDOUT, check=False)
    if proc.returncode != 0:
        raise ReproduceError(f"{source.name} failed (exit {proc.returncode}); see {log or output}")


def reproduce_notebook(name: str, results_dir: str | Path = "results", force: bool = False,
                       parameters: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """Run one plain benchmark notebook (not the grid) unless its executed copy is up to date."""
    source = notebook_path(name)
    if not source.is_file():
        raise ReproduceError(f"{source} does not exist yet (it is being written); nothing to run")
    out_dir = Path(results_dir) / name
    executed = out_dir / f"{name}.ipynb"
    fresh = executed.is_file() and executed.stat().st_mtime >= source.stat().st_mtime
    ran = False
    if force or not fresh or not read_figures(executed):
        execute(source, executed, parameters or {}, out_dir / "papermill.log")
        ran = True
    figs = read_figures(executed)
    (out_dir / "figures.json").write_text(
        json.dumps(figs, ensure_ascii=False, indent=1, default=str), encoding="utf-8"
    )
    return {"name": name, "ran": ran, "executed": str(executed), "figures": len(figs)}


# -- the Table 2 grid -----------------------------------------------------------------------------


@dataclass
class GridOptions:
    llm: str = "local"
    sample: str = "10"
    seed: int = 0
    jobs: int = 1
    systems: list[str] | None = None
    noise: bool = True
    max_minutes: float | None = None
    results_dir: str = "results/mudabench-table2"
    n_threads: int = 1
    n_ctx: int = 8192
    judge_llm: bool = True
    retry_failed: bool = False

    def llm_config(self) -> Any:
        from mdqa_kernel.llm import LLMConfig

        return LLMConfig.from_env(backend=self.llm, n_threads=self.n_threads, n_ctx=self.n_ctx)


def _lock(root: Path) -> Path:
    lock = root / "reproduce.lock"
    if lock.is_file():
        try:
            pid = int(lock.read_text().strip())
            os.kill(pid, 0)
            if pid != os.getpid():
                raise GridLockedError(
                    f"another mdqa reproduce (pid {pid}) is running this grid; wait or stop it"
                )
        except (ValueError, ProcessLookupError, PermissionError):
            pass  # a stale lock from a killed run
    root.mkdir(parents=True, exist_ok=True)
    lock.write_text(str(os.getpid()))
    return lock


def _up_to_date(
    executed: Path, opts: GridOptions, llm: dict[str, Any], config_key: dict[str, Any] | None = None
) -> list[dict[str, Any]] | None:
    """The figures of a finished run of this config on this model; None when it must run (again).
    `config_key` includes the system's version: a changed system is not up to date."""
    if not executed.is_file():
        return None
    figs = [f for f in read_figures(executed) if f.get("name") == "mudabench-table2"]
    if not figs or not figs[-1].get("complete") or figs[-1].get("llm") != llm:
        return None
    if config_key is not None and figs[-1].get("config") != config_key:
        return None
    return figs


def _params(config: Any, opts: GridOptions, deadline: float) -> dict[str, Any]:
    return {"system": config.system, "k": config.k, "metadata": config.metadata, "noise": config.noise,
            "questions": opts.sample, "seed": opts.seed, "llm_backend": opts.llm, "n_threads": opts.n_threads,
            "n_ctx": opts.n_ctx, "results_dir": str(Path(opts.results_dir).resolve()),
            "judge_llm": opts.judge_llm, "deadline": deadline, "retry_failed": opts.retry_failed}  # fmt: skip


def reproduce_table2(opts: GridOptions, log: Any = print) -> dict[str, Any]:
    """Run (or resume) the grid; write table2.csv/.md/.png/.svg; return what was done."""
    from mdqa_kernel.benchmarks.grid import parse_questions, prepare_corpus
    from mdqa_kernel.benchmarks.runner import llm_identity
    from mdqa_kernel.benchmarks.systems import table2_configs
    from mdqa_kernel.benchmarks.table2 import grid_root
    from mdqa_kernel.benchmarks.table2_report import write_table2

    source = notebook_path("mudabench-table2")
    root = grid_root(opts.results_dir, opts.sample, opts.seed)
    lock = _lock(root)
    try:
        refs = parse_questions(opts.sample, opts.seed)
        prepare_corpus(root, refs, seed=opts.seed)  # once, here, so parallel notebooks never race on it
        llm = llm_identity(opts.llm_config())
        configs = table2_configs(opts.systems, noise=opts.noise)
        deadline = time.time() + opts.max_minutes * 60 if opts.max_minutes else 0.0
        pending = []
        for c in configs:
            executed = root / "notebooks" / f"{c.slug}.ipynb"
            if _up_to_date(executed, opts, llm, c.key()) is None:
                pending.append((c, executed))
        log(
            f"grid {root}: {len(configs)} configs, {len(configs) - len(pending)} complete, {len(pending)} to run"
        )

        def run_one(item: tuple[Any, Path]) -> tuple[str, str | None]:
            c, executed = item
            if deadline and time.time() > deadline:
                return c.label, "not started (time budget)"
            try:
                execute(source, executed, _params(c, opts, deadline), root / "logs" / f"{c.slug}.log")
            except ReproduceError as e:
                return c.label, str(e)
            return c.label, None

        errors: dict[str, str] = {}
        with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            for label, err in pool.map(run_one, pending):
                if err:
                    errors[label] = err
                log(f"  {label}: {'error: ' + err if err else 'ok'}")
        store_figs = table_figures(root, refs, opts)
        meta = {"date": time.strftime("%Y-%m-%d"), "model": f"{llm['backend']} ({llm.get('model') or 'default'})",
                "sample": (f"{opts.sample} questions (seed {opts.seed}, stratified by split × doctype)"
                           if opts.sample.isdigit() else f"questions {opts.sample}")}  # fmt: skip
        paths = write_table2(store_figs, root, meta) if store_figs else {}
        return {"root": str(root), "ran": len(pending), "skipped": len(configs) - len(pending),
                "errors": errors, "outputs": paths, "configs_in_table": len(store_figs),
                "complete": sum(1 for f in store_figs if f.get("complete"))}  # fmt: skip
    finally:
        lock.unlink(missing_ok=True)


def grid_records(root: Path, refs: list[Any], opts: GridOptions) -> list[tuple[Any, list[dict[str, Any]]]]:
    """(config, its current records) for every config of the whole grid with results in the store,
    after re-scoring records scored under older rules. Records of an older system version or
    another model are not current and left out."""
    from mdqa_kernel.benchmarks.grid import ResultStore
    from mdqa_kernel.benchmarks.runner import config_records, llm_identity, rescore
    from mdqa_kernel.benchmarks.systems import table2_configs
    from mdqa_kernel.benchmarks.table2 import RESULTS_FILE

    llm = llm_identity(opts.llm_config())
    store = ResultStore(root / RESULTS_FILE)
    rescore(store)
    out = []
    for c in [*table2_configs(None, noise=True), *stored_opt_in(store)]:
        records = config_records(store, c, refs, llm)
        if any(r.get("status") != "unavailable" for r in records):
            out.append((c, records))
    return out


def stored_opt_in(store: Any) -> list[Any]:
    """The configs of opt-in systems (bash-agent, mebench-rag: not in the default grid) that have
    records in the store, so that their rows stay in the table after the run that named them."""
    from mdqa_kernel.benchmarks.systems import OPT_IN, SystemConfig

    systems = {c.system for c in OPT_IN}
    found: dict[Any, None] = {}
    for rec in store.latest().values():
        cfg = rec.get("config") or {}
        if cfg.get("system") in systems:
            found[SystemConfig(cfg["system"], float(cfg.get("k", 1.0)), bool(cfg.get("metadata")),
                               bool(cfg.get("noise")))] = None  # fmt: skip
    return list(found)


def table_figures(root: Path, refs: list[Any], opts: GridOptions) -> list[dict[str, Any]]:
    """Figures of every config of the whole grid that has results (not only the configs this
    invocation selected). Configs with only some questions done are marked not complete."""
    from mdqa_kernel.benchmarks.table2 import figures

    llm_config = opts.llm_config()
    figs = []
    for c, records in grid_records(root, refs, opts):
        final = [r for r in records if r.get("status") != "unavailable"]
        progress = {"complete": len(final) == len(refs), "ran": 0, "skipped": len(final)}
        figs.append(figures(c, refs, records, progress, llm_config, opts.seed, opts.sample, 0.0, root))
    return figs


def snapshot_table2(opts: GridOptions) -> dict[str, Any]:
    """Table 2 from what the results store holds now (no notebook, no LLM), into <grid>/snapshot/:
    for looking at a grid that is still running. Configs not finished are marked partial."""
    from mdqa_kernel.benchmarks.grid import parse_questions
    from mdqa_kernel.benchmarks.table2 import grid_root
    from mdqa_kernel.benchmarks.table2_report import write_table2

    root = grid_root(opts.results_dir, opts.sample, opts.seed)
    figs = table_figures(root, parse_questions(opts.sample, opts.seed), opts)
    meta = {"date": time.strftime("%Y-%m-%d"), "model": f"{opts.llm} (default)",
            "sample": f"{opts.sample} questions (seed {opts.seed}); SNAPSHOT of a running grid"}  # fmt: skip
    paths = write_table2(figs, root / "snapshot", meta) if figs else {}
    return {"root": str(root), "configs_with_results": len(figs), "outputs": paths}
