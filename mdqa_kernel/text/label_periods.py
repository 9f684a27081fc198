"""The period a table row's label names for its own cells: a year or a date of its own ("2022
restructuring charges", "Liability as of December 31, 2022"), a roll-forward's opening row ("… at beginning
of year", "… – January 1"), and the line item a balance row names without its dating words ("Unrecognized
tax benefits – December 31"). Headers, covers and descriptions are read in `text.periods`."""

from __future__ import annotations

import datetime as dt
import re

from mdqa_kernel.text.periods import (
    MONTH_WORDS,
    YEAR,
    Period,
    ReportPeriod,
    dates_in,
    month_and_day,
    period_text,
)

# A row label that names the row's own period: "2022 restructuring charges", "Charges in fiscal 2021",
# "Liability as of December 31, 2022" (a roll-forward's rows under columns that name components). A year
# that names an instrument, a programme or a maturity ("2025 Notes", "2019 Productivity Plan", "Notes due
# 2027", "Tax Cuts and Jobs Act of 2017", "Thereafter") is no period of the row.
_LABEL_LEAD_YEAR = re.compile(r"^(?:fiscal\s+(?:year\s+)?|fy\s*)?((?:19|20)\d\d)\b(?!\s*[-–/]\s*\d)", re.I)
_LABEL_IN_YEAR = re.compile(
    r"\b(?:in|during|for)\s+(?:the\s+)?(?:fiscal\s+(?:year\s+)?|year\s+)?((?:19|20)\d\d)\b(?!\s*[-–/]\s*\d)",
    re.I,
)
_NAMED_BY_YEAR = re.compile(
    r"\b(?:notes?|debentures?|bonds?|senior|plans?|programs?|programmes?|initiatives?|facility|agreements?"
    r"|acquisitions?|loans?|credit|act|transactions?|tranches?|series|awards?|grants?|cohorts?|vintages?"
    r"|class|due|matur\w*|expir\w*|through|until|thereafter|beyond|after|before|since|vs\.?|versus"
    r"|compared|change|increase|decrease)\b",
    re.I,
)


# A roll-forward's opening row ("Cash and cash equivalents at beginning of year", "Balance, beginning of
# period"): under each column it prints the balance at the start of that column's period.
_OPENING_ROW = re.compile(
    r"\b(?:beginning|start)\s+of\s+(?:the\s+)?(?:fiscal\s+)?(?:year|period)\b|\bopening\s+balance\b"
    r"|\bbalance,?\s+beginning\b|^(?:beginning|opening)\s+(?!of\b)\w|期初余额|年初余额",
    re.I,
)


def opening_row(label: str, report: ReportPeriod | None = None) -> bool:
    """A roll-forward's opening row ("… at beginning of year", "Beginning unrecognized tax benefits",
    "期初余额"), or one dated the first day of the report's fiscal year without a year ("Unrecognized
    tax benefits – January 1" in a report whose year ends December 31, or whose end date is unknown)."""
    t = period_text(label)
    if _OPENING_ROW.search(t):
        return True
    if report is None or dates_in(t) or YEAR.search(t):
        return False
    if report.end is None:
        # January 1 opens a calendar year (a 52/53-week year that may end on January 1 prints its end date
        # on the cover)
        return month_and_day(t) == (1, 1)
    first = report.end + dt.timedelta(days=1)
    return month_and_day(t) == (first.month, first.day)


# The period words of a roll-forward row's label, around the line item it names: "Ending …", "… – December
# 31", "… balance at December 31", "…, end of the period", "… at end of year".
_BALANCE_LEAD = re.compile(r"^(?:beginning|ending|opening|closing)\s+(?!of\b|balance\b)", re.I)
# A date needs a dash, a comma or "at"/"as of" before it ("Notes due March 15" names notes, not a date).
_BALANCE_TAIL = re.compile(
    r"(?:\s*[,–—-]\s*|\s+)(?:balance,?\s+)?(?:(?:at|as\s+of)\s+)?(?:the\s+)?"
    r"(?:end|beginning|start|close)\s+of\s+(?:the\s+)?(?:fiscal\s+)?(?:year|period|quarter)\s*$"
    r"|(?:\s*[,–—-]\s*(?:balance,?\s+)?(?:(?:at|as\s+of)\s+)?|\s+(?:balance,?\s+)?(?:at|as\s+of)\s+)"
    rf"(?:{MONTH_WORDS})\.?\s+[0-3]?\d(?:\s*,?\s*(?:19|20)\d\d)?\s*$",
    re.I,
)


# A note reference closing a label ("Cash and cash equivalents, beginning of year (Note 1)", "(Notes 1 and 2)")
_NOTE_REFERENCE = re.compile(r"\s*\((?:see\s+)?notes?\s+\d+[a-z]?(?:\s*(?:,|and|&)\s*\d+[a-z]?)*\)\s*$", re.I)


def balance_name(label: str) -> str:
    """The line item a roll-forward row's label names without the words that date the balance
    ("Unrecognized tax benefits – December 31" → "Unrecognized tax benefits", a closing note reference
    dropped first); the label itself when it has none of them, or nothing else."""
    t = _NOTE_REFERENCE.sub("", period_text(label))
    name = _BALANCE_TAIL.sub("", _BALANCE_LEAD.sub("", t)).strip(" ,–—-")
    return name if name and name != t and name.lower() != "balance" else label


_AND_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d\s*,?\s*and\s+(?:19|20)\d\d(?!\d)")


def label_period(label: str) -> Period:
    """The period a table row's label names for the row ("2022 restructuring charges" → 2022; "Liability
    as of December 31, 2022" → that date), or an unnamed period: the label names none, or its year names
    an instrument, a programme or a comparison rather than the row's period."""
    t = period_text(label)
    if not t or _NAMED_BY_YEAR.search(t):
        return Period()
    dates = set(dates_in(t))
    if dates:
        # "… at December 31, 2019 and 2018, respectively": a second year names the other column's date too
        one = len(dates) == 1 and not _AND_YEAR.search(t)
        return Period(end=dates.pop(), point=True) if one else Period()
    if len(set(YEAR.findall(t))) != 1:
        return Period()
    m = _LABEL_LEAD_YEAR.match(t) or _LABEL_IN_YEAR.search(t)
    return Period(year=int(m.group(1))) if m else Period()
