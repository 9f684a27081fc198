"""Which-of questions planned without a model: the figure that is largest (or smallest) among the ones
a question lists, for one company and fiscal year.

    "Among operations, investing, and financing activities, which brought in the most (or lost the
     least) cash flow for Nike in FY2023?"
    "Which was larger for Acme in FY2022, research and development or SG&A?"
    "How does Acme's effective tax rate in FY2022 compare to FY2021?"  (one figure, two years)

Each listed name is read against the statement vocabulary (plan/statement_terms.yaml) as written, then
with the list's shared last word ("investing" + "activities") and with the measure the question asks
("cash flow from operations"). When every name resolves to a different term, the plan selects the
company's annual report by metadata, reads one field per line item (as plan/analyst.py does), derives
each listed figure and answers with the chosen one and every figure beside it (the `choice` answer
form). Signed figures are compared: an outflow brings in less than any inflow. A question this module
cannot read completely (a name the vocabulary does not know, no direction, one year missing) is not
planned: `choice_plan` returns None rather than a guess. A comparison of one figure between two fiscal
years is the same answer over the years: the year with the higher figure first, both figures beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import polars as pl

from mdqa_kernel.plan.aggregation import Aggregation, DeriveOp, Output
from mdqa_kernel.plan.analyst import (
    LineItem,
    Metric,
    Node,
    Ref,
    Terms,
    UnknownTerm,
    definitions_of,
    expression,
    field_name,
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

__all__ = ["Choice", "choice_plan", "read_choice"]

_MOST = r"most|highest|largest|greatest|biggest|more|larger|higher|greater"
_LEAST = r"least|lowest|smallest|fewest|less|smaller|lower"
# what the figure does: bringing cash in is the figure's own sign; losing or spending it is the opposite
_GAIN = r"brought\s+in|brings?\s+in|generated|generates?|provided|provides?|earned|earns?|made|makes?"
_LOSS = r"lost|loses?|spent|spends?|used|uses?|burned|burns?|consumed|consumes?"
_DIRECTION = re.compile(
    rf"\b(?:(?P<verb>{_GAIN}|{_LOSS}|was|were|is|are|had|has|have)\s+)?(?:the\s+)?(?P<dir>{_MOST}|{_LEAST})\b"
    r"(?P<measure>(?:\s+[a-z][\w&'’-]*){0,3})",
    re.I,
)
# "among A, B, and C, which …", "of A, B and C, which …", "which …, A or B?"
_LEADING_LIST = re.compile(r"\b(?:among|between|of)\s+(?P<list>[^?]+?),\s*which\b", re.I)
_TRAILING_LIST = re.compile(
    r"\bwhich\b[^?]*?[,:]\s*(?P<list>[^,?]+(?:,\s*[^,?]+)*?\s+(?:or|and)\s+[^,?]+?)\s*\?", re.I
)
_MEASURE_STOP = re.compile(r"\b(?:for|in|of|during|as|at|among|between|than|over)\b.*$", re.I)


# "How does X's effective tax rate in FY2022 compare to FY2021?", "How did X's current ratio in FY2023
# compare with that of FY2022?"
_COMPARE_YEARS = re.compile(
    r"^\s*how\s+(?:does|did|do|has)\s+(?P<metric>.+?)\s+(?:in\s+|for\s+)?(?P<a>fy\s*'?(?:19|20)\d\d)\s+compare\s+"
    r"(?:to|with|against)\s+(?:that\s+(?:of|in|for)\s+|(?:the\s+)?one\s+(?:of|in|for)\s+)?(?P<b>fy\s*'?(?:19|20)\d\d)\s*\?",
    re.I,
)


@dataclass(frozen=True)
class Choice:
    """What a which-of question asks: whose figures, which years, the listed names and their terms (a
    comparison between years: one name, two years)."""

    company: str
    entity_column: str
    year: int
    names: list[str]  # the vocabulary's phrase each listed name resolved to, in the question's order
    pick: Literal["max", "min"]
    years: tuple[int, ...] = ()  # a comparison's years, in the question's order


def read_choice(question: str, metadata: pl.DataFrame) -> Choice | None:
    """Read a which-of question against a collection's metadata; None when it is not one this module
    can read completely."""
    first = re.split(r"(?<=\?)\s", question.strip(), maxsplit=1)[0]
    entity = find_entity(first, metadata)
    years = fiscal_years(first)
    if entity is None or not years:
        return None
    column, name = entity
    compared = _COMPARE_YEARS.match(normalise_phrase(strip_entity(first, name)) + "?")
    definitions = definitions_of(question)
    if compared is not None:
        return _years_compared(compared, name, column, definitions)
    if not re.search(r"\bwhich\b", first, re.I):
        return None
    # "(or lost the least)" restates the direction in other words; the main clause decides
    text = re.sub(r"\s+", " ", re.sub(r"\([^)]*\)", " ", strip_entity(first, name)))
    # the direction is said after a leading list ("among A and B, which …") or before a trailing one
    lead = _LEADING_LIST.search(text)
    trail = None if lead else _TRAILING_LIST.search(text)
    if lead is not None:
        listed, said = lead.group("list"), text[lead.end() :]
    elif trail is not None:
        listed, said = trail.group("list"), text[: trail.start("list")]
    else:
        return None
    direction = _DIRECTION.search(said)
    if direction is None:
        return None
    pick = _pick(direction)
    measure = normalise_phrase(_MEASURE_STOP.sub("", direction.group("measure") or ""))
    for items in _item_lists(listed):
        names = _resolve(items, measure, definitions)
        if names is not None:
            return Choice(name, column, years[-1], names, pick)
    return None


def _years_compared(
    m: re.Match[str], company: str, column: str, definitions: dict[str, str]
) -> Choice | None:
    """One figure compared between two fiscal years, or None when the vocabulary does not know it."""
    metric = normalise_phrase(re.sub(r"^(?:the|its)\s+", "", m.group("metric").strip(), flags=re.I))
    years = tuple(int(re.sub(r"\D", "", m.group(k))) for k in ("a", "b"))
    if years[0] == years[1] or lookup_term(metric, definitions) is None:
        return None
    return Choice(company, column, max(years), [metric], "max", years)


def _item_lists(listed: str) -> list[list[str]]:
    """The ways to read a list's names: "A, B, and C", "A or B", "A and B", "A, B and C"; "and" may also
    join words inside a name ("research and development or SG&A"), so every reading is offered and the
    one whose names all resolve is taken."""
    parts = [re.sub(r"^(?:and|or)\s+", "", p, flags=re.I) for p in re.split(r"\s*,\s*", listed.strip())]
    items = [q for p in parts for q in re.split(r"\s+or\s+", p, flags=re.I)]
    readings = [items]
    head, last = items[:-1], items[-1]
    for m in re.finditer(r"\s+and\s+", last, flags=re.I):  # the list's last "and" without a comma
        readings.append([*head, last[: m.start()], last[m.end() :]])
    return [[i for i in (normalise_phrase(FY_YEAR.sub(" ", p)) for p in r) if i] for r in readings]


def _pick(direction: re.Match[str]) -> Literal["max", "min"]:
    most = re.fullmatch(_MOST, direction.group("dir"), re.I) is not None
    loss = (
        direction.group("verb") is not None and re.fullmatch(_LOSS, direction.group("verb"), re.I) is not None
    )
    return "max" if most != loss else "min"


def _resolve(items: list[str], measure: str, definitions: dict[str, str]) -> list[str] | None:
    """The vocabulary phrase each listed name stands for; None unless every name resolves to a
    different term (two names of one line item, or a name nothing knows, leave the question unread)."""
    if len(items) < 2:
        return None
    tail = items[-1].rsplit(" ", 1)[-1] if " " in items[-1] else ""
    out: dict[LineItem | Metric, str] = {}
    for item in items:
        found = next(
            (
                (t, c)
                for c in _candidates(item, tail, measure)
                if (t := lookup_term(c, definitions)) is not None
            ),
            None,
        )
        if found is None or found[0] in out:
            return None
        out[found[0]] = found[1]
    return list(out.values())


def _candidates(item: str, tail: str, measure: str) -> list[str]:
    """A listed name as written, with the list's shared last word, and with the asked measure around it
    ("operations" → "cash flow from operations"; "investing" → "cash flow from investing activities")."""
    forms = [item] if not tail or item.endswith(tail) else [f"{item} {tail}", item]
    out: list[str] = []
    for form in forms:
        out += [form, f"{measure} from {form}", f"{form} {measure}"] if measure else [form]
    return list(dict.fromkeys(out))


def choice_plan(question: str, metadata: pl.DataFrame, derived: frozenset[str] = frozenset()) -> Plan | None:
    """A complete plan for a which-of question, or None when this module cannot read it; the line items
    in `derived` are computed from others (`analyst.load_terms`)."""
    c = read_choice(question, metadata)
    if c is None:
        return None
    selected = annual_report_filters(c.company, c.entity_column, [c.year], metadata)
    if selected is None:
        return None
    filters, report_year = selected
    terms = load_terms(derived)
    definitions = definitions_of(question)
    # the figures compared: (label, name, year) — listed names in one year, or one name in two years
    compared = [(f"FY{y}", c.names[0], y) for y in c.years] or [(n, n, c.year) for n in c.names]
    try:
        nodes: list[Node] = [term_at(n, y, definitions, terms) for _, n, y in compared]
    except UnknownTerm:
        return None
    kinds = {term_unit(n, definitions, terms) for n in c.names}
    if len(kinds) != 1:
        return None  # a margin against an amount: no figure is larger in any sense that matters
    fields = {r: field_spec(r, report_year, c.entity_column, terms) for n in nodes for r in refs(n)}
    columns = [f"choice_{i + 1}" for i in range(len(compared))]
    steps = [DeriveOp(name=col, expr=_signed(n, terms)) for col, n in zip(columns, nodes, strict=True)]
    percent = kinds == {"percent"}
    shown = " (USD millions)" if kinds == {"amount"} else ""
    subject = (f"{c.company}'s {c.names[0]} by fiscal year{shown}" if c.years
               else f"{c.company}'s FY{c.year} figures{shown}")  # fmt: skip
    output = Output(form="choice", value=None, also=columns, pick=c.pick, also_percent=percent,
                    labels={col: label for col, (label, _, _) in zip(columns, compared, strict=True)},
                    subject=subject)  # fmt: skip
    return Plan(question=question, filters=filters, fields=list(fields.values()),
                aggregation=Aggregation(steps=steps, output=output))  # fmt: skip


def _signed(node: Node, terms: Terms) -> str:
    """The figure as it moves cash: an outflow line (capex, dividends paid) as a negative amount, however
    the statement prints it, since the question compares what each brought in."""
    if isinstance(node, Ref) and terms.items[node.item].outflow:
        return f"(-abs({field_name(node)}))"
    return expression(node, terms)
