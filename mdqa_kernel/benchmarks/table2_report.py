"""Write the reproduced Table 2: table2.csv, table2.md (paper beside ours) and table2.png/.svg.

The markdown puts the paper's published numbers next to ours, labelled as what they are: other
models, original filings, all 332 questions — against our model on rendered filings and a stated
sample. The chart is drawn with altair and written offline through vl-convert.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.table2 import PAPER_NOTE, PAPER_TABLE2

METRICS = ("final", "final_llm", "judge_agreement", "cell", "process", "row", "column", "full")
SPLIT_ORDER = {"simple": 0, "complex": 1, "all": 2}


def table_frame(figures: list[dict[str, Any]]) -> pl.DataFrame:
    """One row per (config, split, subset) from the figures of the executed notebooks."""
    rows = []
    for fig in figures:
        for r in fig.get("summary", []):
            rows.append({"complete": fig.get("complete"), "noise": fig["config"].get("noise"), **r})
    if not rows:
        return pl.DataFrame()
    from mdqa_kernel.benchmarks.cost import cost_columns, load_prices

    frame = cost_columns(pl.DataFrame(rows, infer_schema_length=None), load_prices())  # example prices
    return frame.with_columns(paper_row=pl.col("config").replace_strict(
        {k: v[0] for k, v in PAPER_TABLE2.items()}, default=None, return_dtype=pl.String))  # fmt: skip


def _paper(config: str, split: str, what: str) -> float | None:
    entry = PAPER_TABLE2.get(config)
    if entry is None or split not in ("simple", "complex"):
        return None
    offset = 0 if split == "simple" else 3
    return entry[1][offset + {"process": 0, "final": 1, "full": 2}[what]]


def _fmt(v: Any, digits: int = 3) -> str:
    """A markdown cell: shares with 3 decimals, counts and costs with `digits`, pipes escaped."""
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return str(v).replace("|", "\\|")


def markdown(frame: pl.DataFrame, meta: dict[str, Any]) -> str:
    """The README table: ours (all questions of the sample) with the paper's numbers beside it."""
    head = (
        f"MuDABench Table 2, reproduced — {meta.get('date')}; sample: {meta.get('sample')}; "
        f"model: {meta.get('model')}; documents: rendered from MuDABench's annotated values.\n\n"
        f"{PAPER_NOTE}\n\n"
        "| config | split | n | final (det. judge) | final (LLM judge) | judges agree | cell | row | column | full "
        "| LLM calls/q | of which paid/q | prompt tok/q | wall s/q | cold s/q | failed | paper: final | paper: process | paper: full "
        "| done |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    body = []
    sub = frame.filter(pl.col("subset") == "all") if frame.height else frame
    sub = sub.with_columns(_o=pl.col("split").replace_strict(SPLIT_ORDER, default=9)).sort("config", "_o")
    for r in sub.iter_rows(named=True):
        cfg, split = r["config"], r["split"]
        cells = [cfg, split, r["questions"], r["final"], r["final_llm"], r["judge_agreement"], r["cell"],
                 r["row"], r["column"], r["full"], r["calls_per_q"], r.get("paid_calls_per_q"), r["prompt_tokens_per_q"],
                 r["wall_s_per_q"], r.get("cold_wall_s_per_q"),
                 r["failed"], _paper(cfg, split, "final"), _paper(cfg, split, "process"), _paper(cfg, split, "full"),
                 "yes" if r["complete"] else "partial"]  # fmt: skip
        digits = [3] * len(cells)
        digits[10:15] = [1, 1, 0, 1, 1]  # calls, paid calls, tokens and seconds per question
        body.append("| " + " | ".join(_fmt(c, d) for c, d in zip(cells, digits, strict=True)) + " |")
    clean = (
        frame.filter((pl.col("subset") == "clean") & (pl.col("split") == "all")) if frame.height else frame
    )
    tail = "\n\nClean subset (no known defect), all splits: " + (
        "; ".join(
            f"{r['config']}: final {_fmt(r['final'])} (n={r['questions']})"
            for r in clean.iter_rows(named=True)
        )
        or "–"
    )
    tail += (
        "\n\nPaid calls reached the model; the others were answered from the LLM cache (a prompt repeated "
        "within the run, or a re-run after a change) and took no time, so wall time covers the paid calls. "
        "Cold s/q counts the cached answers at the seconds they first took: what a question costs with "
        "nothing cached (– for records from before it was kept)."
    )
    human = PAPER_TABLE2["human"][1]
    tail += f"\n\nPaper, human performance: simple final {human[1]}, complex final {human[4]}.\n"
    return head + "\n".join(body) + tail


def seed_markdown(figures: list[dict[str, Any]]) -> str:
    """The other seed papers' measures per config: MEBench's entity-attributed F1 of the cells and its
    accuracy per question category, AGORA's failure codes of the bash agent."""
    rows = []
    for fig in sorted(figures, key=lambda f: f["label"]):
        m = fig.get("seed_measures") or {}
        if not m:
            continue
        f1 = m.get("ea_f1")
        cats = {c["category"]: c for c in m.get("mebench_categories", [])}

        def acc(name: str, cats: dict[str, Any] = cats) -> str:
            c = cats.get(name)
            return f"{c['correct']}/{c['questions']}" if c else "–"

        codes = m.get("agora_failures")
        cells = [fig["label"],
                 f"{_fmt(f1['precision'])} / {_fmt(f1['recall'])} / {_fmt(f1['f1'])} (n={f1['questions']})" if f1
                 else f"cells not kept here ({m['cells_not_kept']} questions)" if m.get("cells_not_kept") else "no cells",
                 acc("comparison"), acc("statistics"), acc("relationship"), acc("other"), acc("overall"),
                 "; ".join(f"{k}: {v}" for k, v in sorted(codes.items())) if codes else "–"]  # fmt: skip
        rows.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    if not rows:
        return ""
    return (
        "\n\nOther seed papers' measures on the same questions (MEBench: entity-attributed F1 of the "
        "extracted cells, precision / recall / F1 over (document, field, value) triples, and correct "
        "answers per MEBench question category, families mapped in measures.MEBENCH_CATEGORIES; AGORA: "
        "the bash agent's failure codes by rules over its trajectories, systems.bash_agent.agora_failure):\n\n"
        "| config | EA-F1 P / R / F1 | comparison | statistics | relationship | other | overall | AGORA failures |\n"
        "|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def chart(frame: pl.DataFrame) -> Any:
    """Final accuracy per config and split: ours beside the paper's."""
    import altair as alt

    rows = []
    sub = frame.filter((pl.col("subset") == "all") & pl.col("split").is_in(["simple", "complex"]))
    for r in sub.iter_rows(named=True):
        rows.append({"config": r["config"], "split": r["split"], "source": "ours", "final": r["final"]})
        paper = _paper(r["config"], r["split"], "final")
        if paper is not None:
            rows.append({"config": r["config"], "split": r["split"], "source": "paper", "final": paper})
    data = alt.Data(values=rows)
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("final:Q", title="final-answer accuracy", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("source:N", title=None),
            color=alt.Color("source:N"),
            row=alt.Row("config:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
            column=alt.Column("split:N"),
        )
        .properties(
            width=220, height=28, title="MuDABench final accuracy: ours (rendered docs, local model) vs paper"
        )
    )


def write_table2(figures: list[dict[str, Any]], out_dir: str | Path, meta: dict[str, Any]) -> dict[str, str]:
    """table2.csv, table2.md, table2.png, table2.svg in `out_dir`; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    frame = table_frame(figures)
    paths = {
        "csv": str(out / "table2.csv"),
        "md": str(out / "table2.md"),
        "stages": str(out / "table2_stages.csv"),
    }
    stages = [{"config": f["label"], **s} for f in figures for s in f.get("stages", [])]
    if stages:
        pl.DataFrame(stages, infer_schema_length=None).write_csv(paths["stages"])
    else:
        paths.pop("stages")
    if frame.height:
        frame.write_csv(paths["csv"])
    else:
        Path(paths["csv"]).write_text("", encoding="utf-8")
    Path(paths["md"]).write_text(
        markdown(frame, meta) + seed_markdown(figures) if frame.height else "no results yet\n",
        encoding="utf-8",
    )
    if frame.height:
        c = chart(frame)
        for fmt in ("png", "svg"):
            paths[fmt] = str(out / f"table2.{fmt}")
            c.save(paths[fmt])
    return paths
