"""Statement questions planned without a model: one company's figure or metric for named fiscal years.

    "What is the FY2019 inventory turnover ratio for Nike? Inventory turnover ratio is defined as:
     (FY2019 COGS) / (average inventory between FY2018 and FY2019). Round to two decimal places."

becomes a Plan that selects the company's annual report covering FY2019 (metadata filters), reads
one field per (line item, fiscal year) with a period-naming description the table reader resolves
against the report's own columns, and derives the answer with the formula, in the unit and rounding
the question asks. The pieces are general: a vocabulary of line items and metrics
(`statement_terms.yaml`), a grammar for formulas written in words ("average X between FYa and FYb",
"change in X", "divided by", "less"), the question's own definitions before the vocabulary's, and
the answer's form from the question (text/asks.py). A question this planner cannot read completely
(no company of the collection, no fiscal year, a term it does not know) is left to the LLM planner:
`statement_plan` returns None rather than a guess.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Literal

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.aggregation import Aggregation, DeriveOp, Output
from mdqa_kernel.plan.filings import (
    FY_YEAR,
    annual_report_filters,
    entity_words,
    find_entity,
    fiscal_years,
    select_filings,
)
from mdqa_kernel.plan.ir import FieldSpec, MetadataFilter, Plan
from mdqa_kernel.text.asks import asked_decimals, asked_scale, asks_percent
from mdqa_kernel.text.yamlsafe import load_yaml

__all__ = [
    "StatementQuestion",
    "UnknownTerm",
    "lookup_term",
    "normalise_phrase",
    "parse_formula",
    "read_statement_question",
    "select_filings",
    "statement_plan",
    "strip_entity",
    "term_at",
    "term_unit",
]

AMOUNT_SCALE = 1e6  # fields are read in USD millions, the scale most statements print
_SCALE_NAMES = {1e3: "thousand USD", 1e6: "million USD", 1e9: "billion USD"}


class UnknownTerm(MdqaError, ValueError):
    """A phrase of a formula or question that the vocabulary does not name (the planner declines)."""


# -- vocabulary -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineItem:
    name: str
    head: str
    phrases: tuple[str, ...]
    point: bool = False
    outflow: bool = False
    labels: tuple[str, ...] = ()
    printed_in: str | None = None
    otherwise: str | None = None  # how to derive it from other items when a statement prints no line


@dataclass(frozen=True)
class Metric:
    name: str
    phrases: tuple[str, ...]
    formula: str
    percent: bool = False
    amount: bool = False  # a line item derived from others (`otherwise`): an amount, not a ratio


@dataclass(frozen=True)
class Terms:
    items: dict[str, LineItem]
    metrics: dict[str, Metric]
    by_phrase: dict[str, LineItem | Metric]

    def phrases(self) -> list[str]:
        return sorted(self.by_phrase, key=len, reverse=True)


@cache
def load_terms(derived: frozenset[str] = frozenset()) -> Terms:
    """The vocabulary; the line items named in `derived` are read through their `otherwise` formula
    (gross profit as revenue less cost of revenue) instead of as a printed line."""
    if derived:
        return _with_derivations(load_terms(), derived)
    text = resources.files("mdqa_kernel.plan").joinpath("statement_terms.yaml").read_text("utf-8")
    data = load_yaml(text, "statement_terms.yaml", what="statement terms")
    items = {n: LineItem(n, d["head"], tuple(d["phrases"]), bool(d.get("point")), bool(d.get("outflow")),
                     tuple(d.get("labels") or ()), d.get("printed_in"), d.get("otherwise"))
             for n, d in data["line_items"].items()}  # fmt: skip
    metrics = {n: Metric(n, tuple(d["phrases"]), d["formula"], bool(d.get("percent")))
               for n, d in data["metrics"].items()}  # fmt: skip
    by_phrase: dict[str, LineItem | Metric] = {}
    terms: list[LineItem | Metric] = [*items.values(), *metrics.values()]
    for term in terms:
        for p in term.phrases:
            by_phrase[_norm(p)] = term
    return Terms(items, metrics, by_phrase)


def _with_derivations(terms: Terms, derived: frozenset[str]) -> Terms:
    """The vocabulary with each derivable item of `derived` named by a metric over the others."""
    by_phrase = dict(terms.by_phrase)
    for name in sorted(derived):
        item = terms.items.get(name)
        if item is None or item.otherwise is None:
            continue
        metric = Metric(item.name, item.phrases, item.otherwise, amount=True)
        for p in item.phrases:
            by_phrase[_norm(p)] = metric
    return Terms(terms.items, terms.metrics, by_phrase)


def derivable(items: set[str]) -> frozenset[str]:
    """The line items among `items` the vocabulary can derive from others when no line prints them."""
    known = load_terms().items
    return frozenset(i for i in items if i in known and known[i].otherwise is not None)


def _norm(text: str) -> str:
    text = text.lower().replace("’", "'").replace("&amp;", "&")
    return re.sub(r"\s+", " ", text).strip(" .,;:")


# -- formulas -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """A line item's value for one fiscal year."""

    item: str
    year: int


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Bin:
    op: str
    a: Node
    b: Node


@dataclass(frozen=True)
class Mean:
    parts: tuple[Node, ...]


Node = Ref | Num | Bin | Mean


_ASIDE = re.compile(r"\[[^\]]*\]|\((?:from|in|as|see|per|i\.e\.|e\.g\.)\b[^()]*\)", re.I)
_WORD_OPS = [(r"\bdivided\s+by\b", " / "), (r"\btimes\b", " * "), (r"\bmultiplied\s+by\b", " * "),
             (r"\bplus\b", " + "), (r"\bminus\b", " - "), (r"\bless\b", " - ")]  # fmt: skip
# A token after blanks: a number, an operator or parenthesis, a minus with a blank after it (a hyphen
# inside "long-term debt" is part of the phrase), or a phrase running to the next operator.
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?<![\w&])\d+(?:\.\d+)?(?![\w&]))|(?P<op>[()*/+])|(?P<minus>-(?=\s|\(|$))"
    r"|(?P<text>[^()*/+\s-][^()*/+]*?)(?=\s*(?:[()*/+]|\s-(?:\s|\()|$)))"
)
_BETWEEN = re.compile(r"\s+(?:between|from)\s+fy\s*((?:19|20)\d\d)\s+(?:and|to|-)\s+fy\s*((?:19|20)\d\d)$")


@dataclass
class _Scope:
    year: int
    terms: Terms
    definitions: dict[str, str] = field(default_factory=dict)  # the question's own, by normalised name
    depth: int = 0


def parse_formula(text: str, year: int, terms: Terms | None = None,
                  definitions: dict[str, str] | None = None) -> Node:  # fmt: skip
    """A formula in words at fiscal year `year` (terms without a year of their own take it).
    Raises UnknownTerm for a phrase no definition or vocabulary entry names."""
    return _formula(text, _Scope(year, terms or load_terms(), definitions or {}))


def _formula(text: str, scope: _Scope) -> Node:
    if scope.depth > 6:
        raise UnknownTerm(f"definitions refer to each other in a loop near {text!r}")
    text = _ASIDE.sub(" ", " " + _norm(text) + " ")
    for pattern, op in _WORD_OPS:
        text = re.sub(pattern, op, text)
    tokens = _tokens(text.strip())
    node, rest = _sum(tokens, scope)
    if rest:
        raise UnknownTerm(f"cannot read {' '.join(t[1] for t in rest)!r} in a formula")
    return node


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise UnknownTerm(f"cannot read {text[pos:]!r} in a formula")
        pos = m.end()
        kind = next(k for k in ("num", "op", "minus", "text") if m.group(k) is not None)
        value = m.group(kind).strip()
        if kind == "minus":
            kind, value = "op", "-"
        if kind == "text" and not value:
            continue
        out.append((kind, value))
    return out


Tokens = list[tuple[str, str]]


def _sum(tokens: Tokens, scope: _Scope) -> tuple[Node, Tokens]:
    return _binary(tokens, scope, ("+", "-"), _product)


def _product(tokens: Tokens, scope: _Scope) -> tuple[Node, Tokens]:
    return _binary(tokens, scope, ("*", "/"), _factor)


def _binary(
    tokens: Tokens,
    scope: _Scope,
    ops: tuple[str, ...],
    operand: Callable[[Tokens, _Scope], tuple[Node, Tokens]],
) -> tuple[Node, Tokens]:
    """Left-associative operands joined by `ops` (one precedence level of the grammar)."""
    node, tokens = operand(tokens, scope)
    while tokens and tokens[0][0] == "op" and tokens[0][1] in ops:
        op = tokens[0][1]
        right, tokens = operand(tokens[1:], scope)
        node = Bin(op, node, right)
    return node, tokens


def _factor(tokens: Tokens, scope: _Scope) -> tuple[Node, Tokens]:
    if not tokens:
        raise UnknownTerm("a formula ends where a term was expected")
    kind, value = tokens[0]
    if kind == "num":
        return Num(float(value)), tokens[1:]
    if (kind, value) == ("op", "("):
        node, rest = _sum(tokens[1:], scope)
        if not rest or rest[0] != ("op", ")"):
            raise UnknownTerm("a parenthesis is not closed in a formula")
        return node, rest[1:]
    if kind == "text":
        return _phrase(value, scope), tokens[1:]
    raise UnknownTerm(f"unexpected {value!r} in a formula")


def _phrase(text: str, scope: _Scope) -> Node:
    """One term with its period: "average X between FYa and FYb", "change in X", "FYa X", "X"."""
    text = _norm(text)
    years = [scope.year - 1, scope.year]
    m = _BETWEEN.search(text)
    if m:
        years = sorted({int(m.group(1)), int(m.group(2))})
        text = text[: m.start()].strip()
    for lead, kind in (("average of ", "mean"), ("average ", "mean"), ("change in ", "change")):
        if text.startswith(lead):
            body = text[len(lead) :]
            first, last = _at(body, years[0], scope), _at(body, years[-1], scope)
            return Mean((first, last)) if kind == "mean" else Bin("-", last, first)
    if text.startswith(("prior ", "prior year ", "previous year ")):
        return _at(text.split(" ", 1)[1].removeprefix("year "), scope.year - 1, scope)
    own = FY_YEAR.findall(text)
    if own:
        year = int(own[0][0] or own[0][1])
        return _at(FY_YEAR.sub(" ", text), year, scope)
    return _at(text, scope.year, scope)


_FILLER = re.compile(
    r"^(?:the|a|an|total amount of|amount of|year[\s-]end|end of year|unadjusted|reported)\s+"
    r"|\s+(?:amount|figure|value)$"
    r"|\s+(?:from|in|on|per|as\s+(?:shown|reported)\s+in)\s+the\s+[\w\s&]*?(?:statements?|balance\s+sheet|p&l)$"
)


def _names(text: str) -> list[str]:
    """The phrase, then the phrase without leading articles and fillers ("the year end net PPNE")."""
    out = [_norm(text)]
    while True:
        shorter = _norm(_FILLER.sub("", out[-1]))
        if shorter == out[-1] or not shorter:
            return out
        out.append(shorter)


def _at(text: str, year: int, scope: _Scope) -> Node:
    """A term by name at a year: the question's definition, else a line item, else a metric."""
    term = _lookup(text, scope.terms, scope.definitions)
    if isinstance(term, LineItem):
        return Ref(term.name, year)
    if isinstance(term, Metric):
        return _formula(term.formula, _Scope(year, scope.terms, scope.definitions, scope.depth + 1))
    raise UnknownTerm(f"{text!r} names no line item or metric this planner knows")


def _lookup(phrase: str, terms: Terms, definitions: dict[str, str]) -> LineItem | Metric | None:
    """The question's definition (as a metric) or the vocabulary's term a phrase names."""
    for name in _names(phrase):
        if name in definitions:
            return Metric(name, (name,), definitions[name], percent=asks_percent(definitions[name]))
        if name in terms.by_phrase:
            return terms.by_phrase[name]
    return None


def term_at(
    phrase: str, year: int, definitions: dict[str, str] | None = None, terms: Terms | None = None
) -> Node:
    """A term of the vocabulary (or of the question's definitions) at a fiscal year: a line item's
    Ref or a metric's formula. Raises UnknownTerm for a phrase nothing names."""
    terms = terms or load_terms()
    return _at(_norm(phrase), year, _Scope(year, terms, definitions or {}))


def lookup_term(
    phrase: str, definitions: dict[str, str] | None = None, terms: Terms | None = None
) -> LineItem | Metric | None:
    """The line item or metric a phrase names (the question's definitions first), or None."""
    return _lookup(_norm(phrase), terms or load_terms(), definitions or {})


def term_unit(
    phrase: str, definitions: dict[str, str] | None = None, terms: Terms | None = None
) -> Literal["percent", "ratio", "amount"]:
    """How a term's figure is shown: a percentage (a margin), a ratio (another metric), or an amount in
    the statements' currency (a line item, derived or printed, or a phrase nothing names)."""
    term = lookup_term(phrase, definitions, terms)
    if isinstance(term, Metric) and not term.amount:
        return "percent" if term.percent else "ratio"
    return "amount"


def normalise_phrase(text: str) -> str:
    """Lower case, one space, no trailing punctuation: how terms and questions are compared."""
    return _norm(text)


def refs(node: Node) -> list[Ref]:
    """The (line item, year) values a formula reads, in first-use order."""
    if isinstance(node, Ref):
        return [node]
    if isinstance(node, Bin):
        return list(dict.fromkeys([*refs(node.a), *refs(node.b)]))
    if isinstance(node, Mean):
        return list(dict.fromkeys(r for p in node.parts for r in refs(p)))
    return []


def is_amount(node: Node) -> bool:
    """A formula without a division is an amount in the items' currency (a ratio otherwise)."""
    if isinstance(node, Ref):
        return True
    if isinstance(node, Bin):
        if node.op == "/":
            return False
        if node.op == "*":
            return is_amount(node.a) or is_amount(node.b)
        return is_amount(node.a) and is_amount(node.b)
    if isinstance(node, Mean):
        return all(is_amount(p) for p in node.parts)
    return False


def field_name(ref: Ref) -> str:
    return f"{ref.item}_fy{ref.year}"


def expression(node: Node, terms: Terms | None = None) -> str:
    """The formula in the plan's expression language (plan/expr.py) over the field names; an
    outflow's size (capex, dividends are printed negative in the cash-flow statement)."""
    terms = terms or load_terms()
    if isinstance(node, Ref):
        name = field_name(node)
        return f"abs({name})" if terms.items[node.item].outflow else name
    if isinstance(node, Num):
        return repr(node.value).removesuffix(".0")
    if isinstance(node, Bin):
        return f"({expression(node.a, terms)} {node.op} {expression(node.b, terms)})"
    parts = " + ".join(expression(p, terms) for p in node.parts)
    return f"(({parts}) / {len(node.parts)})"


# -- the question ---------------------------------------------------------------------------------


@dataclass
class StatementQuestion:
    """What a statement question asks: whose figures, for which years, computed how, shown how."""

    company: str
    entity_column: str
    years: list[int]
    formula: Node
    target: str
    percent: bool
    scale: float  # of an amount answer (USD millions: 1e6); 1 for ratios and percentages
    decimals: int | None
    filters: list[MetadataFilter] = field(default_factory=list)
    report_year: int | None = None


_DEFINITION = re.compile(
    r"(?:^|[.?:;]\s+|\b(?:and|where)\s+)(?:the\s+)?(?P<name>[a-z][\w &%'’/().-]{1,60}?)\s+(?:is|are)\s+(?:defined|calculated)\s+as:?\s+(?P<formula>.+?)(?=\.\s|\.$|\?|$)"
    r"|\bdefine\s+(?P<name2>[a-z][\w &%'’/().-]{1,60}?)\s+as:?\s+(?P<formula2>.+?)(?=\.\s|\.$|\?|$)",
    re.I,
)


_ASK = re.compile(r"\b(?:what|how\s+much|how\s+many)\b[^?]*\?", re.I)
_ASK_WORD = re.compile(r"\b(?:what|how\s+much|how\s+many)\b", re.I)
_PERCENT_OF = re.compile(r"\s+(?:as\s+(?:a\s+)?)?(?:%|percent(?:age)?)\s+of\s+", re.I)
_MARGIN = re.compile(r"^\s*(?:\(?\s*%\s*\)?\s+)?(?:margin|profit\s+margin)\b", re.I)
# the question asks for reasons, drivers or a list, not a figure
_NOT_A_FIGURE = re.compile(
    r"\bwhat\s+(?:drove|drives|caused|causes|explains?|led\s+to)\b|\bwhy\b|\bwhat\s+are\b", re.I
)
_ASKS_RATIO = re.compile(r"\bhow\s+many\s+times\b|\bratio\b|\bturnover\b|%|\bpercent", re.I)
_LESS = re.compile(r"^\s+(?:less|minus)\s+$", re.I)


def definitions_of(question: str) -> dict[str, str]:
    """The question's own definitions ("X is defined as: …", "Define X as …"), by normalised name."""
    out: dict[str, str] = {}
    for m in _DEFINITION.finditer(question):
        name, formula = (
            (m.group("name"), m.group("formula"))
            if m.group("name")
            else (m.group("name2"), m.group("formula2"))
        )
        out[_norm(_ASIDE.sub(" ", name))] = formula.strip()
    return out


def read_statement_question(
    question: str, metadata: pl.DataFrame, terms: Terms | None = None
) -> StatementQuestion | None:
    """Read a statement question against a collection's metadata; None when it is not one this
    planner can read completely."""
    company = find_entity(question, metadata)
    asked = _ASK.findall(question)
    if company is None or not asked or _NOT_A_FIGURE.search(asked[0]):
        return None
    target = asked[0][[m.start() for m in _ASK_WORD.finditer(asked[0])][-1] :].rstrip("?")
    # "Roughly how many times has JnJ sold its inventory in FY2022? Calculate inventory turnover ratio
    # for FY2022": the instruction names the metric the question asks in words
    for clause in [target, *(m.group(1) for m in _CALCULATE.finditer(question))]:
        read = _read_target(clause, question, company, metadata, terms or load_terms())
        if read is not None:
            return read
    return None


_CALCULATE = re.compile(r"\b(?:calculate|compute|determine)\s+(?:the\s+)?([^.;?]+)", re.I)


def _read_target(
    target: str, question: str, company: tuple[str, str], metadata: pl.DataFrame, terms: Terms
) -> StatementQuestion | None:
    """The statement question one asked clause names, or None."""
    column, name = company
    years = fiscal_years(target) or fiscal_years(question)
    if not years:
        return None
    definitions = definitions_of(question)
    clause = strip_entity(target, name)
    text = _norm(_ASIDE.sub(" ", clause))
    spans = _abbreviated(text, _term_spans(text, terms, definitions), definitions)
    try:
        formula, percent = _target_formula(text, spans, years, terms, definitions)
    except UnknownTerm:
        return None
    if formula is None:
        return None
    amount = is_amount(formula)
    if amount and _ASKS_RATIO.search(clause):
        return None  # "how many times …", "… ratio": an amount would answer another question
    unit_scale = asked_scale(question)
    scale = (unit_scale if unit_scale > 1 else AMOUNT_SCALE) if amount else 1.0
    return StatementQuestion(company=name, entity_column=column, years=years, formula=formula,
                             target=_target_label(text, spans), percent=percent and not amount, scale=scale,
                             decimals=asked_decimals(question))  # fmt: skip


def strip_entity(text: str, name: str) -> str:
    """The target clause without the company's name (and its possessive or an aside after it)."""
    pattern = (
        r"\b" + r"[\s\-]+".join(re.escape(w) for w in entity_words(name)) + r"(?:'s|’s)?(?:\s*\([^)]*\))?"
    )
    return re.sub(pattern, " ", text, flags=re.I)


_LABEL_TAIL = re.compile(r"^(?:\s*\(?%\)?)?\s*(?:profit\s+)?(?:margin|growth(?:\s+rate)?|ratio)\b", re.I)
_LABEL_HEAD = re.compile(
    r"(?:\b(?:\d+|one|two|three|four|five)[\s-]+year\s+)?(?:average\s+(?:of\s+)?)?$", re.I
)


def _target_label(text: str, spans: list[tuple[int, int, str]]) -> str:
    """The asked metric in the question's words ("3 year average of capex as a % of revenue")."""
    if not spans:
        return text
    start, end = spans[0][0], spans[-1][1]
    head = _LABEL_HEAD.search(text[:start])
    tail = _LABEL_TAIL.match(text[end:])
    start = head.start() if head else start
    end = end + tail.end() if tail else end
    return _norm(text[start:end])


def _target_formula(
    text: str, spans: list[tuple[int, int, str]], years: list[int], terms: Terms, definitions: dict[str, str]
) -> tuple[Node | None, bool]:
    """The formula the asked clause (normalised, its term mentions `spans`) names, and whether it asks
    a percentage."""
    if not spans:
        return None, False
    last = years[-1]
    percent = asks_percent(text) or "growth" in text

    def at(span: tuple[int, int, str], year: int) -> Node:
        return _at(span[2], year, _Scope(year, terms, definitions))

    def value(year: int) -> tuple[Node, bool]:
        a = spans[0]
        if len(spans) >= 2:
            between = text[a[1] : spans[1][0]]
            if _PERCENT_OF.fullmatch(between) or re.fullmatch(r"\s+(?:to|over|divided\s+by)\s+", between):
                return Bin("/", at(a, year), at(spans[1], year)), True
            if _LESS.match(between):
                return Bin("-", at(a, year), at(spans[1], year)), False
            inline = _inline_formula(text, spans)
            if inline is not None:  # "operating income + D&A", "(A + B) divided by C"
                return _formula(inline, _Scope(year, terms, definitions)), False
            raise UnknownTerm(f"cannot tell how {a[2]!r} and {spans[1][2]!r} combine in {text!r}")
        after = text[a[1] :]
        term = _lookup(a[2], terms, definitions)
        if _MARGIN.match(after) and not (isinstance(term, Metric) and term.percent):
            return Bin("/", at(a, year), Ref("revenue", year)), True
        return at(a, year), isinstance(term, Metric) and term.percent and "ratio" not in text

    if "growth" in text:
        start = years[0] if len(years) > 1 else last - 1
        node, _ = value(last)
        base, _ = value(start)
        return Bin("-", Bin("/", node, base), Num(1.0)), True
    if "average" in text.split(spans[0][2])[0] and len(years) > 1:
        parts = [value(y) for y in years]
        return Mean(tuple(p[0] for p in parts)), percent or parts[0][1]
    node, is_percent = value(last)
    return node, percent or is_percent


_OPERATOR = re.compile(r"[\s()]*(?:[-+*/]|plus|minus|less|divided\s+by|times|multiplied\s+by)[\s()]*", re.I)
_OPEN_BEFORE = re.compile(
    r"(?:\(\s*)+(?:fy\s*(?:19|20)\d\d\s+)?$|(?:fy\s*(?:19|20)\d\d\s+)?(?:\(\s*)+$", re.I
)


def _inline_formula(text: str, spans: list[tuple[int, int, str]]) -> str | None:
    """The asked clause's terms joined by operators written in it, as one formula ("operating income +
    depreciation and amortization", "(A + B) divided by C"); None when anything else stands between
    two terms."""
    if not all(_OPERATOR.fullmatch(text[a[1] : b[0]]) for a, b in itertools.pairwise(spans)):
        return None
    start, end = spans[0][0], spans[-1][1]
    lead = _OPEN_BEFORE.search(text[:start])
    if lead:
        start = lead.start()
    region = text[start:end]
    missing = region.count("(") - region.count(")")
    closing = re.match(r"(?:\s*\))*", text[end:])
    if missing > 0 and closing is not None and closing.group(0).count(")") >= missing:
        region += ")" * missing
    return region if region.count("(") == region.count(")") else None


def _abbreviated(
    text: str, spans: list[tuple[int, int, str]], definitions: dict[str, str]
) -> list[tuple[int, int, str]]:
    """A term and its name in parentheses ("return on assets (ROA)", "D&A (from the cash flow statement)")
    are one term: the question's definition of the second name if it has one, else the first."""
    out: list[tuple[int, int, str]] = []
    for span in spans:
        if out and re.fullmatch(r"\s*\(\s*", text[out[-1][1] : span[0]]) and ")" in text[span[1] :]:
            if _norm(span[2]) in definitions:
                out[-1] = (out[-1][0], text.index(")", span[1]) + 1, span[2])
            else:
                out[-1] = (out[-1][0], text.index(")", span[1]) + 1, out[-1][2])
            continue
        out.append(span)
    return out


def _term_spans(text: str, terms: Terms, definitions: dict[str, str]) -> list[tuple[int, int, str]]:
    """Non-overlapping mentions of defined names and vocabulary phrases, longest first, in order."""
    phrases = sorted({*definitions, *terms.by_phrase}, key=len, reverse=True)
    taken: list[tuple[int, int, str]] = []
    for p in phrases:
        for m in re.finditer(r"(?<![\w&])" + re.escape(p) + r"(?![\w&])", text):
            if all(m.end() <= s or m.start() >= e for s, e, _ in taken):
                taken.append((m.start(), m.end(), p))
    return sorted(taken)


def _period(ref: Ref, item: LineItem, report_year: int) -> str:
    offset = ref.year - report_year
    if item.point:
        if offset == 0:
            return "at the end of the fiscal year of the report"
        if offset == -1:
            return "at the end of the prior fiscal year (the balance sheet's comparative column)"
        return f"at the end of fiscal year {ref.year}"
    if offset == 0:
        return "for the fiscal year of the report"
    if offset == -1:
        return "for the prior fiscal year (the year before the report's fiscal year)"
    return f"for fiscal year {ref.year}"


def field_spec(ref: Ref, report_year: int, entity_column: str, terms: Terms | None = None) -> FieldSpec:
    item = (terms or load_terms()).items[ref.item]
    sign = " (an outflow in parentheses is negative)" if item.outflow else ""
    also = f" (also: {' / '.join(item.labels)})" if item.labels else ""
    where = f" as printed in {item.printed_in}" if item.printed_in else ""
    description = f"{item.head}{also}{where} {_period(ref, item, report_year)}, in USD millions{sign}"
    return FieldSpec(name=field_name(ref), type="number", description=description,
                     question=f"{description} — in the annual report of {{{entity_column}}} ({{year}})",
                     unit="USD", scale=AMOUNT_SCALE)  # fmt: skip


def statement_plan(
    question: str, metadata: pl.DataFrame, derived: frozenset[str] = frozenset()
) -> Plan | None:
    """A complete plan for a statement question, or None when this planner cannot read it; the items in
    `derived` are computed from others (`load_terms`)."""
    terms = load_terms(derived)
    sq = read_statement_question(question, metadata, terms)
    if sq is None:
        return None
    selected = annual_report_filters(sq.company, sq.entity_column, sq.years, metadata)
    if selected is None:
        return None
    sq.filters, sq.report_year = selected
    fields = [field_spec(r, sq.report_year, sq.entity_column, terms) for r in refs(sq.formula)]
    expr = expression(sq.formula, terms)
    amount = is_amount(sq.formula)
    if sq.scale != AMOUNT_SCALE and amount:
        expr = f"({expr}) * {AMOUNT_SCALE / sq.scale:g}"
    unit = _SCALE_NAMES.get(sq.scale) if amount else None
    decimals = sq.decimals if sq.decimals is not None else (1 if sq.percent else 2)
    years = f"FY{sq.years[0]}" + (f"–FY{sq.years[-1]}" if len(sq.years) > 1 else "")
    output = Output(form="number", value="answer", unit=unit, percent=sq.percent, decimals=decimals,
                    subject=f"{sq.company}'s {years} {sq.target}")  # fmt: skip
    aggregation = Aggregation(steps=[DeriveOp(name="answer", expr=expr)], output=output)
    return Plan(question=question, filters=sq.filters, fields=fields, aggregation=aggregation)


def describe(plan: Plan) -> dict[str, Any]:
    """What a statement plan reads and computes, for a notebook or a benchmark record."""
    steps = [s for s in (plan.aggregation.steps if plan.aggregation else []) if isinstance(s, DeriveOp)]
    # one step: its formula; several (a judgement's metric per year, then the verdict): each named
    formula = steps[0].expr if len(steps) == 1 else "; ".join(f"{s.name} = {s.expr}" for s in steps) or None
    return {"filters": [f.model_dump(by_alias=True, exclude_none=True) for f in plan.filters],
            "fields": [f.name for f in plan.fields], "formula": formula}  # fmt: skip
