"""`mdqa extract` (per-document extraction with evidence) and `mdqa cells` (cell accuracy against gold).

Both take the options that decide which cells a plan has. Only click is imported at module level,
so `mdqa --help` stays instant."""

from __future__ import annotations

import click

from mdqa_kernel.cli.common import READER_CHOICE, RegistryChoice, check_ray_address, executor_options, fail


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


@click.command("extract")
@_extract_options
@click.option("--jobs", default=1, show_default=True, type=int, help="worker processes (1: in this process)")
@executor_options
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

    check_ray_address(executor_kind, ray_address)
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
        f"({rate:.1f} cells/s); found {summary.get('found', 0)}, needs review {summary.get('needs_review', 0)}, "
        f"not found {summary.get('not_found', 0)}, "
        f"absent {summary.get('absent', 0)}, errors {summary.get('error', 0)}; LLM calls {run['llm_calls']}"
    )


@click.command("cells")
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
