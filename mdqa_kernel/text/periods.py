"""Periods: what a statement column covers, what a document reports, what a field asks for.

A table's numbers are chosen by period, never by position: the header text above a column ("Year Ended
December 31, 2023", "Three Months Ended June 30, 2023", "FY 2024-25 (Current Financial Year)", "本期发生额",
"年初至报告期末", "2022年12月31日") is parsed into a `Period`; the document's own period (`ReportPeriod`:
its fiscal year, the end date its cover page states, whether it is a quarterly report) places that
column in time; the field's description says which period it wants (`wanted_period`: the current one by
default, "prior fiscal year", "上年同期", "年初", "fiscal 2021", "three months" vs "nine months").
Whether a column holds the wanted period is `period_fit.fits`.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

from mdqa_kernel.text.numerals import CN_DIGITS
from mdqa_kernel.text.values import find_dates

YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
# "FY 2024-25", "2024-2025", "2024/25": a fiscal year across two calendar years, named by its end year.
_YEAR_RANGE = re.compile(r"(?<!\d)((?:19|20)\d\d)\s*[-–/]\s*(\d\d|(?:19|20)\d\d)(?!\d)")
_QUARTER = re.compile(r"(?:(?<=\d)|\b)Q([1-4])\b|\b([1-4])Q\b|第\s*([一二三四1-4])\s*季度", re.I)
# three-letter stems, in order
_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_RANGE_EN = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*(?:-|–|to|through)\s*"
    r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b",
    re.I,
)
_MONTH_RANGE_ZH = re.compile(r"(?<!\d)(1[0-2]|[1-9])\s*[-–—至~]\s*(1[0-2]|[1-9])\s*月")
_UNITS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_NUMBER_WORD = (
    r"(?:(?:twenty|thirty|forty|fifty)(?:[\s-]+(?:one|two|three|four|five|six|seven|eight|nine))?|{})".format(
        "|".join(sorted(_UNITS, key=len, reverse=True))
    )
)
# "Three Months Ended", "16 weeks ended", "Twenty-Eight Weeks": a span's length; a compound word is
# matched whole ("thirty-six weeks" is not six).
_SPAN_EN = re.compile(r"(?<![\w-])(\d{1,2}|" + _NUMBER_WORD + r")[\s-]+(months?|weeks?)\b", re.I)


def _count(word: str) -> int:
    """ "28", "twenty-eight", "Twenty Eight" -> 28."""
    if word.isdigit():
        return int(word)
    parts = re.split(r"[\s-]+", word.lower())
    return _TENS.get(parts[0], 0) + (_UNITS.index(parts[-1]) + 1 if parts[-1] in _UNITS else 0)


def _span_months(count: int, unit: str) -> int | None:
    """A span's length in months. Weeks are counted in fiscal quarters: 12-, 13- and 16-week quarters of
    4-4-5 and 16-12-12-12 years are all quarters, 24 to 28 weeks two of them, 36 to 40 three."""
    if unit.lower().startswith("month"):
        return count if 1 <= count <= 12 else None
    if not 4 <= count <= 53:
        return None  # "within two weeks" is no reporting period
    return 3 * round(count / 13) if count >= 12 else round(count * 12 / 52)


# "2019 Quarters" spanning "Fourth Third Second First": each column is one of the year's quarters
_QUARTER_WORDS = re.compile(
    r"\bquarters?\s+ended\b|\b(?:first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:quarter|qtr)\b|\bquarters\b",
    re.I,
)
# A list paired by position with another ("fiscal 2022 and 2021 … $5.0 and $4.4 billion, respectively").
RESPECTIVELY = re.compile(r"\brespectively\b", re.I)
# A month and day with no year ("Dec. 26", "March 31,"): a column's end date whose year is printed on
# another header line ("2015" spanning the four quarters below it).
# English month names, whole or abbreviated, as one alternation (no group)
MONTH_WORDS = (
    r"january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_MONTH_DAY = re.compile(rf"\b({MONTH_WORDS})\.?\s+([0-3]?\d)\b(?!\s*,?\s*(?:19|20)\d\d)", re.I)
_YEAR_WORDS = re.compile(
    r"\byears?\s+ended\b|\bfiscal\s+years?\b|\bfull[\s-]year\b|\bannual\b|\btwelve\s+months\b"
    r"|\bFY\s*'?(?:\d\d|(?:19|20)\d\d)\b",  # "FY23" beside "1H23": a year (a quarter's "Q1 FY23" says so first)
    re.I,
)
_YTD_WORDS = re.compile(r"year[\s-]to[\s-]date|\bytd\b|年初至报告期末|年初至本报告期末|年初至今", re.I)
# A change between periods ("增减", "% Change", "2023 vs. 2022") is no period of its own.
_CHANGE = re.compile(r"增减|变动|变化|比上年|比上期|同比|\bchange\b|\bvs\.?\b|\bvariance\b", re.I)
# A column that sums a programme's years ("Plan to Date", "Inception to date", "Cumulative total") holds no
# one period's value, whatever date it runs through. ("Cumulative translation adjustment" is a line item.)
_CUMULATIVE = re.compile(
    r"\b(?:plan|program|programme|project|inception|cumulative|total)[\s-]+to[\s-]+date\b"
    r"|\bsince\s+inception\b|\bcumulative\s+(?:total|amount|charges|costs)\b",
    re.I,
)

# Words of a header or a description that name a period relative to the report. Longest first: the
# first that occurs wins ("本报告期末" is the end of the period, "本报告期" the quarter of a quarterly
# report). Each: (word, offset in fiscal years, opening balance, span kind).
_RELATIVE_WORDS: tuple[tuple[str, int, bool, str | None], ...] = (
    ("年初至报告期末", 0, False, "ytd"),
    ("上年年末", -1, True, None),
    ("上年度末", -1, True, None),
    ("上年末", -1, True, None),
    ("上年同期", -1, False, None),
    ("上期末", -1, True, None),
    ("上期", -1, False, None),
    ("上年度", -1, False, None),
    ("上年", -1, False, None),
    ("年初", -1, True, None),
    ("期初", -1, True, None),
    ("本报告期末", 0, False, None),
    ("本报告期", 0, False, "quarter"),
    ("本期末", 0, False, None),
    ("本期", 0, False, None),
    ("本年末", 0, False, None),
    ("本年度", 0, False, None),
    ("本年", 0, False, None),
    ("期末", 0, False, None),
    # the prior year's opening balance: the closing balance two years before the report's
    *(
        (f"{start} of the {rel} {year}", -2, True, None)
        for start in ("beginning", "start")
        for rel in ("prior", "previous")
        for year in ("fiscal year", "year")
    ),
    ("beginning of the fiscal year", -1, True, None),
    ("beginning of fiscal year", -1, True, None),
    ("beginning of the year", -1, True, None),
    ("beginning of year", -1, True, None),
    ("beginning of the period", -1, True, None),
    ("beginning of period", -1, True, None),
    ("start of the fiscal year", -1, True, None),
    ("start of the year", -1, True, None),
    ("opening balance", -1, True, None),
    # the prior fiscal year's closing balance: in a quarterly report the comparative year-end column,
    # not the balance a year before the quarter's end
    ("end of the previous fiscal year", -1, True, None),
    ("end of the prior fiscal year", -1, True, None),
    ("end of the previous year", -1, True, None),
    ("end of the prior year", -1, True, None),
    ("previous fiscal year end", -1, True, None),
    ("prior fiscal year end", -1, True, None),
    ("prior fiscal year-end", -1, True, None),
    ("prior year end", -1, True, None),
    ("prior year-end", -1, True, None),
    *(
        (f"{n} {unit} {rel}", -k, False, None)
        for k, n in ((1, "one"), (1, "a"), (2, "two"), (3, "three"), (4, "four"))
        for unit in (("year",) if k == 1 else ("years",))
        for rel in ("before", "prior", "earlier", "ago")
    ),
    ("year-ago", -1, False, None),
    ("year ago", -1, False, None),
    ("previous financial year", -1, False, None),
    ("previous fiscal year", -1, False, None),
    ("prior financial year", -1, False, None),
    ("prior fiscal year", -1, False, None),
    ("previous year", -1, False, None),
    ("prior year", -1, False, None),
    ("last year", -1, False, None),
    ("preceding year", -1, False, None),
    ("previous period", -1, False, None),
    ("prior period", -1, False, None),
    # a schedule's future years ("principal maturing in the first fiscal year after the report"): never the
    # report's own year
    *(
        (f"{nth} fiscal year after", k, False, None)
        for k, nth in ((1, "first"), (2, "second"), (3, "third"), (4, "fourth"), (5, "fifth"))
    ),
    ("fiscal year after the report", 1, False, None),
    ("next fiscal year", 1, False, None),
    ("following fiscal year", 1, False, None),
    ("current financial year", 0, False, None),
    ("current fiscal year", 0, False, None),
    ("current year", 0, False, None),
    ("this year", 0, False, None),
    ("current period", 0, False, None),
    ("reporting period", 0, False, None),
)


@dataclass(frozen=True)
class Period:
    """A period as a header or a description names it; every part optional."""

    year: int | None = None  # the fiscal year named ("2023", "FY 2024-25" → 2025, "2022年度")
    end: dt.date | None = None  # the period's end date ("December 31, 2022", "2022年12月31日")
    months: int | None = None  # its length: 3 a quarter, 6 / 9 year-to-date, 12 a year
    span: str | None = None  # "quarter" | "ytd" | "year" when a word says so ("本报告期", "YTD")
    offset: int | None = None  # relative to the report: 0 current, -1 prior ("本期", "上年同期")
    opening: bool = False  # the balance at the start of the year ("年初", "期初", "上年末")
    change: bool = False  # a change between periods ("增减", "% Change"): never a period's value
    point: bool = False  # a balance at a date ("本报告期末", "June 30, 2023" with no span), not a flow
    month_day: tuple[int, int] | None = None  # "Dec. 26" with no year anywhere in the header
    cumulative: bool = False  # a total over several years ("Plan to Date", "Cumulative"): no one period
    quarter: int | None = None  # which quarter of its fiscal year ("Q4", "4th Quarter", "第四季度")

    @property
    def named(self) -> bool:
        return (
            self.change
            or self.cumulative
            or any(
                v is not None
                for v in (
                    self.year,
                    self.end,
                    self.months,
                    self.span,
                    self.offset,
                    self.month_day,
                    self.quarter,
                )
            )
        )


@dataclass(frozen=True)
class ReportPeriod:
    """The period a document reports: its fiscal year, its end date, quarterly or not."""

    year: int | None = None
    end: dt.date | None = None
    quarterly: bool = False
    quarter: int | None = None  # 1..4 of a quarterly report, when known
    # How sure the year's number is as the filing's own tables print it: below 1 when the year ends in
    # January and the filing says only loosely, or not at all, what it calls that year (a bare "2022"
    # over a column may be the report's year or the one before: `text.fiscal_names`).
    year_named: float = 1.0


def period_text(text: str) -> str:
    """A text as period words are matched in: NFKC, spaces collapsed, none between Chinese characters."""
    t = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()
    return re.sub(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])", "", t)  # "上年 同期" as one word


def fiscal_year_of(day: dt.date) -> int | None:
    """The fiscal year a year-end date names: the calendar year it ends in; None for a 52/53-week year
    that ends in January or the first days of February, which companies name either way (one retailer's
    "fiscal 2022" ends January 28, 2023, another's "fiscal 2023" does): only the dates can be compared."""
    return None if day.month == 1 or (day.month == 2 and day.day <= 7) else day.year


_FY_SHORT = re.compile(r"\bFY\s*'?(\d{2})(?:\s*[-–/]\s*(\d{2}))?(?!\d)", re.I)  # "FY24", "FY 24-25"
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b", re.I)  # "31st March, 2025"
_DMY_DOTS = re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.((?:19|20)\d\d)(?![\d.])")  # "31.03.2025"
_SLASHED = re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})/((?:19|20)\d\d)(?![\d/])")  # "12/31/2022"


def dates_in(text: str) -> list[dt.date]:
    """The dates a text prints, ordinals ("31st March, 2025"), "31.03.2025" and "3/25/2023" included."""
    t = _ORDINAL.sub("", text)
    found = [d for d, _, _ in find_dates(t)]
    for m in _DMY_DOTS.finditer(t):
        if (day := date_or_none(int(m.group(3)), int(m.group(2)), int(m.group(1)))) is not None:
            found.append(day)
    found += [d for m in _SLASHED.finditer(t) if (d := _slashed_date(*map(int, m.groups()))) is not None]
    return found


def _slashed_date(first: int, second: int, year: int) -> dt.date | None:
    """ "12/31/2022" (month first) or "31/12/2022" (day first): the order is known only when one of the two
    is over 12; "3/4/2023" may be either and names no date."""
    if first > 12 >= second:
        return date_or_none(year, second, first)
    if second > 12 >= first:
        return date_or_none(year, first, second)
    return date_or_none(year, first, second) if first == second else None


def _years(text: str) -> tuple[list[int], str]:
    """The years a text names (a two-year range counts as its end year), and the text without them."""
    found: list[int] = []

    def take_short(m: re.Match[str]) -> str:
        found.append(2000 + int(m.group(2) or m.group(1)))
        return " "

    text = _FY_SHORT.sub(take_short, text)

    def take_range(m: re.Match[str]) -> str:
        start, end = int(m.group(1)), m.group(2)
        end_year = int(end) if len(end) == 4 else (start // 100) * 100 + int(end)
        if end_year != start + 1:
            return m.group(0)  # "2022-23" only; "2021-2023" is a list
        found.append(end_year)
        return " "

    rest = _YEAR_RANGE.sub(take_range, text)
    found += [int(y) for y in YEAR.findall(rest)]
    return found, YEAR.sub(" ", rest)


# "Q4", "4Q", "第四季度", "Fourth Quarter", "Fourth-Quarter" (earnings releases), "4th Qtr", "Quarter 4th" (a
# spanning "Quarter" stacked over "4th")
_QUARTER_ORDINAL = re.compile(
    r"\b(?P<a>first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:fiscal\s+)?(?:quarter|qtr)\b"
    r"|\b(?:quarter|qtr)\.?\s+(?P<b>first|second|third|fourth|1st|2nd|3rd|4th)\b",
    re.I,
)
ORDINAL_QUARTER = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


def _quarter_number(t: str) -> int | None:
    """Which quarter of the year a text names, when it names exactly one."""
    found: set[int] = set()
    for m in _QUARTER.finditer(t):
        g = next(x for x in m.groups() if x)
        found.add(CN_DIGITS.get(g) or int(g))
    for m in _QUARTER_ORDINAL.finditer(t):
        found.add(ORDINAL_QUARTER[(m.group("a") or m.group("b")).lower()])
    return found.pop() if len(found) == 1 else None


def _months(t: str) -> tuple[int | None, str | None]:
    """(length in months, span word) a text names: "Three Months Ended", "Jan-Sep", "1-9月", "Q3"."""
    if _SECOND_HALF in t:
        return 6, "h2"
    m = _SPAN_EN.search(t)
    if m:
        months = _span_months(_count(m.group(1)), m.group(2))
        # "year to date (e.g. six months)": the words name the span, the length is an example
        return months, "ytd" if _YTD_WORDS.search(t) else None
    m = _MONTH_RANGE_EN.search(t)
    if m:
        a, b = (_MONTH_NAMES.index(g.lower()[:3]) for g in m.groups())
        return (b - a) % 12 + 1, None
    m = _MONTH_RANGE_ZH.search(t)
    if m:
        return (int(m.group(2)) - int(m.group(1))) % 12 + 1, None
    if _YTD_WORDS.search(t):
        return None, "ytd"
    if _QUARTER_WORDS.search(t) or _QUARTER.search(t) or _QUARTER_ORDINAL.search(t) or "季度" in t:
        return 3, None
    if _YEAR_WORDS.search(t) or re.search(r"\d{4}\s*年度|全年|年度", t):
        return 12, None
    return None, None


# Compact period codes of earnings releases and banks' supplements: "1Q23", "Q1'23", "1Q 2023", "Q1-23",
# "1H23", "H1 2023". A two-digit year is joined to its code or marked ("Q1 23" is no code).
_CODE_YEAR = r"(?:\s*['’‘]\s*|-)?(?:(?P<y2>\d\d)|\s*(?P<y4>(?:19|20)\d\d))(?![\d.,%])"
_QUARTER_CODE = re.compile(r"(?<![\w.])(?:(?P<a>[1-4])Q|Q(?P<b>[1-4]))" + _CODE_YEAR, re.I)
_HALF_CODE = re.compile(
    r"(?<![\w.])(?:(?P<a>[12])H|H(?P<b>[12]))" + _CODE_YEAR + r"|\b(?P<w>first|second|1st|2nd)[\s-]+half\b",
    re.I,
)


# A year's second half is no year to date: a span of its own, which fits only a field asking it.
_SECOND_HALF = "second-half"


def _expand_codes(t: str) -> str:
    """Spell compact codes out for the parser: "1Q23" as "Q1 2023", "1H23" and "first half" as six months
    ("H1 2023" alone would read as the year 2023)."""

    def year(m: re.Match[str]) -> str:
        return m.group("y4") or f"20{m.group('y2')}"

    def half(m: re.Match[str]) -> str:
        first = (m.group("a") or m.group("b") or m.group("w")[0]).lower() in "1f"
        return (" six months " if first else f" {_SECOND_HALF} ") + ("" if m.group("w") else year(m) + " ")

    t = _QUARTER_CODE.sub(lambda m: f" Q{m.group('a') or m.group('b')} {year(m)} ", t)
    return _HALF_CODE.sub(half, t)


def parse_period(text: str) -> Period:
    """The period a column header (its stacked lines) or a field description names."""
    t = _expand_codes(period_text(text))
    low = t.lower()
    offset: int | None = None
    opening = False
    span: str | None = None
    word = ""
    hits = [
        (low.find(w), -len(w), w, off, opens, kind) for w, off, opens, kind in _RELATIVE_WORDS if w in low
    ]
    if hits:
        # the word printed first names the column ("本报告期比上年同期增减" is about 本报告期)
        _pos, _len, word, offset, opening, span = min(hits)
    dates = dates_in(t)
    years, _rest = _years(t)
    months, span_word = _months(t)
    span = span or span_word
    change = bool(_CHANGE.search(t)) or len(set(years)) > 1 or len(set(dates)) > 1
    if opening:
        months = None  # "上年度末" is a point: the prior year's closing balance
    end = dates[0] if len(set(dates)) == 1 else None
    year = years[0] if len(set(years)) == 1 else None
    month_day = month_and_day(t) if not dates else None
    if month_day is not None and year is not None:
        # "2015" above "Dec. 26": one date, printed on two header lines
        end, month_day = date_or_none(year, *month_day), None
    if end is not None and year == end.year:
        year = None  # the date's own year: the date says more
    point = (
        opening
        or (word.endswith("末") and span is None)
        or (end is not None and months is None and span is None)
    )
    cumulative = bool(_CUMULATIVE.search(t))
    quarter = _quarter_number(t) if months == 3 else None
    return Period(year, end, months, span, offset, opening, change, point, month_day, cumulative, quarter)


def month_and_day(text: str) -> tuple[int, int] | None:
    """(month, day) of the one month-and-day a text names without a year; None for none or several."""
    found = {
        (_MONTH_NAMES.index(m.group(1).lower()[:3]) + 1, int(m.group(2)))
        for m in _MONTH_DAY.finditer(text)
        if 1 <= int(m.group(2)) <= 31
    }
    return found.pop() if len(found) == 1 else None


def date_or_none(year: int, month: int, day: int) -> dt.date | None:
    """The date; None for no such month or day."""
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


# A period a field description names besides its line item ("Net income, prior fiscal year", "上期净利润"):
# taken off before the description is matched against row labels.
_PERIOD_PHRASE_EN = re.compile(
    r"[,;]?\s*\b(?:(?:for|in|of|during|at|as\s+of)\s+)?(?:the\s+)?"
    r"(?:(?:prior|previous|preceding|last|current|this)\s+(?:fiscal\s+|financial\s+)?(?:year|period|quarter)"
    r"|beginning\s+of\s+(?:the\s+)?(?:fiscal\s+)?year|(?:three|six|nine|twelve|3|6|9|12)\s+months"
    r"|year[\s-]to[\s-]date|ytd|fiscal\s+(?:year\s+)?(?:19|20)\d\d|fiscal(?:\s+year)?\s*$)\b.*$",
    re.I,
)
_PERIOD_PREFIX_ZH = re.compile(
    r"^(?:上年同期|上年年末|上年度末|上年末|上年度|上年|上期末|上期|本报告期末|本报告期|本期末|本期|本年度|"
    r"年初至报告期末)的?"
)


def strip_period_words(text: str) -> str:
    """A description without the period it names ("Net sales prior fiscal year" → "Net sales"); the
    text itself when nothing else would be left."""
    t = _PERIOD_PHRASE_EN.sub("", text).strip()
    zh = _PERIOD_PREFIX_ZH.sub("", t)
    t = zh if len(zh) >= 2 else t
    return t if len(t) >= 2 else text


# -- the document's period ------------------------------------------------------------------------

_COVER_END = re.compile(
    r"for\s+the\s+(?P<kind>(?:fiscal|financial)\s+year|year|quarterly\s+period|quarter|"
    r"(?:three|six|nine)[\s-]+months?|period)\s+ended\s*:?\s*(?P<date>[^\n]{6,40})",
    re.I,
)
_COVER_ZH = re.compile(r"(?P<y>\d{4})\s*年\s*(?P<kind>第[一二三四1-4]季度|半年度|年度)报告")
# An earnings release states its quarter in its headline ("2023 Second-Quarter reported sales",
# "Reports First-Quarter 2023 Results", "Fourth Quarter Fiscal 2022 Results", "Q2 2023"), not in a
# "for the quarterly period ended" line; only the first lines are looked at, where the headline is.
_HEADLINE_QUARTER = re.compile(
    r"\b(?P<word>first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+quarter\b"
    r"|\bQ(?P<digit>[1-4])\b(?=\s*(?:FY\s*)?'?\d{2,4}\b)",
    re.I,
)
_HEADLINE_CHARS = 600
_ANNUAL_DOCTYPE = re.compile(r"10-?k|annual|年度|年报|20-?f|40-?f", re.I)


def report_period(metadata: dict[str, Any], cover: str) -> ReportPeriod:
    """The document's period from its metadata (year "2023", "FY2024-25", "2025Q3"; doctype) and its
    cover text ("For the fiscal year ended June 30, 2023", "For the quarterly period ended …",
    "2025年第三季度报告"). The cover's end date wins; the metadata's year names the fiscal year."""
    meta_year = str(metadata.get("year") or "")
    doctype = str(metadata.get("doctype") or "").lower()
    years, _ = _years(meta_year)
    year = years[0] if years else None
    q = _QUARTER.search(meta_year)
    quarter = int(next(g for g in q.groups() if g)) if q and q.group(3) is None else None
    quarterly = bool(q) or bool(re.search(r"quarter|10-?q|季度", doctype))
    end: dt.date | None = None
    text = period_text(cover)
    m = _COVER_END.search(text)
    if m:
        head = _ORDINAL.sub("", m.group("date"))
        dates = dates_in(head)
        if dates and re.match(r"\W{0,2}\d|\W{0,2}[A-Za-z]{3}", head):
            end = dates[0]
            kind = m.group("kind").lower()
            quarterly = quarterly or kind.startswith(("quarter", "three", "six", "nine"))
    zh = _COVER_ZH.search(text)
    if zh:
        quarterly = quarterly or "季度" in zh.group("kind")
        year = year or int(zh.group("y"))
    if end is None and quarter is not None and year is not None and not doctype.startswith("10"):
        # "2025Q3" of a calendar-year filer (Chinese quarterly reports are): the quarter's last day
        end = dt.date(year, 3 * quarter, 30 if quarter in (2, 3) else 31)
    if not (m or zh or _ANNUAL_DOCTYPE.search(doctype)) and quarter is None:
        # a headline's quarter gives no end date: the filer's fiscal year need not be the calendar's
        headline = _HEADLINE_QUARTER.search(text[:_HEADLINE_CHARS])
        if headline:
            word = headline.group("word")
            quarter = ORDINAL_QUARTER[word.lower()] if word else int(headline.group("digit"))
            quarterly = True
    if year is None and end is not None and not quarterly:
        year = fiscal_year_of(end)  # a quarter's end date does not say which fiscal year it falls in
    return ReportPeriod(year, end, quarterly, quarter)


# "Six Months Ended June 30", "Twenty-Six Weeks Ended\nJuly 29," (a header stacked over its columns)
_SPAN_ENDED = re.compile(
    _SPAN_EN.pattern
    + r"\s+ended\s+(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*(?P<day>\d{1,2})\b",
    re.I,
)


def counted_quarter(text: str, end: dt.date) -> int | None:
    """The quarter a quarterly report's year to date counts: a six months' span ending on the report's
    end date is a second quarter's, nine months a third's. A quarterly report whose metadata and cover
    say only its end date ("For the quarterly period ended July 29, 2023") learns so which quarter of its
    fiscal year it is; None when no such span is printed, or spans of both lengths are."""
    found: set[int] = set()
    for m in _SPAN_ENDED.finditer(text):
        months = _span_months(_count(m.group(1)), m.group(2))
        if months not in (6, 9) or not _same_day_of_year(
            _MONTH_NAMES.index(m.group("mon").lower()) + 1, int(m.group("day")), end
        ):
            continue
        found.add(months // 3)
    return found.pop() if len(found) == 1 else None


def _same_day_of_year(month: int, day: int, end: dt.date) -> bool:
    """A month and day within a week of a date's, in any year (52/53-week years end a few days apart)."""
    for year in (end.year - 1, end.year, end.year + 1):
        try:
            if abs((dt.date(year, month, day) - end).days) <= 7:
                return True
        except ValueError:
            continue
    return False


# -- matching ----------------------------------------------------------------------------------------


_CHANGE_FIELD = re.compile(
    r"增减|变动|增长|同比|比上年|比上期|\bchange\b|\bgrowth\b|\bincrease|\bdecrease", re.I
)


# What a change is measured against: "from/over/compared with the prior year", "year-over-year", "比上年"
_CHANGE_BASE = re.compile(
    r"\b(?:from|over|compared|versus|vs\.?|against|relative\s+to|year[\s-]over[\s-]year|yoy)\b"
    r"|\bgrowth\b|增减|增长|同比|比上年|比上期",
    re.I,
)


# "(a decrease is negative)": how a sign is written, not a change asked; only that clause of the parenthesis
# ("(percentage change; a decrease is negative)" still asks the change)
_SIGN_CONVENTION = re.compile(r"(?<=[(;,])[^();,]*\b(?:negative|positive)\b[^();,]*(?=[);,])", re.I)


# 期初/期末/年初/年末 followed by a noun are part of a line item's name, not the period asked for.
_LINE_ITEM_POINT = re.compile(r"(?<![告本上])(?:期初|期末|年初|年末)(?!至)(?=[\u4e00-\u9fff])")


# "… at the end of the quarter (not the prior fiscal year end)": a period the description rules out
NEGATED = re.compile(r"\(?\b(?:not|rather than|instead of)\s+(?:the\s+|a\s+|an\s+)?[^,;()]*\)?", re.I)


# "for the quarter", not a balance "at the end of the quarter" (a year-to-date column's closing cash holds it)
_THE_QUARTER = re.compile(
    r"(?<!end of )(?<!close of )\b(?:the|this|its|a)\s+(?:fiscal\s+)?quarter\b(?![\s-]*(?:end|close)\b)", re.I
)


def wanted_period(description: str, report: ReportPeriod) -> Period:
    """The period a field asks for: what its description names, else the report's current period.

    A change ("营业收入比上年同期增减", "growth") is measured in the current period against the prior
    one: its "上年" names the base, not the period, and it may be read from a change column. A line item
    that is a change within its period ("Net increase in cash … for the prior fiscal year") names no base:
    its prior year is the period asked."""
    # "期初现金及现金等价物余额" is a line item of the current period, not the opening column; "(not the
    # prior fiscal year end)" says which period is not asked
    said = NEGATED.sub(" ", _LINE_ITEM_POINT.sub("", period_text(description)))
    want = parse_period(said)
    change = bool(_CHANGE_FIELD.search(_SIGN_CONVENTION.sub(" ", period_text(description))))
    if change and want.offset == -1 and _CHANGE_BASE.search(said):
        want = replace(want, offset=0, opening=False)
    want = replace(want, change=change)
    if want.months is None and want.span is None and not want.point and _THE_QUARTER.search(said):
        # a field "for the quarter" asks three months: never a 10-Q's year to date (a cash flow
        # statement prints only that); in a header or a sentence the word alone names no span
        want = replace(want, months=3)
    if want.offset is None and want.year is None and want.end is None:
        want = replace(want, offset=0)
    return want
