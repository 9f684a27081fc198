"""Whose share of a statement line a label or a description names: the company's own ("Net income
attributable to Acme Inc."), its common shareholders' (after preferred dividends), a noncontrolling
interest's, or the whole with the noncontrolling interests' share included; and a stock class printed after
a label's dash ("Share repurchases - common")."""

from __future__ import annotations

import re
from functools import lru_cache

_ATTRIBUTABLE = re.compile(
    r"\battributable\s+to\b(?P<who>.*?)(?=\s+per\s+|\s+(?:basic|diluted)\b|$)", re.IGNORECASE
)
NONCONTROLLING = re.compile(r"non-?\s?controlling|minority", re.IGNORECASE)


_INCLUDING = re.compile(r"\bincluding\b", re.IGNORECASE)


# "Total comprehensive income (attributable to the company) for …": whose share, said in parentheses
_ATTRIBUTABLE_NOTE = re.compile(r"\((?P<clause>attributable\s+to\b[^)]*)\)", re.IGNORECASE)


def _head(description: str) -> str:
    """The description's line item and its clauses, before any parenthesis; an "attributable to …" clause
    set in parentheses is one of its clauses."""
    head = description.split("(", 1)[0]
    note = _ATTRIBUTABLE_NOTE.search(description)
    return f"{head.rstrip()} {note.group('clause')}" if note and not _ATTRIBUTABLE.search(head) else head


@lru_cache(maxsize=1024)  # asked for every row label a description is scored against
def _noncontrolling_ask(description: str) -> tuple[bool, bool]:
    """Whether the description's head names a noncontrolling interest, and whether it says "including"."""
    head = _head(description)
    return bool(NONCONTROLLING.search(head)), bool(_INCLUDING.search(head))


def asks_whole_with_noncontrolling(description: str) -> bool:
    """The description asks for the whole, the noncontrolling interests' share included ("Net income
    including the part attributable to noncontrolling interests")."""
    named, including = _noncontrolling_ask(description)
    return named and including


def names_owners_share(label: str) -> bool:
    """The label is the share of holders other than a noncontrolling interest ("Net income attributable
    to Acme Inc.", "… to common shareholders")."""
    _head, who = split_attributable(label)
    return who is not None and not NONCONTROLLING.search(who)


def wants_attributable(description: str) -> bool:
    """The description asks for the company's share ("attributable to the company / parent")."""
    m = _ATTRIBUTABLE.search(_head(description))
    return bool(m) and not NONCONTROLLING.search(m.group("who"))


def split_attributable(label: str) -> tuple[str, str | None]:
    """The label without its "attributable to …" clause, and whom that clause names (None: no clause)."""
    m = _ATTRIBUTABLE.search(label)
    if not m:
        return label, None
    return f"{label[: m.start()].strip(' ,:')} {label[m.end() :]}".strip(), m.group("who").strip()


def without_attributable(label: str) -> str:
    """The label without its "attributable to …" clause: "Net income attributable to X" → "Net income"."""
    return split_attributable(label)[0]


COMMON_HOLDERS = re.compile(r"\b(?:common|ordinary)\s+(?:stock|share)?(?:holders?|shares?|stock)\b", re.I)


def names_common_holders(label: str) -> bool:
    """The label is the part of net income left to common shareholders ("Net income attributable to
    common shareholders": after preferred dividends and participating awards)."""
    _head, who = split_attributable(label)
    return who is not None and bool(COMMON_HOLDERS.search(who))


# "Less: Net income attributable to noncontrolling interests", "Minority interest in net earnings"
_NONCONTROLLING_INCOME = re.compile(
    r"\b(?:income|earnings|loss)\W+(?:\w+\W+){0,3}?(?:attributable|allocated|applicable)\s+to\s+(?:the\s+)?"
    r"(?:non-?\s?controlling|minority)"
    r"|\b(?:non-?\s?controlling|minority)\s+interests?\s+in\s+(?:the\s+)?(?:net\s+)?(?:income|earnings|loss)",
    re.I,
)


def names_noncontrolling_income(text: str) -> bool:
    """The text names income shared with a noncontrolling (minority) interest: where a filing does, the
    rows left to its common shareholders are its own share of net income."""
    return bool(_NONCONTROLLING_INCOME.search(re.sub(r"\s+", " ", text)))


def describes_noncontrolling_share(description: str) -> bool:
    """The description asks for the noncontrolling interests' own share, not the whole including it."""
    named, including = _noncontrolling_ask(description)
    return named and not including


# "Share repurchases - common": the stock class printed after a dash, where a name puts it first
_CLASS_AFTER_DASH = re.compile(
    r"^(?P<item>.+?)\s+[-—–]\s+(?P<cls>common|preferred)(?:\s+(?:stock|shares?))?\s*$", re.I
)


def class_first(label: str) -> str:
    """The label with a stock class printed after a dash put before it: "Share repurchases - common" →
    "common Share repurchases" (the glossary's "common share repurchases"); other labels unchanged."""
    m = _CLASS_AFTER_DASH.match(label.strip())
    return f"{m.group('cls')} {m.group('item')}" if m else label
