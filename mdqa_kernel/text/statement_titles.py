"""The primary statements: which one a page prints (its title near the top) and which one a field's
description names. A page headed by a primary statement's title is where its line items are defined: a
reading there outranks the same label in a note, a five-year summary or the management discussion. The
kinds: "income", "balance", "cash_flow" (English, Indian and Chinese titles)."""

from __future__ import annotations

import re
import unicodedata

from mdqa_kernel.text.layout import Line

_STATEMENT_TITLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "cash_flow",
        re.compile(
            r"statements?\s+of\s+(?:consolidated\s+)?cash\s+flows?|cash[\s-]+flows?\s+statements?"
            r"|现金流量表",
            re.I,
        ),
    ),
    (
        "balance",
        re.compile(
            r"balance\s+sheets?|statements?\s+of\s+(?:consolidated\s+)?financial\s+(?:position"
            r"|condition)|资产负债表",
            re.I,
        ),
    ),
    (
        "income",
        re.compile(
            r"statements?\s+of\s+(?:consolidated\s+)?(?:operations|income|earnings|comprehensive"
            r"\s+(?:income|loss)|profit\s+(?:and|&)\s+loss)|income\s+statements?|利润表",
            re.I,
        ),
    ),
)
# Words of a line that mentions a statement without being its title ("Notes to Consolidated Financial
# Statements", "see the Consolidated Statements of Cash Flows", "Index to …").
_NOT_A_TITLE = re.compile(
    r"^\s*(?:notes?\s+to|see\b|index\b|refer)|\b(?:included|presented|reflected)\b", re.I
)
# A line of prose or of a table that names a statement: a sentence's end ("… on our balance sheet.", "…
# consolidated balance sheet (in millions):"), a sentence's continuation ("balance sheets."), a footnote ("(c)
# Not recorded on our balance sheet."), a row with an amount ("Cash and cash equivalents $ (2.6) Consolidated
# Statement of Cash Flows"), or "off-balance sheet arrangements"
_PROSE = re.compile(
    r"[.:]\s*$|^\W*[a-z]|^\s*\([a-zA-Z\d]{1,2}\)\s|[$€£¥₹]|(?i:\b(?:our|we|its)\b|\bof+\s*-?\s*balance\b)"
)
_TITLE_LINES = 12  # lines from a page's top searched for its title
_NOTE_HEADING = re.compile(r"^\s*note\s+\d+\b", re.IGNORECASE)


def statement_title(line: str) -> str | None:
    """The primary statement a title line names ("Consolidated Statements of Cash Flows" → "cash_flow"),
    None for a line that is no such title (a sentence, a row of figures, a note's reference)."""
    text = unicodedata.normalize("NFKC", line).strip()
    if not text or len(text) > 90 or len(re.findall(r"\d+", text)) > 2 or _NOT_A_TITLE.search(text):
        return None
    kinds = [kind for kind, pattern in _STATEMENT_TITLES if pattern.search(text)]
    return kinds[0] if len(kinds) == 1 else None


def page_statement(lines: list[Line]) -> str | None:
    """The primary statement a page prints: the one title near its top; None for no title or several
    (an index of the financial statements), or a title under a note's heading ("Note 23. Other Financial
    Data" above "Consolidated Statements of Income Information": a note about the statement)."""
    top = lines[:_TITLE_LINES]
    titles = _top_titles([line.text for line in top])
    kinds = set(titles.values())
    if len(kinds) != 1:
        return None
    first = min(titles)
    return None if any(_NOTE_HEADING.match(line.text) for line in top[:first]) else kinds.pop()


def _top_titles(texts: list[str]) -> dict[int, str]:
    """The statement titles among a page's top lines, by line index; a title wrapped onto the next line
    ("CONSOLIDATED STATEMENTS OF COMPREHENSIVE" / "INCOME") counts at its first line. A line of prose naming
    a statement is no title."""
    titles: dict[int, str] = {}
    for i, text in enumerate(texts):
        kind = _title(text)
        if kind is None and i + 1 < len(texts) and _title(texts[i + 1]) is None:
            kind = _title(f"{text} {texts[i + 1]}")
        if kind is not None:
            titles[i] = kind
    return titles


def _title(line: str) -> str | None:
    """The statement a page's line is the title of (`statement_title`), None for prose (`_PROSE`)."""
    return None if _PROSE.search(unicodedata.normalize("NFKC", line).strip()) else statement_title(line)


_ASKED_STATEMENT: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("cash_flow", re.compile(r"cash\s+flows?\s+statement|statement\s+of\s+cash\s+flows?|现金流量表", re.I)),
    ("balance", re.compile(r"balance\s+sheet|statement\s+of\s+financial\s+position|资产负债表", re.I)),
    (
        "income",
        re.compile(
            r"income\s+statement|statement\s+of\s+(?:operations|income|earnings|comprehensive\s+(?:income|loss))|利润表",
            re.I,
        ),
    ),
)


def asked_statement(description: str) -> str | None:
    """The primary statement a field's description names ("… as printed in the cash flow statement")."""
    kinds = [kind for kind, pattern in _ASKED_STATEMENT if pattern.search(description)]
    return kinds[0] if len(kinds) == 1 else None


# "(the income tax note's total of …)", "(inventory note)": the field is a note's figure ("notes payable" and
# "senior notes" are line items, not notes to the statements)
_ASKED_NOTE = re.compile(r"\b(?<!senior\s)(?<!convertible\s)note(?:'s|’s)?\b(?!\s+payable)|附注", re.I)


def asks_note(description: str) -> bool:
    """The description places its figure in a note to the statements and names no primary statement."""
    return _ASKED_NOTE.search(description) is not None and not any(
        pattern.search(description) for _kind, pattern in _ASKED_STATEMENT
    )
