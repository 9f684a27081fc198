"""`mdqa render mudabench`: rendered MuDABench filings (mdqa_kernel.benchmarks.render).

The CLI is a client of the kernel and may use the benchmarks; only click is imported at module
level, so `mdqa --help` stays instant."""

from __future__ import annotations

import click

from mdqa_kernel.cli.common import fail


@click.group("render")
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
