"""The section a statement row sits in and the share basis it is read under: what a row's section heading
allows ("Changes in operating assets and liabilities:" holds changes, not balances; "Per Share Data" holds
per-share figures; a share count is read from a per-share block), which share basis a heading or a
description names, a label naming its line item's net figure or its change, and a short label read under its
heading ("Diluted" under "Earnings per common share:"). Split from `text/statement_context`, which scores how
specific a label is."""

from __future__ import annotations

import re
from functools import lru_cache

from mdqa_kernel.text.label_periods import balance_name
from mdqa_kernel.text.statement_context import DURING_THE_PERIOD, PER_SHARE, bare_balance, words
from mdqa_kernel.text.values import EXCEPT_PER_SHARE

_CHANGES = re.compile(r"\bchanges?\s+in\b|\bincrease\b|\bdecrease\b", re.IGNORECASE)


# "Shares used in per share calculation", "Weighted-average shares used to compute net loss per share …":
# a block of share counts, whatever per-share figure they are used for
_SHARE_COUNT_HEADING = re.compile(r"^\W*(?:weighted[\s-]+)?(?:average\s+)?(?:common\s+)?shares\b", re.I)


# The share basis a heading or a description names: "Earnings per common share—diluted", "Basic:"
_SHARE_BASIS = re.compile(r"\b(basic|dilut(?:ed|ion|ive))\b", re.I)


# "Property, plant and equipment, net at the end of …", "Accounts receivable, net": the line item asks
# its net figure (not "net of tax", a basis)
_ASKS_NET = re.compile(r"^[^.;]{0,80}?,\s*net\b(?!\s+of\b)", re.I)


def asks_net(description: str) -> bool:
    """The description names its line item's net figure by a trailing ", net"."""
    return bool(_ASKS_NET.match(description))


def says_net(label: str) -> bool:
    """The label prints "net" ("Property and equipment, net", "Net property, plant and equipment")."""
    return "net" in words(label)


def share_bases(text: str) -> set[str]:
    """{"basic"}, {"diluted"}, both or neither: the share bases a text names."""
    return {"basic" if w.lower() == "basic" else "diluted" for w in _SHARE_BASIS.findall(text)}


def other_share_basis(heading: str, description: str, label: str) -> bool:
    """The row (its own `label` naming no basis) sits under a heading of one share basis and the
    description asks the other: "Net income attributable to …" under "Earnings per common share—basic"
    is not the diluted EPS, though the two blocks print the same labels."""
    held, asked = share_bases(heading), share_bases(description)
    return len(held) == 1 and bool(asked) and not held & asked and not share_bases(label)


def basic_count_label(label: str, description: str) -> str | None:
    """For the basic count, a share count's label naming no basis, with the basis ("Weighted average shares
    of common stock outstanding" → "Basic Weighted average shares …"): it names the basic count in a block
    headed by the basic basis alone ("Basic Earnings Per Common Share:"). Under a diluted heading the plain
    count may be either (the basic count the dilution starts from, or the diluted count itself)."""
    if share_bases(description) != {"basic"} or share_bases(label):
        return None
    return f"Basic {label}" if _SHARE_COUNT_HEADING.match(label) else None


def section_refuses(section: str, description: str, per_share_field: bool, label: str = "") -> str | None:
    """Why a row (its own `label`) in this section cannot hold the field, or None: an amount field is not
    read from a per-share block, a balance or flow field not from a block of changes (working-capital
    changes), a non-operating item not from the revenue block. A share count is read from a per-share block: the block computes a per-share figure from it
    ("Diluted Earnings Per Common Share:" over "Weighted average shares of common stock outstanding")."""
    if not section:
        return None
    if (
        not per_share_field
        and PER_SHARE.search(EXCEPT_PER_SHARE.sub(" ", section))  # a title's scale note
        and not any(_SHARE_COUNT_HEADING.match(t) for t in (section, label))
    ):
        return "per-share section"
    if _CHANGES.search(section) and not _CHANGES.search(description) and not _balance_row(label):
        return "changes section"
    if _NON_OPERATING.search(description) and _REVENUE_SECTION.match(section):
        return "revenue section"  # a part of revenue is operating: "Other income" under "Revenue"
    return None


def _balance_row(label: str) -> bool:
    """A roll-forward's opening or closing balance, printed in its block of changes: "Beginning balance",
    "Ending balance" under "Change in benefit obligation"."""
    return bool(bare_balance(label)) or balance_name(label) != label


_NON_OPERATING = re.compile(r"\bnon-?\s?operating\b", re.IGNORECASE)
_REVENUE_SECTION = re.compile(r"^\W*(?:total\s+)?(?:net\s+)?(?:revenues?|sales)\b", re.IGNORECASE)


@lru_cache(maxsize=1 << 10)  # asked for every row a field's description is judged against
def asks_non_operating(description: str) -> bool:
    """The description asks a non-operating item ("Other income (expense), net (non-operating)")."""
    return bool(_NON_OPERATING.search(description))


# "… in the operating activities section of the cash flow statement": an adjustment reconciling net income
_OPERATING_SECTION = re.compile(r"\bin\s+the\s+operating\s+activities\s+section\b", re.IGNORECASE)
# "Change in deferred income taxes", "Net changes in …": an operating adjustment named by its change
_CHANGE_LEAD = re.compile(r"^\W*(?:net\s+)?changes?\s+in\s+", re.IGNORECASE)


def operating_adjustment(label: str, description: str) -> str:
    """Where the description places its line among the operating activities' adjustments, a label that
    names an item by its change ("Change in deferred income taxes") names the adjustment itself: the
    label without its "Change in" lead. Other labels as they are."""
    return _CHANGE_LEAD.sub("", label) if _in_operating_section(description) else label


@lru_cache(maxsize=1 << 10)  # asked for every label of every row a field's description is judged against
def _in_operating_section(description: str) -> bool:
    return _OPERATING_SECTION.search(description) is not None


def change_row(label: str, description: str) -> bool:
    """A row whose own label names a change ("Net increase (decrease) during the year", "Change in
    inventories") holds no level or balance: only a field that asks a change, or an operating activities'
    adjustment (`operating_adjustment`), reads it."""
    label = operating_adjustment(label, description)
    return bool(_CHANGES.search(label)) and not _CHANGES.search(description)


_DURING_THE_YEAR = re.compile(rf"\s+{DURING_THE_PERIOD}(?:\s+ended)?\b(?=\s+\w)", re.I)


# A row naming only a change and, at most, its period ("Net increase (decrease) during the year"): of what,
# its heading says ("CASH AND CASH EQUIVALENTS")
CHANGE_ONLY = re.compile(
    r"^(?P<change>(?:net\s+)?(?:increase|decrease|change)(?:\s*\(\s*(?:increase|decrease)\s*\))?)"
    rf"(?:\s+{DURING_THE_PERIOD}\b.*)?\s*$",
    re.I,
)


def with_section(section: str, label: str) -> str:
    """A short row label read under its heading: "Diluted" under "Earnings per common share:"; "Interest"
    under "Cash paid during the year for:" is "Cash paid for Interest" (the statement's period is the
    column's, not part of the line item); "Net increase (decrease) during the year" under "CASH AND CASH
    EQUIVALENTS" is the "Net increase (decrease) in cash and cash equivalents"."""
    if not section:
        return label
    heading = _DURING_THE_YEAR.sub(" ", section).rstrip(": ")
    if change := CHANGE_ONLY.match(label.strip()):
        return f"{change['change']} in {heading.lower()}"
    return f"{heading} {label}"
