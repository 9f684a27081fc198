"""The page pass of parsing: words with boxes from pdfium's text page, visual lines in reading order,
the page text rebuilt from them, and retrieval chunks (text chunks and one chunk per table-like line).

`parsing.pdf` runs it on every page of a document (and on the words OCR read from a scanned page) and
turns its output into the pages, words and chunks frames.
"""

from __future__ import annotations

import ctypes
import functools
import re
import struct
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from mdqa_kernel.text.language import CJK_RANGES
from mdqa_kernel.text.values import is_absent, is_number_shaped

# Text chunks aim at 600-800 characters and close early at a sentence end once past the minimum.
CHUNK_MIN, CHUNK_MAX = 600, 800
_SENTENCE_END = ("。", "！", "？", "；", ".", "!", "?", ";", ":", "：")
# A numeric table cell is what the number grammar calls number-shaped (text.values): 1,234.5  (1,234)
# -12%  $3.00  85,12,14,381  `1,234 (a mangled ₹), also a number cut by a cell wrap ("7,176,243,").
_CELL_FILLERS = {"$", "¥", "€", "£", "₹", "`", "%", "*"}
_HAS_LETTER = re.compile(rf"[A-Za-z{CJK_RANGES}]")


@dataclass
class PageLayout:
    text: str
    words: list[tuple[Any, ...]]  # (line, text, x0, top, x1, bottom, char_start, char_end, *extra)
    lines: list[tuple[int, int, tuple[float, float, float, float] | None]]  # (start, end, bbox)


# Same-length clean-up, so text offsets stay pdfium char indices: 0x02 marks a hyphen at a line end;
# other control characters and U+FFFE (unmapped glyph) become spaces.
_CLEAN = {c: " " for c in range(32) if c not in (9, 10, 13)} | {2: "-", 0xFFFE: " "}
_WORD = re.compile(r"\S+")


def page_words(textpage: pdfium.PdfTextPage, height: float) -> list[tuple[str, float, float, float, float]]:
    """Words in pdfium's content order with (x0, top, x1, bottom) boxes, top from the page top.

    Fast path: the text comes in one call and boxes are asked for only at each word's first and last
    character (loose boxes, i.e. font ascent to descent, like pdfplumber's), not for every character.
    The box is read from the struct's bytes in one call (left, top, right, bottom: FS_RECTF's order)."""
    n = textpage.count_chars()
    if n <= 0:
        return []
    raw_tp = textpage.raw
    text = textpage.get_text_range()
    if len(text) != n:  # characters outside the BMP break the index mapping: read them one by one
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw_tp, i)) for i in range(n))
    text = text.translate(_CLEAN)
    rect = pdfium_c.FS_RECTF()
    get_box, page_arg, rect_arg = _loose_box_call(raw_tp, rect)
    words: list[tuple[str, float, float, float, float]] = []
    append = words.append
    for m in _WORD.finditer(text):
        start, end = m.span()
        get_box(page_arg, start, rect_arg)
        x0, top, x1, bottom = _unpack_rect(rect)
        if end - start > 1:
            get_box(page_arg, end - 1, rect_arg)
            left, t, right, b = _unpack_rect(rect)
            # min()/max() of two, spelled out: the same value (ties keep the first) without the calls
            x0 = left if left < x0 else x0
            x1 = right if right > x1 else x1
            top = t if t > top else top
            bottom = b if b < bottom else bottom
        append((m.group(), x0, height - top, x1, height - bottom))
    return words


_unpack_rect = struct.Struct("4f").unpack_from


def _loose_box_call(raw_tp: Any, rect: Any) -> tuple[Any, Any, Any]:
    """(function, text-page argument, box argument) for FPDFText_GetLooseCharBox, called twice per word.
    pypdfium2's binding converts its typed pointer arguments on every call; the same C function through
    a prototype of plain addresses is a third cheaper. The binding itself where that is unavailable."""
    fast = _untyped_loose_box()
    if fast is None:
        return pdfium_c.FPDFText_GetLooseCharBox, raw_tp, ctypes.byref(rect)
    return fast, ctypes.cast(raw_tp, ctypes.c_void_p).value, ctypes.addressof(rect)


@functools.cache
def _untyped_loose_box() -> Any:
    try:
        address = ctypes.cast(pdfium_c.FPDFText_GetLooseCharBox, ctypes.c_void_p).value
        prototype = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
        return prototype(address) if address else None
    except (TypeError, ValueError, AttributeError, ctypes.ArgumentError):
        return None


# (text, x0, top, x1, bottom) of the text layer; OCR words add their confidence after the box.
RawWord = tuple[Any, ...]


def _visual_lines(words: list[RawWord]) -> list[list[RawWord]]:
    """Group words into visual lines, top to bottom, left to right (as pdfplumber reads a page).

    pdfium returns table cells one after another; sorting by position puts a table row's label and
    its numbers on one line, which is what a reader (and the table-row detector) needs."""
    ordered = sorted(words, key=lambda w: ((w[2] + w[4]) / 2, w[1]))
    lines: list[list[RawWord]] = []
    band_top = band_bottom = 0.0
    for w in ordered:
        middle = (w[2] + w[4]) / 2
        if lines and band_top <= middle <= band_bottom:
            lines[-1].append(w)
        else:
            lines.append([w])
            # The first word fixes the band, so a long page of slightly slanted words cannot drift.
            band_top, band_bottom = w[2] + 0.2 * (w[4] - w[2]), w[4] - 0.2 * (w[4] - w[2])
    for line in lines:
        line.sort(key=lambda w: w[1])
    return lines


def lay_out(raw_words: list[RawWord]) -> PageLayout:
    """Rebuild the page text from visual lines; words and lines keep offsets into that text (and any
    values after a raw word's box, e.g. an OCR confidence, after their offsets)."""
    words: list[tuple[Any, ...]] = []
    lines: list[tuple[int, int, tuple[float, float, float, float] | None]] = []
    parts: list[str] = []
    append = words.append
    pos = 0
    for line_no, line in enumerate(_visual_lines(raw_words)):
        line_start = pos
        first = line[0]
        bx0, by0, bx1, by1 = first[1], first[2], first[3], first[4]
        for w in line:
            wtext, x0, top, x1, bottom = w[0], w[1], w[2], w[3], w[4]
            end = pos + len(wtext)
            if len(w) > 5:
                append((line_no, wtext, x0, top, x1, bottom, pos, end, *w[5:]))
            else:
                append((line_no, wtext, x0, top, x1, bottom, pos, end))
            pos = end + 1  # the space after a word, or the line's newline after its last
            bx0 = x0 if x0 < bx0 else bx0
            by0 = top if top < by0 else by0
            bx1 = x1 if x1 > bx1 else bx1
            by1 = bottom if bottom > by1 else by1
        parts.append(" ".join([w[0] for w in line]))
        lines.append((line_start, pos - 1, (bx0, by0, bx1, by1)))
    parts.append("")
    return PageLayout(text="\n".join(parts), words=words, lines=lines)


# Lines of ASCII text (nearly all) are tested for two digits with a regex; others digit by digit, as
# str.isdigit counts digits that \d does not ("²").
_TWO_DIGITS = re.compile(r"\d\D*\d")


def _two_digits(line: str) -> bool:
    if line.isascii():
        return _TWO_DIGITS.search(line) is not None
    return sum(map(str.isdigit, line)) >= 2


def is_table_row(line: str) -> bool:
    """A label followed by two or more numeric tokens: cheap detection of a table row in plain text."""
    if not _two_digits(line):  # cheap exit for the many lines without two numbers
        return False
    tokens = line.split()
    first_num = next((k for k, t in enumerate(tokens) if is_number_shaped(t)), None)
    if first_num is None or first_num == 0:
        return False
    if not any(_HAS_LETTER.search(t) for t in tokens[:first_num]):
        return False
    tail = tokens[first_num:]
    numbers = sum(1 for t in tail if is_number_shaped(t))
    # After the label only cells: numbers, currency signs, dashes for nil ("Revenue grew 12% in 2023" is prose).
    return numbers >= 2 and all(is_number_shaped(t) or is_absent(t) or t in _CELL_FILLERS for t in tail)


def _union(boxes: list[tuple[float, float, float, float] | None]) -> tuple[float, float, float, float]:
    real = [b for b in boxes if b is not None]
    if not real:
        return (0.0, 0.0, 0.0, 0.0)
    return (
        min(b[0] for b in real),
        min(b[1] for b in real),
        max(b[2] for b in real),
        max(b[3] for b in real),
    )


def page_chunks(page_no: int, page: PageLayout) -> list[tuple[Any, ...]]:
    """Text chunks partition the page text (contiguous spans of whole lines, ~600-800 chars);
    table_row chunks are extra, overlapping chunks, one per table-like line."""
    out: list[tuple[Any, ...]] = []
    text = page.text
    group: list[tuple[int, int, tuple[float, float, float, float] | None]] = []

    def flush() -> None:
        if not group:
            return
        s, e = group[0][0], group[-1][1]
        if text[s:e].strip():
            out.append((page_no, "text", text[s:e], *_union([g[2] for g in group]), s, e))
        group.clear()

    def size() -> int:
        return group[-1][1] - group[0][0] if group else 0

    for start, end, box in page.lines:
        line = text[start:end]
        if is_table_row(line):
            out.append((page_no, "table_row", line.strip(), *(box or (0.0, 0.0, 0.0, 0.0)), start, end))
        if group and size() + (end - start) > CHUNK_MAX and size() >= CHUNK_MIN // 2:
            flush()
        if end - start > CHUNK_MAX:  # one very long line: cut it, boxes stay those of the line
            flush()
            for s in range(start, end, CHUNK_MAX):
                group.append((s, min(s + CHUNK_MAX, end), box))
                flush()
            continue
        group.append((start, end, box))
        if size() >= CHUNK_MAX or (size() >= CHUNK_MIN and line.rstrip().endswith(_SENTENCE_END)):
            flush()
    flush()
    return out
