"""Pieces shared by the layouts: covers, filler sections, money tables with a stated scale, dates,
and the key-value fallback that renders any field the layout does not know."""

from __future__ import annotations

import datetime as dt
from typing import Any

from mdqa_kernel.benchmarks.render import text
from mdqa_kernel.benchmarks.render.context import RenderContext
from mdqa_kernel.benchmarks.render.fields import (
    Scale,
    choose_scale,
    dec,
    format_amount,
    format_percent,
    format_plain,
)
from mdqa_kernel.benchmarks.render.models import HONESTY_NOTE_EN, HONESTY_NOTE_ZH
from mdqa_kernel.benchmarks.render.writer import Cell, PageWriter

MoneyRow = tuple[str, str | None, float, float]  # label, gold field (or None), current, prior


def company_name(ctx: RenderContext) -> str:
    sym = ctx.record.symbol
    return f"样本公司{sym}股份有限公司" if ctx.lang == "zh" else f"Sample Registrant {sym}, Inc."


def short_name(ctx: RenderContext) -> str:
    return f"样本{ctx.record.symbol}" if ctx.lang == "zh" else ctx.record.symbol


def honesty(ctx: RenderContext) -> str:
    return f"{HONESTY_NOTE_ZH}（{HONESTY_NOTE_EN}）" if ctx.lang == "zh" else "R" + HONESTY_NOTE_EN[1:]


def cover(ctx: RenderContext, w: PageWriter, lines: list[tuple[str, float]], date_line: str) -> None:
    w.new_page()
    w.space(120)
    for line, size in lines:
        w.centered(line, size)
    w.space(200)
    w.centered(date_line, 12)
    w.space(30)
    w.paragraph([honesty(ctx)], size=8)


def zh_date(d: dt.date, style: int = 0) -> str:
    return f"{d.year}年{d.month}月{d.day}日" if style == 0 else f"{d.year}/{d.month}/{d.day}"


def filler(ctx: RenderContext, w: PageWriter, heading: str | None, paragraphs: int, level: int = 2) -> None:
    if heading:
        w.heading(heading, level)
    for _ in range(paragraphs):
        w.paragraph([text.paragraph(ctx.lang, ctx.rng, short_name(ctx), ctx.year)])


def pad_to(ctx: RenderContext, w: PageWriter, pages: int, headings: list[str]) -> None:
    """Add notes sections until the document reaches `pages` pages (readers must locate facts)."""
    i = 0
    while w.page < pages:
        filler(
            ctx,
            w,
            f"{headings[i % len(headings)]}（续{i // len(headings) + 1}）"
            if ctx.lang == "zh"
            else f"{headings[i % len(headings)]} (continued)",
            ctx.rng.randint(3, 6),
        )
        i += 1


def year_headers(ctx: RenderContext, style: str) -> list[str]:
    y = ctx.year
    if ctx.lang == "zh":
        cur, pri = ("本期金额", "上期金额") if style == "period" else (f"{y}年", f"{y - 1}年")
    else:
        cur, pri = (
            (f"December 31, {y}", f"December 31, {y - 1}") if style == "balance" else (str(y), str(y - 1))
        )
    return ctx.pair(cur, pri)


def scale_caption(ctx: RenderContext, title: str, scale: Scale, style: str) -> str:
    if ctx.lang == "zh":
        period = f"（{ctx.year}年1—12月）" if style == "period" else ""
        return f"{title}{period}　　单位：{scale.label}　币种：人民币"
    if style == "balance":
        return f"{title} ({scale.label}, except share data)"
    return f"{title} (Year Ended December 31; {scale.label}, except per share data)"


def quantize(amount: float, scale: Scale, language: str) -> float:
    """Round a non-gold amount to what the table can print, so every cell reads as a clean figure."""
    places = 2 if language == "zh" else 0
    return float(round(dec(amount) / dec(scale.factor), places) * dec(scale.factor))


def money_table(
    ctx: RenderContext,
    w: PageWriter,
    title: str,
    rows: list[MoneyRow],
    style: str = "year",
    scale: Scale | None = None,
) -> Scale:
    """A statement-style table with current and prior columns (order per layout variant)."""
    gold = [cur for _, field, cur, _ in rows if field]
    scale = scale or choose_scale(gold, ctx.lang, ctx.scale_pref, ctx.rng)
    body: list[list[Cell]] = []
    for label, field, cur, prior in rows:
        cur_q = cur if field else quantize(cur, scale, ctx.lang)
        cur_cell: Cell = format_amount(cur_q, scale, ctx.lang)
        if field:
            cur_cell = (cur_cell, ctx.tag(field))
            ctx.scales.setdefault(field, scale)
        prior_cell = format_amount(quantize(prior, scale, ctx.lang), scale, ctx.lang)
        body.append([label, *ctx.pair(cur_cell, prior_cell)])
    head = ["项目" if ctx.lang == "zh" else "", *year_headers(ctx, style)]
    w.table(head, body, [2.2, 1.4, 1.4], caption=scale_caption(ctx, title, scale, style))
    return scale


def percent_table(
    ctx: RenderContext, w: PageWriter, caption: str, rows: list[tuple[str, str | None, float, float, bool]]
) -> None:
    """Ratios with current and prior columns; rows = (label, field|None, current, prior, is_fraction)."""
    body: list[list[Cell]] = []
    for label, field, cur, prior, ratio in rows:
        cur_cell: Cell = format_percent(cur if field else round(cur, 4 if ratio else 2), ratio)
        if field:
            cur_cell = (cur_cell, ctx.tag(field))
            ctx.scales.setdefault(field, Scale("%", 0.01))
        body.append([label, *ctx.pair(cur_cell, format_percent(round(prior, 4 if ratio else 2), ratio))])
    head = ["项目" if ctx.lang == "zh" else "", *year_headers(ctx, "year")]
    w.table(head, body, [2.6, 1.2, 1.2], caption=caption)


def render_value(value: Any, language: str) -> str:
    """Plain text for a fallback field (lists joined, numbers grouped)."""
    if isinstance(value, list):
        parts = [
            ", ".join(f"{k}: {v}" for k, v in x.items()) if isinstance(x, dict) else str(x) for x in value
        ]
        return ("、" if language == "zh" else "; ").join(parts)
    if isinstance(value, bool):
        return ""
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return format_plain(value)
    if isinstance(value, str) and len(value) == 10 and value[4] == "-":
        try:
            d = dt.date.fromisoformat(value)
            return zh_date(d) if language == "zh" else d.strftime("%B %d, %Y").replace(" 0", " ")
        except ValueError:
            return value
    return str(value)


def fallback_section(ctx: RenderContext, w: PageWriter) -> None:
    """Key-value lines for every field the layout did not place (future fields still render)."""
    pending = ctx.pending()
    if not pending:
        return
    w.heading("其他信息" if ctx.lang == "zh" else "Other Information", 2)
    rows = []
    for field in pending:
        value = ctx.value(field)
        label = ctx.label(field)
        if value is None or value is False:
            ctx.mark(field, "absent: false or null")
            continue
        if value is True:
            stmt = (
                f"本报告披露了{label}相关信息。" if ctx.lang == "zh" else f"This report discloses: {label}."
            )
            w.paragraph([(stmt, ctx.tag(field))])
            continue
        rows.append((label, (render_value(value, ctx.lang), ctx.tag(field))))
    if rows:
        w.key_values(rows)
