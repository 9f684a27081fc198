"""Counts of shares by status (outstanding, issued, authorized) that statements print outside a line item's
cells, for a field asking them.

- In a balance sheet's equity line's label, which holds the par-value amount in its cells: "Common stock, $0.01
  par value (5,000 shares authorized; 1,224 shares issued and 1,221 shares outstanding at December 28, 2019;
  …)", "… shares authorized 24,000; outstanding 7,432 and 7,464", "Issued and outstanding — 311,108,000 and
  323,779,000 shares, respectively". A count is placed by the date printed with it, or, in an undated list, by
  the period column in the same place ("7,432 and 7,464" on a row under "2023 | 2022"); a list whose length is
  not the row's column count, or one undated count, is placed nowhere and not read.
- In an equity statement's "Shares" column of the common stock (beside its "Amount"), on the closing balance
  row: "Balances as of January 31, 2020 | 2,832 | $ 284 | …" under "Common Stock / Shares | Amount", or
  "Balance, end of year | 1,383 | 23 | …" under "2021 / Shares | Amount" in a "Common Stock" block. The row's
  date or the column's period places it.

A clause or column about another class of stock (preferred, treasury, "Class B") is not the common shares'
count; a scale printed with a count ("218.1 million") is its own, else the one declared above the table, unless
that caption exempts share amounts ("except per share and share amounts").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from mdqa_kernel.readers.base import DocumentView
from mdqa_kernel.readers.table.candidates import Candidate, line_bbox, line_span
from mdqa_kernel.readers.table.columns import cell_candidate, column_verdicts, page_rows, row_fits
from mdqa_kernel.readers.table.scope import count_scale_above, scope_at
from mdqa_kernel.text.headers import basis_headers, column_headers
from mdqa_kernel.text.label_periods import opening_row
from mdqa_kernel.text.layout import Line
from mdqa_kernel.text.period_fit import fits
from mdqa_kernel.text.periods import MONTH_WORDS, Period, ReportPeriod, parse_period
from mdqa_kernel.text.row_context import section_heading
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.statement_context import description_heads, is_english
from mdqa_kernel.text.values import parse_number, scale_factor

# What a field asks: "Common shares outstanding", "Shares of common stock issued", "Number of shares outstanding"
_ASKED = re.compile(
    r"(?:number\s+of\s+)?(?:(?P<common>common|ordinary)\s+)?(?:shares|stock)"
    r"(?:\s+of\s+(?P<common2>common|ordinary)\s+(?:stock|shares))?\s+(?P<status>outstanding|issued|authori[sz]ed)",
    re.I,
)
# One status or two ("issued and outstanding": both counts are the one number)
_STATUS = r"(?:outstanding|issued|authori[sz]ed)(?:\s+and\s+(?:outstanding|issued))?"
_NUMBER = r"(?<![\d$.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|(?<![\d$.,])\d+(?:\.\d+)?(?![\d,.])"
_SCALE = r"(?:\s*(?P<scale>million|billion|thousand)s?\b)?"
_SCALE_ANY = _SCALE.replace("?P<scale>", "?:")  # the same, where several counts share one pattern
_DATE = rf"(?:(?:{MONTH_WORDS})\.?\s+[0-3]?\d\s*,?\s*(?:19|20)\d\d)"
_ITEM = re.compile(
    rf"(?P<n>{_NUMBER}){_SCALE}(?:\s+(?:common\s+)?shares)?(?:\s*,?\s*(?:on|at|as\s+of)\s+(?P<d>{_DATE}))?",
    re.I,
)
_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+)?|and\s+)", re.I)
# Counts before their noun and status: "1,221 shares outstanding", "1,221 and 1,220 shares issued and outstanding"
_BEFORE = re.compile(
    rf"(?P<items>(?:{_NUMBER}){_SCALE_ANY}(?:{_JOIN.pattern}(?:{_NUMBER}){_SCALE_ANY})*)"
    rf"\s+(?:common\s+)?shares\s+(?P<status>{_STATUS})\b",
    re.I,
)
# A status followed by its counts: "shares outstanding: 792 shares on …", "Issued and outstanding — 311,108,000 and …"
_AFTER = re.compile(rf"\b(?P<status>{_STATUS})\s*[:—–-]?\s*(?=\d)", re.I)
_DATES = re.compile(_DATE, re.I)
_COUNT = re.compile(_NUMBER + _SCALE, re.I)
# The class of stock a clause is about: the last one named before the count
_CLASS = re.compile(
    r"\b(?P<series>(?:class|series)\s+[a-z0-9]\b\s*)?(?P<kind>common|ordinary|preferred|preference|treasury|capital"
    r"|(?:repurchased|reacquired)\s+common)"
    r"\s+(?:stock|shares)\b",
    re.I,
)
# Stock that is not the common shares outstanding ("Repurchased Common Stock" is held in treasury)
_OTHER_KINDS = frozenset({"preferred", "preference", "treasury", "repurchased", "reacquired"})
_CLAUSE_END = re.compile(r"[;()]")
# A label whose list of counts goes on past its line ("… Issued and outstanding - 218.1 million and")
_OPEN_LIST = re.compile(r"\b(?:and|or)\s*$|,\s*$")
# A line stopping mid-clause: on a preposition or a conjunction, a comma, a colon, a dash
_OPEN_END = re.compile(r"(?:\b(?:and|or|on|at|of|to|as)|[,;:(—–-])\s*$", re.I)
_WRAPS = 3  # lines a label may wrap over above its row
# A roll-forward's closing balance row: "Balance, end of year", "Balances as of January 31, 2020"
_CLOSING = re.compile(r"^\s*(?:ending\s+|closing\s+)?balances?\b", re.I)
# A column counting shares ("Shares", "Number of shares"), not their amount, price or value
_SHARES_COLUMN = re.compile(r"\b(?:shares|number\s+of\s+shares)\s*$", re.I)
COLUMN_COUNT = 0.85  # a closing balance under a common stock "Shares" column
NAMED_CLASS = 0.9  # the label names the common stock
UNNAMED_CLASS = 0.7  # the label names no class of stock


@dataclass(frozen=True)
class Stated:
    """One count read from a label: the printed number, its scale word, the date printed with it."""

    raw: str
    scale_word: str | None
    date: str | None


def asked_count(description: str) -> tuple[bool, str] | None:
    """(whether the common shares are asked, the status asked: "outstanding", "issued", "authorized") when
    the field's line item is a count of shares by status; None otherwise (weighted-average shares,
    shares repurchased, …)."""
    if not is_english(description):
        return None
    for head in description_heads(description):
        m = _ASKED.fullmatch(unicodedata.normalize("NFKC", head).strip())
        if m:
            status = _statuses(m.group("status"))
            return bool(m.group("common") or m.group("common2")), status
    return None


def stated_counts(text: str, status: str) -> list[list[Stated]]:
    """Each list of counts of the asked status a label states, in print order."""
    flat = unicodedata.normalize("NFKC", text)
    out: list[list[Stated]] = []
    for clause in _clauses(flat):
        if _other_class(clause.before):
            continue
        for m in _BEFORE.finditer(clause.text):
            if status in _statuses(m.group("status")):
                out.append(_before(m.group("items"), clause.text[m.end() :]))
        for m in _AFTER.finditer(clause.text):
            if status in _statuses(m.group("status")):
                items = _after(clause.text[m.end() :])
                if items:
                    out.append(items)
    return [items for items in out if items]


@dataclass(frozen=True)
class _Clause:
    text: str
    before: str  # the label's text before the clause


def _clauses(flat: str) -> list[_Clause]:
    out = []
    start = 0
    for m in _CLAUSE_END.finditer(flat + ";"):
        out.append(_Clause(flat[start : m.start()], flat[: m.start()]))
        start = m.end()
    return out


def _statuses(text: str) -> str:
    """A text's status words in one spelling ("authorised" is "authorized"), lower case."""
    return text.lower().replace("authorised", "authorized")


def _last_class(text: str) -> str | None:
    """The class of stock a text names last: "common" (the common stock as a whole), "other" (preferred,
    treasury, repurchased stock, or one class or series: "Class B common stock"), None when it names none."""
    named = list(_CLASS.finditer(text))
    if not named:
        return None
    last = named[-1]
    if last.group("series") or last.group("kind").split()[0].lower() in _OTHER_KINDS:
        return "other"
    return "common" if last.group("kind").lower() in ("common", "ordinary") else None


def _other_class(before: str) -> bool:
    """The last class of stock named before (and in) a clause is not the common shares as a whole."""
    return _last_class(before) == "other"


def _before(items: str, rest: str) -> list[Stated]:
    """Counts printed before their noun, dated by the dates after it ("… at December 28, 2019")."""
    numbers = [(m.group(0), m.group("scale")) for m in _COUNT.finditer(items)]
    dates = [m.group(0) for m in _DATES.finditer(rest)]
    if dates and len(numbers) == 1:
        return [Stated(numbers[0][0], numbers[0][1], d) for d in dates]
    if dates and len(dates) == len(numbers):
        return [Stated(n, s, d) for (n, s), d in zip(numbers, dates, strict=True)]
    return [Stated(n, s, None) for n, s in numbers] if not dates else []


def _after(text: str) -> list[Stated]:
    """Counts printed after their status ("outstanding: 792 shares on December 26, 2015 and 776 shares on
    December 27, 2014"), each with its own date if it has one."""
    out: list[Stated] = []
    pos = 0
    while True:
        m = _ITEM.match(text, pos)
        if m is None:
            break
        out.append(Stated(m.group("n"), m.group("scale"), m.group("d")))
        pos = m.end()
        j = _JOIN.match(text, pos)
        if j is None:
            break
        pos = j.end()
    if len({s.date is None for s in out}) > 1:
        return []  # some dated, some not: which period the others are is unsaid
    return out


def share_counts(
    doc: DocumentView, description: str, lines: dict[int, list[Line]], want: Period, report: ReportPeriod
) -> list[Candidate]:
    """The share counts of the asked status and period stated in statement lines' labels and, for the shares
    outstanding, in equity statements' share columns."""
    asked = asked_count(description)
    if asked is None:
        return []
    status = asked[1]
    out: list[Candidate] = []
    for page, page_ls in lines.items():
        rows = page_rows(doc, page, page_ls)
        with_cells = {r.line.index for r in rows if r.cells}
        for i, row in enumerate(rows):
            found: list[Candidate] = []
            if status == "outstanding" and _CLOSING.match(row.label) and not opening_row(row.label, report):
                found += _column_counts(row, page_ls, want, report)
            text, columns = _label_text(rows, i, page_ls, with_cells)
            found += _label_counts(row, columns, page_ls, text, asked, want, report)
            for cand in found:
                cand.scope = scope_at(doc, lines, page, row.line.index, table_row=True)
            out += found
    return out


def _label_counts(
    row: Row,
    columns: Row,
    page_ls: list[Line],
    text: str,
    asked: tuple[bool, str],
    want: Period,
    report: ReportPeriod,
) -> list[Candidate]:
    """The counts of the asked status and period a row's whole label `text` states."""
    common, status = asked
    if status not in _statuses(text) or "share" not in text.lower():
        return []
    score = NAMED_CLASS if _CLASS.search(text) or not common else UNNAMED_CLASS
    return [
        _candidate(row, page_ls, text, stated, score)
        for items in stated_counts(text, status)
        for stated in _placed(items, columns, page_ls, want, report)
    ]


def _label_text(rows: list[Row], i: int, page_ls: list[Line], with_cells: set[int]) -> tuple[str, Row]:
    """A row's whole label and the row whose cells are its columns. A label wraps: a row whose label starts
    in lower case or with a figure ("1,221 shares outstanding at …"), or follows a line stopping mid-clause,
    continues the lines above it that hold no cells (`_continues`; `with_cells`: the page's lines that do), up
    to "Common stock, $0.01 par value (…"; a list of counts wrapping onto the next line with its second number
    read as a cell ("… 218.1 million and | 227.4" over "million shares, respectively | 22 | 23") is one label,
    its columns those of the line below."""
    row = rows[i]
    label, columns = row.label or row.extended_label, row
    if _OPEN_LIST.search(label) and i + 1 < len(rows) and rows[i + 1].line.index == row.line.index + 1:
        columns = rows[i + 1]
        label = f"{label} {' '.join(c.text for c in row.cells)} {columns.label}"
    j = row.line.index - 1
    while (
        j >= 0 and j not in with_cells and row.line.index - j <= _WRAPS and _continues(page_ls[j].text, label)
    ):
        label = f"{page_ls[j].text} {label}"
        j -= 1
    return label, columns


def _continues(above: str, label: str) -> bool:
    """A label goes on from the line above: it starts in lower case or with a figure, or the line above stops
    mid-clause ("… 776 shares on" over "December 31, 2022 and …", an open parenthesis)."""
    start = label.lstrip()[:1]
    return bool(start) and (
        not start.isupper() or bool(_OPEN_END.search(above)) or above.count("(") > above.count(")")
    )


def _placed(
    items: list[Stated], row: Row, page_ls: list[Line], want: Period, report: ReportPeriod
) -> list[Stated]:
    """The counts of the wanted period: a dated count by its date; an undated list by the period of the
    column in its place, when the list has one count per column."""
    if all(s.date is not None for s in items):
        return [s for s in items if s.date is not None and fits(parse_period(s.date), want, report)]
    if len(items) < 2 or len(items) != len(row.cells):
        return []
    headers = column_headers(page_ls, row.line.index, row.cells)
    verdicts = column_verdicts(row, headers, want, report)
    return [s for s, v in zip(items, verdicts, strict=True) if v is True]


def _column_counts(row: Row, page_ls: list[Line], want: Period, report: ReportPeriod) -> list[Candidate]:
    """A closing balance row's count under a "Shares" column of the common stock, in the wanted period: the
    row's own date places it ("Balances as of January 31, 2020"), else its column's ("2021" over "Shares")."""
    own = row_fits(row, want, report)
    if own is False:
        return []
    heading = section_heading(page_ls, row.line.index)
    subs = basis_headers(page_ls, row.line.index, row.cells)
    verdicts = column_verdicts(row, column_headers(page_ls, row.line.index, row.cells), want, report)
    picked = [
        c
        for c, sub, verdict in zip(row.cells, subs, verdicts, strict=True)
        if c.value is not None
        and c.value > 0  # a count outstanding is never negative: "(484)" is a deduction
        and _SHARES_COLUMN.search(sub)
        and _common_class(f"{heading} {sub}")
        and (verdict is True if own is None else verdict is not False)
    ]
    if len(picked) != 1:
        return []  # no such column, or several (two classes, two periods): which one is unsaid
    cell = picked[0]
    scale, word = count_scale_above(page_ls, row.line.index) or (1.0, None)
    return [cell_candidate(row, cell, COLUMN_COUNT, scale, word)]


def _common_class(text: str) -> bool:
    """The last class of stock a header names is the common stock as a whole."""
    return _last_class(text) == "common"


def _candidate(row: Row, page_ls: list[Line], text: str, stated: Stated, score: float) -> Candidate:
    if stated.scale_word:
        scale, word = scale_factor(stated.scale_word), stated.scale_word
    else:
        above = count_scale_above(page_ls, row.line.index)
        scale, word = above if above is not None else (1.0, None)
    return Candidate(
        "table",
        row.page,
        stated.raw,
        text,
        score,
        line_bbox(row.line),
        line_span(row.line),
        scale=scale,
        scale_word=word,
        number=parse_number(stated.raw),
    )
