"""What an analyst's question asks of its answer's form: the unit's scale ("in USD millions"), the
rounding ("round to two decimal places") and whether it wants a percentage. Shared by the planner of
statement questions (plan/analyst.py) and the numeric judge, so both read a question the same way."""

from __future__ import annotations

import re

SCALE_WORDS = {
    "thousand": 1e3, "thousands": 1e3, "k": 1e3,
    "million": 1e6, "millions": 1e6, "mn": 1e6, "mm": 1e6, "m": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9,
    "trillion": 1e12, "trillions": 1e12,
}  # fmt: skip
WORD_NUMBERS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

_DECIMALS = re.compile(
    r"round(?:ed|ing)?\b[^.?]*?\bto\s+(?:the\s+)?(?:nearest\s+)?(\w+)\s+decimal(?:\s+places?|s)?", re.I
)
_QUESTION_UNIT = re.compile(
    r"\b(?:in|of)\s+(?:units\s+of\s+)?(?:USD|U\.?S\.?\s*dollars?|US\$|\$|dollars?)\s*(thousands?|millions?|billions?)\b"
    r"|\b(?:USD|US\$)\s*(thousands?|millions?|billions?)\b",
    re.I,
)
_PERCENT = re.compile(r"%|\bpercent(?:age|s)?\b", re.I)


def asked_scale(question: str) -> float:
    """The scale of the unit the question asks for ("in USD millions": 1e6), 1 when none."""
    m = _QUESTION_UNIT.search(question)
    if not m:
        return 1.0
    return SCALE_WORDS[(m.group(1) or m.group(2)).lower()]


def asked_decimals(question: str) -> int | None:
    """Decimal places the question asks the answer rounded to, None when it asks none."""
    m = _DECIMALS.search(question)
    if not m:
        return None
    word = m.group(1).lower()
    if word.isdigit():
        return int(word)
    return WORD_NUMBERS.get(word)


def asks_percent(text: str) -> bool:
    """The text names a percentage ("as a % of", "in units of percents", "percentage")."""
    return bool(_PERCENT.search(text))
