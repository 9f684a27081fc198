"""The notebook surface: the cell functions the magics call (`cells`, usable from scripts and
papermill), the magics themselves (`magics`), the rows review widget (`review` model, `widget`)
and offline charts (`charts`).

    from mdqa_kernel import notebook as mq
    coll = mq.collection("pdfs/", metadata="metadata.csv")
"""

from __future__ import annotations

from mdqa_kernel.notebook.cells import (
    AggregateOutcome,
    NotebookUsageError,
    aggregate_cell,
    answer_for,
    collection,
    compact,
    demo_collection,
    example_path,
    extract,
    extraction_html,
    friendly_errors,
    mapping,
    parse_aggregation,
    plan_edit_hint,
    plan_from_yaml,
    propose_plan,
    question_collection,
    review,
)

__all__ = [
    "AggregateOutcome",
    "NotebookUsageError",
    "aggregate_cell",
    "answer_for",
    "collection",
    "compact",
    "demo_collection",
    "example_path",
    "extract",
    "extraction_html",
    "friendly_errors",
    "mapping",
    "parse_aggregation",
    "plan_edit_hint",
    "plan_from_yaml",
    "propose_plan",
    "question_collection",
    "review",
]
