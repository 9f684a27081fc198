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


_UNITS: dict[str, int] = {"十": 10, "百": 100}


def cn_number(text: str) -> float | None:
    """'六十' -> 60, '三十五' -> 35, '十' -> 10, '八' -> 8, '一百二十' -> 120, '一百零五' -> 105,
    '12.5' -> 12.5; None for anything it cannot read ('二三十', '一百五', '千')."""
    if _ARABIC.fullmatch(text):
        return float(text)
    if not text or any(ch not in CN_DIGITS and ch not in _UNITS for ch in text):
        return None
    if len(text) == 1:
        return float(CN_DIGITS.get(text, _UNITS.get(text, 0)))
    value = _cn_units(text)
    return None if value is None else float(value)


def _cn_units(text: str) -> int | None:
    """A numeral of several characters: digits each followed by a smaller unit than the one before,
    a leading 十 standing for 一十, a 零 only where a unit is skipped (一百零五), and a last bare digit
    only after 十 or 零. Anything else (two digits in a row, 一百五, 十百) is not read (None)."""
    total, digit, last_unit, zero = 0, None, 1000, False
    for i, ch in enumerate(text):
        if ch in _UNITS:
            unit = _UNITS[ch]
            if unit >= last_unit or zero or (digit is None and not (i == 0 and ch == "十")):
                return None
            total += (1 if digit is None else digit) * unit
            digit, last_unit = None, unit
        elif digit is not None or (CN_DIGITS[ch] == 0 and (i == 0 or zero)):
            return None  # two digits in a row, or a 零 that skips nothing
        elif CN_DIGITS[ch] == 0:
            zero = True
        else:
            digit = CN_DIGITS[ch]
    if digit is None:
        return None if zero else total  # a trailing 零 ('一百零') is not a numeral
    if not (zero or last_unit == 10):
        return None  # '一百五' is shorthand for 150 in speech; too ambiguous to read
    return total + digit
