"""What a filer calls a fiscal year that ends in January.

One retailer's "fiscal 2022" ends January 28, 2023; another's "fiscal 2023" does. A table headed by bare
years ("Fiscal 2022 | Fiscal 2021") is placed against the report only once the filing's own text says
which name its year carries: metadata naming the year by the calendar year it ends in is a guess there.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections import Counter
from dataclasses import replace

from mdqa_kernel.text.periods import MONTH_WORDS, RESPECTIVELY, ReportPeriod, dates_in

_YEAR = r"(?:19|20)\d\d"
_MONTH = rf"(?:{MONTH_WORDS})\.?"
_MONTH_DATE = rf"{_MONTH}\s+\d{{1,2}},?\s+{_YEAR}"
_NO_YEAR = rf"(?:(?!{_YEAR})[^.;()]){{0,40}}?"
_AND = r"\s*(?:,|and|&)\s*(?:and\s+)?"  # a list's separator: ", ", " and ", ", and "
_Q = r"[\"'“”‘’]?"  # an optional quotation mark: (“fiscal 2022”)
# "Fiscal 2022 ended January 28, 2023", "fiscal year 2022, which ended on January 28, 2023"; and "the 52
# weeks ended January 28, 2023 (“fiscal 2022”)". A list ("… ended January 28, 2023 and January 29,
# 2022, respectively") is read by `_respective_offsets`, which pairs its years and dates by position.
_FISCAL_ENDED = re.compile(
    rf"\bfiscal\s+(?:year\s+)?(?P<y>{_YEAR})\b{_NO_YEAR}\b(?:ended|ending|ends|will\s+end)\s+(?:on\s+)?"
    rf"(?P<d>{_MONTH_DATE})(?!{_AND}{_MONTH}\s+\d)",
    re.I,
)
_DATE_CALLED = re.compile(
    rf"(?<!and\s)(?P<d>{_MONTH_DATE})\s*[(,]\s*{_Q}\s*(?:our\s+|the\s+)?fiscal\s+(?:year\s+)?"
    rf"(?P<y>{_YEAR})\b",
    re.I,
)
# "fiscal 2022, 2021 and 2020", "fiscal years 2022 and 2021", "“fiscal 2022” and “fiscal 2021”"
_LIST_SEP = rf"{_Q}\s*(?:,|and|&)\s*{_Q}\s*(?:and\s+)?{_Q}\s*(?:fiscal\s+(?:years?\s+)?)?"
_FISCAL_LIST = re.compile(rf"\bfiscal\s+(?:years?\s+)?{_YEAR}\b(?:{_LIST_SEP}{_YEAR}\b)+", re.I)
_MONTH_DATES = re.compile(_MONTH_DATE, re.I)
_DATE_LIST = re.compile(rf"{_MONTH_DATE}(?:{_AND}{_MONTH_DATE})+", re.I)
_FISCAL_YEAR = re.compile(rf"\bfiscal\s+(?:year\s+)?({_YEAR})\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[a-z)])\.\s+(?=[A-Z])")
_LOOSE_SENTENCE_CHARS = 400

# A name read from a sentence that speaks of one fiscal year and one January date without saying the
# one ended on the other ("as of January 28, 2023, … net earnings in fiscal 2023"): likely, not stated.
NAMED_LOOSELY = 0.85
# A column placed by a bare year when the filing never says what it calls its year.
YEAR_UNNAMED = 0.45


def naming_varies(end: dt.date) -> bool:
    """Whether filers name a year ending on `end` differently. A year ending in the first days of January
    (the 52/53-week year closest to December 31: "fiscal 2022" ended January 1, 2023) is named for the
    year before; one ending later in January or in early February is named either way."""
    return (end.month == 1 and end.day > 7) or (end.month == 2 and end.day <= 7)


def needs_name(report: ReportPeriod) -> bool:
    """Whether the report's year is one filers name either way (an annual report ending in January)."""
    return not report.quarterly and report.end is not None and naming_varies(report.end)


def fiscal_naming(text: str) -> tuple[int, float] | None:
    """(offset, sureness): the filer's name for a year ending in January, relative to the calendar year
    it ends in ("Fiscal 2022 ended January 28, 2023" → -1; "fiscal 2023 ended January 28, 2023" → 0).
    Sure when a sentence says a fiscal year ended on such a date; `NAMED_LOOSELY` when sentences only
    speak of one fiscal year and one such date together; None when nothing pairs them or they disagree."""
    flat = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text))
    stated = _agreed(_stated_offsets(flat))
    if stated is not None:
        return stated, 1.0
    loose = _agreed(_loose_offsets(flat))
    return (loose, NAMED_LOOSELY) if loose is not None else None


def _stated_offsets(flat: str) -> list[int]:
    out = []
    for pattern in (_FISCAL_ENDED, _DATE_CALLED):
        for m in pattern.finditer(flat):
            dates = dates_in(m.group("d"))
            if dates and naming_varies(dates[0]):
                out.append(int(m.group("y")) - dates[0].year)
    return out + _respective_offsets(flat)


def _respective_offsets(flat: str) -> list[int]:
    """Offsets from lists paired by position: "Fiscal 2022 and 2021 ended January 28, 2023 and January 29,
    2022, respectively", or the dates first and the names after them. A clause counts only when it holds
    one list of fiscal years and one list of as many dates, and every pair gives the same offset."""
    out = []
    start = 0
    for end in RESPECTIVELY.finditer(flat):
        clause = flat[max(start, end.start() - _LOOSE_SENTENCE_CHARS) : end.start()]
        start = end.end()
        clause = _SENTENCE_END.split(clause)[-1]
        names, date_lists = _FISCAL_LIST.findall(clause), _DATE_LIST.findall(clause)
        if len(names) != 1 or len(date_lists) != 1:
            continue
        years = [int(y) for y in re.findall(_YEAR, names[0])]
        dates = [d for m in _MONTH_DATES.finditer(date_lists[0]) for d in dates_in(m.group())[:1]]
        if len(years) != len(dates) or not all(naming_varies(d) for d in dates):
            continue
        offsets = {y - d.year for y, d in zip(years, dates, strict=True)}
        if len(offsets) == 1:
            out.append(offsets.pop())
    return out


def _loose_offsets(flat: str) -> list[int]:
    """Offsets from short sentences naming exactly one fiscal year and one January date; years two or
    more apart from the date are other years spoken of (a lease due in fiscal 2025), not names."""
    out = []
    for sentence in _SENTENCE_END.split(flat):
        if len(sentence) > _LOOSE_SENTENCE_CHARS:
            continue  # a table run together with its caption, not a sentence
        years = set(_FISCAL_YEAR.findall(sentence))
        dates = {d for d in dates_in(sentence) if naming_varies(d)}
        if len(years) == 1 and len(dates) == 1:
            offset = int(years.pop()) - dates.pop().year
            if offset in (-1, 0):
                out.append(offset)
    return out


def _agreed(offsets: list[int]) -> int | None:
    counts = Counter(o for o in offsets if o in (-1, 0))
    return next(iter(counts)) if len(counts) == 1 else None


def named_report(report: ReportPeriod, naming: tuple[int, float] | None) -> ReportPeriod:
    """The report's period with its year as the filing names it: a year ending in January takes the
    filing's own name ("fiscal 2022" for the year ended January 28, 2023), whatever the metadata says,
    and how sure that name is; with no name found, the metadata's year at `YEAR_UNNAMED`."""
    if not needs_name(report) or report.end is None:
        return report
    if naming is None:
        return replace(report, year_named=YEAR_UNNAMED)
    offset, sureness = naming
    return replace(report, year=report.end.year + offset, year_named=sureness)
