"""`mdqa ask "QUESTION" --workspace WS`: plan, extract, aggregate and answer from the command line.

Prints the plan (YAML), the rows used, the answer, its lineage and the cost per stage; `--json`
prints one JSON object instead. Only click is imported at module level, so `mdqa --help` stays fast.
"""

from __future__ import annotations

import click

from mdqa_kernel.cli.common import BACKEND_CHOICE, READER_CHOICE, RegistryChoice, fail


@click.command("ask")
@click.argument("question")
@click.option("--workspace", required=True, type=click.Path(), help="workspace holding the collection")
@click.option("--collection", "collection_name", default="default", show_default=True)
@click.option(
    "--reader",
    default="cascade",
    show_default=True,
    type=RegistryChoice(READER_CHOICE),
    help="how cells are read (oracle: gold values, for upper-bound runs)",
)
@click.option(
    "--llm",
    "backend",
    default=None,
    type=RegistryChoice(BACKEND_CHOICE),
    help="LLM backend (default: MDQA_LLM_BACKEND / config file)",
)
@click.option("--threads", type=int, default=None, help="llama.cpp threads (local backends)")
@click.option(
    "--plan", "plan_path", default=None, type=click.Path(exists=True), help="use this plan, skip planning"
)
@click.option("--fields", "fields_path", default=None, type=click.Path(exists=True),
              help="YAML/JSON with the fields to keep ({name: description} or a list of field specs)")  # fmt: skip
@click.option("--oracle-source", default="mudabench:simple", show_default=True, help="oracle: gold source")
@click.option("--rows", "max_rows", default=20, show_default=True, help="rows to print")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def ask_cmd(
    question: str,
    workspace: str,
    collection_name: str,
    reader: str,
    backend: str | None,
    threads: int | None,
    plan_path: str | None,
    fields_path: str | None,
    oracle_source: str,
    max_rows: int,
    as_json: bool,
) -> None:
    """Answer QUESTION over a collection: plan → extract → aggregate → answer, each stage shown."""
    import json

    import polars as pl

    from mdqa_kernel.ask import AskError, ask
    from mdqa_kernel.collection.collection import Collection, CollectionError
    from mdqa_kernel.llm import LLMConfig, LLMError
    from mdqa_kernel.plan.ir import Plan, PlanValidationError
    from mdqa_kernel.text.yamlsafe import YamlLoadError, load_yaml, read_document

    try:
        coll = Collection.open(workspace, collection_name)
        plan = Plan.load(plan_path) if plan_path else None
        fields = (
            load_yaml(read_document(fields_path), fields_path, what="a field list") if fields_path else None
        )
        config = LLMConfig.from_env(backend=backend, n_threads=threads)
        options = {"source": oracle_source} if reader == "oracle" else {}
        result = ask(question, coll, plan=plan, fields=fields, reader=reader, llm=config, **options)
    except (CollectionError, PlanValidationError, OSError, YamlLoadError) as e:
        fail(str(e))
    except AskError as e:
        fail(f"{e}. Write a plan by hand and pass it with --plan FILE.")
    except LLMError as e:
        fail(f"LLM: {e}")
    if as_json:
        click.echo(
            json.dumps(
                {
                    "question": question,
                    "plan": result.plan.to_dict(),
                    "rows": result.rows.head(max_rows).to_dicts(),
                    "answer": result.answer.model_dump(mode="json") if result.answer else None,
                    "error": result.error,
                    "costs": result.costs.to_dicts(),
                },
                ensure_ascii=False,
                default=str,
            )
        )
        return
    with pl.Config(tbl_rows=max_rows, tbl_cols=12, fmt_str_lengths=60, tbl_width_chars=160):
        click.echo("== plan ==")
        if result.planning is not None:
            t = result.planning.trace
            click.echo(f"# family {t.family} ({t.family_source}); parameter sources {t.sources}")
        click.echo(result.plan.to_yaml())
        click.echo(f"== rows ({result.rows.height}) ==")
        keep = ["doc_id", "symbol", "year", "doctype", *(f.name for f in result.plan.fields)]
        click.echo(str(result.rows.select([c for c in keep if c in result.rows.columns]).head(max_rows)))
        click.echo("== answer ==")
        click.echo(result.text)
        lineage = result.lineage()
        if lineage.height:
            click.echo(f"== lineage ({lineage.height} cells) ==")
            cols = [
                c
                for c in ("row", "entity", "doc_id", "field", "value", "page", "snippet")
                if c in lineage.columns
            ]
            click.echo(str(lineage.select(cols).head(max_rows)))
        click.echo("== costs ==")
        click.echo(str(result.costs))
