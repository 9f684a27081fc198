"""Printed values → typed values: numbers, scales, percentages, dates, booleans.

Every reader turns what a page prints ("(1,234.5)", "７，１７６", "12.6%", "2023年2月3日",
"in millions") into the field's type and unit through these functions (typing a value for a field
type is `fieldtypes.coerce`), so that the table reader, the LLM reader and the metrics agree on what
a value means.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

# -- scales ------------------------------------------------------------------------------------

# Multipliers of printed scale words. Longest first so that "千万元" wins over "万元".
SCALE_WORDS: tuple[tuple[str, float], ...] = (
    ("百万元", 1e6),
    ("千万元", 1e7),
    ("万亿元", 1e12),
    ("亿元", 1e8),
    ("万元", 1e4),
    ("千元", 1e3),
    ("百万", 1e6),
    ("千万", 1e7),
    ("亿", 1e8),
    ("万", 1e4),
    ("千", 1e3),
    ("元", 1.0),
    ("crores", 1e7),
    ("crore", 1e7),
    ("lakhs", 1e5),
    ("lakh", 1e5),
    ("billions", 1e9),
    ("billion", 1e9),
    ("millions", 1e6),
    ("million", 1e6),
    ("thousands", 1e3),
    ("thousand", 1e3),
    ("crores", 1e7),
    ("crore", 1e7),
    ("lakhs", 1e5),
    ("lakh", 1e5),
    ("lacs", 1e5),
    ("bn", 1e9),
    ("mn", 1e6),
    ("units", 1.0),
    ("dollars", 1.0),
    ("u.s. dollars", 1.0),
    ("unit", 1.0),
    ("lacs", 1e5),
    ("lac", 1e5),
    ("1", 1.0),
)
_SCALE_BY_WORD = dict(SCALE_WORDS)

# Unit declarations printed above or in a table: "单位：万元", "（单位：人民币千元）", "(in millions, except
# per share amounts)", "In thousands of U.S. dollars", "$ in millions", "(₹ in crore)", "(in Rs. lakhs)".
_UNIT_DECL_ZH = re.compile(
    r"单位\s*[:：]?\s*(?:人民币|美元|港币|港元)?\s*(百万元|千万元|万亿元|亿元|万元|千元|元)"
)
_SCALE_EN = r"(thousands|millions|billions|crores?|lakhs?|lacs?|dollars|u\.s\.\s+dollars|units)"
_SCALE_CURRENCY = r"(?:\$|₹|`|rs\.?|inr|usd|us\$|dollars|amounts?)"
# "(in millions, except …)", "$ in thousands", "₹ in crore", "Rs. in Lakhs", "(Amount in ₹ crore)"
_UNIT_DECL_EN = re.compile(
    rf"(?:\b|(?<=[$₹(]))(?:{_SCALE_CURRENCY}\s*)?in\s+(?:{_SCALE_CURRENCY}\s*)?{_SCALE_EN}\b",
    re.IGNORECASE,
)
# "(Millions)", "($ millions)", "(₹ crore)", "(Dollars in millions)"
_UNIT_PAREN_EN = re.compile(
    rf"[(（]\s*(?:{_SCALE_CURRENCY}\s*(?:in\s+)?)?(thousands|millions|billions|crores?|lakhs?|lacs)\b[^()（）]*[)）]",
    re.IGNORECASE,
)
# "(in millions, except per share data)": per-share amounts in that table are printed as they are
EXCEPT_PER_SHARE = re.compile(r"except\s+(?:for\s+)?(?:the\s+)?(?:share\s+and\s+)?per[\s-]+share", re.I)
_UNIT_SUFFIX_ZH = re.compile(r"[（(]\s*(?:人民币)?\s*(百万元|千万元|亿元|万元|千元|元)\s*[)）]")


def scale_factor(scale: Any) -> float:
    """A field's or a page's scale as a multiplier: 1, 1000, "万元", "thousands", "10,000 (万千瓦)"."""
    if scale is None or scale == "":
        return 1.0
    if isinstance(scale, (int, float)) and not isinstance(scale, bool):
        return float(scale) or 1.0
    text = str(scale).strip().lower()
    number = parse_number(text.split("(")[0])
    if number is not None and number > 0:
        return number
    for word, factor in SCALE_WORDS:
        if word in text:
            return factor
    raise ValueError(
        f"unknown scale {scale!r}; use a number (1000) or a word (千元, 万元, thousands, millions)"
    )


def _word_factor(word: str) -> float:
    w = re.sub(r"\s+", " ", word.strip().lower())
    return _SCALE_BY_WORD.get(w, 1.0 if "dollar" in w else _SCALE_BY_WORD.get(w.rstrip("s"), 1.0))


def _declarations(flat: str) -> Iterator[re.Match[str]]:
    """The first scale declaration of each kind in an NFKC text, in the order they are trusted."""
    for pattern in (_UNIT_DECL_ZH, _UNIT_SUFFIX_ZH, _UNIT_DECL_EN, _UNIT_PAREN_EN):
        m = pattern.search(flat)
        if m:
            yield m


def declared_scale(text: str) -> tuple[float, str] | None:
    """The scale a text declares ("单位：万元" → (1e4, "万元")), or None when it declares none."""
    m = next(_declarations(unicodedata.normalize("NFKC", text)), None)
    return (_word_factor(m.group(1)), m.group(1)) if m else None


def is_scale_caption(text: str) -> bool:
    """A line that is only a table's scale caption ("(In thousands)", "Amounts in millions", "单位：万元"):
    nothing but brackets or a currency sign before the declaration. "净利润（元）" is a label with its unit."""
    return _caption_declaration(unicodedata.normalize("NFKC", text).strip()) is not None


def _caption_declaration(flat: str) -> re.Match[str] | None:
    """The declaration that makes a stripped NFKC line a scale caption, or None."""
    return next((m for m in _declarations(flat) if not flat[: m.start()].strip(" ($₹（[-—:：")), None)


_SCALE_HINT = re.compile(r"thousand|million|billion|crore|lakh|[千万亿]", re.I)


def has_scaled_caption(texts: Iterable[str | None]) -> bool:
    """Whether page texts print a scale caption other than units ("(In millions)", "单位：万元") on a line
    of its own."""
    for text in texts:
        if not text or not _SCALE_HINT.search(text):
            continue
        for line in text.splitlines():
            if len(line) < 80 and _SCALE_HINT.search(line) and is_scale_caption(line):
                declared = declared_scale(line)
                if declared is not None and declared[0] != 1.0:
                    return True
    return False


# A filing-wide declaration, in force for every table that declares no scale of its own: "Unless otherwise
# noted, tabular dollars are presented in millions", "All amounts are in ₹ crore unless otherwise stated",
# "(Dollars in millions, unless otherwise indicated)". "Unless otherwise …" is what makes it standing: a
# table's own caption ("(in millions)") says nothing about the next table.
_AMOUNTS = r"(?:all\s+)?(?:tabular\s+)?(?:dollar\s+amounts|dollars|amounts|figures|\$)"
_PRESENTED = r"(?:are\s+|is\s+)?(?:presented\s+|stated\s+|expressed\s+|shown\s+|reported\s+)?in\s+(?:u\.s\.\s+)?(?:\$|₹|rs\.?)?\s*"
_UNLESS = (
    r"(?:unless|except\s+as|except\s+where)\s+otherwise\s+(?:noted|stated|indicated|specified|mentioned)"
    r"|unless\s+(?:noted|stated|indicated|specified|mentioned)\s+otherwise"
)
_STANDING = re.compile(
    rf"(?:{_UNLESS})[,;]?\s+{_AMOUNTS}\s+{_PRESENTED}(?P<a>millions|thousands|billions|crores?|lakhs?)\b"
    rf"|{_AMOUNTS}\s+{_PRESENTED}(?P<b>millions|thousands|billions|crores?|lakhs?)\b[^.;]{{0,60}}?(?:{_UNLESS})",
    re.IGNORECASE,
)


# The notes' opening heading with a caption under it: "Notes to the Consolidated Financial Statements /
# Years ended December 31, 2018, 2017 and 2016 / (Dollars in millions, except per share data)". The
# caption heads the whole notes section, not one table: later note pages print "$1,556" and mean millions.
# Only a period line may stand between them (no sentence, no other parenthesis but "(Unaudited)").
_NOTES_OPENING = re.compile(
    r"\bnotes\s+to\s+(?:the\s+)?(?:condensed\s+)?(?:consolidated\s+|combined\s+)?financial\s+statements\b"
    r"\s*(?:\(unaudited\))?[^.()]{0,80}?"
    r"\(\s*(?:(?:u\.s\.\s+)?(?:dollars|dollar\s+amounts|amounts|\$)\s+)?in\s+(?P<c>millions|thousands|billions)\b[^()]{0,60}\)",
    re.IGNORECASE,
)


def standing_scale(text: str) -> tuple[float, str] | None:
    """The scale a filing declares for all its tables unless a table says otherwise, or None."""
    low = text.lower()
    if "otherwise" not in low and "notes to" not in low:  # most pages: no declaration to look for
        return None
    flat = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text))
    m = _STANDING.search(flat)
    if m is not None:
        word = m.group("a") or m.group("b")
        return _word_factor(word), word
    m = _NOTES_OPENING.search(flat)
    if m is not None:
        return _word_factor(m.group("c")), m.group("c")
    return None


def last_declared_scale(text: str) -> tuple[float, str] | None:
    """The scale declared last in a text (the one in force at its end), or None."""
    best: tuple[int, float, str] | None = None
    for pattern in (_UNIT_DECL_ZH, _UNIT_DECL_EN, _UNIT_PAREN_EN):
        for m in pattern.finditer(unicodedata.normalize("NFKC", text)):
            if best is None or m.start() > best[0]:
                best = (m.start(), _word_factor(m.group(1)), m.group(1))
    return (best[1], best[2]) if best else None


# -- numbers -----------------------------------------------------------------------------------
#
# One grammar for every printed number (checked on the NFKC text, so full-width digits, commas and
# periods are ASCII already):
#   [currency] [( or minus] [currency] DIGITS [%] [)] [%] [points | scale word]
# DIGITS is grouped the Western way (1,234,567), the Indian way (1,23,45,678: groups of two before
# the last three) or not at all; any other grouping ("5,634,27", "12,34") is not a number, which is
# how a cell cut by a line wrap or two numbers run together are told from one number.

_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d{1,2}(?:,\d{2})+,\d{3}|\d+)(?:\.\d+)?|\.\d+"
# Currency signs, including how text extraction mangles the rupee sign: "`" or "H" right before a
# grouped amount ("` 85,12,14,381", "H1,234.56"); a bare "H" before an ungrouped number is a half
# year ("H1"), never a currency.
_CURRENCY = (
    r"(?:US\$|HK\$|A\$|C\$|S\$|[$¥€£₹`]|rs\.?|INR|RMB|USD|CNY|HKD|EUR|GBP"
    r"|(?-i:H)(?=\s?\d{1,3}(?:,\d{2,3})+))"
)
_MINUS = r"\-−–‐﹣－"  # escaped: it goes inside character classes
_POINTS = r"bps|bp|pp|p\.p\.|basis\s+points?|percentage\s+points?"
_SCALES_IN_CELL = (
    r"crores?|lakhs?|lacs?|billions?|millions?|thousands?|bn|mn|"
    r"百万元|千万元|万亿元|亿元|万元|千元|百万|千万|亿|万"
)
_NUMBER = re.compile(
    rf"(?<![A-Za-z0-9.,])(?P<cur0>{_CURRENCY})?\s*(?P<open>[(（])?\s*(?P<cur1>{_CURRENCY})?\s*"
    rf"(?P<sign>[+{_MINUS}])?\s*(?P<cur2>{_CURRENCY})?\s*(?P<num>{_DIGITS})(?![.,]?\d)"
    rf"(?P<pct1>\s*[%％])?(?(open)(?P<close>\s*[)）])?)(?P<pct2>\s*[%％])?"
    rf"(?:\s*(?P<points>{_POINTS})(?![A-Za-z])|\s*(?P<scale>{_SCALES_IN_CELL})(?![A-Za-z]))?",
    re.IGNORECASE,
)
# A token that is a number or a piece of one cut by a line wrap ("7,176,243," / "743.45", ",955.66"):
# what the layout treats as a numeric cell before joining the pieces and checking the grouping.
_NUMBER_SHAPE = re.compile(
    rf"^(?:{_CURRENCY})?[(（]?(?:{_CURRENCY})?[+{_MINUS}]?(?:{_CURRENCY})?"
    r"(?:\d[\d,]*(?:\.\d*)?|[,.]\d[\d,]*(?:\.\d+)?)[%％]?[)）]?[%％]?,?"
    rf"(?:{_POINTS}|crores?|lakhs?|mn|bn)?$",
    re.IGNORECASE,
)
ABSENT_TEXTS = frozenset(
    {
        "-",
        "—",
        "–",
        "−",
        "--",
        "——",
        "－",
        "/",
        "-%",
        "—%",
        "–%",
        "n/a",
        "na",
        "n.a.",
        "nil",
        "n/m",
        "nm",
        "不适用",
        "无",
    }
)
"""What a table prints in a cell that has no value (a dash for nil, "N/A", "不适用"): not a number,
but a column all the same."""


@dataclass(frozen=True)
class Number:
    """One printed number read by the grammar: its value and what the print says about it."""

    value: float  # negative for "(1,234)" and "-1,234"; 12.5 for "12.5%"
    start: int  # span of the number (sign, currency, parentheses, % included; a unit word after it not)
    end: int
    percent: bool = False  # "12.5%": a level in percent points
    points: str | None = None  # "bps" / "pp": a change in (basis) points, not a level
    scale_word: str | None = None  # a scale printed in the cell ("1,234 crore", "1,768万元")
    currency: str | None = None  # the sign as printed ("$", "₹", "`" for a mangled ₹)


def _number_of(m: re.Match[str]) -> Number | None:
    value = float(m.group("num").replace(",", ""))
    if (m.group("sign") or "+") != "+" or (m.group("open") and m.group("close")):
        value = -value
    points = m.group("points")
    points = None if points is None else ("bps" if points.lower().startswith(("bp", "basis")) else "pp")
    end = m.end("close") if m.group("close") else m.end("num")
    if m.group("pct1") or m.group("pct2"):
        end = max(end, m.end("pct1") if m.group("pct1") else 0, m.end("pct2") if m.group("pct2") else 0)
    currency = m.group("cur0") or m.group("cur1") or m.group("cur2")
    return Number(
        value,
        m.start(),
        end,
        percent=bool(m.group("pct1") or m.group("pct2")),
        points=points,
        scale_word=(m.group("scale") or "").lower() or None,
        currency=currency.strip() if currency else None,
    )


def clean_printed(text: str) -> str:
    """Printed text (a number, a label, a value) as plain text: NFKC (full-width digits, commas and
    letters become ASCII), whitespace collapsed. Case and punctuation stay (see `normalize.comparison_key`)."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def is_absent(text: str) -> bool:
    """A cell that prints "no value": a dash alone, "N/A", "nil", "不适用"."""
    return clean_printed(text).lower() in ABSENT_TEXTS


def read_number(text: str) -> Number | None:
    """The one number a printed cell holds, with what the print says about it (percent, points, a
    scale word, a currency sign); None for a dash, a word, two numbers or a malformed grouping."""
    s = clean_printed(text)
    if not s or is_absent(s):
        return None
    m = _NUMBER.fullmatch(s)
    return _number_of(m) if m else None


_DECIMALS = re.compile(r"\.(\d+)")


def decimal_places(printed: str) -> int:
    """The digits a printed figure shows after its decimal point ("1,234.56" → 2, "(3.5)" → 1, "7" → 0): the
    rounding a sum of such figures may be off by."""
    m = _DECIMALS.search(printed)
    return len(m.group(1)) if m else 0


def parse_number(text: str) -> float | None:
    """The number a printed cell holds: '1,234.5' '(1,234)' '-12%' '$3.00' '７，１７６' '85,12,14,381'
    '` 1,234' (a mangled ₹) → float.

    Parentheses and a leading minus make it negative; a percent sign is kept as percent points
    (12% → 12.0). Returns None for text that is not one plain number: dashes, words, two numbers, a
    malformed grouping ('1,234,56'), and a number with a unit that changes what it means ('120 bps',
    '1,234 crore': see `read_number`).
    """
    number = read_number(text)
    if number is None or number.points or number.scale_word:
        return None
    return number.value


@functools.lru_cache(maxsize=1 << 16)
def is_number_shaped(token: str) -> bool:
    """A word that is a number or a piece of one a line wrap cut ('7,176,243,', ',955.66', '5,634,27'):
    the layout's test for a numeric cell before the pieces are joined and the grouping is checked.
    Asked for every word of a table line, the same words over and over: cached (cleared with the
    label caches, `text.clear_caches`)."""
    norm = token if token.isascii() else unicodedata.normalize("NFKC", token)
    # every number shape holds a digit: a cheap test first, the grammar only for words that have one
    return _A_DIGIT.search(norm) is not None and _NUMBER_SHAPE.match(norm) is not None


_A_DIGIT = re.compile(r"\d")


def is_valid_grouping(token: str) -> bool:
    """True when the digits of a token are grouped correctly: Western ('5,634,274,230.28') or Indian
    ('85,12,14,381'); not '5,634,27' (a cell cut by a wrap) or '7,176,243,'."""
    return bool(_NUMBER.fullmatch(clean_printed(token)))


def numbers_in(text: str) -> list[Number]:
    """Every number of a text, left to right (see `Number`). A malformed grouping ('12,34') gives none."""
    norm = unicodedata.normalize("NFKC", text)
    out = []
    for m in _NUMBER.finditer(norm):
        number = _number_of(m)
        if number is not None:
            out.append(number)
    return out


def find_numbers(text: str) -> list[tuple[float, int, int, bool]]:
    """All numbers in a text as (value, start, end, is_percent), left to right."""
    return [(n.value, n.start, n.end, n.percent) for n in numbers_in(text)]


def to_field_scale(value: float, printed_scale: float, field_scale: float) -> float:
    """Convert a printed number to the field's scale (printed in 万元, field in 元 → ×10,000)."""
    converted = value * printed_scale / (field_scale or 1.0)
    # Undo binary noise from the multiplication (12.3 * 1e4 = 123000.00000000001).
    return float(f"{converted:.12g}")


# -- dates -------------------------------------------------------------------------------------

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}
_DATE_PATTERNS = (
    re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日"),
    re.compile(r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})"),
    re.compile(r"(?P<mn>[A-Za-z]{3,9})\.?\s+(?P<d>\d{1,2}),?\s+(?P<y>\d{4})"),
    re.compile(r"(?P<d>\d{1,2})\s+(?P<mn>[A-Za-z]{3,9})\.?,?\s+(?P<y>\d{4})"),
)


def find_dates(text: str) -> list[tuple[dt.date, int, int]]:
    """All dates in a text as (date, start, end): 2023年2月3日, 2023-02-03, February 3, 2023."""
    norm = unicodedata.normalize("NFKC", text)
    found: list[tuple[dt.date, int, int]] = []
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(norm):
            parts = m.groupdict()
            month = int(parts["m"]) if parts.get("m") else _MONTHS.get(parts["mn"].lower())
            if month is None:
                continue
            try:
                day = dt.date(int(parts["y"]), month, int(parts["d"]))
            except ValueError:
                continue
            if not any(s <= m.start() < e for _, s, e in found):
                found.append((day, m.start(), m.end()))
    return sorted(found, key=lambda t: t[1])


def parse_date(value: Any) -> dt.date | None:
    """A date from a date, an ISO string or any printed form find_dates knows; None otherwise."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value).strip()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        pass
    dates = find_dates(text)
    return dates[0][0] if dates else None


# -- storing ----------------------------------------------------------------------------------


def to_json_value(value: Any) -> Any:
    """A typed value as JSON (dates as ISO strings) for the store."""
    if isinstance(value, dt.date):
        return value.isoformat()
    return value
