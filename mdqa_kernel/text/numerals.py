"""Chinese numerals as questions and pages write them: 三, 两, 十五, 六十, 百.

One table of digits and one converter for the planner (counts, thresholds, "百分之六十") and the
label normaliser (list numbering "一、", "(二)"). Only what the texts use: units up to 百, no 千/万
(amounts are printed in Arabic digits; scale words such as 万元 are in `values`).
"""

from __future__ import annotations

import re

CN_DIGITS: dict[str, int] = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
                             "七": 7, "八": 8, "九": 9}  # fmt: skip
"""The digit characters and their values (两 is 2 in counts: "两家", "两倍")."""

NUMBERING_CHARS = "一二三四五六七八九十"
"""The numerals of list numbering ("一、", "（十）"), for a regex character class."""
COUNT_CHARS = "一二两三四五六七八九十"
"""The numerals of a count in a question ("前三", "两倍", "五个方面"), for a regex character class."""
NUMERAL_CHARS = "".join(CN_DIGITS) + "十百"
"""Every character `cn_number` reads, for a regex character class."""

_ARABIC = re.compile(r"\d+(?:\.\d+)?")


def cn_number(text: str) -> float | None:
    """'六十' -> 60, '三十五' -> 35, '十' -> 10, '八' -> 8, '12.5' -> 12.5; None for anything else."""
    if _ARABIC.fullmatch(text):
        return float(text)
    if not text or any(ch not in CN_DIGITS and ch not in "十百" for ch in text):
        return None
    if text == "百":
        return 100.0
    if "十" in text:
        tens, _, ones = text.partition("十")
        return float((CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (CN_DIGITS.get(ones, 0) if ones else 0))
    return float(CN_DIGITS[text]) if len(text) == 1 else None
