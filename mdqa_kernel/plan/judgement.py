"""Judgement questions planned without a model: a yes/no verdict that one company's figures decide.

    "Does Boeing have an improving gross margin profile as of FY2022?"
    "Are Best Buy's gross margins historically consistent (not fluctuating more than roughly 2% each year)?"
    "Are JnJ's FY2022 financials that of a high growth company?"
    "Is Acme's FY2023 current ratio above 1.5?"

An analyst answers these from two or three years of one statement: the metric in the report's year
against the year before (a trend), every year-on-year change against the tolerance the question states
(consistency), the top line's growth against a stated definition of high growth, or the metric
against a number the question states (a threshold). Each becomes a Plan that selects the company's
annual report by metadata, reads one field per (line item, year) as the statement planner does
(plan/analyst.py), derives the metric per year and the verdict, and answers "Yes"/"No" with the
figures that decide it. A question this module cannot read completely
(no company of the collection, a metric the vocabulary does not know, consistency without a stated
tolerance, an amount compared with a sum of money) is not planned: `judgement_plan` returns None rather than a guess.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Literal

import polars as pl

from mdqa_kernel.plan.aggregation import Aggregation, DeriveOp, Output
from mdqa_kernel.plan.analyst import (
    Bin,
    Node,
    Num,
    UnknownTerm,
    definitions_of,
    expression,
    field_spec,
    load_terms,
    lookup_term,
    normalise_phrase,
    refs,
    strip_entity,
    term_at,
    term_unit,
)
from mdqa_kernel.plan.filings import FY_YEAR, annual_report_filters, find_entity, fiscal_years
from mdqa_kernel.plan.ir import Plan

__all__ = ["HIGH_GROWTH", "Judgement", "judgement_plan", "read_judgement"]

Kind = Literal["trend", "steady", "high_growth", "threshold"]

# A high-growth enterprise grows its turnover by more than 20 % a year (the OECD–Eurostat definition,
# Eurostat-OECD Manual on Business Demography Statistics, 2007), applied to the report's fiscal year.
HIGH_GROWTH = 0.20

# the words of a direction, as an adjective or a verb in any tense ("risky" or "contracts" are none)
_UP = (r"improv(?:e|es|ed|ing)|increas(?:e|es|ed|ing)|ris(?:e|es|en|ing)|rose|grow(?:s|n|ing)?|grew"
       r"|expand(?:s|ed|ing)?|widen(?:s|ed|ing)?|strengthen(?:s|ed|ing)?")  # fmt: skip
_DOWN = (r"declin(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|fall(?:s|en|ing)?|fell|shr(?:ink|inks|ank|unk|inking)"
         r"|narrow(?:s|ed|ing)?|deteriorat(?:e|es|ed|ing)|worsen(?:s|ed|ing)?|weaken(?:s|ed|ing)?"
         r"|contract(?:ed|ing)")  # fmt: skip
# "an improving gross margin profile as of FY2022", "a declining operating margin in FY2021"
_TREND_ADJ = re.compile(
    rf"\b(?:an?\s+)?(?P<dir>(?:{_UP}|{_DOWN}))\s+(?P<metric>[a-z][\w &'’%-]*?)(?:\s+(?:profile|trend|trajectory))?"
    r"\s+(?:as\s+of|in|for|during|at\s+the\s+end\s+of)\s+(?P<when>fy\s*'?(?:19|20)\d\d|fiscal(?:\s+year)?\s+(?:19|20)\d\d)",
    re.I,
)
# "did X's gross margin improve in FY2022", "has the operating margin declined between FY2021 and FY2022"
_TREND_VERB = re.compile(
    rf"\b(?P<metric>[a-z][\w &'’%-]*?)\s+(?:been\s+)?(?P<dir>(?:{_UP}|{_DOWN}))\b"
    r"\s+(?:as\s+of|in|during|between|from|over)\s+(?:fy|fiscal)",
    re.I,
)
_STEADY = re.compile(
    r"\b(?P<metric>[a-z][\w &'’%-]*?)\s+(?:(?:been|are|is|remained|remain|stayed)\s+)?(?:historically\s+)?"
    r"(?:consistent|stable|steady)\b",
    re.I,
)
_TOLERANCE = re.compile(
    r"\bnot\s+(?:fluctuating|varying|changing|moving)\s+(?:by\s+)?more\s+than\s+"
    r"(?:roughly\s+|about\s+|approximately\s+|around\s+|~\s*)?(?P<n>\d+(?:\.\d+)?)\s*(?:%|percent(?:age)?(?:\s+points?)?|pp)",
    re.I,
)
_HIGH_GROWTH = re.compile(r"\bhigh[\s-]+growth\b", re.I)
# "Is X's FY2023 current ratio above 1.5?", "Did X's operating margin exceed 10% in FY2022?"
_COMPARISONS = {
    "above": ">", "over": ">", "greater than": ">", "more than": ">", "higher than": ">", "exceed": ">",
    "exceeds": ">", "exceeded": ">", "at least": ">=", "below": "<", "under": "<", "less than": "<",
    "lower than": "<", "at most": "<=",
}  # fmt: skip
_THRESHOLD = re.compile(
    r"\b(?P<metric>[a-z][\w &'’%-]*?)\s+(?:(?:was|is|been|remain(?:ed|s)?|stay(?:ed|s)?)\s+)?"
    r"(?P<cmp>"
    + "|".join(sorted((re.escape(c).replace(r"\ ", r"\s+") for c in _COMPARISONS), key=len, reverse=True))
    + r")\s+(?P<n>-?\d+(?:\.\d+)?)\s*(?P<pct>%|percent\b)?",
    re.I,
)
_YES_NO = re.compile(r"^\s*(?:is|are|does|do|did|has|have|was|were)\b", re.I)
# The questions' escape clause ("If gross margin is not a useful metric for a company like this, then
# state that and explain why.") says what to do when the metric does not apply; it asks nothing else.
_ESCAPE = re.compile(r"\bif\s+[^.?]*\bnot\s+(?:a\s+)?(?:useful|relevant|meaningful|applicable)\b[^?]*", re.I)


@dataclass(frozen=True)
class Judgement:
    """What a judgement question asks: whose metric, which years (oldest first), which verdict."""

    kind: Kind
    company: str
    entity_column: str
    metric: str  # the question's name of the metric, normalised
    years: list[int]
    rising: bool = True  # a trend: the question asks whether the metric went up (improving, growing)
    tolerance: float | None = None  # consistency: the largest change allowed, as a fraction (0.02)
    op: str | None = None  # a threshold: the comparison asked (">", ">=", "<", "<=")
    bound: float | None = None  # a threshold: the number compared with (a percentage as a fraction)
    bound_percent: bool = False  # a threshold written as a percentage ("10%")


def read_judgement(question: str, metadata: pl.DataFrame) -> Judgement | None:
    """Read a judgement question against a collection's metadata; None when it is not one this
    module can read completely."""
    text = _ESCAPE.sub(" ", question)
    first = re.split(r"(?<=\?)\s", text.strip(), maxsplit=1)[0]
    if not _YES_NO.match(first):
        return None
    entity = find_entity(first, metadata)
    if entity is None:
        return None
    column, name = entity
    clause = normalise_phrase(_YES_NO.sub(" ", strip_entity(first, name)))
    asked = fiscal_years(first)
    if _HIGH_GROWTH.search(clause) and asked:
        year = asked[-1]
        return Judgement("high_growth", name, column, "revenue", [year - 1, year])
    tolerance = _TOLERANCE.search(clause)
    steady = _STEADY.search(_TOLERANCE.sub(" ", re.sub(r"[()]", " ", clause)))
    if steady and tolerance:
        report = asked[-1] if asked else _latest_annual_year(name, column, metadata)
        if report is None:
            return None
        return Judgement("steady", name, column, normalise_phrase(steady.group("metric")), [report - 2, report - 1, report],
                         tolerance=float(tolerance.group("n")) / 100)  # fmt: skip
    threshold = _THRESHOLD.search(clause)
    if threshold and asked:
        metric = normalise_phrase(FY_YEAR.sub(" ", threshold.group("metric")))
        n = float(threshold.group("n"))
        return Judgement("threshold", name, column, metric, [asked[-1]],
                         op=_COMPARISONS[re.sub(r"\s+", " ", threshold.group("cmp").lower())],
                         bound=n / 100 if threshold.group("pct") else n,
                         bound_percent=bool(threshold.group("pct")))  # fmt: skip
    trend = _TREND_ADJ.search(clause) or _TREND_VERB.search(clause)
    if trend and asked:
        rising = re.fullmatch(_UP, trend.group("dir"), re.I) is not None
        years = asked if len(asked) >= 2 else [asked[-1] - 1, asked[-1]]
        return Judgement(
            "trend", name, column, normalise_phrase(trend.group("metric")), [years[0], years[-1]], rising
        )
    return None


def _latest_annual_year(company: str, column: str, metadata: pl.DataFrame) -> int | None:
    """The fiscal year of the company's latest annual report in the collection (a question that names
    no year asks about the history the latest report prints)."""
    if "year" not in metadata.columns:
        return None
    rows = metadata.filter(pl.col(column).cast(pl.String) == company)
    years = sorted(int(y) for y in rows["year"].cast(pl.Int64, strict=False).drop_nulls().unique().to_list())
    for year in reversed(years):
        selected = annual_report_filters(company, column, [year], metadata)
        if selected is not None:
            return selected[1]
    return None


def _known_name(metric: str, definitions: dict[str, str]) -> str | None:
    """The name under which the vocabulary (or the question) knows the metric; a plural name ("gross
    margins") is known by its singular. None when nothing names it."""
    for name in dict.fromkeys([metric, metric.removesuffix("s")]):
        if lookup_term(name, definitions) is not None:
            return name
    return None


def judgement_plan(
    question: str, metadata: pl.DataFrame, derived: frozenset[str] = frozenset()
) -> Plan | None:
    """A complete plan for a judgement question, or None when this module cannot read it; the line items
    in `derived` are computed from others (`analyst.load_terms`)."""
    j = read_judgement(question, metadata)
    if j is None:
        return None
    selected = annual_report_filters(j.company, j.entity_column, j.years, metadata)
    if selected is None:
        return None
    filters, report_year = selected
    terms = load_terms(derived)
    definitions = definitions_of(question)
    name = _known_name(j.metric, definitions)
    if name is None:
        return None
    try:
        nodes = {y: term_at(name, y, definitions, terms) for y in j.years}
    except UnknownTerm:  # a definition of the question that cannot be read
        return None
    if j.kind == "steady" and any(terms.items[r.item].point for n in nodes.values() for r in refs(n)):
        # a balance sheet prints two year-ends: three years of a balance need two reports
        nodes = {y: n for y, n in nodes.items() if y >= report_year - 1}
    fields = {r: field_spec(r, report_year, j.entity_column, terms) for n in nodes.values() for r in refs(n)}
    unit = "percent" if j.kind == "high_growth" else term_unit(name, definitions, terms)
    if j.kind == "threshold" and not _comparable(j, unit):
        return None
    percent = unit == "percent"
    steps, labels = _derive_steps(j, nodes, unit)
    years = sorted(nodes)
    output = Output(form="boolean", value="answer", also=[s.name for s in steps[:-1]], labels=labels,
                    also_percent=percent, decimals=1 if percent else 2,
                    subject=_subject(j, years, unit))  # fmt: skip
    aggregation = Aggregation(steps=steps, output=output)
    return Plan(question=question, filters=filters, fields=list(fields.values()), aggregation=aggregation)


def _comparable(j: Judgement, unit: str) -> bool:
    """A threshold the answer can be decided against: a margin's written as a percentage ("above 10%"),
    a ratio's as a plain number; an amount's would need its currency and scale ("$10 billion"): not read."""
    return (unit == "percent" and j.bound_percent) or (unit == "ratio" and not j.bound_percent)


def _derive_steps(j: Judgement, nodes: dict[int, Node], unit: str) -> tuple[list[DeriveOp], dict[str, str]]:
    """One derived column per year (the metric), or the growth, then the verdict `answer`."""
    terms = load_terms()
    years = sorted(nodes)
    if j.kind == "high_growth":
        last, prior = nodes[years[-1]], nodes[years[0]]
        growth = Bin("-", Bin("/", last, prior), Num(1.0))
        name = f"revenue_growth_fy{years[-1]}"
        steps = [DeriveOp(name=name, expr=expression(growth, terms)),
                 DeriveOp(name="answer", expr=f"{name} >= {HIGH_GROWTH:g}")]  # fmt: skip
        return steps, {name: f"revenue growth FY{years[-1]} over FY{years[0]}"}
    names = {y: f"metric_fy{y}" for y in years}
    steps = [DeriveOp(name=names[y], expr=expression(nodes[y], terms)) for y in years]
    shown = " (USD millions)" if unit == "amount" else ""
    labels = {names[y]: f"{j.metric} FY{y}{shown}" for y in years}
    if j.kind == "threshold":
        verdict = f"{names[years[-1]]} {j.op} {j.bound:g}"
    elif j.kind == "trend":
        op = ">" if j.rising else "<"
        verdict = f"{names[years[-1]]} {op} {names[years[0]]}"
    else:
        assert j.tolerance is not None
        # a margin's tolerance is in percentage points; a ratio's or an amount's is a relative change
        change = "abs({b} - {a})" if unit == "percent" else "abs({b} / {a} - 1)"
        verdict = " and ".join(f"{change.format(a=names[a], b=names[b])} <= {j.tolerance:g}"
                               for a, b in itertools.pairwise(years))  # fmt: skip
    return [*steps, DeriveOp(name="answer", expr=verdict)], labels


def _subject(j: Judgement, years: list[int], unit: str) -> str:
    span = f"FY{years[0]}–FY{years[-1]}"
    if j.kind == "high_growth":
        return (
            f"{j.company}'s revenue growth in FY{years[-1]} (high growth: at least {HIGH_GROWTH:.0%} a year)"
        )
    if j.kind == "threshold":
        bound = f"{j.bound * 100:g}%" if unit == "percent" else f"{j.bound:g}"
        return f"{j.company}'s {j.metric} in FY{years[-1]} ({j.op} {bound} asked)"
    if j.kind == "trend":
        return f"{j.company}'s {j.metric}, {span} ({'rising' if j.rising else 'falling'} asked)"
    assert j.tolerance is not None
    within = f"{j.tolerance * 100:g} percentage points" if unit == "percent" else f"{j.tolerance:.0%}"
    return f"{j.company}'s {j.metric}, {span} (each year's change within {within} asked)"
