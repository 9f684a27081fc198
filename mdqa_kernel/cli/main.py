"""The `mdqa` command line: plain text for people, JSON with --json for scripts.

Each stage registers its commands below; the heavy imports happen inside the commands so that
`mdqa --help` stays instant.
"""

from __future__ import annotations

import click

from mdqa_kernel.cli.common import (
    BACKEND_CHOICE,
    EXECUTOR_CHOICE,
    READER_CHOICE,
    MdqaGroup,
    RegistryChoice,
    fail,
)


@click.group(cls=MdqaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mdqa")
def main() -> None:
    """mdqa: analytical questions over document collections."""


# -- commands are registered per stage below (collection, render, llm, extract, ask, reproduce) --


# -- llm ---------------------------------------------------------------------------------------
_CHECK_PASSAGE = (
    "At 31 December 2021 the bank's capital adequacy ratio was 15.44% (2020: 14.30%), "
    "and its core tier-1 ratio was 10.12%."
)


@main.group("llm")
def llm_group() -> None:
    """The configured LLM backend: check it, see what calls cost."""


@llm_group.command("check")
@click.option(
    "--backend",
    type=RegistryChoice(BACKEND_CHOICE),
    default=None,
    help="override MDQA_LLM_BACKEND / the config file",
)
@click.option("--model", default=None, help="model name, .gguf path (local) or model id (servers)")
@click.option("--base-url", default=None, help="server URL for openai/ollama")
@click.option("--threads", type=int, default=None, help="llama.cpp threads (local)")
@click.option("--workspace", default=None, help="workspace for the call cache (default: a temporary one)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def llm_check(
    backend: str | None,
    model: str | None,
    base_url: str | None,
    threads: int | None,
    workspace: str | None,
    as_json: bool,
) -> None:
    """Show the backend, its model file and sha256, and answer one structured prompt."""
    import json
    import tempfile
    import time

    from pydantic import BaseModel

    from mdqa_kernel.llm import LLMClient, LLMConfig, LLMError

    class CheckAnswer(BaseModel):
        capital_adequacy_ratio_2021: float

    try:
        config = LLMConfig.from_env(backend=backend, model=model, base_url=base_url, n_threads=threads)
        with tempfile.TemporaryDirectory(prefix="mdqa-llm-check-") as tmp:
            client = LLMClient(config, workspace or tmp)
            report = client.backend.describe(full_verify=True)
            start = time.perf_counter()
            client.backend.load()
            report["load_seconds"] = round(time.perf_counter() - start, 3)
            start = time.perf_counter()
            answer = client.structured(
                f"{_CHECK_PASSAGE}\nWhat was the capital adequacy ratio in 2021, in percent?",
                CheckAnswer,
                stage="check",
                max_tokens=64,
            )
            report["seconds"] = round(time.perf_counter() - start, 3)
            report["answer"] = answer.model_dump()
            report["correct"] = abs(answer.capital_adequacy_ratio_2021 - 15.44) < 1e-6
            calls = client.calls()
            report["prompt_tokens"] = int(calls["prompt_tokens"].sum() or 0)
            report["completion_tokens"] = int(calls["completion_tokens"].sum() or 0)
            client.close()
    except LLMError as e:
        fail(f"{type(e).__name__}: {e}")
        return
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    for k, v in report.items():
        click.echo(f"{k:22} {v}")


# -- plan --------------------------------------------------------------------------------------
@main.group("plan")
def plan_group() -> None:
    """Plans: the typed description of one question (filters, fields, aggregation)."""


@plan_group.command("check")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--columns", default=None, help="comma-separated metadata columns to validate templates against"
)
@click.option("--json", "as_json", is_flag=True, help="print the normalised plan as JSON")
def plan_check(path: str, columns: str | None, as_json: bool) -> None:
    """Load and validate a plan file (.yaml/.json); errors name the offending key."""
    from mdqa_kernel.plan.ir import Plan, PlanValidationError

    try:
        plan = Plan.load(path)
        if columns:
            plan.validate_against([c.strip() for c in columns.split(",") if c.strip()])
    except PlanValidationError as e:
        fail(str(e))
        return
    if as_json:
        click.echo(plan.to_json())
        return
    click.echo(f"ok: {len(plan.fields)} field(s), {len(plan.filters)} filter(s)")
    click.echo(plan.fields_frame())


# -- collection --------------------------------------------------------------------------------
@main.group("collection")
def collection_group() -> None:
    """Collections: a folder of PDFs plus a metadata table, parsed once into the workspace."""


def _collection_report(coll: object, as_json: bool) -> None:
    """Per-document table (doc_id, pages, status, message) and a summary line, or the same as JSON."""
    import json

    from mdqa_kernel.collection.collection import Collection

    assert isinstance(coll, Collection)
    if as_json:
        click.echo(json.dumps(coll.report_data(), ensure_ascii=False, default=str))
    else:
        click.echo(coll.report())


@collection_group.command("build")
@click.argument("pdf_dir", type=click.Path(file_okay=False))
@click.option(
    "--metadata", type=click.Path(dir_okay=False), default=None, help="CSV/JSON/parquet, one row per document"
)
@click.option("--workspace", default="mdqa-workspace", show_default=True, help="workspace folder")
@click.option("--name", default="default", show_default=True, help="collection name")
@click.option("--jobs", type=int, default=None, help="parser processes (default: CPU count)")
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of a table")
def collection_build(
    pdf_dir: str, metadata: str | None, workspace: str, name: str, jobs: int | None, as_json: bool
) -> None:
    """Parse PDF_DIR's PDFs (only new or changed ones) and record the collection with its metadata."""
    from mdqa_kernel.collection.collection import Collection, CollectionError
    from mdqa_kernel.store import StoreError

    try:
        coll = Collection.build(
            pdf_dir, metadata=metadata, workspace=workspace, name=name, jobs=jobs, progress=not as_json
        )
    except (CollectionError, StoreError) as e:
        fail(str(e))
        return
    _collection_report(coll, as_json)


@collection_group.command("show")
@click.option("--workspace", default="mdqa-workspace", show_default=True, help="workspace folder")
@click.option("--name", default="default", show_default=True, help="collection name")
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of a table")
def collection_show(workspace: str, name: str, as_json: bool) -> None:
    """Show a built collection: its documents, their status, and counts."""
    from mdqa_kernel.collection.collection import Collection, CollectionError

    try:
        coll = Collection.open(workspace, name)
    except CollectionError as e:
        fail(str(e))
        return
    _collection_report(coll, as_json)


@main.command("demo")
@click.option(
    "--out",
    default="demo-output",
    show_default=True,
    help="folder for the corpus, workspace, notebook and HTML",
)
@click.option(
    "--questions", "n_questions", default=3, show_default=True, help="how many demo questions to answer"
)
@click.option(
    "--llm", default="local", show_default=True, help="LLM backend: local, local-tiny, openai, ollama"
)
@click.option("--reader", default="cascade", show_default=True, type=RegistryChoice(READER_CHOICE))
def demo(out: str, n_questions: int, llm: str, reader: str) -> None:
    """Run the quickstart notebook end to end on the bundled example and print the answers."""
    import polars as pl

    from mdqa_kernel.cli.demo import DemoError, run_demo

    click.echo(
        "Example corpus: MuDABench demo questions rendered from annotated values; not the original filings."
    )
    try:
        answers = run_demo(out, n_questions=n_questions, llm=llm, reader=reader)
    except DemoError as e:
        fail(str(e), code=1)
        return
    with pl.Config(fmt_str_lengths=70, tbl_rows=50, tbl_width_chars=220, tbl_hide_dataframe_shape=True):
        click.echo(answers.select("question", "answer", "reference", "correct", "llm_calls", "seconds"))
    click.echo(
        f"judged correct: {int(answers['correct'].sum())}/{answers.height} (deterministic MuDABench judge)"
    )
    click.echo(f"executed notebook: {out}/quickstart.ipynb   HTML copy: {out}/quickstart.html")


# -- render: rendered MuDABench filings (mdqa_kernel.benchmarks.render) --------------------------
@main.group("render")
def render_group() -> None:
    """Render benchmark documents to PDFs (rendered from annotated values; not the original filings)."""


@render_group.command("mudabench")
@click.option("--split", type=click.Choice(["simple", "complex"]), default="simple", show_default=True)
@click.option(
    "--questions",
    multiple=True,
    help="'all' (default), a count N, or question ids (repeat or space-separate)",
)
@click.option("--demo", is_flag=True, help="render the fixed demo subset (DEMO_QUESTION_IDS, simple split)")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="output folder")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option(
    "--noise",
    default=0.0,
    show_default=True,
    type=float,
    help="extra documents per question, × |D| (paper: 0.5)",
)
@click.option("--workers", default=1, show_default=True, type=int, help="processes")
@click.option(
    "--current",
    type=click.Choice(["left", "right", "mixed"]),
    default="mixed",
    show_default=True,
    help="which side the current-year column is on",
)
@click.option(
    "--scale",
    type=click.Choice(["coarse", "fine", "mixed"]),
    default="mixed",
    show_default=True,
    help="prefer coarse (万元/亿元, millions) or fine (元/千元, dollars) table scales",
)
@click.option(
    "--data", "data_path", default=None, help="MuDABench JSON file or folder (default: vendored copy)"
)
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
def render_mudabench_cmd(
    split: str,
    questions: tuple[str, ...],
    demo: bool,
    out: str,
    seed: int,
    noise: float,
    workers: int,
    current: str,
    scale: str,
    data_path: str | None,
    as_json: bool,
) -> None:
    """Render MuDABench documents to OUT/pdfs, with manifests, metadata.csv and questions.json."""
    from mdqa_kernel.benchmarks.render import DEMO_QUESTION_IDS, RenderOptions, render_mudabench

    words = [w for q in questions for w in q.split()]
    if demo:
        if words:
            fail("--demo and --questions are exclusive; drop one of them")
        selection: str | int | list[str] = list(DEMO_QUESTION_IDS)
        split = "simple"
    elif not words or words == ["all"]:
        selection = "all"
    elif len(words) == 1 and words[0].isdigit():
        selection = int(words[0])
    else:
        selection = words
    if noise < 0:
        fail("--noise must be >= 0 (the paper uses 0.5)")
    options = RenderOptions(
        current_left=None if current == "mixed" else current == "left",
        scale_pref=None if scale == "mixed" else scale,
    )
    try:
        summary = render_mudabench(
            split,
            selection,
            out,
            seed=seed,
            noise=noise,
            workers=max(1, workers),
            path=data_path,
            options=options,
            progress=not as_json,
        )
    except (KeyError, FileNotFoundError, ValueError) as e:
        fail(f"{e}; check --split/--questions/--data")
        return
    if as_json:
        click.echo(summary.model_dump_json())
        return
    click.echo(
        f"rendered {summary.documents} documents ({summary.noise_documents} noise, {summary.pages} pages) "
        f"for {summary.questions} questions in {summary.seconds:.1f} s ({summary.docs_per_second:.1f} docs/s)"
    )
    click.echo(f"next: mdqa collection build {out}/pdfs --metadata {out}/metadata.csv")


# -- extract: per-document extraction with evidence (mdqa_kernel.extract.run) --------------------------
def _extract_options(f):  # the options that decide which cells a plan has (shared by extract and cells)
    f = click.option("--workspace", required=True, type=click.Path(file_okay=False), help="workspace folder")(
        f
    )
    f = click.option(
        "--plan",
        "plan_path",
        required=True,
        help="plan YAML/JSON, or mudabench:<split> (gold fields of the split)",
    )(f)
    f = click.option("--collection", "collection_name", default="default", show_default=True)(f)
    f = click.option(
        "--reader",
        type=RegistryChoice(READER_CHOICE),
        default="table",
        show_default=True,
    )(f)
    f = click.option(
        "--k", default=5, show_default=True, type=int, help="chunks retrieved per field (llm, cascade)"
    )(f)
    f = click.option("--backend", default=None, help="LLM backend: local, local-tiny, openai, ollama")(f)
    f = click.option(
        "--threshold", default=0.8, show_default=True, type=float, help="cascade: confidence to skip the LLM"
    )(f)
    f = click.option(
        "--oracle-source", default="mudabench:simple", show_default=True, help="oracle: gold source"
    )(f)
    return f


def _open_for_extract(workspace: str, plan_path: str, collection_name: str) -> tuple[object, object]:
    from mdqa_kernel.collection.collection import Collection, CollectionError
    from mdqa_kernel.plan.ir import Plan, PlanValidationError

    try:
        coll = Collection.open(workspace, collection_name)
    except CollectionError as e:
        fail(str(e))
    if plan_path.startswith("mudabench:"):
        from mdqa_kernel.benchmarks.gold_plans import mudabench_plan

        plan = mudabench_plan(plan_path.split(":", 1)[1] or "simple", doc_ids=set(coll.doc_ids))
    else:
        try:
            plan = Plan.load(plan_path)
        except (OSError, PlanValidationError) as e:
            fail(f"cannot read plan {plan_path}: {e}")
    return coll, plan


def _reader_options(
    reader: str, k: int, backend: str | None, threshold: float, oracle_source: str, ws: str
) -> dict:
    options: dict = {"k": k, "threshold": threshold, "source": oracle_source}
    from mdqa_kernel.readers import needs_llm

    if needs_llm(reader):
        from mdqa_kernel.llm import LLMConfig

        options["llm_config"] = LLMConfig.from_env(backend=backend)
        options["workspace"] = ws
    return options


@main.command("extract")
@_extract_options
@click.option("--jobs", default=1, show_default=True, type=int, help="worker processes (1: in this process)")
@click.option(
    "--executor",
    "executor_kind",
    type=RegistryChoice(EXECUTOR_CHOICE),
    default="local",
    show_default=True,
    help="local: processes on this machine; ray: Ray tasks (a local Ray instance of --jobs CPUs, or --ray-address)",
)
@click.option(
    "--ray-address",
    default=None,
    help="a running Ray cluster ('auto', 'ray://head:10001'); with --executor ray",
)
@click.option(
    "--limit", default=None, type=int, help="only the first N documents (try a plan on a few first)"
)
@click.option("--json", "as_json", is_flag=True, help="print the run summary as JSON")
def extract_cmd(
    workspace: str,
    plan_path: str,
    collection_name: str,
    reader: str,
    k: int,
    backend: str | None,
    threshold: float,
    oracle_source: str,
    jobs: int,
    executor_kind: str,
    ray_address: str | None,
    limit: int | None,
    as_json: bool,
) -> None:
    """Read every plan field from every selected document; resumes where a previous run stopped."""
    import json as _json

    from mdqa_kernel.extract.executors import make_executor
    from mdqa_kernel.extract.run import extract

    if ray_address and executor_kind != "ray":
        raise click.UsageError("--ray-address needs --executor ray")
    coll, plan = _open_for_extract(workspace, plan_path, collection_name)
    options = _reader_options(reader, k, backend, threshold, oracle_source, workspace)
    runner = make_executor(jobs, executor_kind, ray_address)
    result = extract(plan, coll, reader, executor=runner, progress=not as_json, limit_docs=limit, **options)
    summary = result.summary()
    if as_json:
        click.echo(_json.dumps(summary, default=str))
        return
    run = result.run
    rate = run["ran"] / run["seconds"] if run.get("seconds") else 0.0
    click.echo(
        f"{len(result.tasks)} cells ({run['ran']} read now, {run['skipped']} already done) in {run['seconds']:.1f} s "
        f"({rate:.1f} cells/s); found {summary.get('found', 0)}, not found {summary.get('not_found', 0)}, "
        f"absent {summary.get('absent', 0)}, errors {summary.get('error', 0)}; LLM calls {run['llm_calls']}"
    )


@main.command("cells")
@_extract_options
@click.option("--gold", required=True, help="mudabench:<split> or a realdocs-style gold.jsonl")
@click.option("--limit", default=None, type=int, help="only the first N documents (as given to mdqa extract)")
@click.option(
    "--manifests", default=None, type=click.Path(), help="render output (manifests/) for evidence pages"
)
@click.option("--json", "as_json", is_flag=True, help="print per-field accuracy as JSON")
def cells_cmd(
    workspace: str,
    plan_path: str,
    collection_name: str,
    reader: str,
    k: int,
    backend: str | None,
    threshold: float,
    oracle_source: str,
    gold: str,
    limit: int | None,
    manifests: str | None,
    as_json: bool,
) -> None:
    """Cell accuracy per field (MuDABench numeric rule), and evidence-page accuracy where known."""
    from pathlib import Path

    from mdqa_kernel.benchmarks.metrics import cell_accuracy, load_gold
    from mdqa_kernel.extract.result import ExtractionResult

    coll, plan = _open_for_extract(workspace, plan_path, collection_name)
    options = _reader_options(reader, k, backend, threshold, oracle_source, workspace)
    options.pop("workspace", None)  # the reader's workspace is the one opened here
    result = ExtractionResult.open(workspace, plan, collection_name, reader, limit, **options)
    if manifests is None and gold.startswith("mudabench:"):
        guess = Path(coll.spec.get("pdf_dir", ".")).parent / "manifests"
        manifests = str(guess) if guess.is_dir() else None
    cells = result.cells
    gold_frame = load_gold(gold, manifests, doc_ids=list(result.docs))
    if gold.startswith("mudabench:"):  # score the cells this plan has, not every gold value of the split
        gold_frame = gold_frame.join(cells.select("doc_id", "field"), on=["doc_id", "field"], how="semi")
    table = cell_accuracy(cells, gold_frame)
    if as_json:
        click.echo(table.write_json())
        return
    if result.missing:
        click.echo(
            f"note: {result.missing} cells have not been extracted yet (run mdqa extract first)", err=True
        )
    for row in table.iter_rows(named=True):
        ev = "" if row["evidence_n"] == 0 else f"  evidence {row['evidence_correct']}/{row['evidence_n']}"
        click.echo(f"{row['field']:<48} {row['correct']:>4}/{row['n']:<4} {row['accuracy']:.3f}{ev}")


# -- reproduce ---------------------------------------------------------------------------------
def _register_reproduce() -> None:
    from mdqa_kernel.benchmarks.reproduce_cli import reproduce_cmd  # click only: stays instant

    main.add_command(reproduce_cmd)


_register_reproduce()


# -- ask ---------------------------------------------------------------------------------------
def _register_ask() -> None:
    from mdqa_kernel.cli.ask import ask_cmd  # click only: stays instant

    main.add_command(ask_cmd)


_register_ask()
