"""`mdqa reproduce NAME`: the click command (registered on the main group in mdqa_kernel/cli/main.py).

    mdqa reproduce --list
    mdqa reproduce parse|llm|extraction|aggregate|chaos
    mdqa reproduce scale [--max-minutes M]
    mdqa reproduce realfacts [--llm local] [--threads N]
    mdqa reproduce mudabench-table2 [--llm local] [--sample N] [--jobs J] [--systems a,b]
                                    [--max-minutes M] [--no-noise] [--background] [--estimate-cost]

Heavy imports happen inside the command so that `mdqa --help` stays instant.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def _background(argv: list[str], log: Path) -> None:
    """Re-run this command detached (own session, output to `log`), print its pid and exit."""
    log.parent.mkdir(parents=True, exist_ok=True)
    args = [a for a in argv if a != "--background"]
    with open(log, "a", encoding="utf-8") as fh:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("mdqa")), *args], stdout=fh, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    click.echo(f"started in the background: pid {proc.pid}; log {log}")


def _plain_parameters(
    name: str, out: str, max_minutes: float | None, llm: str = "local", threads: int = 1,
    grid: dict[str, Any] | None = None,
) -> dict[str, Any] | None:  # fmt: skip
    """Papermill parameters of a plain notebook: the scale benchmark writes its table under --out and
    starts no size predicted to end after --max-minutes; realfacts keeps its workspace, LLM journal
    and tables under --out and asks the --llm backend with --threads; financebench also takes the
    grid's options (`grid`: sample, seed, systems, n_ctx, judge_llm, data_dir)."""
    if name == "realfacts":
        return {"results_dir": str((Path(out) / name).resolve()), "llm_backend": llm, "n_threads": threads}
    if name == "financebench":
        params = {"results_dir": str((Path(out) / name).resolve()), "llm_backend": llm, "n_threads": threads,
                  "max_minutes": max_minutes}  # fmt: skip
        return params | {k: v for k, v in (grid or {}).items() if v is not None}
    if name != "scale":
        return None
    params: dict[str, Any] = {"out_dir": str((Path(out) / name).resolve())}
    if max_minutes:
        params["max_minutes"] = max_minutes
    return params


def _split_folder(split: str | None, data: str | None) -> str | None:
    """The FinanceBench folder `--split` names ('dev': the default folder; else a path), or `--data`."""
    if split is None:
        return data
    if data is not None:
        _fail("give --split or --data, not both (--split PATH is the same as --data PATH)")
    if split == "dev":
        return None  # the loaders' default: ../shared/financebench or $MDQA_FINANCEBENCH
    if not Path(split).is_dir():
        _fail(f"--split {split!r} is neither 'dev' nor a folder; pass 'dev' or the folder of a split "
              "that holds questions.jsonl, documents.jsonl, pdfs/ and results/")  # fmt: skip
    return split


def _csv(text: str | None) -> list[str] | None:
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


def _is_total(column: str) -> bool:
    """A column summing over the configs: hours here, or a model's cost (not its cost per question)."""
    return column == "hours_here" or (column.startswith("cost_") and "_per_q_" not in column)


def _totals(table: Any) -> dict[str, float]:
    """Hours here and cost per price-table model, summed over the configs of an estimate table."""
    return {c: round(float(table[c].sum()), 2) for c in table.columns if _is_total(c)}


def _estimate(opts: Any, prices: str | None) -> None:
    import polars as pl

    from mdqa_kernel.benchmarks.cost import estimate_grid, extrapolate_grid, load_prices
    from mdqa_kernel.benchmarks.grid import parse_questions
    from mdqa_kernel.benchmarks.reproduce import grid_records
    from mdqa_kernel.benchmarks.systems import table2_configs
    from mdqa_kernel.benchmarks.table2 import grid_root, summarize

    root = grid_root(opts.results_dir, opts.sample, opts.seed)
    refs = parse_questions(opts.sample, opts.seed)
    questions = len(refs)
    measured = grid_records(root, refs, opts)
    records = [r for _, recs in measured for r in recs if r.get("status") != "unavailable"]
    if not records:
        _fail(f"no recorded runs under {root} to estimate from; run a few questions first (e.g. --sample 1)")
    price_table = load_prices(prices)
    table = estimate_grid(summarize(records), price_table, questions)
    click.echo(
        f"estimated cost of {questions} questions per config (USD; tokens and time measured on our runs):"
    )
    with pl.Config(tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=40, tbl_hide_dataframe_shape=True):
        click.echo(str(table))
    click.echo(f"measured configs ({table.height}), all together: {_totals(table)}")
    done = {c.label: c for c, recs in measured if any(r.get("status") != "unavailable" for r in recs)}
    missing = [c for c in table2_configs(None, noise=True) if c.label not in done]
    if not missing:
        return
    guessed = extrapolate_grid(table, done, missing, opts.n_ctx, price_table, questions)
    if guessed.height:
        click.echo(f"not measured yet, extrapolated from a measured config of the same system ({guessed.height}; "
                   "scaled by k and by 1.5× documents with noise — upper bounds):")  # fmt: skip
        with pl.Config(
            tbl_cols=-1, tbl_rows=-1, tbl_width_chars=250, fmt_str_lengths=70, tbl_hide_dataframe_shape=True
        ):
            short = [
                c for c in guessed.columns if c in ("config", "prompt_tokens_per_q", "basis") or _is_total(c)
            ]
            click.echo(str(guessed.select(short)))
        both = pl.concat([table, guessed.drop("basis")])
        click.echo(f"whole grid ({both.height} configs), measured + extrapolated: {_totals(both)}")
    unknown = [c.label for c in missing if c.label not in set(guessed["config"])]
    if unknown:
        click.echo(f"not measured yet ({len(unknown)}; no estimate, no measured config of the system): "
                   f"{', '.join(unknown)}")  # fmt: skip


@click.command("reproduce")
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, help="list the benchmarks that can be reproduced")
@click.option(
    "--llm", default="local", show_default=True, help="backend: local | local-tiny | openai | ollama"
)
@click.option(
    "--sample",
    default="10",
    show_default=True,
    help="questions: a count (stratified), 'all', shuffled:<split>[:<from>-<to>] (seeded order), or split:qid,...",
)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--jobs", default=1, show_default=True, type=int, help="notebooks run in parallel")
@click.option(
    "--systems",
    default=None,
    help="comma-separated subset of flat-rag, paper-workflow, mdqa, mdqa-oracle-rows, "
    "paper-workflow-oracle-rows, and the opt-in bash-agent, mebench-rag; name@k or name@k+meta picks one "
    "config (bash-agent@N: N turns). financebench: mdqa, flat-rag, mebench-rag, bash-agent",
)
@click.option(
    "--settings",
    default=None,
    help="financebench: comma-separated singleStore,sharedStore (default both)",
)
@click.option(
    "--data", default=None, help="financebench: the FinanceBench folder (default ../shared/financebench)"
)
@click.option(
    "--split",
    default=None,
    help="financebench: 'dev' (the development slice, ../shared/financebench or $MDQA_FINANCEBENCH) or the "
    "folder of another split with the same layout (questions.jsonl, documents.jsonl, pdfs/, results/)",
)
@click.option("--no-noise", is_flag=True, help="leave out the noise variants")
@click.option("--max-minutes", type=float, default=None, help="start no new question after this many minutes")
@click.option("--threads", default=1, show_default=True, type=int, help="llama.cpp threads per notebook")
@click.option(
    "--n-ctx",
    default=8192,
    show_default=True,
    type=int,
    help="model context (flat-RAG prompts are cut to it)",
)
@click.option("--no-llm-judge", is_flag=True, help="only the deterministic judge")
@click.option("--retry-failed", is_flag=True, help="run failed questions again")
@click.option("--out", default="results", show_default=True, help="results folder")
@click.option("--force", is_flag=True, help="re-execute a plain benchmark notebook even if up to date")
@click.option("--background", is_flag=True, help="run detached; print the pid and the log path")
@click.option(
    "--estimate-cost", is_flag=True, help="print what the grid would cost on paid APIs, run nothing"
)
@click.option(
    "--prices", default=None, help="price table (YAML/JSON: model: {input, output} USD per 1M tokens)"
)
@click.option(
    "--snapshot", is_flag=True, help="write the table from the results so far (no runs) to <grid>/snapshot"
)
@click.option("--json", "as_json", is_flag=True, help="print the outcome as JSON")
def reproduce_cmd(name: str | None, list_: bool, llm: str, sample: str, seed: int, jobs: int,
                  systems: str | None, settings: str | None, data: str | None, split: str | None, no_noise: bool, max_minutes: float | None, threads: int, n_ctx: int,
                  no_llm_judge: bool, retry_failed: bool, out: str, force: bool, background: bool,
                  estimate_cost: bool, prices: str | None, snapshot: bool, as_json: bool) -> None:  # fmt: skip
    """Re-run a benchmark notebook through papermill and collect its figures."""
    from mdqa_kernel.benchmarks.grid import GridError
    from mdqa_kernel.benchmarks.reproduce import (
        NOTEBOOKS,
        GridOptions,
        ReproduceError,
        listing,
        reproduce_notebook,
        reproduce_table2,
        snapshot_table2,
    )

    if list_ or not name:
        for item in listing():
            click.echo(
                f"{item['name']:<18} {item['notebook']}{'' if item['exists'] else '  (not written yet)'}"
            )
        return
    if name not in NOTEBOOKS:
        _fail(f"unknown benchmark {name!r}; run `mdqa reproduce --list`")
    data = _split_folder(split, data)
    results = Path(out) / name
    if background:
        _background(sys.argv[1:], results / "reproduce.log")
        return
    try:
        if name != "mudabench-table2":
            grid = {"sample": sample, "seed": seed, "systems": _csv(systems), "settings": _csv(settings),
                    "n_ctx": n_ctx, "judge_llm": not no_llm_judge,
                    "data_dir": str(Path(data).resolve()) if data else None}  # fmt: skip
            outcome = reproduce_notebook(
                name,
                out,
                force=force or name == "financebench",  # a grid resumes: always run it
                parameters=_plain_parameters(name, out, max_minutes, llm, threads, grid),
            )
        else:
            opts = GridOptions(llm=llm, sample=sample, seed=seed, jobs=jobs, noise=not no_noise,
                               systems=[s.strip() for s in systems.split(",")] if systems else None,
                               max_minutes=max_minutes, results_dir=str(results), n_threads=threads,
                               n_ctx=n_ctx, judge_llm=not no_llm_judge, retry_failed=retry_failed)  # fmt: skip
            if estimate_cost:
                _estimate(opts, prices)
                return
            if snapshot:
                outcome = snapshot_table2(opts)
            else:
                outcome = reproduce_table2(opts, log=lambda m: click.echo(m, err=as_json))
    except ReproduceError as e:
        _fail(str(e))
        return
    except (KeyError, ValueError, GridError) as e:  # an unknown system or question reference
        _fail(str(e).strip("'\""))
        return
    click.echo(json.dumps(outcome, ensure_ascii=False, indent=None if as_json else 1, default=str))
    if os.environ.get("MDQA_REPRODUCE_STRICT") and outcome.get("errors"):
        sys.exit(1)
