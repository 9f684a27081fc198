"""Rendered filings corpus: MuDABench document records → PDFs that read like the real kind of filing,
plus a manifest per document (page, printed string, scale and bounding box of every gold fact).

Everything rendered here is labelled "rendered from MuDABench's annotated values; not the original
filings" (cover, footer of every page, manifests, metadata notes, README of the output folder).
"""

from __future__ import annotations

from mdqa_kernel.benchmarks.render.corpus import (
    DEMO_QUESTION_IDS,
    RenderSummary,
    render_mudabench,
    select_noise,
)
from mdqa_kernel.benchmarks.render.document import LAYOUTS, index_records, render_document
from mdqa_kernel.benchmarks.render.fields import FIELDS, judge_equal, parse_number
from mdqa_kernel.benchmarks.render.models import (
    HONESTY_NOTE_EN,
    HONESTY_NOTE_ZH,
    DocumentManifest,
    Evidence,
    FactManifest,
    RenderOptions,
)

__all__ = [
    "DEMO_QUESTION_IDS",
    "FIELDS",
    "HONESTY_NOTE_EN",
    "HONESTY_NOTE_ZH",
    "LAYOUTS",
    "DocumentManifest",
    "Evidence",
    "FactManifest",
    "RenderOptions",
    "RenderSummary",
    "index_records",
    "judge_equal",
    "parse_number",
    "render_document",
    "render_mudabench",
    "select_noise",
]
