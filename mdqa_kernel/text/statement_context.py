"""Statement context for English table rows: the words of a label and the heads of a description, and how
specific a label is for the description.

A row of a financial statement is read under its section heading — the outdented label-only line above it
(found by `text/row_context`); what the section allows (a change, not a balance, under "Changes in …"; a
per-share figure under "Per Share Data"; the diluted EPS for "Diluted" under "Earnings per common share:")
is `text/sections`.

A label is also more or less specific than the field asks. The description's head ("Net income",
"Total revenue") must be covered by the label's words; a label that adds a restricting word the
description lacks ("Transaction-based revenue", "Net earnings from continuing operations") is a
component, not the field; "attributable to <the company>" is preferred when the description asks for
it, and a noncontrolling interest's share is never the company's.

Only ASCII (English) labels and descriptions are judged here; other labels keep their string score.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mdqa_kernel.text.deductions import GROSS_WORDS, asked_deduction, without_deduction_clause
from mdqa_kernel.text.holders import (
    COMMON_HOLDERS,
    NONCONTROLLING,
    asks_whole_with_noncontrolling,
    describes_noncontrolling_share,
    split_attributable,
    wants_attributable,
)
from mdqa_kernel.text.label_periods import balance_name
from mdqa_kernel.text.labels import ARITHMETIC_LEAD, LOCATION_CLAUSE, SIGN_WORDS, without_qualifiers
from mdqa_kernel.text.line_vocabulary import (
    BOOKED,
    DIVIDEND_STAGES,
    FLOW_VERBS,
    HARMLESS,
    HARMLESS_BESIDE,
    PERIOD_TOKEN,
    SAME_PHRASE,
    SAME_WORD,
    STOP,
)
from mdqa_kernel.text.statement_titles import statement_title

# Parenthesised sign words inside labels: "Net earnings (loss)", "Net income/(loss)".
_SIGN_NOTE = re.compile(rf"/?\s*\((?:{SIGN_WORDS})\)", re.IGNORECASE)
# A ratio named by its parts ("operating income as a percentage of revenue"), as margin tables print it
_RATIO_NAME = re.compile(
    r"(?:[A-Za-z'’-]+\s+){1,4}as\s+a\s+(?:percentage|percent|%)\s+of\s+(?:[A-Za-z'’-]+\s*){1,3}", re.I
)
_PAREN = re.compile(r"\([^)]*\)")
_LOSS_NOTE = re.compile(r"\((?:loss|losses)\)", re.IGNORECASE)
_SERIES = re.compile(r"[A-Za-z]+, [A-Za-z]+(?: [A-Za-z]+)? and [^,]*")
_IN_CURRENCY = re.compile(r"\s+in\s+(?:u\.?s\.?\s+)?(?:dollars|usd)$", re.IGNORECASE)
# A share basis printed in parentheses names the line ("Net earnings per share (Diluted)"): kept.
_PAREN_BASIS = re.compile(r"\(\s*(diluted|basic)\s*\)")
# "Property, plant and equipment" and "property and equipment" name one asset class.
_PPE = re.compile(r"property,?\s+plant,?\s+(?:and|&)\s+equipment", re.IGNORECASE)
# "… attributable to common stockholders Diluted" (a "Diluted" row read under its heading): the basis
# ends the holder's name
# Qualifier clauses of a description after its line item ("Net income attributable to the company",
# "Cash and cash equivalents on the balance sheet", "… as printed in the cash flow statement", "… in the
# financing activities section of the cash flow statement").
_QUALIFIER = re.compile(
    r"\s+(?:attributable\s+to|including|excluding|on\s+the\s+balance\s+sheet|in\s+the\s+cash\s+flow"
    r"|in\s+the\s+(?:[a-z'’-]+\s+){1,4}section\s+of\b"
    r"|to\s+(?:the\s+company's\s+|its\s+)?(?:common\s+)?(?:share|stock)holders"
    r"|as\s+(?:printed|stated|reported)\s+in)\b.*$",
    re.IGNORECASE,
)
# "… at end of year", and a roll-forward's "Balance at beginning of year" under the line item's heading
_PERIOD_TAIL = re.compile(
    r"\b(?:balance,?\s+)?(?:at|as of)\s+(?:the\s+)?(?:end|beginning|start)\s+of\s+(?:the\s+)?(?:fiscal\s+)?"
    r"(?:year|period)\b|\bbalance,?\s+(?:end|beginning)\s+of\s+(?:the\s+)?(?:year|period)\b",
    re.I,
)
# A per-share figure named: "Earnings per common share", "Net income / share", "EPS"
PER_SHARE = re.compile(r"per\s+(?:common\s+)?share|/\s*share|\beps\b", re.IGNORECASE)


# Typesetting a PDF of English text keeps: dashes, curly quotes, bullets, a no-break space
# ("AVERAGE SHARES OUTSTANDING — DILUTED", "Shareholders’ equity")
_TYPOGRAPHIC = str.maketrans(
    "", "", "\u2010\u2011\u2012\u2013\u2014\u2015\u2018\u2019\u201c\u201d\u2022\u00a0\u00ae\u2122"
)


def is_english(text: str) -> bool:
    # every row label is asked, against every field: the translation only when the text is not ASCII
    ascii_text = text.isascii() or text.translate(_TYPOGRAPHIC).isascii()
    return bool(text) and ascii_text and bool(re.search(r"[A-Za-z]", text))


def words(text: str) -> list[str]:
    """Content words of an English label, stemmed, sign notes and parentheses dropped."""
    return list(_words(text))


# Every row of every page is judged against each field, mostly with the same few label texts: cached.
@lru_cache(maxsize=1 << 16)
def _words(text: str) -> tuple[str, ...]:
    # a balance's date ("… – December 31", "Ending …") dates the row; it restricts nothing
    # "Less: Net income attributable to noncontrolling interests": how the row enters the sum, not its name
    t = ARITHMETIC_LEAD.sub("", unicodedata.normalize("NFKC", balance_name(text)).lower())
    t = _PPE.sub("property and equipment", t)
    for pattern, form in SAME_PHRASE:
        t = pattern.sub(form, t)
    t = _SIGN_NOTE.sub(" ", t)
    t = _PAREN_BASIS.sub(r" \1 ", t)
    t = _PAREN.sub(" ", t)
    t = _PERIOD_TAIL.sub(" ", t)
    out = []
    for w in re.split(r"[^a-z0-9]+", t.replace("'s", "")):
        if not w or w in STOP or w in FLOW_VERBS or w in BOOKED or w.isdigit() or PERIOD_TOKEN.fullmatch(w):
            continue
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"  # inventories → inventory
        elif len(w) > 4 and w.endswith("xes"):
            w = w[:-2]  # taxes → tax, as "income tax expense" prints it
        elif len(w) > 5 and w.endswith("sses"):
            w = w[:-2]  # businesses → business, losses → loss
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(SAME_WORD.get(w, w))
    return tuple(out)


# "(Reported) percentage change in X": an organic or constant-currency change is another measure.
_CHANGE_OF = re.compile(
    r"^(?:reported\s+)?(?:percentage|percent|%)\s+(?:change|growth)\s+(?:in|of)\s+(?P<x>.+)$", re.I
)


def change_base(description: str) -> str | None:
    """The line item whose change a description asks for, with the rest of the description: "Percentage
    change in total revenue (sales) for the quarter …" → "total revenue (sales) for the quarter …"; None
    for a description that asks no change of a named line item."""
    m = _CHANGE_OF.match(unicodedata.normalize("NFKC", description).strip())
    return m.group("x") if m else None


# A parenthesis stating the basis a line item is asked on, not another name of it: "(net of tax)",
# "(before income taxes)", "(excluding …)", "(attributable to the company)", "(unaudited)"
_BASIS_NOTE = re.compile(
    r"^\s*(?:net\s+of\b|before\b|after\b|pre-?tax\b|after-?tax\b|excluding\b|including\b|attributable\s+to\b"
    r"|unaudited\b|as\s+reported\b|in\s+(?:millions|thousands|billions)\b)",
    re.I,
)


def description_heads(description: str) -> list[str]:
    """The line item(s) a description names, without qualifiers: "Total revenue (net sales) for …" →
    ["Total revenue", "net sales"]; "Net income attributable to the company …" → ["Net income"]."""
    return list(_description_heads(description))


_EXTENDS = re.compile(r"\s*(?:and|&|plus)\s", re.IGNORECASE)


@lru_cache(maxsize=1024)
def _description_heads(description: str) -> tuple[str, ...]:
    desc = unicodedata.normalize("NFKC", description).strip()
    # "Net cash provided by (used in) financing activities": the parenthesis is inside the name
    plain = re.sub(r"\s+", " ", _PAREN.sub(" ", desc)).strip()
    # "Selling, general and administrative expenses", "Property, plant and equipment, net": a series
    # that opens the name is one name ("Selling" alone would name another line); else the first comma
    # ends it ("Accounts receivable, net")
    series = _SERIES.match(plain)
    core = series.group(0) if series else plain.split(",", 1)[0]
    core = core.strip()
    # the period the description asks ("… of the fiscal fourth quarter", "… at the beginning of the
    # year", "… two years before the report's") is no part of the line item's printed name
    core = re.sub(
        r"\s+\b(?:for|in|at|as of|during|of)\b\s+(?:the\s+)?(?:end|beginning|start|fiscal|year|period"
        r"|quarter|first|second|third|fourth|prior|previous)\b.*$|\s+\btwo\s+years\s+(?:before|prior|earlier)\b.*$",
        "",
        core,
    )
    core = re.sub(r"\s+\bfor\s+the\b.*$", "", core, flags=re.IGNORECASE)
    # "Number of stores the company operated at …": a clause saying who has them names nothing printed
    core = re.sub(
        r"\s+\b(?:that|which|(?:the\s+)?(?:company|filer|registrant|group))\s+(?:\w+\s+)?(?:operated|operates"
        r"|had|has|employed|employs|held|holds|owned|owns|reported|reports)\b.*$",
        "",
        core,
        flags=re.IGNORECASE,
    )
    core = _QUALIFIER.sub("", LOCATION_CLAUSE.split(core, maxsplit=1)[0])
    # "… at cost before accumulated depreciation": the basis asked, no part of the printed name
    core = without_deduction_clause(core).strip()
    # "Deferred revenue / unearned revenue / contract liabilities": each alternative is a name of its own
    parts = [p.strip() for p in re.split(r"\s*/\s*", core)]
    heads = ([p for p in parts if words(p)] if len(parts) >= 2 else []) or [core]
    # "Percentage change in total revenue": printed as "Revenue % change", "Net revenue growth"
    changed = _CHANGE_OF.match(heads[0])
    if changed:
        heads += [f"{changed.group('x')} {word}" for word in ("change", "growth")]
    # a short alternative name in parentheses: "(net sales)", "(merchandise inventories)"
    for alt in re.findall(r"\(([^)]*)\)", desc):
        also = re.match(r"\s*also\s*:\s*", alt, re.I)
        if also:
            # "(also: restructuring and impairment charges / restructuring costs)": other printed names
            # of the same line item, each a head of its own (never a component of the first)
            heads += [n.strip() for n in alt[also.end() :].split("/") if is_english(n) and words(n)]
            continue
        # "(gross margin in dollars)": the amount the alternative name is printed as
        alt = _IN_CURRENCY.sub("", alt.strip())
        if _EXTENDS.match(alt):
            # "Raw materials (and supplies) inventories": more of the name, not a name of its own
            heads += _description_heads(desc.replace(f"({alt})", alt.strip(), 1))[:1]
            continue
        if statement_title(alt) or _BASIS_NOTE.match(alt):
            # "(balance sheet)": where the line is printed; "(net of tax)": its basis; neither names it
            continue
        w = _SERIES.sub("series", alt).split()  # "(purchases of property, plant and equipment)": 4 words
        sign_note = _SIGN_NOTE.fullmatch(f"({alt})")  # "Operating income (loss)": a sign, not a name
        if _RATIO_NAME.fullmatch(alt.strip()):
            # "(operating income as a percentage of revenue)": the ratio as margin tables print it
            heads.append(alt.strip())
        elif (
            2 <= len(w) <= 5  # one word ("(FLNA)") names a segment, not its line item
            and is_english(alt)
            and not sign_note
            and not re.search(r"\d|\b(?:the|an|a|e\.g|i\.e|not|or)\b", alt, re.I)
            and words(alt)
        ):
            heads.append(alt)
    return tuple(h for h in heads if h)


def _as_income(have: set[str], wanted: set[str]) -> set[str]:
    """A loss line's words as the income line's: "Loss from operations" is operating income printed for a
    year with a loss, "Net loss per share" the earnings per share (the sign is the printed one; see
    `names_loss`). A label that also says income ("Loss on income investments") is another line, except
    before income taxes: "Loss before income taxes" is the pre-tax income line, its "income" the taxes'. A
    field that asks for a loss ("Net loss") keeps its word."""
    pretax = {"before", "tax"} <= have
    if "loss" in have and ("income" not in have or pretax) and "loss" not in wanted:
        return (have - {"loss"}) | {"income"}
    return have


def names_loss(label: str, description: str) -> bool:
    """The English label names the loss or the expense of an income line the description asks for
    ("Operating loss" for "Operating income (loss)", "Other expense, net" for "Other income (expense), net"):
    a positive figure printed on it may be the size of the loss."""
    if not (is_english(label) and is_english(description)):
        return False
    have = set(words(label))
    asked = set(words(_PAREN.sub(" ", description)))
    if "income" in have:
        return False
    expense = (
        "income" in asked and not asked & {"expense", "expenses"} and bool(have & {"expense", "expenses"})
    )
    return ("loss" in have and "loss" not in asked) or expense


def _needed(head: str) -> set[str]:
    """The words a label must have to name a head: all but the harmless ones ("Net income" needs
    "income"; a head of harmless words only needs them all)."""
    have = set(words(head))
    return (have - HARMLESS - _beside(have)) or have


def head_needs(description: str) -> tuple[frozenset[str], ...]:
    """The words a text must have to name each of the description's heads (`_needed`)."""
    return tuple(frozenset(_needed(h)) for h in description_heads(description))


def _beside_head(head: str) -> set[str]:
    """Words harmless beside any word of a head, whether a label prints that word or not: "plan" beside
    "pension" restricts nothing a label leaves to its table."""
    return _beside(set(words(head)))


def _beside(wanted: set[str]) -> set[str]:
    """Words harmless beside any of the wanted ones (`HARMLESS_BESIDE`)."""
    return set().union(*(HARMLESS_BESIDE.get(w, frozenset()) for w in wanted))


@lru_cache(maxsize=1 << 16)  # every row label of a document against the same few descriptions
def head_cover(label: str, description: str) -> float:
    """How well an English label names the description's head: 0.9 when the label's words cover a
    head's words and add only harmless ones ("Total net revenue" for "Total revenue"), 0 otherwise."""
    where = location_words(description)
    label = _naming_text(label, where, asks_whole_with_noncontrolling(description))
    also = where | included_words(description)
    texts = {label, holders_equity(label)}
    return 0.9 if any(names(t, head, also) for t in texts for head in description_heads(description)) else 0.0


def heads_left_to_lead_in(label: str, description: str) -> tuple[frozenset[str], ...]:
    """The description's heads an English label names only in part, each as the words it needs: the label
    holds two or more of them and at least as many as it leaves out, the head's noun among them, and adds
    no restricting word ("Effective rate" for "Effective income tax rate"). The words left out may be
    stated by the sentence introducing the label's table (`lead_in_names`); () when no head is left so (a
    label that names a head whole is `head_cover`'s; a one-word label, "Other" among the components of
    other income (expense), names no head through its table)."""
    return tuple(need for need, _missing in _partial_heads(label, description))


def head_words_left(label: str, description: str) -> tuple[frozenset[str], ...]:
    """The words each head `heads_left_to_lead_in` finds leaves out of the label ({"paid", "liability"} of
    "Operating cash flows paid for operating lease liabilities" for "Operating cash flows from operating
    leases"): a table's heading or lead-in may state them."""
    return tuple(missing for _need, missing in _partial_heads(label, description))


@lru_cache(maxsize=1 << 16)  # every row label that names no head whole, against the same few descriptions
def _partial_heads(label: str, description: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """(words needed, words left out) of each head the label names only in part (`heads_left_to_lead_in`)."""
    where = location_words(description)
    text = _naming_text(label, where, asks_whole_with_noncontrolling(description))
    also = where | included_words(description)
    out = []
    for head in description_heads(description):
        need = _needed(head)
        have = _as_income(set(words(split_attributable(text)[0])), need)
        missing = need - have
        # a word harmless beside a head word restricts nothing, whether the label prints that word or leaves it to
        # its table ("plan" beside "pension" in "Fair value of plan assets" under "Pension"); "Total definite-lived
        # intangible assets" under an amortization lead-in still names no amortization: the head's noun is missing
        if (
            missing
            and _head_nouns(head) & have
            and len(need & have) >= max(len(missing), 2)
            and not (_extra(have, need & have) - also - _beside_head(head))
        ):
            out.append((frozenset(need), frozenset(missing)))
    return tuple(out)


# A roll-forward's balance row that names no line item: "Ending balance", "Beginning balance at fair value",
# "Balance at end of year"; its block's heading names it ("Change in benefit obligation")
_BARE_BALANCE = re.compile(
    r"^\s*(?:(?:beginning|ending|opening|closing)\s+balance|balance,?\s+(?:(?:at|as\s+of)\s+)?(?:the\s+)?"
    r"(?:beginning|end)\s+of\s+(?:the\s+)?(?:fiscal\s+)?(?:year|period))\b",
    re.I,
)


def bare_balance(label: str) -> re.Match[str] | None:
    """A roll-forward's balance row that names no line item ("Ending balance", "Balance at end of year")."""
    return _BARE_BALANCE.match(label)


def balance_words_left(label: str, heading: str, description: str) -> tuple[frozenset[str], ...]:
    """The words of each description head a bare balance row leaves out once its block's heading is read with
    it ("Ending balance" under "Change in benefit obligation" leaves {"pension"} of "Projected benefit
    obligation of the pension plans"): the two state the head's noun, the heading a word of the head, the label
    adds no restricting word, and the two hold two or more of the head's words and at least as many as they
    leave out. A column header may state the rest (`readers.table.columns.qualified_columns`); an empty set:
    nothing is left."""
    bare = bare_balance(label)
    if not bare or not is_english(heading) or not is_english(description):
        return ()
    rest, heading_words = set(words(label[bare.end() :])), set(words(heading))
    out = []
    for head in description_heads(description):
        need = _needed(head)
        have = (rest | heading_words) & need
        missing = need - have
        named = _head_nouns(head) & have and need & heading_words
        if named and not rest - need - _beside_head(head) and len(have) >= max(len(missing), 2):
            out.append(frozenset(missing))
    return tuple(out)


@lru_cache(maxsize=1 << 16)  # every row label that names no head whole, against the same few descriptions
def heads_left_to_total(label: str, description: str) -> tuple[frozenset[str], ...]:
    """The description's heads an English label names all but the noun of, as the words left out ("Finished
    goods" for "Finished goods inventories" leaves {"inventory"}): the total closing the label's block, its
    heading or its lead-in may state them ("Total inventories"). The noun is the head's last word and the
    label adds no restricting word; () when no head is left so."""
    where = location_words(description)
    text = _naming_text(label, where, asks_whole_with_noncontrolling(description))
    have = set(words(split_attributable(text)[0]))
    also = where | included_words(description)
    out = []
    for head in description_heads(description):
        need, said = _needed(head), words(head)
        missing = need - have
        # only a noun its modifiers name the kind of ("Finished goods" inventories); the noun of "Amortization
        # of intangible assets" is not left out by "Total intangible assets, net": that names another thing
        noun = _head_noun(head)
        if (
            said
            and noun == said[-1]
            and missing == {noun}
            and need & have
            and not (_extra(have, need & have) - also - _beside_head(head))
        ):
            out.append(frozenset(missing))
    return tuple(out)


def _head_noun(head: str) -> str | None:
    """The noun a line item's name is about: its last word before an "of" ("Amortization of intangible
    assets" → "amortization"), else its last word ("Effective income tax rate" → "rate"). A label naming
    the rest of the head only is about another thing ("Total intangible assets, net")."""
    said = words(re.split(r"\s+of\s+", head, maxsplit=1, flags=re.IGNORECASE)[0]) or words(head)
    return said[-1] if said else None


# A participle opening a head's modifier: "Operating cash flows paid for operating lease liabilities"
_PARTICIPLE = re.compile(r"\s+(?:paid|received|used|provided|incurred|recognized)\b", re.I)


def _head_nouns(head: str) -> set[str]:
    """The nouns a label naming a head in part must keep: `_head_noun`'s, and the last word before a
    participle that opens the head's modifier ("flows" of "Operating cash flows paid for …")."""
    nouns = {_head_noun(head)}
    before = _PARTICIPLE.split(head, maxsplit=1)
    if len(before) == 2 and (said := words(before[0])):
        nouns.add(said[-1])
    return {n for n in nouns if n}


def lead_in_names(heads: tuple[frozenset[str], ...], lead: str) -> bool:
    """A table's lead-in sentence names one of the heads whole ("… income taxes computed at the U.S.
    federal statutory rate and our effective rate were as follows:" names "Effective income tax rate"); a
    lead-in sharing a word by chance ("the purchase price was as follows:" above "Property, plant &
    equipment" for "purchases of property and equipment") does not."""
    said = set(words(lead))
    return any(need <= said for need in heads)


# "Operating lease liabilities, non-current": the name's section qualifier after its first comma
_NONCURRENT_NAME = re.compile(r"^[^,]+,\s*(?:non[\s-]?current|long[\s-]+term)\b", re.I)


@lru_cache(maxsize=1 << 10)  # asked for every row label a description is scored against
def location_words(description: str) -> frozenset[str]:
    """The section word of a description's location clause ("… within current liabilities" → {"current"}),
    or of its name's qualifier ("Operating lease liabilities, non-current" → {"noncurrent"}, the word
    `words` makes of "long-term" and "non-current"): a label may print it ("Deferred revenue, current",
    "Long-term operating lease liabilities") without restricting the line the description asks."""
    name = description.split("(")[0]
    m = LOCATION_CLAUSE.search(name)
    where = re.sub(r"[\s-]+", "", (m.group("where") or "").lower()) if m else ""
    if where == "current":
        return frozenset({"current"})
    if where in ("noncurrent", "longterm") or _NONCURRENT_NAME.match(name):
        return frozenset({"noncurrent"})
    return frozenset()


def holders_equity(label: str) -> str:
    """The holders a label of equity alone names ("Equity attributable to noncontrolling interests" →
    "noncontrolling interests", the balance sheet's noncontrolling interests line); other labels as they are."""
    head, who = split_attributable(label)
    return who if who and set(words(head)) <= {"equity", "total"} and words(who) else label


# "Other comprehensive income, net of tax (of $425)": the basis its amount is reported on, not another line.
# Only the word-level naming drops it: `labels.without_net_of` keeps it, so normalised labels still tell a
# "…, net of tax" line from its pre-tax twin by string match.
_NET_OF_TAX = re.compile(r",?\s*\bnet\s+of\s+(?:income\s+)?tax(?:es)?\b.*$", re.I)


def without_tax_basis(label: str) -> str:
    """The label without a "net of tax" tail ("Total other comprehensive income (loss), net of tax" →
    "Total other comprehensive income (loss)"): it names the same line item."""
    return _NET_OF_TAX.sub("", label)


# "(including restricted cash where the statement includes it)": what the description counts in the line
_INCLUDING = re.compile(
    r"\(\s*(?:including|incl\.)\s+(?P<what>[^(),;]*?)(?:\s+\b(?:where|when|if|which|that|as)\b[^)]*)?\)", re.I
)


@lru_cache(maxsize=1 << 10)
def included_words(description: str) -> frozenset[str]:
    """The words of what a description says its line includes ("Net increase in cash and cash equivalents
    (including restricted cash …)" → {"restricted", "cash"}): a label may print them ("… cash, cash
    equivalents and restricted cash") without naming a narrower line; for an amount asked before a
    deduction the words of its gross basis ("Total property, plant and equipment, gross")."""
    said = frozenset(w for m in _INCLUDING.finditer(description) for w in words(m.group("what")))
    return said | GROSS_WORDS if asked_deduction(description) else said


_SHORT_TERM = re.compile(r"^\W*short[\s-]+term\b", re.I)


def short_term_as_current(label: str, where: frozenset[str]) -> str:
    """A label opening with "Short-term" read as the current part ("Short-term unearned revenue" is
    "Current unearned revenue") where the description places its line in a current section, unless the
    label says "current" itself ("Short-term debt and current portion of long-term debt": two items)."""
    if "current" not in where or "current" in words(label):
        return label
    return _SHORT_TERM.sub("Current", label)


# "Net income before allocation to noncontrolling interests", "… (including noncontrolling interests)": the
# whole, said with the share it includes
_WITH_NONCONTROLLING = re.compile(
    r",?\s*\(?\b(?:including|before\s+(?:the\s+)?(?:allocation|attribution|deduction)\s+(?:of\s+\w+(?:\s+\w+)?\s+)?to)"
    r"\s+(?:the\s+)?(?:non-?\s?controlling|minority)\s+interests?\)?",
    re.IGNORECASE,
)


def _naming_text(label: str, where: frozenset[str], whole: bool = False) -> str:
    """The label as it names a line item: without what its net figure is net of or the share count of an equity
    line, without a "net of tax" tail, "amounts included in the measurement of" or a closing "during the year";
    "Short-term" read
    as current where the description's location clause is a current section; where the whole with the
    noncontrolling interests' share is asked (`whole`), without the words saying it includes that share."""
    if whole:
        label = _WITH_NONCONTROLLING.sub("", label)
    label = _DURING_TAIL.sub("", _MEASURED.sub("", label))
    return short_term_as_current(without_tax_basis(without_qualifiers(label)), where)


# "during the year", "for the fiscal quarter": the statement's period, which is its column's
DURING_THE_PERIOD = r"(?:during|in|for)\s+the\s+(?:fiscal\s+)?(?:year|period|quarter)"
# "Net increase (decrease) during the year": no restriction of the item
_DURING_TAIL = re.compile(rf"\s+{DURING_THE_PERIOD}\s*$", re.I)


# "Cash paid for amounts included in the measurement of lease liabilities": the lease standard's wording for the
# cash paid for the liabilities themselves
_MEASURED = re.compile(r"\bamounts?\s+included\s+in\s+the\s+measurement\s+of\s+", re.I)


def names(label: str, head: str, also_harmless: frozenset[str] = frozenset()) -> bool:
    """The English label names the line item `head` ("Revenues:" names "Revenue"): it has the head's
    words and adds only harmless ones (and `also_harmless`)."""
    need = _needed(head)
    have = _as_income(set(words(split_attributable(label)[0])), need)
    return (
        bool(need)
        and need <= have
        and not (_extra(have, need) - also_harmless)
        and not _other_stage(head, have)
    )


def _other_stage(head: str, have: set[str]) -> bool:
    """The label states another stage of a dividend than the head ("paid" for "declared")."""
    stated = DIVIDEND_STAGES & set(words(head))
    return bool(stated) and bool(DIVIDEND_STAGES & have) and not (stated & have)


def _extra(have: set[str], wanted: set[str]) -> set[str]:
    """A label's words beyond the wanted ones that restrict it: less the harmless ones, and those
    harmless beside a wanted head."""
    return have - wanted - HARMLESS - _beside(wanted)


def specificity(label: str, description: str, own_label: str = "", known_name: bool = False) -> float:
    """A factor in (0, 1] on a label's score: 1 when the label is as specific as the description asks,
    lower when it adds a restricting word (a component: "Transaction-based revenue" for total revenue)
    or lacks the "attributable to the company" the description asks for; 0 for a noncontrolling
    interest's share when the description is about the company or the whole. A `known_name` (word for word
    a name of the line item) restricts nothing."""
    if not (is_english(label) and is_english(description)):
        return 1.0
    # The row's own words always count, also when a wrapped fragment or the heading around them is
    # read as the label (and a fragment's "attributable to …" clause must not swallow them).
    where = location_words(description)
    whole = asks_whole_with_noncontrolling(description)
    label, own_label = _naming_text(label, where, whole), _naming_text(own_label, where, whole)
    rest = label.replace(own_label, " ") if own_label else label
    head_text, who = split_attributable(rest)
    own_head, own_who = split_attributable(own_label)
    if who is not None and not who.strip():
        # a fragment ending "… ATTRIBUTABLE TO" over the row's "SHAREOWNERS OF ACME": its holders
        who, own_head = own_label, ""
    head_text, who = f"{head_text} {own_head}", who if who is not None else own_who
    desc_words = (
        set(words(_QUALIFIER.sub("", description.split("(")[0])))
        | {w for h in description_heads(description) for w in words(h)}
        | where
        | included_words(description)
    )
    if _LOSS_NOTE.search(description):
        desc_words.add("loss")  # "Income (loss) before income taxes" asks for "Loss before income taxes" too
    factor = 1.0
    if who is not None and NONCONTROLLING.search(who) and not describes_noncontrolling_share(description):
        return 0.0
    if describes_noncontrolling_share(description) and not NONCONTROLLING.search(f"{label} {own_label}"):
        return 0.0  # the noncontrolling interests' share is asked: a row not naming them is the whole's
    if wants_attributable(description):
        factor *= 1.0 if who is not None else 0.9
    elif who is not None and re.search(r"\bincluding\b", description, re.IGNORECASE):
        factor *= 0.7  # the company's share where the whole (with noncontrolling interests) is asked
    have = _as_income(set(words(head_text)), desc_words)
    covered = any((need := _needed(h)) and need <= have for h in description_heads(description))
    extra = _extra(have, desc_words)
    if covered and extra and not known_name:
        factor *= 0.55  # the head plus a restricting word: a component or another line item (below 0.6)
    return factor


def asks_company_amount(description: str) -> bool:
    """The description asks for the company's own amount ("Net income attributable to the company"),
    naming neither common shares nor a per-share figure."""
    return (
        wants_attributable(description)
        and not COMMON_HOLDERS.search(description)
        and not PER_SHARE.search(description)
    )
