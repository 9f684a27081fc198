"""Whether a column holds the period a field asks for, the table reader's test of every value cell.

`fits` answers True, False, or None when the column names no period at all (the reader then says it is
not sure rather than guessing a column). Around it: the fiscal year a column holds relative to the report
(`column_offset`), its span against the asked one (three, six, nine or twelve months, weeks, year to date),
the opening balance column (`opening_of`), headers read as periods together (`column_periods`: a span
printed over a pair of columns, ordinal and coded quarter columns and the year they belong to), and a
quarter asked of an annual report (`asks_other_quarter`, `quarter_of_table`). Periods themselves are
parsed in `text.periods`.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import replace

from mdqa_kernel.text.periods import (
    NEGATED,
    ORDINAL_QUARTER,
    Period,
    ReportPeriod,
    fiscal_year_of,
    parse_period,
    period_text,
)


def opening_of(col: Period, report: ReportPeriod) -> Period:
    """The period of an opening row's cell under `col`: the closing balance of the year before the
    column's (the report's own column: the balance at the start of the report's year). A quarter's
    opening in a quarterly report is the prior quarter's close: not a period this model names."""
    if col.change or col.cumulative or not col.named:
        return col
    offset = column_offset(col, report)
    kinds = _span_kinds(col, report)
    if offset is None or (report.quarterly and kinds == {"quarter"} and report.quarter != 1):
        return Period()
    if offset == 0:
        return Period(offset=-1, opening=True, point=True)
    return Period(offset=offset - 1, point=True) if not report.quarterly else Period()


def _absolute(p: Period) -> int | None:
    return p.year if p.year is not None else (fiscal_year_of(p.end) if p.end is not None else None)


def column_offset(col: Period, report: ReportPeriod) -> int | None:
    """The fiscal year a period holds, relative to the report's (0 current, -1 prior); None unknown.
    A word ("Current Financial Year", "上期") says it outright; a date or a year is placed against the
    report's end date or fiscal year."""
    if col.offset is not None:
        return col.offset
    if col.end is not None and report.end is not None:
        return _years_between(col.end, report.end)
    year = _absolute(col)
    return year - report.year if year is not None and report.year is not None else None


def _span_kinds(p: Period, report: ReportPeriod) -> set[str]:
    """What a period's length means in this report: a quarter, the year to date, the year."""
    # The year to date of a first quarter is the quarter, of a fourth quarter the year.
    if p.span:
        if p.span == "quarter" and not report.quarterly:
            return set()  # "本报告期" of an annual report is its year
        if report.quarter == 1 and p.span == "quarter":
            return {"quarter", "ytd"}
        if report.quarter == 4 and p.span in ("ytd", "year"):
            return {"ytd", "year"}
        return {p.span}
    m = p.months
    if m is None:
        return set()
    if m >= 12:
        return {"year", "ytd"} if report.quarter == 4 else {"year"}
    kinds = {"quarter"} if m == 3 else set()
    if report.quarter is not None:
        if m == 3 * report.quarter:
            kinds.add("ytd")
    elif m > 3:
        kinds.add("ytd")
    return kinds


def _is_opening(col: Period, report: ReportPeriod) -> bool:
    """The balance at the start of the year: "年初", "上年末", or the prior fiscal year's end date in a
    quarterly report (December 31, 2022 beside June 30, 2023)."""
    if col.opening:
        return True
    if col.end is not None and report.end is not None and report.quarterly and col.months is None:
        return 0 < (report.end - col.end).days < 366 and column_offset(col, report) is None
    return False


def _closing_offset(p: Period) -> int:
    """The fiscal year whose closing balance an opening period is: -1 for the start of the report's year
    ("年初", "beginning of the fiscal year"), -2 for the start of the prior year."""
    return p.offset if p.opening and p.offset is not None else -1


def column_periods(headers: list[str]) -> list[Period]:
    """The periods of a table's column headers, read together (a column's own header can mislead):
    - three or more columns ending in months a quarter apart with no span named ("Dec. 26, 2015  Sep. 26,
      2015  Jun. 27, 2015 …", or "Dec. 26  Sep. 26 …" under a spanning "2015": a 10-K's quarterly
      data) are quarters, not the year that ends on the first of them;
    - beside two or more quarters, a "Total" (or "Year", "Full year") column is their year;
    - quarters that name no year beside a full year's column, the table's only year, are that year's;
    - a column whose header is only the text spanning its siblings, while each of them adds its own
      label ("Q2", "Q3"), has lost its own label: its period is not known."""
    periods = [parse_period(h) for h in headers]
    periods = _ordinal_columns(headers, periods)
    periods = _quarters_of_the_year_column(periods)
    periods = _quarter_columns(periods)
    periods = _paired_spans(periods)
    quarters = [i for i, p in enumerate(periods) if p.months == 3]
    if len(quarters) < 2:
        return periods
    shared = _shared_prefix([headers[i] for i in quarters])
    out = []
    for header, p in zip(headers, periods, strict=True):
        rest = header[len(shared) :].strip() if shared and header.startswith(shared) else header.strip()
        if _TOTAL_COLUMN.fullmatch(rest):
            out.append(_year_of_quarters(shared, [periods[i] for i in quarters]))
        elif shared and not rest and p.months != 3:
            out.append(Period())  # its own label ("Q1") was lost: which quarter, or the year?
        else:
            out.append(p)
    return out


def ordinal_quarter(text: str) -> int | None:
    """The quarter a bare ordinal names ("4th", "Fourth"), None for any other text."""
    return ORDINAL_QUARTER.get(period_text(text).lower())


def _ordinal_columns(headers: list[str], periods: list[Period]) -> list[Period]:
    """Columns headed only by an ordinal, two or more of them ("4th 3rd 2nd 1st" under a spanning "2018"
    in a quarterly-data note): the quarters of that year. The nearest header line's ordinal ends the
    stacked header ("Note 24 - Quarterly Data 2018 4th")."""
    ends = [ordinal_quarter(h.split()[-1]) if h.split() else None for h in headers]
    found = {i: q for i, q in enumerate(ends) if q is not None}
    if len(set(found.values())) < 2:
        return periods
    return [
        replace(p, months=3, quarter=found[i], point=False) if i in found else p
        for i, p in enumerate(periods)
    ]


def _quarters_of_the_year_column(periods: list[Period]) -> list[Period]:
    """Quarter columns that name no year beside a full year's column, the table's only year ("Quarter 1st
    2nd 3rd 4th | 12-Month 2017"): that year's quarters. With another year in the table, or no year column,
    which year they belong to is not known and they stay without one."""

    def unyeared(p: Period) -> bool:
        return p.months == 3 and p.quarter is not None and p.year is None

    years = {p.year for p in periods if p.year is not None}
    full_year = any(p.months == 12 and p.year is not None for p in periods)
    if len(years) != 1 or not full_year or sum(map(unyeared, periods)) < 2:
        return periods
    year = next(iter(years))
    return [replace(p, year=year) if unyeared(p) else p for p in periods]


def _bare_year(p: Period) -> bool:
    return p.year is not None and p.end is None and p.months is None and p.span is None and not p.change


def _paired_spans(periods: list[Period]) -> list[Period]:
    """A column headed only by a year ("2022") beside a column headed by a span and the year before
    ("Q4 2021", "Full Year 2021") is that span's current year: the span's words were printed over the pair
    and went to one of them. Where both neighbours could be the mate, the side the unambiguous pairs of
    the table use decides; with no such pair the column stays as it is."""

    def mate(year: int, j: int) -> bool:
        if not 0 <= j < len(periods):
            return False
        other = periods[j]
        spanned = other.months is not None or other.span is not None
        return spanned and other.year == year - 1 and not other.change

    sides: dict[int, list[int]] = {
        i: [d for d in (-1, 1) if mate(p.year, i + d)]
        for i, p in enumerate(periods)
        if _bare_year(p) and p.year is not None
    }
    used = {found[0] for found in sides.values() if len(found) == 1}
    table_side = next(iter(used)) if len(used) == 1 else None
    out = list(periods)
    for i, found in sides.items():
        side = found[0] if len(found) == 1 else (table_side if found else None)
        if side is not None:
            src = periods[i + side]
            out[i] = replace(periods[i], months=src.months, span=src.span, point=False)
    return out


_TOTAL_COLUMN = re.compile(r"(?:total|full[\s-]*year|fiscal\s+year|year|annual|twelve\s+months)\.?", re.I)


def _quarter_columns(periods: list[Period]) -> list[Period]:
    """Columns whose end months are three or more apart by multiples of three, none naming a span other
    than a quarter: quarters."""
    days = {
        i: (p.end.month, p.end.day) if p.end is not None else p.month_day
        for i, p in enumerate(periods)
        if (p.end is not None or p.month_day is not None) and p.months in (None, 3) and p.span is None
    }
    months = {md[0] for md in days.values() if md is not None}
    if len(months) < 3 or any((a - b) % 3 for a in months for b in months):
        return periods
    return [replace(p, months=3, point=False) if i in days else p for i, p in enumerate(periods)]


def _shared_prefix(headers: list[str]) -> str:
    """The words every header starts with (the text spanning the columns), "" when none."""
    if not headers:
        return ""
    first = headers[0].split()
    n = 0
    while n < len(first) and all(h.split()[n : n + 1] == [first[n]] for h in headers[1:]):
        n += 1
    return " ".join(first[:n])


def _year_of_quarters(shared: str, quarters: list[Period]) -> Period:
    """The year whose quarters stand beside a "Total" column: the spanning header's, else the one year
    the quarters share."""
    spanning = parse_period(shared)
    if spanning.end is not None or spanning.year is not None:
        return replace(spanning, months=12, point=False, span=None)
    years = {fiscal_year_of(p.end) if p.end is not None else p.year for p in quarters}
    year = years.pop() if len(years) == 1 else None
    return Period(year=year, months=12) if year is not None else Period()


def fits(col: Period, want: Period, report: ReportPeriod) -> bool | None:
    """Whether a column holds the wanted period; None when the column names no period at all."""
    if col.change:
        return want.change and _spans_agree(col, want, report)
    if col.cumulative or want.cumulative:
        return col.cumulative and want.cumulative
    if not col.named:
        return None
    if asks_other_quarter(want, report):
        return _quarter_fits(col, want, report)
    if col.quarter is not None and report.quarterly and report.quarter not in (None, col.quarter):
        return False  # "4Q22" beside "1Q23" and "1Q22": another quarter than the report's
    if _span_kinds(col, report) and not _spans_agree(col, want, report):
        return False  # a quarter's column never holds the year, whatever year it names
    if want.end is not None and col.end is not None:
        return abs((col.end - want.end).days) <= 7 and _spans_agree(col, want, report)
    target = target_offset(want, report)
    if want.opening or _is_opening(col, report):
        # the balance at the start of a year is the closing balance of the year before
        if want.opening and _is_opening(col, report):
            return _closing_offset(want) == _closing_offset(col)
        closing = _closing_offset(want) if want.opening else target
        return (
            closing is not None
            and closing < 0
            and column_offset(col, report) == closing
            and not col.months
            and not report.quarterly
        )
    offset = column_offset(col, report)
    if offset is None or target is None:
        offset, target = _absolute(col), _absolute(want)
        if offset is None or target is None:
            return None
    return offset == target and _spans_agree(col, want, report)


# The quarter just before the report's ("the prior quarter", "sequential quarter"), not the year-ago one
# ("the prior-year quarter", "the same quarter of the prior year") nor a year's last ("the last quarter
# of fiscal 2022"): periods here are placed by fiscal year, so no column is known to hold it.
_SEQUENTIAL_QUARTER = re.compile(
    r"\b(?:prior|previous|preceding|last|sequential|linked)[\s-]+(?:fiscal\s+)?quarter\b(?!\s+of\b)"
    r"|\bquarter[\s-]+over[\s-]+quarter\b|\bsequential(?:ly)?\b",
    re.I,
)


def asks_sequential_quarter(description: str) -> bool:
    """The field asks the quarter before the report's, or the change from it."""
    return bool(_SEQUENTIAL_QUARTER.search(NEGATED.sub(" ", period_text(description))))


def quarter_of_table(periods: list[Period], report: ReportPeriod) -> ReportPeriod:
    """A quarterly report whose quarter number is not known ("For the quarterly period ended March 31,
    2023" of a filer whose fiscal year is not the calendar's) takes it from a table whose columns number
    their quarters ("1Q23 4Q22 3Q22 2Q22 1Q22"): the latest numbered column in the report's fiscal
    year ("2Q22 1Q22 4Q21 …" is a second quarter's trend), since no report prints a quarter after its
    own. Without it each quarter of the prior year would fit the year-ago quarter."""
    if not report.quarterly or report.quarter is not None:
        return report
    own = {p.quarter for p in periods if p.quarter is not None and column_offset(p, report) == 0}
    return replace(report, quarter=max(own)) if own else report


def end_of_table(periods: list[Period], report: ReportPeriod) -> ReportPeriod:
    """A quarterly report whose end date is not known (an earnings release naming only its quarter) takes
    it from a balance sheet's columns ("3/25/2023 | 12/31/2022"): the latest date of two or more, in the
    report's fiscal year, since no report prints a balance after its own end. The earlier date is then
    the prior fiscal year's close, the balance at the start of the report's year."""
    if not report.quarterly or report.end is not None or report.year is None:
        return report
    ends = {e for p in periods if (e := p.end) is not None and p.point and not p.change and p.months is None}
    if len(ends) < 2:
        return report
    latest = max(ends)
    return replace(report, end=latest) if fiscal_year_of(latest) == report.year else report


def asks_other_quarter(want: Period, report: ReportPeriod) -> bool:
    """The field asks one quarter of a year, not the report's own quarter ("the fourth quarter" of an
    annual report): only a column or a sentence naming that quarter holds it."""
    return want.quarter is not None and not (report.quarterly and report.quarter in (None, want.quarter))


def _quarter_fits(col: Period, want: Period, report: ReportPeriod) -> bool | None:
    """Whether a column holds the one quarter a field asks ("the fourth quarter"): a quarter's column
    whose number or end date is that quarter's, in the asked fiscal year. A year's or a year to date's
    column never does, nor, in an annual report, a column naming only a year (the report's span)."""
    kinds = _span_kinds(col, report)
    if kinds and "quarter" not in kinds:
        return False
    target = target_offset(want, report)
    if col.quarter is not None:
        if col.quarter != want.quarter:
            return False
        offset = column_offset(col, report)
        return None if offset is None or target is None else offset == target
    if not kinds:
        return False if not report.quarterly and not col.point else None
    if want.quarter is None or col.end is None or report.end is None or target is None:
        return None  # a quarter ending "June 30" with no year, or a report with no known end
    if report.quarterly and report.quarter is None:
        return None  # the report's end is some quarter's: which one is not known
    expected = quarter_end(report.end, target, want.quarter - (report.quarter or 4))
    return abs((col.end - expected).days) <= 7


def quarter_end(end: dt.date, years: int, quarters: int) -> dt.date:
    """The end of the quarter `quarters` from the one ending on `end`, in the fiscal year `years` on."""
    k = end.year * 12 + end.month - 1 + 12 * years + 3 * quarters
    year, month = divmod(k, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(end.day, last))


def _years_between(day: dt.date, end: dt.date) -> int | None:
    """Whole fiscal years from the report's end to a date (52/53-week years end a few days apart)."""
    days = (day - end).days
    k = round(days / 365.25)
    return k if abs(days - k * 365.25) <= 20 else None


def target_offset(want: Period, report: ReportPeriod) -> int | None:
    """The wanted period in years from the report's (0 its own, -1 the prior year); None when unknown."""
    if want.end is not None and report.end is not None:
        return _years_between(want.end, report.end)
    year = _absolute(want)
    if year is not None and report.year is not None:
        return year - report.year
    return want.offset


def asked_year(want: Period, report: ReportPeriod) -> int | None:
    """The year the wanted period is named by (the report's year, shifted by `target_offset`); None when
    either is unknown."""
    target = target_offset(want, report)
    return None if target is None or report.year is None else report.year + target


def _spans_agree(col: Period, want: Period, report: ReportPeriod) -> bool:
    if col.months and want.months and col.months != want.months and not (col.span or want.span):
        # "the first half" is no nine months' year to date, whatever the report's quarter ("year to
        # date (e.g. six months)" names the span; its length is an example)
        return False
    have, asked = _span_kinds(col, report), _span_kinds(want, report)
    if not have:
        # A balance at a date answers any span; a flow column that names no span ("本期发生额" of a
        # quarterly report) is not known to be the quarter or the year to date the field asks for. In an
        # annual report it is the year ("2023" under the statement's title): never a quarter's figure.
        if not report.quarterly:
            return col.point or not asked or bool(asked & {"year", "ytd"})
        return col.point or not asked or report.quarter == 1
    if asked:
        return bool(have & asked)
    # The field says nothing of a span: in an annual report that is the year; in a quarterly report
    # both the quarter and the year to date fit, and the reader says it cannot tell them apart.
    return report.quarterly or "year" in have
