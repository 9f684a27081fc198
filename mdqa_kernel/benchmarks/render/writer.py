"""A small page-layout engine on top of reportlab's canvas that remembers where tagged text lands.

Platypus would lay out text for us but hides coordinates; the manifests need the page and bounding
box of every printed gold fact, so the layout here is explicit: headings, wrapped paragraphs
(Chinese wraps between any two characters, Latin words stay whole), key-value blocks and ruled
tables, each piece drawn at a known position. Text given as ``(text, tag)`` is recorded under its
tag as Evidence (page, text, bbox with a top-left origin, and the line it sits on).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from mdqa_kernel.benchmarks.render.models import Evidence

Segment = str | tuple[str, str]  # plain text, or (text, tag)
Cell = str | tuple[str, str] | None

PAGE_W, PAGE_H = A4
MARGIN_X = 62.0
TOP_Y = PAGE_H - 70.0
BOTTOM_Y = 64.0
CONTENT_W = PAGE_W - 2 * MARGIN_X
_TOKEN = re.compile(r"[A-Za-z0-9.,%()\-+/:$'&’]+|\s+|.", re.S)


@dataclass
class _Line:
    start: int
    end: int


def _tokens(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _TOKEN.finditer(text)]


class PageWriter:
    """Draws one document page by page and records the position of tagged text."""

    def __init__(self, path: Path, font: str, bold: str, header: str, footer: str, title: str) -> None:
        self.canvas = Canvas(str(path), pagesize=A4, pageCompression=1, invariant=1)
        self.canvas.setTitle(title)
        self.canvas.setSubject(footer)
        self.canvas.setCreator("mdqa render (MuDABench)")
        self.font, self.bold = font, bold
        self.header, self.footer = header, footer
        self.page = 0
        self.y = TOP_Y
        self.spans: dict[str, list[Evidence]] = defaultdict(list)
        self._started = False

    # -- pages -------------------------------------------------------------------------------
    def _decorate(self) -> None:
        c = self.canvas
        c.setFont(self.font, 7.5)
        c.setFillGray(0.35)
        c.drawString(MARGIN_X, PAGE_H - 40, self.header)
        c.line(MARGIN_X, PAGE_H - 45, PAGE_W - MARGIN_X, PAGE_H - 45)
        c.setFont(self.font, 6.5)
        c.drawString(MARGIN_X, 36, self.footer)
        c.drawRightString(PAGE_W - MARGIN_X, 36, str(self.page))
        c.setFillGray(0)

    def new_page(self) -> None:
        if self._started:
            self.canvas.showPage()
        self._started = True
        self.page += 1
        self.y = TOP_Y
        self._decorate()

    def ensure(self, height: float) -> None:
        """Start a new page unless `height` points still fit on this one."""
        if not self._started or self.y - height < BOTTOM_Y:
            self.new_page()

    def space(self, points: float) -> None:
        self.y -= points

    def close(self) -> int:
        if not self._started:
            self.new_page()
        self.canvas.showPage()
        self.canvas.save()
        return self.page

    # -- text --------------------------------------------------------------------------------
    def _record(self, tag: str, text: str, x0: float, baseline: float, size: float, snippet: str) -> None:
        x1 = x0 + stringWidth(text, self.font, size)
        top = PAGE_H - (baseline + size * 0.9)
        bottom = PAGE_H - (baseline - size * 0.25)
        box = (round(x0, 2), round(top, 2), round(x1, 2), round(bottom, 2))
        self.spans[tag].append(Evidence(page=self.page, text=text, bbox=box, snippet=snippet))

    def _wrap(self, text: str, font: str, size: float, width: float) -> list[_Line]:
        lines: list[_Line] = []
        start, cur_w = None, 0.0
        last_end = 0
        for a, b in _tokens(text):
            tok = text[a:b]
            if tok == "\n":
                lines.append(_Line(start if start is not None else a, a))
                start, cur_w = None, 0.0
                continue
            if start is None and tok.isspace():
                continue
            w = stringWidth(tok, font, size)
            if start is not None and cur_w + w > width and not tok.isspace():
                lines.append(_Line(start, last_end))
                start, cur_w = a, w
            else:
                if start is None:
                    start = a
                cur_w += w
            last_end = b
        if start is not None:
            lines.append(_Line(start, last_end))
        return [_Line(ln.start, ln.start + len(text[ln.start : ln.end].rstrip())) for ln in lines]

    def paragraph(
        self,
        segments: list[Segment],
        size: float = 9.5,
        indent: float = 0.0,
        leading: float | None = None,
        after: float = 5.0,
        font: str | None = None,
    ) -> None:
        """A wrapped paragraph; tagged segments are recorded (one Evidence per line they touch)."""
        font = font or self.font
        leading = leading or size * 1.55
        text, tags = "", []
        for seg in segments:
            if isinstance(seg, tuple):
                tags.append((len(text), len(text) + len(seg[0]), seg[1]))
                text += seg[0]
            else:
                text += seg
        lines = self._wrap(text, font, size, CONTENT_W - indent)
        tagged = bool(tags)
        if tagged:  # keep a paragraph that carries a fact on one page
            self.ensure(leading * len(lines))
        for ln in lines:
            self.ensure(leading)
            x = MARGIN_X + indent
            line_text = text[ln.start : ln.end]
            self.canvas.setFont(font, size)
            self.canvas.drawString(x, self.y - size, line_text)
            for a, b, tag in tags:
                lo, hi = max(a, ln.start), min(b, ln.end)
                if lo < hi:
                    x0 = x + stringWidth(text[ln.start : lo], font, size)
                    self._record(tag, text[lo:hi], x0, self.y - size, size, line_text)
            self.y -= leading
        self.y -= after

    def heading(self, text: str, level: int = 1) -> None:
        size = {0: 20.0, 1: 14.0, 2: 11.5, 3: 10.0}.get(level, 10.0)
        self.ensure(size * 2 + 60)  # never leave a heading alone at the bottom of a page
        self.y -= size * 0.6
        self.canvas.setFont(self.bold, size)
        self.canvas.drawString(MARGIN_X, self.y - size, text)
        self.y -= size * 1.8

    def centered(self, text: str, size: float, gap: float = 1.8, tag: str | None = None) -> None:
        self.ensure(size * gap)
        w = stringWidth(text, self.bold, size)
        x = (PAGE_W - w) / 2
        self.canvas.setFont(self.bold, size)
        self.canvas.drawString(x, self.y - size, text)
        if tag:
            saved, self.font = self.font, self.bold
            self._record(tag, text, x, self.y - size, size, text)
            self.font = saved
        self.y -= size * gap

    def key_values(self, rows: list[tuple[str, Segment]], size: float = 9.5, label_w: float = 150.0) -> None:
        """Label / value lines, as in the company-information pages of a filing."""
        for label, value in rows:
            val, tag = value if isinstance(value, tuple) else (value, None)
            lines = self._wrap(val, self.font, size, CONTENT_W - label_w)
            self.ensure(size * 1.6 * max(1, len(lines)))
            self.canvas.setFont(self.font, size)
            self.canvas.drawString(MARGIN_X, self.y - size, label)
            for ln in lines:
                piece = val[ln.start : ln.end]
                self.canvas.drawString(MARGIN_X + label_w, self.y - size, piece)
                if tag:
                    self._record(tag, piece, MARGIN_X + label_w, self.y - size, size, f"{label} {piece}")
                self.y -= size * 1.6
            if not lines:
                self.y -= size * 1.6
        self.y -= 4

    # -- tables ------------------------------------------------------------------------------
    def table(
        self,
        header: list[str],
        rows: list[list[Cell]],
        widths: list[float],
        caption: str | None = None,
        size: float = 8.5,
        note: str | None = None,
    ) -> None:
        """A ruled table; first column left-aligned, the others right-aligned (numbers)."""
        row_h = size * 2.0
        total = sum(widths)
        cols = [w / total * CONTENT_W for w in widths]
        if caption:
            self.ensure(row_h * (min(len(rows), 6) + 2) + size * 2)
            self.paragraph([caption], size=size + 0.5, after=2)
        self.ensure(row_h * 2)
        self._table_row(header, cols, size, row_h, bold=True)
        for row in rows:
            if self.y - row_h < BOTTOM_Y:
                self.new_page()
                self._table_row(header, cols, size, row_h, bold=True)
            self._table_row(row, cols, size, row_h)
        self.canvas.line(MARGIN_X, self.y, MARGIN_X + CONTENT_W, self.y)
        self.y -= 4
        if note:
            self.paragraph([note], size=size - 0.5, after=3)
        self.y -= 6

    def _table_row(
        self, cells: list[Cell], cols: list[float], size: float, row_h: float, bold: bool = False
    ) -> None:
        c = self.canvas
        c.line(MARGIN_X, self.y, MARGIN_X + sum(cols), self.y)
        baseline = self.y - row_h + size * 0.65
        label = cells[0] if isinstance(cells[0], str) else (cells[0][0] if cells[0] else "")
        x = MARGIN_X
        for i, (cell, w) in enumerate(zip(cells, cols, strict=False)):
            if cell is None:
                x += w
                continue
            text, tag = cell if isinstance(cell, tuple) else (cell, None)
            font = self.bold if bold else self.font
            fsize = size
            while fsize > 5.5 and stringWidth(text, font, fsize) > w - 6:
                fsize -= 0.25
            tw = stringWidth(text, font, fsize)
            tx = x + 3 if i == 0 else x + w - 3 - tw
            c.setFont(font, fsize)
            c.drawString(tx, baseline, text)
            if tag:
                saved, self.font = self.font, font
                self._record(tag, text, tx, baseline, fsize, f"{label} {text}")
                self.font = saved
            x += w
        self.y -= row_h
