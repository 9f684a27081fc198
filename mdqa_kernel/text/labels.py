"""Row labels: what a field is called on the page, in Chinese and English, and how well a label matches.

A field names itself three ways: its description ("营业总成本。", "total assets."), its snake_case name
(value_total_operating_cost_cny → "total operating cost") and the synonyms of a small bilingual
glossary of financial line items. A description may also list alternatives explicitly:
"Net income (also: net earnings / 净利润)". Labels on the page are normalised the same way (NFKC,
lower case, no spaces, numbering, units or punctuation) before they are compared.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

from mdqa_kernel.text.datafiles import string_groups
from mdqa_kernel.text.language import CJK
from mdqa_kernel.text.line_vocabulary import FLOW_PAIR
from mdqa_kernel.text.numerals import NUMBERING_CHARS
from mdqa_kernel.text.periods import strip_period_words

# Bilingual synonyms of common line items (text/data/glossary.json). Keys and values are compared after
# `normalize_label`. A group lists names of the SAME concept only: "净利润" is not "归属于母公司股东的净利润".
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = string_groups("glossary.json", "synonym_groups")

# Suffixes of snake_case field names that name a unit, not the concept.
_NAME_UNIT_SUFFIXES = ("_10k_cny", "_cny", "_usd", "_pct", "_count", "_ratio_pct", "_mmdd")
_UNIT_TAIL = re.compile(
    r"[（(]\s*(?:人民币|美元)?\s*(?:%|％|元|千元|万元|亿元|百万元|股|人|次|in\s+\w+|\$|usd|rmb)\s*[)）]$",
    re.IGNORECASE,
)
_NOTE_TAIL = re.compile(r"[（(][^（()）]{4,}[)）]$")
# "Property and equipment, net of accumulated depreciation of $68,251 and $59,660": what the net figure is
# net of (and its printed amounts) qualifies the line item, it does not name it
_NET_OF_TAIL = re.compile(r",?\s*\bnet\s+of\s+(?:accumulated|allowances?|reserves?)\b.*$", re.IGNORECASE)


# "Interest, net of capitalized interest", "Income taxes, net of refunds", "Additions to property and
# equipment, net of $48, $92 and $14 of non-cash capital expenditures": how a payment is counted, as every
# cash flow statement counts it (a cash flow is never non-cash), not another line item
_NET_PAID_TAIL = re.compile(
    r",?\s*\bnet\s+of\s+(?:(?:the\s+)?(?:amounts?\s+|interest\s+|portions?\s+)?capitalized(?:\s+interest)?|refunds?"
    r"|(?:(?:\$\s*)?[\d.,]+\s+|and\s+|respectively,?\s+)*(?:of\s+)?non[-\s]?cash)\b.*$",
    re.IGNORECASE,
)


# "Treasury stock, at cost, 428,676,471 shares at December 31, 2019 and December 31, 2018": the count of shares an
# equity line holds (and the dates it is counted at) describes the line item, it does not name it
_SHARE_COUNT_TAIL = re.compile(
    r"(?<!\d),\s*(?:\d[\d,.]*\s+(?:and\s+\d[\d,.]*\s+)?(?:common\s+)?shares)\b[^;:]*$", re.IGNORECASE
)


def without_share_count(label: str) -> str:
    """The label without the share count an equity line prints ("Treasury stock, at cost, 428,676,471 shares at
    December 31, 2019" → "Treasury stock, at cost")."""
    if "share" not in label.lower():
        return label
    return _SHARE_COUNT_TAIL.sub("", label)


def without_net_of(label: str) -> str:
    """The label without what its net figure is net of ("Property and equipment, net of accumulated
    depreciation of $68,251 and $59,660" → "Property and equipment, net"; "Interest, net of capitalized
    interest" → "Interest")."""
    if "net of" not in label.lower():
        return label
    return _NET_OF_TAIL.sub(", net", _NET_PAID_TAIL.sub("", label))


def without_qualifiers(label: str) -> str:
    """The label without what its net figure is net of and without an equity line's share count: the words
    that describe a line item rather than name it."""
    return without_share_count(without_net_of(label))


_INNER_NUMBER = re.compile(rf"(?<={CJK})\s*\d{{1,2}}\s*[.、．]\s*(?={CJK})")
_NUMBERING = re.compile(
    rf"^(?:[{NUMBERING_CHARS}]+[、.．]|[(（][{NUMBERING_CHARS}\d]+[)）]|\d+[.、．)]|[a-z][.)])\s*"
)
# "Less:", "Add:" (lower case): how the row enters the sum above, no part of its name
_ARITHMETIC_WORDS = r"(?:less|add|plus|deduct)\s*[:：]\s*"
ARITHMETIC_LEAD = re.compile(rf"^\W*{_ARITHMETIC_WORDS}")
# "其中：", "加：", "减：" and the English leads
_LEAD_WORDS = re.compile(rf"^(?:其中[:：]?|加[:：]|减[:：]|{_ARITHMETIC_WORDS}|:|：)")
_PUNCT_SPACE = re.compile(r"[\s\W_]+", re.UNICODE)
_PERIOD_WORDS = re.compile(
    r"\b(?:fy|q[1-4])?\s*20\d\d(?:q[1-4])?\b|20\d\d\s*年(?:度|末|底)?|\bat\s+20\d\d-\d\d-\d\d\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*[-–]\s*"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?|"
    r"\b(?:at|as of|for|in|during)\s+(?:end|fiscal|the)\b.*$",
    re.IGNORECASE,
)


# A line item named by both of its signs, one in parentheses: "Income tax (expense)/benefit", "Other
# (income) expense, net", "Income tax expense/(benefit)". The parenthesised side is the one printed
# negative. The debit side names the line (a statement's "expense" line is the same whichever sign
# the year had); `sign_of_pair` says which side a field asks for.
_DEBIT = r"expenses?|provision|charges?"
_CREDIT = r"benefits?|income|credits?"
_SIDE = rf"(?:{_DEBIT}|{_CREDIT})"
_SIGN_PAIR = re.compile(
    rf"\((?P<first>{_SIDE})\)\s*/?\s*(?P<then>{_SIDE})\b|\b(?P<plain>{_SIDE})\s*/?\s*\((?P<last>{_SIDE})\)",
    re.IGNORECASE,
)
_INCOME_TAX = re.compile(r"\bincome\s+tax(?:es)?\b", re.IGNORECASE)
_DEBIT_WORD = re.compile(rf"\b(?:{_DEBIT})\b", re.IGNORECASE)
_CREDIT_WORD = re.compile(rf"\b(?:{_CREDIT})\b", re.IGNORECASE)


def _is_debit(word: str) -> bool:
    return _DEBIT_WORD.fullmatch(word) is not None


def _sign_pair(text: str) -> tuple[re.Match[str], str, str] | None:
    """The pair in a label with its debit word and which side is in parentheses ("debit"/"credit")."""
    for m in _SIGN_PAIR.finditer(text):
        paren, other = (m["first"], m["then"]) if m["first"] else (m["last"], m["plain"])
        if _is_debit(paren) != _is_debit(other):  # one side of each sign
            debit = paren if _is_debit(paren) else other
            return m, debit, "debit" if _is_debit(paren) else "credit"
    return None


# The direction a description asks of a flow named by both (`FLOW_PAIR`): "paid" is an outflow, "received" an inflow
_OUTFLOW_ASKED = re.compile(r"\b(?:paid|payments?|outflows?|spent)\b", re.IGNORECASE)
_INFLOW_ASKED = re.compile(r"\b(?:received|receipts?|proceeds|inflows?)\b", re.IGNORECASE)


def _flow_sign(label: str, description: str) -> int | None:
    """`sign_of_pair` for a flow named by both directions: -1 when the description asks the direction printed
    in parentheses (the cash "paid" under "inflows/(outflows)": "(196)" is 196 paid), 1 for the other, None
    when it asks neither or both; 1 for a label without such a pair."""
    m = FLOW_PAIR.search(label)
    if m is None:
        return 1
    paren, other = (m["first"], m["then"]) if m["first"] else (m["last"], m["plain"])
    if paren.lower() == other.lower():
        return 1
    out, inward = _OUTFLOW_ASKED.search(description), _INFLOW_ASKED.search(description)
    if bool(out) == bool(inward):
        return None
    asked = "out" if out else "in"
    return -1 if paren.lower() == asked else 1


@lru_cache(maxsize=1 << 16)  # asked for every row the field's names match, per field
def sign_of_pair(label: str, description: str) -> int | None:
    """How a value printed on a row named by both signs reads for the field: 1 as printed, -1 negated
    (the field asks for the side printed in parentheses: an expense under "Income tax
    (expense)/benefit", the cash paid under "inflows/(outflows)"), None when the description names neither
    side or both. 1 for a label without such a pair."""
    flow = _flow_sign(label, description)
    if flow != 1:
        return flow
    pair = _sign_pair(label)
    if pair is None:
        return 1
    asks = _INCOME_TAX.sub(" ", description)  # "income taxes" is what is taxed, not a side
    debit = _DEBIT_WORD.search(asks) is not None
    credit = _CREDIT_WORD.search(asks) is not None
    if debit == credit:
        return None
    asked = "debit" if debit else "credit"
    return -1 if pair[2] == asked else 1


@lru_cache(maxsize=1 << 16)  # every table row's label is normalised once per field read: cached
def normalize_label(text: str) -> str:
    """NFKC, lower case, no numbering ('一、', '(1)'), no unit tail ('（元）'), no spaces or punctuation."""
    s = unicodedata.normalize("NFKC", text).strip().lower()
    s = _NUMBERING.sub("", s)
    s = _LEAD_WORDS.sub("", s)
    s = _UNIT_TAIL.sub("", s.strip())
    # "income tax (expense)/benefit", "benefit (provision) for income taxes" name the expense line; a
    # trailing "(benefit)" is a note (below): "other income (expense)" names other income
    pair = _sign_pair(s)
    if pair is not None and (pair[0]["first"] or s[pair[0].end() :].strip()):
        s = f"{s[: pair[0].start()]}{pair[1]}{s[pair[0].end() :]}"
    # A statement's note in parentheses ("（净亏损以“-”号填列）") qualifies the line item, not names it.
    s = _NOTE_TAIL.sub("", s).strip() or s
    s = without_qualifiers(s)
    # A section heading wrapped onto the label ("（二）按所有权归属分类 1.归属于…"): keep the numbered item.
    inner = _INNER_NUMBER.split(s)
    s = inner[-1] if len(inner) > 1 and len(inner[-1]) >= 2 else s
    s = s.replace("’", "'").replace("'s", "s").replace("'", "")
    return _PUNCT_SPACE.sub("", s)


_EVENT_TAIL = re.compile(r"^(?P<thing>[A-Za-z][A-Za-z -]*[a-z])\s+[a-z]{3,}ed$")


# the words a statement puts in parentheses after a line item to say its sign: "Operating income (loss)"
SIGN_WORDS = r"loss|losses|gain|income|deficit|benefit|expense"
_NAME_GOES_ON = r"(?=\s+(?!(?:for|at|in|as|during|of|on)\b)[A-Za-z])"  # more of the name, not a period
_INNER_SIGN = re.compile(rf"\s*\((?:{SIGN_WORDS}|used\s+in)\){_NAME_GOES_ON}", re.IGNORECASE)
# The other side of an income line, under whose name a year on that side prints it: "Income (loss) before
# income taxes" (the loss note inside the name) as "Loss before income taxes", "Other income (expense), net"
# as "Other expense, net"
_OTHER_SIDES = (
    re.compile(
        rf"\b(?:income|earnings|profit)\s*\((?P<side>loss|losses|deficit)\){_NAME_GOES_ON}", re.IGNORECASE
    ),
    re.compile(r"\bincome\s*\((?P<side>expenses?)\)", re.IGNORECASE),
)
# "Income (earnings) before income taxes", "Current portion (current maturities) of long-term debt": up to
# three words in parentheses inside the name are another name of as many words before them, not where the
# name ends (cut there, "Income" would name every income row); "of" goes on with the name unless a period
# or an article follows it ("… (net sales) of the fiscal year")
_INNER_ALT = re.compile(
    r"\s*\((?P<alt>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})\)"
    rf"(?:{_NAME_GOES_ON}|(?=\s+of\s+(?!(?:the|a|an|its|fiscal|year|quarter|period)\b)[A-Za-z]))"
)


# An inner parenthesis that extends the name before it rather than renaming it: "(and supplies)", "(or loss)"
_EXTENSION = re.compile(r"(?:and|or|&|plus)\s", re.IGNORECASE)


def _inner_alternatives(desc: str) -> tuple[str, str | None]:
    """The description with an inner "(other name)" dropped, and with it put in the place of as many
    words before it (None when there is none); an inner "(and …)" or "(or …)" extends the name instead."""
    m = _INNER_ALT.search(desc)
    if m is None or re.fullmatch(rf"{SIGN_WORDS}|used\s+in", m["alt"], re.IGNORECASE):
        return desc, None  # "Net cash provided by (used in) …": a sign note (`_INNER_SIGN`)
    before = desc[: m.start()]
    if _EXTENSION.match(m["alt"]):
        # "Raw materials (and supplies) inventories": the name with its extension, not "and supplies" for words
        return before + desc[m.end() :], f"{before} {m['alt']}{desc[m.end() :]}"
    n = len(m["alt"].split())
    replaced = re.search(rf"(?:[A-Za-z][\w'-]*\s+){{{n - 1}}}[A-Za-z][\w'-]*$", before)
    if replaced is None:
        return desc, None
    return before + desc[m.end() :], before[: replaced.start()] + m["alt"] + desc[m.end() :]


# Where a description places a balance-sheet line ("Noncontrolling interests within equity", "Deferred
# revenue within current liabilities"): the statement's section it sits in, never printed in its label.
LOCATION_CLAUSE = re.compile(
    r"\s+(?:within|among)\s+(?:the\s+)?(?:total\s+)?(?P<where>current|non-?current|long[\s-]+term)?\s*"
    r"(?:assets|liabilities|(?:(?:share|stock)holders['’]?\s+)?(?:equity|deficit))\b"
    # "Foreign currency translation adjustment in other comprehensive income": the statement it is a line of
    r"|\s+(?:in|within)\s+(?:the\s+)?other\s+comprehensive\s+(?:income|loss)\b",
    re.IGNORECASE,
)


def _core(desc: str) -> str:
    """The description's name: before its first parenthesis, period words or location clause."""
    # "Income (loss) before income taxes", "Net cash provided by (used in) investing activities": a sign
    # note inside the name is dropped, not taken as where the name ends ("Income" would name every row)
    core = re.split(r"[(（]", _INNER_SIGN.sub("", desc), maxsplit=1)[0]
    core = LOCATION_CLAUSE.split(core, maxsplit=1)[0]
    core = re.sub(r"(?:列表|清单|\s+list)$", "", core.strip())
    core = strip_period_words(_PERIOD_WORDS.sub("", core).strip())
    core = re.sub(r"^(?:是否|whether)\s*", "", core, flags=re.IGNORECASE)
    return re.sub(r"\b(?:quarterly|annual|declared|reported)\b", "", core, flags=re.IGNORECASE).strip()


_NUMBER_OF = re.compile(r"^(?:the\s+)?(?:total\s+)?number\s+of\s+(.{4,})$", re.IGNORECASE)
# What a count's noun is said of, or where it is stated: "holders of record of the company's common stock,
# as stated" is counted as "106,534 holders of record of our common stock".
_COUNT_QUALIFIER = re.compile(
    r"\s*(?:,?\s+as\s+(?:stated|disclosed|reported|printed|shown)\b|\s+of\s+(?:the\s+company['’]?s?|the\s+"
    r"registrant['’]?s?|its|our)\s+(?:common\s+|ordinary\s+|capital\s+)?(?:stock|shares)\b).*$",
    re.IGNORECASE,
)


# A count's participle printed after its "of" phrase ("shares of common stock outstanding"), which prose
# also prints before it ("shares outstanding of the Registrant's Common Stock").
_POSTPOSED = re.compile(
    r"^(?P<head>\w+)\s+of\s+(?P<of>.+?)\s+(?P<done>outstanding|issued|repurchased|authorized|held|granted"
    r"|vested|exercised)$",
    re.IGNORECASE,
)


def _description_core(description: str) -> list[str]:
    """The label-like parts of a description: text before a parenthesis or 'at/for <period>', plus
    explicit alternatives written as 'also: a / b' or inside quotes."""
    desc = unicodedata.normalize("NFKC", description).strip().rstrip("。.")
    out: list[str] = []
    also = re.search(r"(?:also|aka|又称|或称|即)\s*[:：]\s*([^)）]+)", desc, re.IGNORECASE)
    if also:
        out.extend(p.strip() for p in re.split(r"[/|、,，;；]", also.group(1)) if p.strip())
    out.extend(re.findall(r"[“\"「『]([^”\"」』]+)[”\"」』]", desc))
    desc, alt = _inner_alternatives(desc)
    if alt is not None and (other := _core(alt)):
        out.append(other)
    core = _core(desc)
    # the same line printed for a year on its other side (its figure in parentheses)
    for side in _OTHER_SIDES:
        as_side = side.sub(r"\g<side>", desc)
        if as_side != desc and (named := _core(as_side)):
            out.append(named)
    if core:
        out.insert(0, core)
        # "Auditor ratified", "Stock repurchase program reauthorized": the thing the event happened to,
        # as prose names it ("ratified the appointment of KPMG LLP as the … accounting firm"); one word
        # only when the glossary knows it ("Shares repurchased" is not about every "Shares" row).
        event = _EVENT_TAIL.match(core)
        if event and (" " in event.group("thing") or glossary_label(event.group("thing"))):
            out.append(event.group("thing"))
    # "Number of shares of common stock outstanding": prose counts the noun ("7,429,763,722 shares of
    # common stock outstanding"), it does not say "number of"
    if counted := _NUMBER_OF.match(core):
        noun = _COUNT_QUALIFIER.sub("", counted.group(1)) or counted.group(1)
        out.append(noun)
        if moved := _POSTPOSED.match(noun):
            out.append(f"{moved['head']} {moved['done']} of {moved['of']}")
    for part in re.split(r"\s*/\s*", core):
        if part and part != core:
            out.append(part)
    return out


# Suffixes that name the period asked, not the line item ("revenue_prior_year", "sga_expense_quarter"):
# the description says the period; the line item is printed without it.
_NAME_PERIOD_SUFFIX = re.compile(
    r"_(?:(?:prior|previous|last|current)_(?:fiscal_)?(?:year|period|quarter)|two_years_(?:prior|before|ago)"
    r"|(?:first|second|third|fourth)_quarter|q[1-4]|quarter(?:_end)?|ytd|year_to_date|(?:fy)?(?:19|20)\d\d)$"
)


def _name_words(name: str) -> str:
    n = name.removeprefix("value_")
    for suffix in _NAME_UNIT_SUFFIXES:
        if n.endswith(suffix):
            n = n[: -len(suffix)]
            break
    n = _NAME_PERIOD_SUFFIX.sub("", n) or n
    return n.replace("_", " ")


@dataclass(frozen=True)
class LabelSet:
    """The normalised names of one field: primary (from description/name) and synonyms (glossary)."""

    primary: tuple[str, ...]
    synonyms: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        return self.primary + self.synonyms


# Disclosure topics of ESG reports under the names questions use ("员工保护") and the section titles
# reports print ("职工权益保护"). Only for finding a yes/no topic's statement: the short question forms
# ("环境", "不足") are keys here, never searched for themselves (see `phrase_variants`).
TOPIC_GROUPS: tuple[tuple[str, ...], ...] = string_groups("glossary.json", "topic_groups")
_MIN_SEARCHED = 4  # shorter topic names occur in unrelated sentences ("外部环境")


@cache
def _topic_norms() -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(normalize_label(g) for g in group) for group in TOPIC_GROUPS)


def _topic_of(phrase: str) -> tuple[str, ...] | None:
    """The TOPIC_GROUPS group naming the phrase, if any."""
    norm = normalize_label(phrase)
    # "环境和可持续发展信息": a topic's information is the topic
    bare = norm.removesuffix("信息").removesuffix("information")  # normalised: no spaces
    return next(
        (TOPIC_GROUPS[i] for i, norms in enumerate(_topic_norms()) if norm in norms or bare in norms), None
    )


def is_topic(phrase: str) -> bool:
    """A disclosure topic the glossary knows (so its absence was searched under every printed name)."""
    return _topic_of(phrase) is not None


def phrase_variants(phrase: str) -> list[str]:
    """The phrase and the printed names of its disclosure topic, each long enough to search for."""
    group = _topic_of(phrase) or ()
    out = [phrase] if len(normalize_label(phrase)) >= _MIN_SEARCHED else []
    out += [g for g in group if len(normalize_label(g)) >= _MIN_SEARCHED and g not in out]
    return out or [phrase]


@cache
def _synonym_norms() -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(normalize_label(g) for g in group) for group in SYNONYM_GROUPS)


def _groups_of(norms: list[str]) -> set[int]:
    """The SYNONYM_GROUPS (by index) that name any of these normalised labels."""
    return {i for i, group in enumerate(_synonym_norms()) if any(n in group for n in norms)}


def english_synonyms(norm: str) -> list[str]:
    """The glossary's other English names of a normalised label ("auditor" → "accountingfirm", …)."""
    for group in _synonym_norms():
        if norm in group:
            return [n for n in group if n.isascii() and n != norm]
    return []


def same_line_item(a: str, b: str) -> bool:
    """Two normalised labels name one line item: equal, or synonyms in the glossary ("sales", "revenues")."""
    return a == b or bool(_groups_of([a]) & _groups_of([b]))


def glossary_label(phrase: str) -> str | None:
    """The phrase as the glossary knows it ("审验机构名称" -> "审验机构", a name of 第三方审验机构名称),
    whether or not a sampled document printed it as a label of its own; None when it knows neither."""
    for text in (phrase, phrase.removesuffix("名称")):
        norm = normalize_label(text)
        if norm and _groups_of([norm]):
            return text
    return None


def field_labels(name: str, description: str) -> LabelSet:
    """All names under which a field's row may be printed, normalised.

    The name counts only when it names the same line item as the description: a model's English slug
    ("operating_cost" for 营业总成本) would otherwise add another line item's names (营业成本) as equally
    good readings, and the reader, seeing two rows disagree, would give up its sure reading."""
    described = [n for n in (normalize_label(t) for t in _description_core(description)) if len(n) >= 2]
    named = normalize_label(_name_words(name))
    own, slug = _groups_of(described), _groups_of([named])
    if own and slug and not own & slug:
        named = ""
    primary: list[str] = []
    for norm in [*described, named]:
        if len(norm) >= 2 and norm not in primary:
            primary.append(norm)
    synonyms: list[str] = []
    for normed in _synonym_norms():
        if any(p in normed for p in primary):
            synonyms.extend(n for n in normed if n not in primary and n not in synonyms)
    return LabelSet(tuple(primary), tuple(synonyms))


@lru_cache(maxsize=1 << 16)  # the same row labels are scored against the same field many times
def label_score(label: str, labels: LabelSet) -> float:
    """How well a printed row label names the field: 1.0 exact primary, 0.95 exact synonym, lower for
    a label that merely starts with or contains a name (a different line item may contain it)."""
    norm = normalize_label(label)
    if not norm:
        return 0.0
    best = 0.0
    for candidates, exact in ((labels.primary, 1.0), (labels.synonyms, 0.95)):
        for cand in candidates:
            if norm == cand:
                best = max(best, exact)
            elif norm.startswith(cand) and len(norm) - len(cand) <= 2:
                best = max(best, exact - 0.1)
            elif cand in norm:
                # "归属于上市公司股东的净利润" contains "净利润" but is another line item.
                best = max(best, 0.5 * len(cand) / len(norm) + 0.2)
    return round(best, 4)
