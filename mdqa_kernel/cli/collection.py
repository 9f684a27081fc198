"""`mdqa collection build|show`: a folder of PDFs plus a metadata table, parsed once into the workspace.

Only click is imported at module level, so `mdqa --help` stays instant."""

from __future__ import annotations

import click

from mdqa_kernel.cli.common import check_ray_address, executor_options, fail


@click.group("collection")
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
@executor_options
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of a table")
def collection_build(
    pdf_dir: str,
    metadata: str | None,
    workspace: str,
    name: str,
    jobs: int | None,
    executor_kind: str,
    ray_address: str | None,
    as_json: bool,
) -> None:
    """Parse PDF_DIR's PDFs (only new or changed ones) and record the collection with its metadata."""
    from mdqa_kernel.collection.collection import Collection, CollectionError
    from mdqa_kernel.extract.executors import ExecutorError, make_executor
    from mdqa_kernel.store import StoreError

    check_ray_address(executor_kind, ray_address)
    # The local kind keeps the build's own process pool (a crashed parser costs one document only).
    runner = make_executor(jobs, executor_kind, ray_address) if executor_kind != "local" else None
    try:
        coll = Collection.build(
            pdf_dir,
            metadata=metadata,
            workspace=workspace,
            name=name,
            jobs=jobs,
            progress=not as_json,
            executor=runner,
        )
    except (CollectionError, StoreError, ExecutorError) as e:
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
