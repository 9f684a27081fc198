"""Fonts for rendering. Chinese text uses an embedded TrueType CJK font (WenQuanYi Micro Hei from
the Debian package fonts-wqy-microhei): reportlab's built-in CID font STSong-Light is not embedded
and some punctuation (·) did not come back from pdfplumber. Without the package we fall back to the
CID font with a warning, so rendering still works, with slightly weaker text round trips. A benchmark
corpus must not silently change with the machine's fonts, so the benchmarks render with
`strict_fonts=True`, which calls `require_cjk_truetype()` first."""

from __future__ import annotations

import os
import warnings
from functools import cache
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFont

from mdqa_kernel.errors import MdqaError

CJK_FONT_CANDIDATES: tuple[tuple[str, int], ...] = (
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
    ("/usr/share/fonts/truetype/arphic/uming.ttc", 0),
)
CJK_FONT = "MdqaCJK"
LATIN_FONT = "Times-Roman"
LATIN_BOLD = "Times-Bold"
SANS_BOLD = "Helvetica-Bold"


def _cjk_truetype() -> tuple[str, int] | None:
    """The first installed CJK TrueType font (path, subfont index), if any."""
    return next(((path, index) for path, index in CJK_FONT_CANDIDATES if Path(path).exists()), None)


class MissingFontError(MdqaError, RuntimeError):
    """The embedded CJK font a benchmark corpus is rendered with is not installed."""


def require_cjk_truetype() -> None:
    """Refuse to render a benchmark corpus with the fallback font (its text round trips differ).

    MDQA_ALLOW_CID_FONT=1 renders anyway, for a machine where the font cannot be installed.
    """
    if os.environ.get("MDQA_ALLOW_CID_FONT") == "1":
        return
    if _cjk_truetype() is None:
        raise MissingFontError(
            "no embedded CJK TrueType font: benchmark documents rendered without it read back differently, "
            "so their figures would not compare with published ones. Install it with `make sysdeps` "
            "(apt-get install fonts-wqy-microhei), or set MDQA_ALLOW_CID_FONT=1 to render with the "
            "non-embedded STSong-Light anyway."
        )


@cache
def cjk_font() -> str:
    """Register and return the CJK font name (embedded TrueType when available)."""
    found = _cjk_truetype()
    if found is not None:
        pdfmetrics.registerFont(TTFont(CJK_FONT, found[0], subfontIndex=found[1]))
        return CJK_FONT
    warnings.warn(
        "no CJK TrueType font found (apt-get install fonts-wqy-microhei); using the non-embedded "
        "CID font STSong-Light",
        stacklevel=2,
    )
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    return "STSong-Light"


def fonts_for(language: str) -> tuple[str, str]:
    """(body font, heading font) for a document language."""
    if language == "zh":
        font = cjk_font()
        return font, font
    return LATIN_FONT, LATIN_BOLD
