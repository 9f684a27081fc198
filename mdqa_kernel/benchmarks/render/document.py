"""Render one MuDABench document record to a PDF and return its manifest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mdqa_kernel.benchmarks.mudabench import DocumentRecord
from mdqa_kernel.benchmarks.render.context import RecordIndex, RenderContext
from mdqa_kernel.benchmarks.render.fonts import fonts_for
from mdqa_kernel.benchmarks.render.layouts import annual_cn, annual_us, esg_cn, notices_cn
from mdqa_kernel.benchmarks.render.layouts.common import (
    company_name,
    cover,
    fallback_section,
    honesty,
    pad_to,
)
from mdqa_kernel.benchmarks.render.models import DocumentManifest, RenderOptions
from mdqa_kernel.benchmarks.render.writer import PageWriter

Layout = Callable[[RenderContext, PageWriter], str]

LAYOUTS: dict[str, Layout] = {
    "A股年报": annual_cn.build,
    "US Stock Annual Report": annual_us.build,
    "A股ESG报告": esg_cn.build,
    "A股利润分配权益类公告": notices_cn.build_dividend,
    "A股股东大会类公告": notices_cn.build_meeting,
}


def generic_layout(ctx: RenderContext, w: PageWriter) -> str:
    """For a doctype without its own layout: a cover, the fields as key-value lines, notes."""
    title = f"{company_name(ctx)} {ctx.year} {ctx.record.doctype}"
    cover(ctx, w, [(company_name(ctx), 18), (f"{ctx.year} {ctx.record.doctype}", 20)], str(ctx.year + 1))
    w.new_page()
    fallback_section(ctx, w)
    pad_to(ctx, w, 8, ["附注" if ctx.lang == "zh" else "Notes"])
    return title


def index_records(records: dict[str, DocumentRecord] | list[DocumentRecord]) -> RecordIndex:
    """(symbol, doctype, year) → record, for prior-year lookups."""
    recs = records.values() if isinstance(records, dict) else records
    return {(r.symbol, r.doctype, r.year): r for r in recs}


def render_document(
    record: DocumentRecord,
    out_pdf: Path,
    options: RenderOptions | None = None,
    index: RecordIndex | None = None,
    noise: bool = False,
) -> DocumentManifest:
    """Render `record` to `out_pdf` (deterministic for options.seed); return the manifest."""
    options = options or RenderOptions()
    ctx = RenderContext(record, options, index or {}, noise=noise)
    font, bold = fonts_for(ctx.lang)
    header = f"{company_name(ctx)} · {record.year} · {record.doctype}"
    out_pdf.parent.mkdir(parents=True, exist_ok=True)
    writer = PageWriter(out_pdf, font, bold, header, honesty(ctx), title=header)
    layout = LAYOUTS.get(record.doctype, generic_layout)
    title = layout(ctx, writer)
    if options.min_pages:
        pad_to(ctx, writer, options.min_pages, ["附注" if ctx.lang == "zh" else "Notes"])
    pages = writer.close()
    return ctx.manifest(writer, pages, title)
