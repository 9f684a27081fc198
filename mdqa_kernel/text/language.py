"""Which script a text is written in: the one CJK character class and the one zh/en detector.

`CJK_RANGES` covers the CJK Unified Ideographs (U+4E00–U+9FFF), Extension A (U+3400–U+4DBF) and the
Compatibility Ideographs (U+F900–U+FAFF): the widest of the ranges the code base used, so a rare
character in a company or person name (Extension A) or an un-normalised compatibility form counts as
Chinese everywhere alike. It leaves out the Yijing hexagram block between Extension A and the unified
block (U+4DC0–U+4DFF, symbols, not words), CJK punctuation and full-width forms.

`detect_language` is the question-level detector (answers, the planner); `parsing.pdf.guess_language`
is a different thing: a page's language among zh/ja/ko/en from character shares.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]

CJK_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""The ideograph ranges, to write inside a character class: rf"[{CJK_RANGES}A-Za-z]"."""
CJK = f"[{CJK_RANGES}]"
"""One CJK ideograph as a regex character class."""
CJK_RE = re.compile(CJK)


def is_cjk(ch: str) -> bool:
    """Whether one character is a CJK ideograph."""
    return CJK_RE.fullmatch(ch) is not None


def has_cjk(text: str) -> bool:
    """Whether any character of the text is a CJK ideograph."""
    return CJK_RE.search(text) is not None


def detect_language(text: str) -> Language:
    """'zh' when the text holds any CJK ideograph (a mixed question is Chinese), else 'en'."""
    return "zh" if has_cjk(text) else "en"
