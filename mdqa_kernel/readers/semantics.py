"""Field semantics: what a plan field's words say its value is, and what the words around a reading say.

A reader must return the value the field asks for, in the field's terms, not merely a number found near
its label. These functions read both sides by their words, never by document:

- the share basis of a per-share amount: "每10股派发现金红利3.00元" is printed per 10 shares; a field
  that asks per share gets 0.30, one that asks per 10 shares ("每10股派息数") gets 3.00 (`share_basis`,
  `rebase`);
- whether a field asks for a level ("Revenue", "营业收入") or a change of it ("revenue growth", "同比
  增减"), and whether the words just before a printed number make it a change ("increased by $32.5
  billion", "同比增长") rather than the level (`asks_change`, `change_before`);
- whether a field is an amount (a level in a currency or a count) that a percentage cannot be
  (`is_amount`);
- whether a field asks how much an expense or a cost was ("Interest expense") and a row prints one
  deducted ("Interest expense (160)"): the figure is the amount spent, not a negative one
  (`asks_expense`, `deducted_expense`);
- whether a field asks what happened over a span ("… expense for the fiscal year") rather than a balance at
  a date ("… at the end of the fiscal year"): a balance sheet's line is never such a flow (`asks_flow`);
- the entity a statement covers: a parent-company-only statement ("母公司资产负债表", "Condensed
  Financial Information of Registrant") or a segment note is not the consolidated group a field asks
  about unless the field says so (`field_scope`, `statement_scope`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from mdqa_kernel.readers.base import FieldLike
from mdqa_kernel.text.statement_context import description_heads

Scope = Literal["consolidated", "parent", "segment"]

# -- the share basis of a per-share amount -------------------------------------------------------

_PER_TEN = re.compile(r"每\s*(?:10|十)\s*股|per\s+(?:10|ten)\s+(?:ordinary\s+|common\s+)?shares", re.I)
_PER_ONE = re.compile(
    r"每股|per\s+(?:ordinary\s+|common\s+)?share\b|/\s*share\b|\beps\b|earnings\s+per|元\s*/\s*股", re.I
)


def share_basis(text: str) -> int | None:
    """How many shares a per-share amount in `text` is stated for: 10 ("每10股", "per 10 shares"), 1
    ("每股", "per share", "EPS"), None when the text names no per-share basis."""
    text = unicodedata.normalize("NFKC", text)
    if _PER_TEN.search(text):
        return 10
    if _PER_ONE.search(text):
        return 1
    return None


def field_basis(field: FieldLike) -> int | None:
    """The share basis a field asks for, from its unit, name and description."""
    return share_basis(f"{field.unit or ''} {field.name.replace('_', ' ')} {field.description}")


def rebase(value: float, printed: int | None, wanted: int | None) -> float:
    """A per-share amount printed per `printed` shares, stated per `wanted` shares (unchanged when
    either basis is unknown): 3.00 per 10 shares is 0.30 per share."""
    if not printed or not wanted or printed == wanted:
        return value
    return float(f"{value * wanted / printed:.12g}")


# -- level, change, percentage --------------------------------------------------------------------

_CHANGE_FIELD = re.compile(
    r"growth|change|increase|decrease|\bdelta\b|\byoy\b|year[- ]over[- ]year|variance"
    r"|增长|增减|增幅|降幅|变动|变化|同比|环比|较上年|比上年",
    re.I,
)
_RATIO_FIELD = re.compile(
    r"ratio|\brate\b|margin|percent|proportion|share of|\byield\b|return on|\broe\b|\broa\b|%"
    r"|率|比例|比重|占比|百分比",
    re.I,
)
# The words right before a printed number that make it a change: "increased by", "a decrease of",
# "growth of", "up", "同比增长", "增减", "较上年增加". "increased to $X" states the level and is not one.
_CHANGE_BEFORE = re.compile(
    r"(?:\b(?:increase[sd]?|decrease[sd]?|grew|growth|rose|fell|declined?|gain(?:ed)?|drop(?:ped)?"
    r"|(?:was|were|is|are)\s+(?:up|down)|higher|lower)\s*(?:by|of)?"
    r"|(?:同比|较上年|比上年|较上期|比上期)?(?:增长|增加|减少|下降|上升|增减|变动|降低|提高)(?:了)?(?:幅度)?(?:为|达)?)"
    r"\s*(?:approximately|about|nearly|almost|约)?\s*[$¥￥€£]?\s*$"
    # "an increase in total revenue of $", "growth in net income was $"
    r"|\b(?:increase|decrease|growth|rise|decline|drop|change|reduction|release)\s+in\s+[\w\s]{1,40}?\s+(?:of|by|was|were)"
    r"\s*(?:approximately|about)?\s*[$¥￥€£]?\s*$",
    re.I,
)
_CHANGE_HEADER = re.compile(r"增减|变动|change|increase|decrease|variance", re.I)


def asks_percent(field: FieldLike) -> bool:
    """True when the field asks for percentage points: a percent field, or a number whose unit is "%"."""
    unit = (field.unit or "").strip().lower()
    return field.type == "percent" or (
        field.type == "number" and unit in ("%", "％", "percent", "pct", "percentage")
    )


def asks_change(field: FieldLike) -> bool:
    """True when the field names a change of a quantity ("revenue growth", "营业收入同比增减")."""
    return bool(_CHANGE_FIELD.search(f"{field.name.replace('_', ' ')} {field.description}"))


def is_amount(field: FieldLike) -> bool:
    """True when the field asks for the level of an amount or a count: not a percentage, a ratio or a
    change ("Total revenue", "营业收入", "Number of employees")."""
    if field.type not in ("number", "integer"):
        return False
    unit = (field.unit or "").strip().lower()
    words = f"{field.name.replace('_', ' ')} {field.description} {unit}"
    if unit in ("%", "percent", "pct", "ratio", "x", "times", "倍") or _RATIO_FIELD.search(words):
        return False
    return not asks_change(field) and field_basis(field) is None


# an expense or a cost named as such; the words that give an expense line a sign of its own ("(benefit)",
# "other (income) expense", "net of interest income") or that the description states one with
_CREDIT_WORDS = r"income|benefits?|gains?|credits?|recover(?:y|ies)"
_EXPENSE = re.compile(r"\b(?:expenses?|costs?|charges?)\b", re.I)
_OWN_SIGN = re.compile(rf"\b(?:{_CREDIT_WORDS}|negative|net)\b|[()]", re.I)
# A deduction line (readers/table/arithmetic.py reads its sign from the statement's sums): an expense,
# cost, provision or charge and no credit; "income taxes" and "taxes on income" name what is taxed, not a
# side; a description that fixes its own sign convention is read as printed.
_DEDUCTION = re.compile(r"\b(?:expenses?|costs?|provisions?|charges?)\b", re.I)
_CREDIT = re.compile(rf"\b(?:{_CREDIT_WORDS})\b", re.I)
_TAXED = re.compile(r"\bincome\s+tax(?:es)?\b|\btax(?:es)?\s+on\s+income\b", re.I)
_STATED_SIGN = re.compile(r"\bnegative\b|\bin\s+parenthes[ie]s\b|\bsigned\b", re.I)


# "for the fiscal year", "during the quarter", "for the three months ended …": what happened over a span;
# "at the end of the year", "as of", a balance, a year-end: what stood at a date. A description naming both
# ("… for the fiscal year, as of its end") is not known to be either.
_OVER_A_SPAN = re.compile(
    r"\b(?:for|during|over|throughout)\s+(?:the\s+|its\s+|each\s+|a\s+)?"
    r"(?:(?:prior|previous|preceding|current|same|last|fiscal|financial|calendar|reporting|first|second|third"
    r"|fourth)\s+){0,3}(?:years?|quarters?|periods?|half|(?:three|six|nine|twelve)\s+months)\b",
    re.I,
)
_AT_A_DATE = re.compile(
    r"\b(?:at|as\s+of|as\s+at)\s+(?:the\s+)?(?:end|close|beginning|start)\b|\bas\s+(?:of|at)\b"
    r"|\bbalances?\b|\b(?:year|period|quarter)[\s-]end\b|\boutstanding\s+at\b",
    re.I,
)


def asks_flow(description: str) -> bool:
    """True when a field asks what happened over a span ("Deferred income tax expense for the fiscal year",
    "Cash paid for interest during the year") and names no date it stands at; a balance ("Accounts payable
    at the end of the fiscal year", "… on the balance sheet") is not a flow."""
    return _OVER_A_SPAN.search(description) is not None and _AT_A_DATE.search(description) is None


def asks_expense(field: FieldLike) -> bool:
    """True when the field is the amount of an expense or a cost ("Interest expense for the fiscal
    year …") and its description gives it no sign of its own ("… (an outflow in parentheses is
    negative)", "Other expense (income)")."""
    if not is_amount(field) or _OWN_SIGN.search(field.description):
        return False
    return any(_EXPENSE.search(head) for head in description_heads(field.description))


def deducted_expense(label: str) -> bool:
    """True when a printed row label names an expense and nothing that could make its figure signed:
    an income statement prints such a line in parentheses because it is deducted ("Interest expense
    (160)"), so the amount spent is the figure without its sign."""
    return bool(_EXPENSE.search(label)) and not _OWN_SIGN.search(label)


def names_credit(text: str) -> bool:
    """True when a label names a credit ("benefit", "gain", "income"), not counting what is taxed."""
    return _CREDIT.search(_TAXED.sub(" ", text)) is not None


def names_debit(text: str) -> bool:
    """True when a label or a description names a deduction (an expense, cost, provision or charge)
    and no credit."""
    return _DEDUCTION.search(_TAXED.sub(" ", text)) is not None and not names_credit(text)


# A line item paid out by nature ("Capital expenditures", "Purchases of …", "Repurchases of common stock",
# "Cash dividends paid", "Acquisitions of businesses", "Repayments of debt"), in a description that states
# outflows negative ("(an outflow is negative)"): the amount leaves the company whatever table prints it, so an
# unsigned figure (an MD&A table's "Capital expenditures $ 2,553") is the outflow's size. "(an outflow in
# parentheses is negative)" states how a printed sign is read, not that every outflow is negative: such a field
# is read as printed.
_PAID_OUT_ITEM = re.compile(
    r"^(?:cash\s+)?(?:capital\s+expenditures?|purchases?|payments?|acquisitions?|(?:share|stock)\s+repurchases?"
    r"|repurchases?|repayments?|dividends\s+paid|additions\s+to)\b",
    re.I,
)
_OUTFLOW_NEGATIVE = re.compile(r"\boutflows?\s+(?:is|are)\s+(?:shown\s+as\s+|given\s+as\s+)?negative\b", re.I)


def asks_paid_out(field: FieldLike) -> bool:
    """True when the field is an amount paid out by nature and its description states outflows negative
    ("Capital expenditures … (an outflow is negative)"): its figure is negative however it is printed."""
    if not is_amount(field) or not _OUTFLOW_NEGATIVE.search(field.description):
        return False
    return any(_PAID_OUT_ITEM.match(head) for head in description_heads(field.description))


# "… valuation allowance, as a positive amount": the field is a magnitude, whichever side the filer prints it on
_MAGNITUDE = re.compile(
    r"\bas\s+(?:a\s+)?positive\s+(?:amounts?|numbers?|values?|figures?)\b|\bin\s+absolute\s+(?:terms|values?)\b"
    r"|\bas\s+an?\s+absolute\s+(?:amount|number|value)\b|\(\s*unsigned\s*\)",
    re.I,
)


def asks_magnitude(field: FieldLike) -> bool:
    """True when an amount field asks for its size without a sign ("Accumulated depreciation …, as a positive
    amount"): a figure printed in parentheses (deducted in its table) is the positive amount."""
    return is_amount(field) and _MAGNITUDE.search(field.description) is not None


def asks_printed_sign(description: str) -> bool:
    """True when a field fixes its sign convention ("… (an outflow in parentheses is negative)")."""
    return _STATED_SIGN.search(description) is not None


def asks_debit(description: str) -> bool:
    """True when a field asks the amount of a deduction and leaves its sign to the statement."""
    return names_debit(description) and not asks_printed_sign(description)


def signed_by_sums(description: str, label: str) -> bool:
    """True when the statement's sums give the sign of a row's figure for the field: the field asks a
    deduction and the row names no credit and no pair of sides ("(expense)/benefit" has its sign from
    `text.labels.sign_of_pair`)."""
    return asks_debit(description) and not names_credit(label) and "(" not in label


def change_before(text: str) -> str | None:
    """The change words that end `text` (the text just before a printed number), or None."""
    m = _CHANGE_BEFORE.search(unicodedata.normalize("NFKC", text)[-64:])
    return m.group(0).strip() if m else None


def names_change(text: str) -> bool:
    """True when a column header or label names a change ("本期比上年同期增减", "$ Change")."""
    return bool(_CHANGE_HEADER.search(text))


# -- entity scope ----------------------------------------------------------------------------------

_PARENT_FIELD = re.compile(
    r"母公司(?:报表|资产负债表|利润表|现金流量表)|parent[- ]company[- ]only|registrant", re.I
)
_SEGMENT_FIELD = re.compile(r"segment|分部|板块", re.I)
# A statement's title: "母公司资产负债表", "PARENT COMPANY ONLY", "Condensed Financial Information of
# Registrant", "Note 19 — Segment Information", "分部信息", "报告分部". "归属于母公司所有者的净利润" is a
# consolidated line item, not a title: the parent titles need a statement's name after 母公司.
_PARENT_TITLE = re.compile(
    r"母公司\s*(?:资产负债表|利润表|现金流量表|所有者权益|股东权益|财务报表)"
    r"|parent\s+company(?:\s+only)?\s+(?:balance\s+sheets?|statements?|financial|condensed)"
    r"|parent\s+company\s+only|^parent\s+company$|condensed\s+financial\s+information\s+of\s+(?:the\s+)?registrant"
    r"|financial\s+statements\s+of\s+the\s+parent",
    re.I,
)
_SEGMENT_TITLE = re.compile(
    r"^(?:note\s*\d+\s*[-—–.:]?\s*)?(?:\d+[.、]\s*)?(?:business\s+)?segment\s+(?:information|reporting|results|data)"
    r"|^[\d一二三四五六七八九十()（）.、\s]*(?:分部信息|分部报告|报告分部)",
    re.I,
)
# One segment's heading in a discussion of results ("Walmart U.S. Segment", "Sam's Club Segment",
# "International Segment Results"): a few capitalised words, then "Segment". It opens that segment's tables
# on its page only (`readers/table/scope`), since the discussion that follows has no closing title.
SEGMENT_HEADING = "segment heading"  # the scope `statement_scope` names for such a heading
_SEGMENT_HEADING = re.compile(
    r"^(?:[A-Z][\w.'’&-]*\s+){1,4}[Ss]egment(?:\s+(?:[Rr]esults|[Pp]erformance(?:\s+[Ss]ummary)?))?$"
)
# Titles that end a parent or segment scope: the consolidated statements, the next note or item. Numbered
# Chinese headings ("一、经营活动产生的现金流量") are rows of the statements too: they end nothing.
_CONSOLIDATED_TITLE = re.compile(
    r"合并\s*(?:资产负债表|利润表|现金流量表|所有者权益|股东权益|财务报表)"
    r"|^consolidated\s+(?:balance\s+sheets?|statements?)"
    r"|^note\s*\d+\b|^item\s+\d+[a-z]?\s*[.:]\s*\S",  # "ITEM 8. FINANCIAL…", not a running header "Item 8"
    re.I,
)


# A note numbered without the word "Note" ("15. Quarterly Financial Information (Unaudited)"): every word of
# its title capitalised but the small ones, and no full stop at its end (a numbered sentence is a list item)
_NUMBERED_NOTE = re.compile(r"^\d{1,2}\.\s+([A-Z][^.]*[A-Za-z)])$")
_TITLE_SMALL_WORDS = frozenset(
    {"and", "of", "for", "the", "in", "on", "to", "a", "an", "or", "from", "by", "with"}
)


def _numbered_note(text: str) -> bool:
    m = _NUMBERED_NOTE.match(text)
    if m is None:
        return False
    words = re.findall(r"[A-Za-z][\w’'-]*", m.group(1))
    if any(w.lower() in ("segment", "segments") for w in words):
        return False  # the segment note's own title ("14. Segment and Geographic Information")
    return bool(words) and all(w[0].isupper() or w.lower() in _TITLE_SMALL_WORDS for w in words)


# An English section heading in capitals ("OPERATING EXPENSES") ends a segment discussion, not a parent-only
# statement (whose own headings, "CONDENSED BALANCE SHEETS", are capitals too).
_SECTION_HEADING = re.compile(r"^[A-Z][A-Z,’'&\- ]{3,60}[A-Z]$")


# A numbered Chinese section heading ("三、公司基本情况", "二十、补充资料") ends a parent scope; a statement's
# own numbered rows ("一、营业总收入", "一、经营活动产生的现金流量：") name line items and carry figures.
_ZH_SECTION = re.compile(r"^[一二三四五六七八九十]{1,3}\s*、\s*\S")
_ZH_STATEMENT_ROW = re.compile(
    r"收入|成本|费用|利润|收益|损失|现金|资产|负债|权益|股本|公积|税|净额|合计|总计|其中"
)


def field_scope(field: FieldLike) -> Scope:
    """The entity a field asks about: the consolidated group unless its words say parent or segment."""
    words = f"{field.name.replace('_', ' ')} {field.description}"
    if _PARENT_FIELD.search(words):
        return "parent"
    if _SEGMENT_FIELD.search(words):
        return "segment"
    return "consolidated"


def statement_scope(line: str) -> str | None:
    """The scope a title line opens ("parent", "segment", "consolidated" for a title that ends one,
    "section" for a heading that ends a segment discussion only, "segment heading" for one segment's
    heading, whose scope ends with its page), or None when the line is no title. A title is short: a sentence that mentions one is not."""
    text = unicodedata.normalize("NFKC", line).strip()
    if not text or len(text) > 90 or "。" in text or len(re.findall(r"\d+", text)) > 2:
        return None  # a sentence or a row of figures, not a title
    if _PARENT_TITLE.search(text):
        return "parent"
    if _SEGMENT_TITLE.search(text):
        return "segment"
    if _SEGMENT_HEADING.match(text):
        return SEGMENT_HEADING
    if _CONSOLIDATED_TITLE.search(text) or _numbered_note(text):
        return "consolidated"
    if _SECTION_HEADING.match(text):
        return "section"
    if _ZH_SECTION.match(text) and not _ZH_STATEMENT_ROW.search(text) and not re.search(r"\d|[:：]$", text):
        return "consolidated"  # "二十、补充资料" after the parent's notes: the group's figures again
    return None
