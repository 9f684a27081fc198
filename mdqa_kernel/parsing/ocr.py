"""OCR for pages without a text layer: the parse's fallback, offline, flagged per page.

`parsing.pdf` reads a page's text layer; a page that has drawn content but no text (a scanned or
image-only page) is rendered here with pypdfium2 and read by OCR. Its words come back in PDF points,
top from the page top, like the text layer's, so lines, chunks and the table reader work on them
unchanged; the parse marks the page and its words `source="ocr"` and keeps each word's confidence.

Why tesseract, driven through its CLI:
- it is packaged by Debian (tesseract-ocr 5.3.0 in bookworm, with tesseract-ocr-eng and
  tesseract-ocr-chi-sim): `make sysdeps` installs it like chromium and bubblewrap, and the language
  data come with the packages, so nothing is downloaded at run time and the parse stays offline;
- it is maintained (a 5.x release line), reads English and simplified Chinese, and its TSV output gives
  a box and a confidence for every word, which is what the words frame and the readers need;
- the CLI is a stable interface that needs no Python binding (pytesseract and tesserocr add nothing we
  use: one subprocess per page, TSV on stdout).
RapidOCR was the alternative: rapidocr-onnxruntime (1.4.4) ships its PP-OCR models in the wheel and reads
Chinese better, but that package is frozen (its successor `rapidocr` fetches models at run time), pulls in
onnxruntime and opencv, and boxes whole text lines (word boxes are estimated), so a table row's cells
would come back as one box.

Speed: only pages with no text at all are rendered (a cheap check on pdfium's text layer), at 300 dpi in
grayscale, and only their inked region goes to tesseract (a page with a lone rule or no ink at all is
not OCR'd: 0.8 s saved on each such page of a filing); tesseract runs single-threaded
(OMP_THREAD_LIMIT=1), because parses already run one per core.
Without the `tesseract` executable (or with MDQA_OCR=off) nothing is OCR'd and the parse says which
pages have no text layer and what to install.
"""

from __future__ import annotations

import functools
import io
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

import pypdfium2 as pdfium
from PIL import Image, ImageOps

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.text.language import CJK_RANGES

# 300 dpi is tesseract's sweet spot: an 8 pt footnote figure is ~25 px high, enough for its LSTM model.
OCR_DPI = 300
PAGE_TIMEOUT_S = 180
# Tesseract language packs for the document languages parsing guesses; unknown tries both.
_LANGUAGES = {"en": ("eng",), "zh": ("chi_sim", "eng"), "unknown": ("eng", "chi_sim")}
INSTALL_HINT = "install tesseract-ocr, tesseract-ocr-eng and tesseract-ocr-chi-sim (make sysdeps)"


class OcrError(MdqaError):
    """The OCR engine failed on one page (crashed, timed out or printed something unreadable)."""


@dataclass(frozen=True)
class OcrWord:
    """One word read by OCR: its box in PDF points (top from the page top) and tesseract's 0-100 confidence."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    conf: float


def executable() -> str | None:
    """The tesseract executable, or None when OCR is switched off (MDQA_OCR=off) or not installed."""
    if os.environ.get("MDQA_OCR", "").lower() in ("0", "off", "false", "no"):
        return None
    return shutil.which("tesseract")


@functools.lru_cache(maxsize=4)
def _installed_languages(exe: str) -> frozenset[str]:
    try:
        out = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    # The first line says where the data are ("List of available languages in ..."); one name a line after.
    return frozenset(line.strip() for line in out.stdout.splitlines()[1:] if line.strip())


def languages_for(language: str) -> str | None:
    """The tesseract `-l` argument for a document language ('en', 'zh', 'unknown'): the installed
    packs of that language, or None when OCR cannot run (no executable, no language pack)."""
    exe = executable()
    if exe is None:
        return None
    installed = _installed_languages(exe)
    wanted = _LANGUAGES.get(language, _LANGUAGES["unknown"])
    chosen = [lang for lang in wanted if lang in installed]
    return "+".join(chosen) or None


def engine_name(lang: str) -> str:
    """What read the pages, for messages: 'tesseract (eng+chi_sim)'."""
    return f"tesseract ({lang})"


# A region of ink thinner than this many points holds no text tesseract can read: 3 pt is the cap
# height of 4-pt type, below any printed size (ruled lines, a hairline frame are thinner).
MIN_INK_PT = 3.0
# White kept around the inked region: tesseract wants a margin to find the first and last lines.
INK_MARGIN_PT = 12.0


def ocr_page(page: pdfium.PdfPage, lang: str, *, dpi: int = OCR_DPI) -> list[OcrWord]:
    """The words of one page read by tesseract in language(s) `lang` (see `languages_for`).
    Raises OcrError when the engine fails; an empty list means it found no text.

    Only the inked part of the page is read (its bounding box and a margin): tesseract's time grows
    with the image, and nearly blank pages (a rule, a logo) are common in filings. A page with no
    ink, or ink too thin to be text, is not given to the engine at all."""
    exe = executable()
    if exe is None:
        raise OcrError(f"no OCR engine: {INSTALL_HINT}")
    image = _render(page, dpi)
    crop = ink_box(image, dpi)
    if crop is None:
        return []
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    command = [exe, "stdin", "stdout", "-l", lang, "--dpi", str(dpi), "--psm", "3", "tsv"]
    try:
        done = subprocess.run(
            command,
            input=_pgm(image.crop(crop)),
            capture_output=True,
            timeout=PAGE_TIMEOUT_S,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as e:
        raise OcrError(f"tesseract took more than {PAGE_TIMEOUT_S} s on one page") from e
    except OSError as e:
        raise OcrError(f"tesseract could not be started ({e.strerror})") from e
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise OcrError(f"tesseract failed (exit {done.returncode}: {detail[0][:200]})")
    return words_from_tsv(done.stdout.decode("utf-8", "replace"), 72.0 / dpi, origin=crop[:2])


def ink_box(image: Image.Image, dpi: int) -> tuple[int, int, int, int] | None:
    """The part of a grayscale page image worth reading: the bounding box of everything not white,
    widened by INK_MARGIN_PT and clipped to the page; None when there is no ink, or the ink is
    thinner than MIN_INK_PT in either direction."""
    box = ImageOps.invert(image).getbbox()  # the box of the non-zero pixels, i.e. of the non-white ones
    if box is None:
        return None
    left, top, right, bottom = box
    thinnest = MIN_INK_PT * dpi / 72.0
    if right - left < thinnest or bottom - top < thinnest:
        return None
    margin = round(INK_MARGIN_PT * dpi / 72.0)
    width, height = image.size
    return (
        max(0, left - margin),
        max(0, top - margin),
        min(width, right + margin),
        min(height, bottom + margin),
    )


def _render(page: pdfium.PdfPage, dpi: int) -> Image.Image:
    """The page as a grayscale image."""
    bitmap = page.render(scale=dpi / 72.0, grayscale=True)
    try:
        return bitmap.to_pil().convert("L")
    finally:
        bitmap.close()


def _pgm(image: Image.Image) -> bytes:
    """A binary PGM (P5): quick to write, read by tesseract's leptonica."""
    buffer = io.BytesIO()
    image.save(buffer, format="PPM")  # mode L is written as binary PGM
    return buffer.getvalue()


_TSV_FIELDS = 12  # level page block par line word left top width height conf text


def words_from_tsv(tsv: str, scale: float, origin: tuple[int, int] = (0, 0)) -> list[OcrWord]:
    """Tesseract's TSV rows of level 5 (words) as OcrWords; pixel boxes times `scale` give points.
    `origin`: where the image tesseract read starts on the page, in pixels (a crop's top-left corner).
    Words that tesseract split but the page prints as one run are joined (see `_join_cjk`)."""
    rows: list[tuple[tuple[int, int, int], OcrWord]] = []
    for line in tsv.splitlines():
        parts = line.split("\t")
        if len(parts) < _TSV_FIELDS or parts[0] != "5":  # the header and the page/block/line rows
            continue
        text = "\t".join(parts[11:]).strip()
        try:
            left, top, width, height = (int(p) for p in parts[6:10])
            left, top = left + origin[0], top + origin[1]
            conf = float(parts[10])
        except ValueError:
            continue
        if not text or conf < 0:
            continue
        key = (int(parts[2]), int(parts[3]), int(parts[4]))  # block, paragraph, line
        word = OcrWord(
            text, left * scale, top * scale, (left + width) * scale, (top + height) * scale, round(conf, 1)
        )
        rows.append((key, word))
    return _join_cjk(rows)


# Ideographs and the CJK and full-width punctuation printed between them ("、", "，", "（元）").
_CJK_CHAR = f"[{CJK_RANGES}\u3000-\u303f\uff00-\uffef]"
_CJK_END = re.compile(f"{_CJK_CHAR}$")
_CJK_START = re.compile(f"^{_CJK_CHAR}")
# A digit group cut at its separator: tesseract's chi_sim model reads "7,176,243.45" as "7," "176," "243.45".
_GROUP_END = re.compile(r"\d[,.，]$")
_DIGIT_START = re.compile(r"^\d")


def _glued(prev: OcrWord, word: OcrWord) -> bool:
    """Whether tesseract split what the page prints as one run: Chinese beside Chinese with a gap under
    half a character height, or a number's digit groups under one height apart (tesseract leaves ~0.7 of
    a height after a separator; table columns stand two heights apart or more)."""
    gap = word.x0 - prev.x1
    height = max(prev.bottom - prev.top, word.bottom - word.top)
    if _CJK_END.search(prev.text) and _CJK_START.search(word.text):
        return gap < 0.5 * height
    return bool(_GROUP_END.search(prev.text) and _DIGIT_START.search(word.text)) and gap < height


def _join_cjk(rows: list[tuple[tuple[int, int, int], OcrWord]]) -> list[OcrWord]:
    """Tesseract's chi_sim model splits a Chinese label into several 'words' ("营业 收入") and a number at
    its separators ("7, 176, 243. 45"); the text layer has each as one run. Join neighbours of one
    tesseract line that `_glued` says belong together; the joined word keeps the lower confidence."""
    out: list[OcrWord] = []
    last_key: tuple[int, int, int] | None = None
    for key, word in rows:
        prev = out[-1] if out else None
        if prev is not None and key == last_key and _glued(prev, word):
            out[-1] = OcrWord(
                prev.text + word.text,
                prev.x0,
                min(prev.top, word.top),
                word.x1,
                max(prev.bottom, word.bottom),
                min(prev.conf, word.conf),
            )
        else:
            out.append(word)
        last_key = key
    return out
