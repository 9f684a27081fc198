"""The real-filings benchmark harness (`mdqa reproduce realfacts`): hand-checked facts, what a reader
says about them, and how far its confidence can be trusted.

A *bench set* is a collection + a plan + gold cells, all opened in one workspace under the results
folder, so a rerun reads only the cells not read yet and answers LLM calls from the journal:
- a fact set: examples/realfacts/{dev,dev2,...,dev8,dev9,validation}.jsonl (facts of FinanceBench filings, read from
  `<data_dir>/pdfs`; plan from `realfacts.plan_for`), or any facts file of that format. Its facts carry
  a `category` and a `trap` flag (a prior period or a look-alike value);
- `realdocs`: ../shared/realdocs or $MDQA_REALDOCS (gold.jsonl, docs.csv), examples/realdocs/plan.yaml;
- `simple`: the rendered MuDABench simple split (`mdqa render mudabench --split simple`), plan and
  gold `mudabench:simple`, scored on the cells the plan has (as `mdqa cells` does).
`validation` is held out: its figures are reported apart from the development ones.

Scores, per (set, reader), per category and trap vs not:
- accuracy  = correct cells / gold cells (n);
- precision = correct found values / found values (what a user copying the found values gets);
- coverage  = found values / n;
- wrong     = found values that are wrong: the numbers a user would copy without knowing;
- review    = values held for review (status needs_review: read under REVIEW_BELOW), not found here.
A "not found" costs coverage, not precision: a wrong number is worse than a blank. The calibration
curve recomputes them when found values below a confidence threshold count as not found; the operating
point is the threshold with precision >= 0.98 and the most coverage.

LLM readers (cascade, llm) read a seeded sample of cells per set (round-robin over categories); the
table reader's figures on the same cells are reported beside them.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks import realfacts
from mdqa_kernel.benchmarks.metrics import GOLD_SCHEMA, cell_correct
from mdqa_kernel.errors import MdqaError

FACT_SETS = ("dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9", "validation")
SETS = (*FACT_SETS, "realdocs", "simple")
HELD_OUT = frozenset({"validation"})
THRESHOLDS = tuple(round(i / 20, 2) for i in range(21))  # 0.00, 0.05, ..., 1.00
TARGET_PRECISION = 0.98
REALDOCS_ENV = "MDQA_REALDOCS"
DEFAULT_REALDOCS = Path(__file__).resolve().parents[2].parent / "shared" / "realdocs"
BENCH_GOLD_SCHEMA = {**GOLD_SCHEMA, "category": pl.String, "trap": pl.Boolean}
FIGURE_COLUMNS = ("accuracy", "precision", "coverage", "wrong", "n", "found", "correct", "review")


class RealfactsBenchError(MdqaError):
    """A bench set cannot be opened (unknown name, missing facts file or data folder)."""


class UnknownBenchSetError(RealfactsBenchError):
    """A set name that is neither a known set nor a facts file."""


class BenchDataMissingError(RealfactsBenchError):
    """A set's files are not on this machine: run_bench goes on without the set (and says so)."""


@dataclass
class BenchSet:
    """What one set needs to be read and scored."""

    name: str
    collection: Any  # mdqa_kernel.collection.Collection, restricted to the set's documents
    plan: Any  # mdqa_kernel.plan.Plan
    gold: pl.DataFrame  # BENCH_GOLD_SCHEMA
    heldout: bool = False
    oracle_source: str | None = None


@dataclass(frozen=True)
class LLMSettings:
    """How the LLM readers ask: the backend, its threads and context, the chunks per field, the
    cascade's threshold, and the journal every answer is kept in (so a rerun makes no call)."""

    backend: str = "local"
    n_threads: int = 1
    n_ctx: int = 4096
    max_tokens: int = 128
    k: int = 3
    threshold: float = 0.8
    journal: str | Path | None = None


@dataclass
class BenchRun:
    """Every scored cell of a run (one row per set × reader × gold cell) and the figures from them."""

    scored: pl.DataFrame
    heldout: dict[str, bool] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # set -> why it was not run (its data is missing)

    def summary(self) -> pl.DataFrame:
        """One row per (set, reader, cells): see summary_table."""
        return summary_table(self.scored, self.heldout)

    def by(self, *columns: str) -> pl.DataFrame:
        """The figures per (set, reader, cells) and the given columns (category, trap)."""
        return figures(self.scored, ["set", "reader", "cells", *columns])

    def calibration(self) -> pl.DataFrame:
        """The calibration curve of every (set, reader, cells), one row per threshold."""
        parts = []
        for (set_name, reader, cells), part in self.scored.group_by(
            ["set", "reader", "cells"], maintain_order=True
        ):
            curve = _curve(part)
            parts.append(curve.select(pl.lit(set_name).alias("set"), pl.lit(reader).alias("reader"),
                                      pl.lit(cells).alias("cells"), pl.all()))  # fmt: skip
        if not parts:
            keys = {"set": pl.String, "reader": pl.String, "cells": pl.String, "threshold": pl.Float64}
            return pl.DataFrame(schema={**keys, **_curve(self.scored).schema})
        return pl.concat(parts)

    def operating_points(self, target: float = TARGET_PRECISION) -> pl.DataFrame:
        """Per (set, reader, cells): the threshold reaching `target` precision with the most coverage
        (nulls where none reaches it)."""
        rows = []
        curve = self.calibration()
        for (set_name, reader, cells), part in curve.group_by(
            ["set", "reader", "cells"], maintain_order=True
        ):
            best = best_threshold(part, target)
            rows.append({"set": set_name, "reader": reader, "cells": cells, **_point(best)})
        return pl.DataFrame(rows, schema=_POINT_SCHEMA)


_POINT_SCHEMA = {"set": pl.String, "reader": pl.String, "cells": pl.String, "threshold": pl.Float64,
                 "precision": pl.Float64, "coverage": pl.Float64, "wrong": pl.Int64}  # fmt: skip


def _point(best: dict[str, Any] | None) -> dict[str, Any]:
    keys = ("threshold", "precision", "coverage", "wrong")
    return {k: (best or {}).get(k) for k in keys}


# -- gold ------------------------------------------------------------------------------------------


def facts_gold(records: list[dict[str, Any]]) -> pl.DataFrame:
    """Gold cells of a facts file: the value in the field's scale (as the plan asks for it), the page,
    the category and the trap flag. A null value says the fact is absent from the document."""
    rows = []
    for rec in records:
        value = rec.get("value")
        gold = None if value is None else json.dumps(value, ensure_ascii=False)
        rows.append(
            (rec["doc"], rec["field"], gold, rec.get("page"), rec.get("category"), bool(rec.get("trap")))
        )
    return pl.DataFrame(rows, schema=BENCH_GOLD_SCHEMA, orient="row")


def with_groups(gold: pl.DataFrame) -> pl.DataFrame:
    """A plain gold frame (metrics.GOLD_SCHEMA) with no category and no trap."""
    return gold.with_columns(category=pl.lit(None, pl.String), trap=pl.lit(False)).select(
        list(BENCH_GOLD_SCHEMA)
    )


# -- scoring ---------------------------------------------------------------------------------------


def score(cells: pl.DataFrame, gold: pl.DataFrame) -> pl.DataFrame:
    """Gold joined with the cells: status, value_json, confidence, and `correct`, `found`, `wrong`.

    A gold cell without an extracted cell (or still pending) is not found. `wrong`: a found value that
    does not match the gold (a found value where the gold says absent is wrong too)."""
    keep = [c for c in ("status", "value_json", "confidence", "page", "message") if c in cells.columns]
    joined = gold.join(
        cells.select("doc_id", "field", *keep).rename({"page": "cell_page"} if "page" in keep else {}),
        on=["doc_id", "field"],
        how="left",
    )
    if "confidence" not in joined.columns:
        joined = joined.with_columns(confidence=pl.lit(None, pl.Float64))
    correct = [cell_correct(s, v, g) for s, v, g in joined.select("status", "value_json", "gold").iter_rows()]
    found = (pl.col("status") == "found").fill_null(False)
    return joined.with_columns(correct=pl.Series(correct, dtype=pl.Boolean), found=found).with_columns(
        wrong=pl.col("found") & ~pl.col("correct")
    )


def _aggs() -> list[pl.Expr]:
    n, found = pl.len(), pl.col("found").sum()
    right_found = (pl.col("correct") & pl.col("found")).sum()
    return [
        (pl.col("correct").sum() / n).round(4).alias("accuracy"),
        pl.when(found > 0).then(right_found / found).otherwise(None).round(4).alias("precision"),
        (found / n).round(4).alias("coverage"),
        pl.col("wrong").sum().cast(pl.Int64).alias("wrong"),
        n.cast(pl.Int64).alias("n"),
        found.cast(pl.Int64).alias("found"),
        pl.col("correct").sum().cast(pl.Int64).alias("correct"),
        (pl.col("status") == "needs_review").fill_null(False).sum().cast(pl.Int64).alias("review"),
    ]


def figures(scored: pl.DataFrame, by: list[str] | None = None) -> pl.DataFrame:
    """accuracy, precision, coverage, wrong, n, found, correct per group of `by` (overall when empty)."""
    if not by:
        return scored.select(_aggs())
    return scored.group_by(by, maintain_order=True).agg(_aggs()).sort(by, nulls_last=True)


def _curve(scored: pl.DataFrame, thresholds: tuple[float, ...] = THRESHOLDS) -> pl.DataFrame:
    """Per threshold: a found value below it counts as not found (a gold-absent cell is then right).
    The bench's figures (wrong, found) on a fixed grid of thresholds, per (set, reader); for one run's
    cells against any gold (corrections included), metrics.calibration_curve gives the same curve with
    its confidence interval."""
    absent = pl.col("gold").is_null()
    rows = []
    for t in thresholds:
        kept = pl.col("found") & (pl.col("confidence").fill_null(0.0) >= t - 1e-9)
        at = scored.with_columns(
            found=kept, correct=pl.when(kept).then(pl.col("correct")).otherwise(absent)
        ).with_columns(wrong=pl.col("found") & ~pl.col("correct"))
        rows.append(figures(at).with_columns(threshold=pl.lit(t)))
    out = pl.concat(rows)
    return out.select("threshold", *FIGURE_COLUMNS)


def best_threshold(curve: pl.DataFrame, target: float = TARGET_PRECISION) -> dict[str, Any] | None:
    """The row of the curve with precision >= target and the most coverage (the lowest such
    threshold on a tie); None when no threshold with a found value reaches the target."""
    ok = curve.filter((pl.col("found") > 0) & (pl.col("precision") >= target))
    if ok.height == 0:
        return None
    return ok.sort(["coverage", "threshold"], descending=[True, False]).row(0, named=True)


def summary_table(scored: pl.DataFrame, heldout: dict[str, bool] | None = None) -> pl.DataFrame:
    """One row per (set, reader, cells): accuracy, precision, coverage, wrong, n, and `figures`:
    'held out' for a held-out set, else 'development'."""
    table = figures(scored, ["set", "reader", "cells"])
    marks = {s: "held out" if h else "development" for s, h in (heldout or {}).items()}
    return table.with_columns(
        figures=pl.col("set").replace_strict(marks, default="development", return_dtype=pl.String)
    ).select("set", "reader", "cells", "figures", *FIGURE_COLUMNS)


def sample_cells(gold: pl.DataFrame, n: int | None, seed: int = 0) -> pl.DataFrame:
    """A seeded sample of n gold cells, round-robin over categories (all cells when n is None or
    the set is smaller), in gold order."""
    if n is None or n >= gold.height:
        return gold
    rng = random.Random(seed)
    by_cat: dict[str, list[int]] = {}
    for i, cat in enumerate(gold["category"].to_list()):
        by_cat.setdefault(cat or "", []).append(i)
    queues = [rng.sample(idx, len(idx)) for _, idx in sorted(by_cat.items())]
    picked: list[int] = []
    while len(picked) < n:
        for q in queues:
            if q and len(picked) < n:
                picked.append(q.pop())
    return gold[sorted(picked)]


# -- sets ------------------------------------------------------------------------------------------


def open_fact_set(
    facts_path: str | Path,
    pdf_dir: str | Path,
    workspace: Any,
    *,
    name: str | None = None,
    metadata: pl.DataFrame | None = None,
    plan: Any = None,
    data_dir: str | Path | None = None,
    jobs: int = 1,
) -> BenchSet:
    """A facts file (FACTS_FORMAT) over a folder of PDFs. The plan defaults to
    `realfacts.plan_for(facts)`, the metadata to `realfacts.metadata_frame(facts, data_dir)`.

    The folder may hold other filings (FinanceBench keeps them all in one): only the documents the
    metadata names are hashed and parsed, and the collection is restricted to those the facts name."""
    from mdqa_kernel.collection import Collection

    path = Path(facts_path)
    records = realfacts.load_facts(path)  # checked: keys, types, one meaning per field name
    plan = plan if plan is not None else realfacts.plan_for(records)
    metadata = metadata if metadata is not None else realfacts.metadata_frame(records, data_dir)
    label = name or path.stem
    gold = facts_gold(records)
    docs = sorted(set(gold["doc_id"].to_list()))
    coll = Collection.build(pdf_dir, metadata, workspace=workspace, name=label, jobs=jobs, progress=False)
    coll = coll.where(pl.col("doc_id").is_in(docs))
    heldout = label in HELD_OUT or any(r.get("split") == "validation" for r in records)
    return BenchSet(label, coll, plan, gold, heldout=heldout, oracle_source=str(path))


def open_set(
    name: str,
    workspace: Any,
    *,
    data_dir: str | Path | None = None,
    realdocs_dir: str | Path | None = None,
    rendered_dir: str | Path = "rendered/mudabench-simple",
    facts_dir: str | Path | None = None,
    jobs: int = 1,
) -> BenchSet:
    """`dev`, `validation` (examples/realfacts/<name>.jsonl over FinanceBench's PDFs), `realdocs`,
    `simple` (the rendered MuDABench split; rendered when missing), or the path of a facts file."""
    from mdqa_kernel.resources import example

    if name in FACT_SETS or name.endswith(".jsonl"):
        from mdqa_kernel.benchmarks.financebench import FinanceBenchDataError, data_path

        path = (
            Path(name)
            if name.endswith(".jsonl")
            else Path(facts_dir or example("realfacts")) / f"{name}.jsonl"
        )
        if not path.is_file():
            raise BenchDataMissingError(f"facts file {path} does not exist")
        try:
            fb = data_path(data_dir)
        except FinanceBenchDataError as e:
            raise BenchDataMissingError(str(e)) from e
        return open_fact_set(path, fb / "pdfs", workspace, name=name if name in FACT_SETS else None,
                             data_dir=fb, jobs=jobs)  # fmt: skip
    if name == "realdocs":
        return _realdocs(realdocs_path(realdocs_dir), workspace, jobs)
    if name in ("simple", "mudabench:simple"):
        return _rendered("simple", Path(rendered_dir), workspace, jobs)
    raise UnknownBenchSetError(f"unknown bench set {name!r}; choose {', '.join(SETS)} or a facts .jsonl path")


def realdocs_path(path: str | Path | None = None) -> Path:
    """The realdocs folder: `path`, else `$MDQA_REALDOCS`, else `../shared/realdocs` beside the project."""
    return Path(path or os.environ.get(REALDOCS_ENV) or DEFAULT_REALDOCS)


def _realdocs(folder: Path, workspace: Any, jobs: int) -> BenchSet:
    from mdqa_kernel.benchmarks.metrics import realdocs_gold
    from mdqa_kernel.collection import Collection
    from mdqa_kernel.plan import Plan
    from mdqa_kernel.resources import example

    if not (folder / "gold.jsonl").is_file():
        raise BenchDataMissingError(
            f"realdocs folder {folder} has no gold.jsonl (pass realdocs_dir or set ${REALDOCS_ENV})"
        )
    coll = Collection.build(folder / "pdfs", metadata=folder / "docs.csv", workspace=workspace,
                            name="realdocs", jobs=jobs, progress=False)  # fmt: skip
    plan = Plan.load(example("realdocs/plan.yaml"))
    gold = with_groups(realdocs_gold(folder / "gold.jsonl"))
    return BenchSet("realdocs", coll, plan, gold, oracle_source=str(folder / "gold.jsonl"))


def _rendered(split: str, corpus: Path, workspace: Any, jobs: int) -> BenchSet:
    from mdqa_kernel.benchmarks.gold_plans import mudabench_plan
    from mdqa_kernel.benchmarks.metrics import mudabench_gold
    from mdqa_kernel.collection import Collection

    if not (corpus / "metadata.csv").exists():
        from mdqa_kernel.benchmarks.render import render_mudabench

        render_mudabench(split, "all", corpus, progress=False, strict_fonts=True)
    coll = Collection.build(corpus / "pdfs", metadata=corpus / "metadata.csv", workspace=workspace,
                            name=f"rendered-{split}", jobs=jobs, progress=False)  # fmt: skip
    plan = mudabench_plan(split, doc_ids=set(coll.doc_ids))
    # A benchmark's gold has more values than the plan asks for: score the cells the plan has.
    gold = with_groups(mudabench_gold(split, coll.doc_ids, manifests=corpus))
    gold = gold.join(planned_cells(plan, coll.documents), on=["doc_id", "field"], how="semi")
    return BenchSet(split, coll, plan, gold, oracle_source=f"mudabench:{split}")


def planned_cells(plan: Any, documents: pl.DataFrame) -> pl.DataFrame:
    """(doc_id, field) of every cell a plan asks for over the documents (its `only` filters applied)."""
    docs = documents.filter(plan.filter_expr()) if plan.filters else documents
    rows = [(d["doc_id"], f.name) for d in docs.iter_rows(named=True) for f in plan.fields if f.applies_to(d)]
    return pl.DataFrame(rows, schema={"doc_id": pl.String, "field": pl.String}, orient="row")


# -- running ---------------------------------------------------------------------------------------


def llm_client(bench: BenchSet, llm: LLMSettings | None = None) -> Any:
    """An LLM client of the set's workspace: every new answer is cached there and appended to the
    journal (the model loads at the first call that is not already answered)."""
    from mdqa_kernel.llm import LLMClient, LLMConfig

    s = llm or LLMSettings()
    cfg = LLMConfig.from_env(backend=s.backend, n_threads=s.n_threads, n_ctx=s.n_ctx, max_tokens=s.max_tokens)
    return LLMClient(cfg, bench.collection.workspace, journal=s.journal)


def make_bench_reader(
    reader: str, bench: BenchSet, llm: LLMSettings | None = None, client: Any = None
) -> Any:
    """The reader object: LLM readers get the client, the chunk budget and the cascade's threshold;
    the oracle the set's own gold."""
    from mdqa_kernel.readers import make_reader, needs_llm

    if reader == "oracle":
        return make_reader("oracle", source=bench.oracle_source or "")
    if not needs_llm(reader):
        return make_reader(reader)
    s = llm or LLMSettings()
    client = client or llm_client(bench, s)
    opts: dict[str, Any] = {"llm_config": client.config, "client": client, "k": s.k,
                            "workspace": str(bench.collection.workspace.path)}  # fmt: skip
    if reader == "cascade":
        opts["threshold"] = s.threshold
    return make_reader(reader, **opts)


def extract_cells(
    bench: BenchSet, reader: Any, gold: pl.DataFrame | None = None, jobs: int = 1
) -> pl.DataFrame:
    """The cells of the plan over the set (all of them, or only the (doc, field) cells of `gold`):
    cells already in the workspace are not read again. A subset is read document by document with
    only its fields, so its task keys are those of a whole run (same spec, same question)."""
    from mdqa_kernel.extract import extract

    if gold is None:
        return extract(bench.plan, bench.collection, reader, jobs=jobs, progress=False).cells
    parts = []
    for (doc_id,), cells in gold.group_by(["doc_id"], maintain_order=True):
        wanted = set(cells["field"].to_list())
        fields = [f for f in bench.plan.fields if f.name in wanted]
        if not fields:
            continue
        plan = bench.plan.model_copy(update={"fields": fields})
        docs = bench.collection.where(pl.col("doc_id") == doc_id)
        parts.append(extract(plan, docs, reader, jobs=1, progress=False).cells)
    return pl.concat(parts, how="vertical_relaxed") if parts else pl.DataFrame()


def run_reader(
    bench: BenchSet,
    reader: str,
    *,
    llm: LLMSettings | None = None,
    sample: int | None = None,
    seed: int = 0,
    jobs: int = 1,
) -> pl.DataFrame:
    """Read the set with one reader and score it: the scored frame with `set`, `reader` and `cells`
    ('all', or 'sample of N' for an LLM reader given a sample size)."""
    from mdqa_kernel.readers import needs_llm

    uses_llm = needs_llm(reader)
    client = None
    if uses_llm:
        if llm is not None and llm.journal:  # answers from earlier runs (any machine): no call repeated
            from mdqa_kernel.llm.journal import load_journal

            load_journal(llm.journal, bench.collection.workspace)
        client = llm_client(bench, llm)
    rdr = make_bench_reader(reader, bench, llm, client)
    gold = sample_cells(bench.gold, sample, seed) if uses_llm else bench.gold
    subset = gold.height < bench.gold.height
    try:
        cells = extract_cells(bench, rdr, gold if subset else None, jobs=1 if uses_llm else jobs)
    finally:
        if client is not None:
            client.close()  # frees the model before the next reader loads one
    label = f"sample of {gold.height}" if subset else "all"
    return score(cells, gold).with_columns(set=pl.lit(bench.name), reader=pl.lit(reader), cells=pl.lit(label))


def _empty_scored() -> pl.DataFrame:
    """A scored frame with no rows (every set skipped): the tables come out empty, not as errors."""
    cells = pl.DataFrame(schema={"doc_id": pl.String, "field": pl.String, "status": pl.String,
                                 "value_json": pl.String, "confidence": pl.Float64})  # fmt: skip
    return score(cells, pl.DataFrame(schema=BENCH_GOLD_SCHEMA)).with_columns(
        set=pl.lit(None, pl.String), reader=pl.lit(None, pl.String), cells=pl.lit(None, pl.String)
    )


def same_cells(table: pl.DataFrame, sampled: pl.DataFrame) -> pl.DataFrame:
    """The table reader's scored cells restricted to the cells an LLM reader read (labelled alike)."""
    label = sampled["cells"][0]
    keys = sampled.select("doc_id", "field").unique()
    return table.join(keys, on=["doc_id", "field"], how="semi").with_columns(cells=pl.lit(label))


def run_bench(
    sets: list[str],
    readers: list[str],
    results_dir: str | Path = "results/realfacts",
    *,
    data_dir: str | Path | None = None,
    realdocs_dir: str | Path | None = None,
    rendered_dir: str | Path = "rendered/mudabench-simple",
    facts_dir: str | Path | None = None,
    llm: LLMSettings | None = None,
    sample: int | dict[str, int | None] | None = None,
    seed: int = 0,
    jobs: int = 1,
    log: Any = print,
) -> BenchRun:
    """Every set × reader, resumable: the workspace is `<results_dir>/workspace`, the LLM journal
    `<results_dir>/llm-cache.jsonl` unless `llm.journal` names one. `sample`: cells per set the LLM
    readers read (one number for every set, or {set: n}; None: all)."""
    from mdqa_kernel.store import open_workspace

    root = Path(results_dir)
    root.mkdir(parents=True, exist_ok=True)
    ws = open_workspace(root / "workspace")
    settings = llm or LLMSettings()
    if settings.journal is None:
        settings = LLMSettings(**{**settings.__dict__, "journal": str(root / "llm-cache.jsonl")})
    frames: list[pl.DataFrame] = []
    heldout: dict[str, bool] = {}
    skipped: dict[str, str] = {}
    for name in sets:
        try:
            bench = open_set(name, ws, data_dir=data_dir, realdocs_dir=realdocs_dir, rendered_dir=rendered_dir,
                             facts_dir=facts_dir, jobs=jobs)  # fmt: skip
        except BenchDataMissingError as e:  # a set whose files are not here: said, and the others still run
            skipped[name] = str(e)
            log(f"{name}: skipped ({e})")
            continue
        heldout[bench.name] = bench.heldout
        n = sample.get(name) if isinstance(sample, dict) else sample
        table: pl.DataFrame | None = None
        for reader in readers:
            scored = run_reader(bench, reader, llm=settings, sample=n, seed=seed, jobs=jobs)
            frames.append(scored)
            if reader == "table":
                table = scored
            elif table is not None and scored.height and scored["cells"][0] != "all":
                frames.append(same_cells(table, scored))
            overall = figures(scored).row(0, named=True)
            log(f"{bench.name} × {reader} ({scored['cells'][0] if scored.height else 'none'}): "
                f"accuracy {overall['accuracy']}, precision {overall['precision']}, coverage "
                f"{overall['coverage']}, wrong {overall['wrong']}, n {overall['n']}")  # fmt: skip
    scored_all = pl.concat([_empty_scored(), *frames], how="diagonal_relaxed")
    scored_all = scored_all.unique(
        ["set", "reader", "cells", "doc_id", "field"], keep="first", maintain_order=True
    )
    return BenchRun(scored_all, heldout, skipped)


# -- reporting -------------------------------------------------------------------------------------


def calibration_chart(curve: pl.DataFrame, target: float = TARGET_PRECISION) -> Any:
    """Precision and coverage against the confidence threshold, one panel per set, one colour per
    reader (and cells read), precision solid, coverage dashed; the target precision as a rule."""
    import altair as alt

    rows = []
    for r in curve.iter_rows(named=True):
        who = r["reader"] if r["cells"] == "all" else f"{r['reader']} ({r['cells']})"
        for metric in ("precision", "coverage"):
            if r[metric] is not None:
                rows.append({"set": r["set"], "reader": who, "metric": metric, "threshold": r["threshold"],
                             "value": r[metric], "target": target})  # fmt: skip
    base = alt.Chart(alt.Data(values=rows))
    lines = base.mark_line(point=True).encode(
        x=alt.X("threshold:Q", title="confidence threshold", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("value:Q", title="precision (solid) / coverage (dashed)", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("reader:N"),
        strokeDash=alt.StrokeDash(
            "metric:N", scale=alt.Scale(domain=["precision", "coverage"], range=[[1, 0], [5, 3]])
        ),
    )
    rule = base.mark_rule(color="grey", strokeDash=[2, 2]).encode(y="mean(target):Q")
    return (
        alt.layer(lines, rule)
        .properties(width=260, height=200)
        .facet(column=alt.Column("set:N", title=None))
        .properties(title=f"Calibration: precision and coverage of found values (target precision {target})")
    )


def write_report(run: BenchRun, out_dir: str | Path) -> dict[str, str]:
    """summary.csv, by_category.csv, calibration.csv, operating_points.csv and calibration.png in
    `out_dir` (results of the sets of this run); returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    tables = {
        "summary": run.summary(),
        "by_category": run.by("category", "trap"),
        "calibration": run.calibration(),
        "operating_points": run.operating_points(),
    }
    for name, frame in tables.items():
        paths[name] = str(out / f"{name}.csv")
        frame.write_csv(paths[name])
    if tables["calibration"].height:
        paths["chart"] = str(out / "calibration.png")
        calibration_chart(tables["calibration"]).save(paths["chart"])
    return paths
