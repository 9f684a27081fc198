"""The notebook surface as plain functions: what the cell magics call, usable from scripts and papermill.

collection() builds or reopens a collection, plan_from_yaml()/propose_plan() make a Plan, extract()
runs it, review() opens the rows widget whose answer recomputes on every correction, and
aggregate_cell() turns corrected rows into a result frame and an answer with lineage.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.aggregate.run import AggregateResult, aggregate
from mdqa_kernel.answer import Answer, render_answer
from mdqa_kernel.collection.collection import Collection, html_table
from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.aggregation import Aggregation
from mdqa_kernel.plan.ir import Plan
from mdqa_kernel.resources import ResourceMissingError, example
from mdqa_kernel.rows.rows import corrected_rows
from mdqa_kernel.text.yamlsafe import YamlLoadError, YamlSyntaxError, load_yaml

# Collection bookkeeping columns that a result view does not need to show.
_BOOKKEEPING = {
    "sha256",
    "n_pages",
    "language",
    "status",
    "path",
    "error_kind",
    "message",
    "question_ids",
    "noise_for",
    "pages",
    "note",
}


def compact(df: pl.DataFrame) -> pl.DataFrame:
    """The frame without the collection's bookkeeping columns (what a person wants to read)."""
    return df.select([c for c in df.columns if c not in _BOOKKEEPING])


class NotebookUsageError(MdqaError, ValueError):
    """A notebook cell was given something it cannot use; the message says what to change."""


@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn mdqa's own exceptions (MdqaError: the message says what to change) and a missing file into
    one-line UsageErrors (IPython shows them without a traceback). Anything else, a plain ValueError
    included, is a bug somewhere and keeps its traceback."""
    try:
        yield
    except Exception as e:
        if isinstance(e, MdqaError | FileNotFoundError):
            try:
                from IPython.core.error import UsageError
            except ImportError:  # plain Python: keep the original exception
                raise e from None
            raise UsageError(f"{type(e).__name__}: {e}") from None
        raise


def mapping(obj: Any, where: str) -> dict[str, Any]:
    if obj is None:
        return {}
    if not isinstance(obj, Mapping):
        raise NotebookUsageError(f"{where} must be YAML key: value lines, got {type(obj).__name__}")
    return dict(obj)


# -- collection --------------------------------------------------------------------------------
def collection(
    pdf_dir: str | Path | None = None,
    metadata: str | Path | None = None,
    *,
    workspace: str | Path | None = None,
    name: str = "default",
    jobs: int | None = None,
    where: Mapping[str, Any] | None = None,
    progress: bool = True,
) -> Collection:
    """Build a collection from a PDF folder (+ metadata), or reopen it when no folder is given."""
    if pdf_dir is not None:
        coll = Collection.build(
            pdf_dir, metadata, workspace=workspace, name=name, jobs=jobs, progress=progress
        )
    else:
        if workspace is None:
            raise NotebookUsageError("give pdf_dir (to build) or workspace (to reopen a built collection)")
        coll = Collection.open(workspace, name)
    return coll.where(**dict(where)) if where else coll


# -- plan --------------------------------------------------------------------------------------
def plan_from_yaml(text: str) -> Plan:
    if not text.strip():
        raise NotebookUsageError('the %%plan body is empty: write the plan in YAML, or use --ask "question"')
    return Plan.from_yaml(text, source="%%plan cell")


def propose_plan(question: str, coll: Collection | None, *, fields_yaml: str | None = None) -> Plan:
    """Ask the planner for a plan; `fields_yaml` (a YAML list of fields) pins the fields to read."""
    from mdqa_kernel.plan import planner

    fields = load_yaml(fields_yaml, "%%plan --ask cell body", what="a field list") if fields_yaml else None
    if isinstance(fields, Mapping):
        fields = fields.get("fields")
    return planner.plan(question, coll, schema_fields=fields, dry_run=aggregate)


def plan_edit_hint(name: str, plan: Plan) -> str:
    text = html.escape(f"%%plan {name}\n{plan.to_yaml()}")
    return (
        "<details><summary>Edit this plan: copy it into a <code>%%plan</code> cell</summary>"
        f"<pre>{text}</pre></details>"
    )


# -- extraction --------------------------------------------------------------------------------
def extract(
    plan: Plan, coll: Collection, *, reader: str = "cascade", k: int | None = None, **options: Any
) -> Any:
    from mdqa_kernel.extract.run import extract as run_extract

    if k is not None:
        options["k"] = k
    return run_extract(plan, coll, reader, **options)


def extraction_html(result: Any) -> str:
    summary = result.summary()
    counts = " · ".join(f"{k}: {v}" for k, v in summary.items() if isinstance(v, int | float))
    rows = corrected_rows(result)
    head = compact(rows).head(10)
    return (
        f"<div><b>{html.escape(repr(result))}</b><br><small>{html.escape(counts)}</small></div>"
        + _frame_html(head)
        + (
            f"<small>… {rows.height - 10} more rows (open the review widget)</small>"
            if rows.height > 10
            else ""
        )
    )


def _frame_html(df: pl.DataFrame) -> str:
    return html_table(df, missing="—", max_chars=None, css_class="mdqa-frame")


# -- aggregation and answer ----------------------------------------------------------------------
class AggregateOutcome:
    """A result frame, its lineage, and the answer text: what an %%aggregate cell shows."""

    def __init__(self, result: AggregateResult | None, frame: pl.DataFrame, answer: Answer | None) -> None:
        self.result = result
        self.frame = frame
        self.answer = answer

    @property
    def text(self) -> str:
        return self.answer.text if self.answer is not None else ""

    def __repr__(self) -> str:
        return f"AggregateOutcome({self.frame.height} rows; answer: {self.text!r})"

    def _repr_html_(self) -> str:
        answer = f"<p class='mdqa-answer-text'><b>{html.escape(self.text)}</b></p>" if self.answer else ""
        lineage = ""
        if self.answer is not None and self.answer.lineage:
            items = "".join(
                f"<li>{html.escape(str(item.doc_id))} · {html.escape(str(item.field))} · page "
                f"{html.escape(str(item.page))}: <i>{html.escape(str(item.snippet or ''))[:120]}</i></li>"
                for item in self.answer.lineage[:20]
            )
            lineage = f"<details><summary>lineage ({len(self.answer.lineage)} cells)</summary><ul>{items}</ul></details>"
        return f"<div class='mdqa-outcome'>{answer}{_frame_html(compact(self.frame).head(20))}{lineage}</div>"


# How a YAML aggregation body starts a line: `steps:`, or a list item `- op: …` / `- {op: …}`.
_OPERATIONS = re.compile(r"^\s*(?:steps\s*:|-\s*\{?\s*op\s*:)", re.MULTILINE)


def parse_aggregation(body: str) -> Aggregation | str:
    """YAML operations → Aggregation; anything that is not a YAML mapping/list is polars code."""
    try:
        data = load_yaml(body, "%%aggregate cell body", what="an aggregation")
    except YamlSyntaxError:
        return body
    except YamlLoadError:
        # Refused YAML (an alias, a duplicate key): an error when the body is an aggregation's
        # operations; polars code that merely looks like YAML to the parser stays code.
        if _OPERATIONS.search(body):
            raise
        return body
    if isinstance(data, list):
        data = {"steps": data}
    if isinstance(data, Mapping) and "steps" in data:
        return Aggregation.model_validate(dict(data))
    return body


def aggregate_cell(
    source: Any, body: str, *, plan: Plan | None = None, question: str | None = None
) -> AggregateOutcome:
    """Run an aggregation (YAML ops or sandboxed polars code) over corrected rows and render the answer."""
    rows = source if isinstance(source, pl.DataFrame) else corrected_rows(source)
    spec: Aggregation | str | None = (
        parse_aggregation(body) if body.strip() else (plan.aggregation if plan else None)
    )
    if spec is None:
        raise NotebookUsageError("no aggregation: write operations in the cell body or give --plan with one")
    question = question or (plan.question if plan else "")
    if isinstance(spec, str):
        from mdqa_kernel.aggregate.sandbox import run_polars_code

        return AggregateOutcome(None, run_polars_code(spec, rows), None)
    cells = source.cells if hasattr(source, "cells") else None
    result = aggregate(rows, spec)
    answer = render_answer(question, spec, result, cells=cells) if question else None
    return AggregateOutcome(result, result.frame, answer)


def answer_for(plan: Plan, source: Any) -> AggregateOutcome:
    """Aggregate with the plan's own aggregation: what the review widget recomputes after an edit."""
    if plan.aggregation is None:
        raise NotebookUsageError("the plan has no aggregation; add one to see the answer update")
    return aggregate_cell(source, "", plan=plan)


def review(
    result: Any,
    *,
    plan: Plan | None = None,
    page_size: int = 50,
    reviewer: str | None = None,
    readings: pl.DataFrame | None = None,
) -> Any:
    """The rows review widget over an extraction; with an aggregation, the answer recomputes on each edit.
    `readings`: other readers' cells of the same documents (another extraction's `.cells`): where they
    found a different value, the cell goes up the "Needs review" queue."""
    from mdqa_kernel.notebook.review import ReviewModel
    from mdqa_kernel.notebook.widget import RowsReview
    from mdqa_kernel.rows.corrections import Ledger

    plan = plan or result.plan
    docs = pl.DataFrame(list(result.docs.values()), infer_schema_length=None)
    fields = [{"name": f.name, "type": f.type} for f in plan.fields]
    ledger = Ledger(result.workspace, reviewer=reviewer)
    model = ReviewModel(result.cells, docs, fields, ledger, readings=readings)

    def recompute(_effective: pl.DataFrame) -> Any:
        # The ledger is the source of truth: re-read rows with every live correction applied.
        return answer_for(plan, result)

    return RowsReview(
        model, recompute=recompute if plan.aggregation is not None else None, page_size=page_size
    )


# -- the bundled example --------------------------------------------------------------------------
def demo_collection(
    out_dir: str | Path = "demo-output",
    *,
    workspace: str | Path | None = None,
    questions: list[str] | None = None,
    progress: bool = True,
) -> Collection:
    """The example corpus: MuDABench demo questions rendered from their annotated values (not the
    original filings), built into a collection. Rendering happens once; later calls reuse the PDFs
    and the parse cache."""
    from mdqa_kernel.benchmarks.render import DEMO_QUESTION_IDS, render_mudabench

    out = Path(out_dir)
    corpus = out / "corpus"
    wanted = list(questions or DEMO_QUESTION_IDS)
    marker = corpus / "questions.json"
    if not marker.exists() or not set(wanted) <= set(_rendered_questions(marker)):
        render_mudabench("simple", wanted, corpus, progress=progress)
    return Collection.build(
        corpus / "pdfs", corpus / "metadata.csv", workspace=workspace or out / "workspace", progress=progress
    )


def _rendered_questions(path: Path) -> dict[str, Any]:
    import json

    return dict(json.loads(path.read_text("utf-8")))


def question_collection(
    coll: Collection, question_id: str, out_dir: str | Path = "demo-output"
) -> Collection:
    """The documents a rendered MuDABench question needs (its own collection, as in the benchmark)."""
    questions = _rendered_questions(Path(out_dir) / "corpus" / "questions.json")
    if question_id not in questions:
        raise NotebookUsageError(
            f"{question_id} was not rendered into {out_dir}; pass it to demo_collection(questions=[...])"
        )
    q = questions[question_id]
    return coll.where(pl.col("doc_id").is_in(q["doc_ids"] + q.get("noise_doc_ids", [])))


def example_path(relpath: str) -> Path:
    """A file under mdqa's examples/ folder (example plans, the vendored MuDABench files)."""
    try:
        return example(relpath)
    except ResourceMissingError as e:
        raise NotebookUsageError(str(e)) from None
