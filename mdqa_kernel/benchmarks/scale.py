"""Scale: build and read a generated collection of N pages, and measure how time, memory and disk grow.

`make_collection(folder, pages)` replicates real filings (by default the FinanceBench development
filings, `../shared/financebench/pdfs`) until the copies hold at least `pages` pages. Every copy gets
distinct bytes (a PDF comment naming the copy, appended after the file's last `%%EOF`: PDF readers
ignore it, but the sha256 differs, so the parse cache cannot reuse one copy's parse for another) and
distinct metadata (doc_id, company "<company> #<copy>", copy number). The copies are written once into
a pool and hard-linked into each size's folder, so 80,000 pages cost the disk once.

`measure(cmd)` runs one mdqa command and samples /proc every `interval` seconds: the peak resident
memory (VmHWM, and VmRSS summed at each sample) of the command and of every process below it
(forkserver, pool workers, resource tracker), and, for a Ray run, of the Ray processes started for it.

`scale(folder, sizes)` measures, for each size, `mdqa collection build --jobs J` and
`mdqa extract --reader table --jobs J` on a fresh workspace: pages/s, cells/s, peak RSS per process
kind, workspace size on disk. `ray_cluster()` starts a local two-node Ray cluster (`ray start --head`
and a second `ray start --address`, one CPU each) for the same extraction with `--executor ray`.

Used by tests/test_scale.py (tiny sizes) and notebooks/benchmarks/scale.ipynb (`mdqa reproduce scale`).

The process sampling lives in `benchmarks/processes.py`, the local Ray cluster in
`benchmarks/ray_cluster.py`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.chaos import cells, mdqa
from mdqa_kernel.benchmarks.financebench import data_path, load_documents
from mdqa_kernel.benchmarks.processes import ScaleError, Usage, measure
from mdqa_kernel.benchmarks.ray_cluster import RayCluster, ray_cluster
from mdqa_kernel.store import DB_NAME

PLAN_YAML = """\
question: scale benchmark plan (three headline figures of every filing)
fields:
  - name: total_revenue
    type: number
    unit: USD
    description: Total revenue (net sales) of the fiscal year
    question: What was the total revenue of {company} in {year}?
  - name: net_income
    type: number
    unit: USD
    description: Net income of the fiscal year
    question: What was the net income of {company} in {year}?
  - name: total_assets
    type: number
    unit: USD
    description: Total assets at the end of the fiscal year
    question: What were the total assets of {company} at the end of {year}?
"""

GOAL_PAGES = 80_000
GOAL_SECONDS = 600.0  # 80,000 pages parsed and read in under 10 minutes on 2 cores


@dataclass(frozen=True)
class Source:
    """One filing to replicate: its file, metadata and page count."""

    path: Path
    doc_name: str
    company: str
    doc_type: str
    year: int | None  # None: the file's metadata names none (a bare folder of PDFs)
    sector: str
    pages: int


@dataclass
class Generated:
    """A generated collection: its PDF folder, metadata file, and size."""

    pdfs: Path
    metadata: Path
    documents: int
    pages: int
    bytes: int


# -- the collection ----------------------------------------------------------------------------


def page_count(path: Path) -> int:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        return len(pdf)
    finally:
        pdf.close()


def financebench_sources(path: str | Path | None = None) -> list[Source]:
    """The FinanceBench filings (read-only) with their metadata and page counts, by doc_name."""
    folder = data_path(path)
    docs = load_documents(folder).sort("doc_name")
    found = []
    for row in docs.iter_rows(named=True):
        pdf = folder / "pdfs" / f"{row['doc_name']}.pdf"
        if pdf.is_file():
            found.append(
                Source(pdf, row["doc_name"], row["company"], row["doc_type"], int(row["year"]),
                       row["sector"] or "", page_count(pdf))
            )  # fmt: skip
    if not found:
        raise ScaleError(
            f"no filings under {folder / 'pdfs'}; pass the FinanceBench folder (see its README.md)"
        )
    return found


_STEM_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def pdf_sources(folder: str | Path) -> list[Source]:
    """Every PDF of a folder as a source (company = file stem, year = the one year the stem names, else
    none): for folders without metadata. A made-up year would date every column to another period."""
    pdfs = sorted(Path(folder).glob("*.pdf"))
    if not pdfs:
        raise ScaleError(f"no *.pdf files in {folder}; pass a folder of PDFs to replicate")
    return [Source(p, p.stem, p.stem, "report", _stem_year(p.stem), "", page_count(p)) for p in pdfs]


def _stem_year(stem: str) -> int | None:
    years = set(_STEM_YEAR.findall(stem))
    return int(years.pop()) if len(years) == 1 else None


def copy_bytes(source: Path, copy: int) -> bytes:
    """The source's bytes with a PDF comment naming the copy appended: same pages, new sha256."""
    data = source.read_bytes()
    if not data.endswith(b"\n"):
        data += b"\n"
    return data + f"% mdqa-scale copy {copy} of {source.name}\n".encode("ascii", "replace")


def plan_copies(sources: Sequence[Source], pages: int) -> list[tuple[int, Source]]:
    """(copy number, source) in a fixed order, cycling over the sources until `pages` are reached.
    A smaller size's copies are a prefix of a larger size's, so one pool serves every size."""
    if not sources or all(s.pages == 0 for s in sources):
        raise ScaleError("the source filings have no pages; nothing to replicate")
    chosen: list[tuple[int, Source]] = []
    total = 0
    k = 0
    while total < pages:
        src = sources[k % len(sources)]
        chosen.append((k, src))
        total += src.pages
        k += 1
    return chosen


def _doc_id(copy: int, src: Source) -> str:
    return f"{src.doc_name}_c{copy:05d}"


def make_pool(pool: str | Path, copies: Sequence[tuple[int, Source]]) -> Path:
    """Write every copy's file once (skipping those already there) into `pool`."""
    folder = Path(pool)
    folder.mkdir(parents=True, exist_ok=True)
    for copy, src in copies:
        target = folder / f"{_doc_id(copy, src)}.pdf"
        if not target.is_file():
            tmp = target.with_suffix(".tmp")
            tmp.write_bytes(copy_bytes(src.path, copy))
            tmp.replace(target)
    return folder


def make_collection(
    folder: str | Path, pages: int, sources: Sequence[Source], pool: str | Path | None = None
) -> Generated:
    """A folder `folder/pdfs` of copies holding at least `pages` pages, and `folder/metadata.csv`.
    Files come from `pool` (written there first when missing) by hard link, or by copy across devices."""
    out = Path(folder)
    copies = plan_copies(sources, pages)
    pool_dir = make_pool(pool or out / "pool", copies)
    pdfs = out / "pdfs"
    if pdfs.exists():
        shutil.rmtree(pdfs)
    pdfs.mkdir(parents=True)
    rows, total_pages, total_bytes = [], 0, 0
    for copy, src in copies:
        name = f"{_doc_id(copy, src)}.pdf"
        try:
            os.link(pool_dir / name, pdfs / name)
        except OSError:  # another file system
            shutil.copyfile(pool_dir / name, pdfs / name)
        rows.append({"doc_id": _doc_id(copy, src), "company": f"{src.company} #{copy}", "doc_type": src.doc_type,
                     "year": src.year, "sector": src.sector, "copy": copy, "source": src.doc_name})  # fmt: skip
        total_pages += src.pages
        total_bytes += (pdfs / name).stat().st_size
    meta = out / "metadata.csv"
    pl.DataFrame(rows).write_csv(meta)
    return Generated(pdfs, meta, len(rows), total_pages, total_bytes)


def write_plan(path: str | Path) -> Path:
    target = Path(path)
    target.write_text(PLAN_YAML, encoding="utf-8")
    return target


# -- processes and their memory ----------------------------------------------------------------


def disk_bytes(folder: Path) -> int:
    """Bytes a folder takes on disk (allocated blocks, like du)."""
    total = 0
    for base, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(base, name)).st_blocks * 512
    return total


def build_cmd(
    pdfs: Path,
    meta: Path,
    workspace: Path,
    jobs: int,
    executor: str = "local",
    ray_address: str | None = None,
) -> list[str]:
    cmd = mdqa(
        "collection", "build", str(pdfs), "--metadata", str(meta), "--workspace", str(workspace),
        "--jobs", str(jobs), "--executor", executor, "--json",
    )  # fmt: skip
    return cmd + (["--ray-address", ray_address] if ray_address else [])


def extract_cmd(
    workspace: Path, plan: Path, jobs: int, executor: str = "local", ray_address: str | None = None
) -> list[str]:
    cmd = mdqa(
        "extract", "--workspace", str(workspace), "--plan", str(plan), "--reader", "table",
        "--jobs", str(jobs), "--executor", executor, "--json",
    )  # fmt: skip
    return cmd + (["--ray-address", ray_address] if ray_address else [])


# -- a local two-node Ray cluster --------------------------------------------------------------


# -- the measurement ---------------------------------------------------------------------------


def _mb(kb: int) -> float:
    return round(kb / 1024, 1)


def run_size(
    folder: Path, pages: int, sources: Sequence[Source], pool: Path, plan: Path, jobs: int,
    executor: str = "local", ray: RayCluster | None = None, keep: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Generate a collection of `pages` pages, build and read it on a fresh workspace; one table row."""
    out = folder / f"{executor}-{pages}"
    gen = make_collection(out, pages, sources, pool)
    ws = out / "workspace"
    shutil.rmtree(ws, ignore_errors=True)
    log = out / "commands.log"
    build = measure(
        build_cmd(gen.pdfs, gen.metadata, ws, jobs, executor, ray.address if ray else None), log,
        extra_roots=ray.pids if ray else (), env=ray.env if ray else None,
    )  # fmt: skip
    read = measure(
        extract_cmd(ws, plan, jobs, executor, ray.address if ray else None), log,
        extra_roots=ray.pids if ray else (), env=ray.env if ray else None,
    )  # fmt: skip
    found = cells(ws)
    n_found = found.filter(pl.col("status") == "found").height
    b_roles, r_roles = build.by_role(), read.by_role()
    row = {
        "executor": executor,
        "pages_asked": pages,
        "documents": gen.documents,
        "pages": gen.pages,
        "pdf_mb": round(gen.bytes / 2**20, 1),
        "build_s": round(build.seconds, 1),
        "extract_s": round(read.seconds, 1),
        "total_s": round(build.seconds + read.seconds, 1),
        "pages_per_s": round(gen.pages / build.seconds, 1),
        "cells": found.height,
        "cells_found": n_found,
        "cells_per_s": round(found.height / read.seconds, 2),
        "pages_read_per_s": round(gen.pages / read.seconds, 1),
        "build_parent_mb": _mb(b_roles.get("parent", 0)),
        "build_worker_mb": _mb(max(b_roles.get("worker", 0), b_roles.get("ray_worker", 0))),
        "build_workers": build.count("worker") + build.count("ray_worker"),
        "build_total_mb": _mb(build.peak_total_kb),
        "extract_parent_mb": _mb(r_roles.get("parent", 0)),
        "extract_worker_mb": _mb(max(r_roles.get("worker", 0), r_roles.get("ray_worker", 0))),
        "extract_workers": read.count("worker") + read.count("ray_worker"),
        "extract_total_mb": _mb(read.peak_total_kb),
        "workspace_mb": round(disk_bytes(ws) / 2**20, 1),
        "db_mb": round((ws / DB_NAME).stat().st_size / 2**20, 1),
    }
    row["processes"] = {"build": _processes(build), "extract": _processes(read)}
    if not keep:
        shutil.rmtree(out, ignore_errors=True)
    return row


def _processes(usage: Usage) -> list[dict[str, Any]]:
    return [{"pid": pid, "role": usage.roles.get(pid, "other"), "peak_mb": _mb(kb)}
            for pid, kb in sorted(usage.peak_kb.items())]  # fmt: skip


def _done_rows(rows_file: Path | None) -> dict[tuple[str, int, int], dict[str, Any]]:
    """Rows measured before (one JSON line each), by (executor, pages asked, jobs)."""
    if rows_file is None or not rows_file.is_file():
        return {}
    rows = [json.loads(line) for line in rows_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {(r["executor"], r["pages_asked"], r["jobs"]): r for r in rows}


def predicted_seconds(done: Sequence[dict[str, Any]], pages: int) -> float | None:
    """Build + extract seconds of `pages` pages, scaled linearly from the largest size measured."""
    if not done:
        return None
    last = max(done, key=lambda r: r["pages"])
    return float(last["total_s"]) * pages / max(1, last["pages"])


def scale(
    folder: str | Path, sizes: Sequence[int], *, jobs: int = 2, sources: Sequence[Source] | None = None,
    executor: str = "local", ray_nodes: int = 2, keep: bool = False, rows_file: str | Path | None = None,
    deadline: float | None = None, log: Any = print,
) -> pl.DataFrame:  # fmt: skip
    """One row per size (smallest first): build and extract measured on a fresh workspace.

    `executor="ray"` reads through a local Ray cluster of `ray_nodes` one-CPU nodes started here.
    `rows_file`: each measured row is appended there as a JSON line, and sizes already there are not
    measured again (a long run resumes). `deadline` (a time.time() value): a size whose run, scaled
    linearly from the largest size measured so far, would end after it is not started; its row says so
    (`ran` false, `predicted_s`)."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    record = Path(rows_file) if rows_file is not None else None
    before = _done_rows(record)
    srcs = list(sources) if sources is not None else financebench_sources()
    plan = write_plan(out / "plan.yaml")
    pool = out / "pool"
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        ray: RayCluster | None = None
        for pages in sorted(sizes):
            if (executor, pages, jobs) in before:
                rows.append(before[(executor, pages, jobs)])
                continue
            guess = predicted_seconds([r for r in rows if r.get("ran", True)], pages)
            if deadline is not None and time.time() + (guess or 0.0) > deadline:
                log(
                    f"{executor} {pages} pages: not run (about {guess or 0:.0f} s predicted, past the deadline)"
                )
                rows.append({"executor": executor, "pages_asked": pages, "jobs": jobs, "ran": False,
                             "predicted_s": round(guess, 1) if guess is not None else None})  # fmt: skip
                continue
            if executor == "ray" and ray is None:
                ray = stack.enter_context(ray_cluster(out / "ray.log", ray_nodes))
            row = {
                **run_size(out, pages, srcs, pool, plan, jobs, executor, ray, keep),
                "jobs": jobs,
                "ran": True,
                "predicted_s": round(guess, 1) if guess is not None else None,
            }
            log(f"{executor} {row['pages']} pages: build {row['build_s']} s, extract {row['extract_s']} s, "
                f"{row['cells']} cells, workspace {row['workspace_mb']} MB")  # fmt: skip
            rows.append(row)
            if record is not None:
                record.parent.mkdir(parents=True, exist_ok=True)
                with record.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row, default=str) + "\n")
    return pl.DataFrame(rows, strict=False)


def goal(table: pl.DataFrame) -> dict[str, Any]:
    """Whether 80,000 pages were parsed and read in under 10 minutes, and whether memory stayed flat:
    the largest process's peak at the largest size against the smallest (within 1.5×)."""
    local = table.filter((pl.col("executor") == "local") & pl.col("ran")).sort("pages")
    if local.is_empty():
        return {"measured": False}
    small, big = local.row(0, named=True), local.row(-1, named=True)
    mem_cols = ["build_parent_mb", "build_worker_mb", "extract_parent_mb", "extract_worker_mb"]
    growth = {c: round(big[c] / small[c], 2) if small[c] else None for c in mem_cols}
    at_goal = local.filter(pl.col("pages") >= GOAL_PAGES)
    return {
        "measured": True,
        "largest_pages": big["pages"],
        "goal_size_run": not at_goal.is_empty(),
        "seconds_at_goal_size": at_goal["total_s"][0] if not at_goal.is_empty() else None,
        "time_goal_met": bool(not at_goal.is_empty() and at_goal["total_s"][0] < GOAL_SECONDS),
        "memory_growth": growth,
        "memory_flat": all(g is not None and g <= 1.5 for g in growth.values()),
    }


# -- the report --------------------------------------------------------------------------------

COLUMNS = (
    "executor", "pages", "documents", "build_s", "extract_s", "total_s", "pages_per_s", "cells", "cells_found",
    "cells_per_s", "build_parent_mb", "build_worker_mb", "build_total_mb", "extract_parent_mb",
    "extract_worker_mb", "extract_total_mb", "workspace_mb", "pdf_mb",
)  # fmt: skip
# What the plot draws against pages: (column, panel title).
GROWTH = (
    ("total_s", "seconds (build + extract)"),
    ("pages_per_s", "pages/s parsed (build)"),
    ("cells_per_s", "cells/s read (extract)"),
    ("build_worker_mb", "peak RSS, MB: build worker"),
    ("extract_parent_mb", "peak RSS, MB: extract parent"),
    ("extract_worker_mb", "peak RSS, MB: extract worker"),
    ("build_parent_mb", "peak RSS, MB: build parent"),
    ("workspace_mb", "workspace on disk, MB"),
)


def report_table(table: pl.DataFrame) -> pl.DataFrame:
    """The measured rows (sizes not run left out), the report's columns, smallest size first."""
    ran = table.filter(pl.col("ran")) if "ran" in table.columns else table
    return ran.select([c for c in COLUMNS if c in ran.columns]).sort("executor", "pages")


def markdown(table: pl.DataFrame) -> str:
    """A markdown table of `report_table(table)` (thousands separated)."""
    frame = report_table(table)
    head = "| " + " | ".join(frame.columns) + " |\n|" + "---|" * len(frame.columns) + "\n"
    body = "\n".join(
        "| " + " | ".join(f"{v:,}" if isinstance(v, int | float) else str(v) for v in row) + " |"
        for row in frame.iter_rows()
    )
    return head + body + "\n"


def growth_chart(table: pl.DataFrame) -> Any:
    """One small panel per figure of `GROWTH` against pages, a line per executor."""
    import altair as alt

    frame = report_table(table)
    values = [{"pages": r["pages"], "executor": r["executor"], "figure": title, "value": r[col]}
              for r in frame.iter_rows(named=True) for col, title in GROWTH if r.get(col) is not None]  # fmt: skip
    return (
        alt.Chart(alt.Data(values=values))
        .mark_line(point=True)
        .encode(
            x=alt.X("pages:Q", title="pages in the collection"),
            y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=True)),
            color=alt.Color("executor:N"),
            tooltip=["executor:N", "pages:Q", "figure:N", "value:Q"],
        )
        .properties(width=220, height=150)
        .facet(facet=alt.Facet("figure:N", title=None, sort=[t for _, t in GROWTH]), columns=4)
        .resolve_scale(y="independent")
        .properties(title="mdqa at scale: collection build and table-reader extraction, --jobs 2")
    )


def write_report(table: pl.DataFrame, out_dir: str | Path) -> dict[str, str]:
    """scale.csv, scale.md, scale.png and scale.svg in `out_dir`; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {fmt: str(out / f"scale.{fmt}") for fmt in ("csv", "md", "png", "svg")}
    report_table(table).write_csv(paths["csv"])
    Path(paths["md"]).write_text(markdown(table), encoding="utf-8")
    chart = growth_chart(table)
    for fmt in ("png", "svg"):
        chart.save(paths[fmt])
    return paths


__all__ = [
    "GOAL_PAGES",
    "GOAL_SECONDS",
    "Generated",
    "RayCluster",
    "ScaleError",
    "Source",
    "financebench_sources",
    "goal",
    "growth_chart",
    "make_collection",
    "markdown",
    "measure",
    "pdf_sources",
    "plan_copies",
    "ray_cluster",
    "report_table",
    "scale",
    "write_report",
]  # fmt: skip
