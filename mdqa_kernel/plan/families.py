"""Aggregation families: per family, a small JSON schema the model fills, and a compiler to operations.

A small model cannot write a whole `Aggregation`, but it can pick a field from an enum and say
"highest" or "lowest". So each family (topk, growth, change, ...) has its own schema of a few
parameters whose field names are enums of the plan's fields, and `compile_family` turns the filled
parameters plus the facts read by rules (`QuestionFacts`) into typed operations. Where the question
states a value (k, years, direction, a threshold) the rule value wins; every parameter records its
source ("model", "rule", "rule>model" when the rule overruled the model, "default") for the report.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mdqa_kernel.plan.aggregation import (
    Aggregation,
    ChangeOp,
    CompareGroupsOp,
    CountOp,
    DeriveOp,
    ExplodeOp,
    FilterOp,
    GrowthOp,
    OutliersOp,
    Output,
    PivotYearsOp,
    RankOp,
    SortOp,
    StatOp,
)
from mdqa_kernel.plan.context import FamilyContext, FamilyError
from mdqa_kernel.plan.expr import ExpressionError, fields_of, parse_expr
from mdqa_kernel.plan.formula import formula_parts
from mdqa_kernel.plan.ir import FieldSpec
from mdqa_kernel.plan.rules import (
    QuestionFacts,
    flags_named,
    formula_in,
    load_hints,
    threshold_is_percent,
    weights_in,
)
from mdqa_kernel.text.fieldtypes import NUMERIC_TYPES
from mdqa_kernel.text.words import NAMES_ASKED

CONDITIONS = ("is_true", "is_false", "greater_than", "less_than", "equals", "contains")
CHANGE_KINDS = ("value_changed", "date_moved", "gap_between_dates", "flags_improved", "largest_shift")


@dataclass
class Compiled:
    aggregation: Aggregation
    sources: dict[str, str] = field(default_factory=dict)


def _names(fields: list[FieldSpec], types: tuple[str, ...] | None = None) -> list[str]:
    names = [f.name for f in fields if types is None or f.type in types]
    return names or [f.name for f in fields]  # never an empty enum: the compiler reports the type error


def _enum(values: list[str]) -> dict[str, Any]:
    return {"type": "string", "enum": values}


def _array(values: list[str]) -> dict[str, Any]:
    return {"type": "array", "items": _enum(values), "minItems": 1, "maxItems": max(1, min(8, len(values)))}


def param_schema(family: str, fields: list[FieldSpec]) -> dict[str, Any]:
    """The JSON schema of one family's parameters, field names restricted to the plan's fields."""
    num = _names(fields, NUMERIC_TYPES)
    ordered = _names(fields, (*NUMERIC_TYPES, "date"))
    every = _names(fields)
    nominal = _names(
        fields, ("text", "list_text", "date", "integer")
    )  # the mode of a yes/no flag says little
    direction = _enum(["highest", "lowest"])
    props: dict[str, dict[str, Any]] = {
        "topk": {"field": _enum(ordered), "direction": direction, "k": {"type": "integer"}},
        "threshold_filter": {
            "fields": _array(every), "condition": _enum(list(CONDITIONS)), "value": {"type": "string"},
            "combine": _enum(["all", "any"]), "on": _enum(["value", "growth"]),
        },
        "groupby_mode": {"field": _enum(nominal)},
        "growth": {"fields": _array(num), "weights": {"type": "array", "items": {"type": "number"}},
                   "direction": direction, "k": {"type": "integer"}},
        "change": {"kind": _enum(list(CHANGE_KINDS)), "fields": _array(every), "threshold": {"type": "number"},
                   "k": {"type": "integer"}},
        "range_std": {"field": _enum(ordered), "stat": _enum(["range", "std"]),
                      "between_years": {"type": "boolean"}},
        "outlier": {"fields": _array(num), "method": _enum(["k_times_mean", "mean_k_sigma"]),
                    "k": {"type": "number"}, "on": _enum(["value", "growth"])},
        "weighted_score": {"formula": {"type": "string", "maxLength": 400}, "direction": direction,
                           "k": {"type": "integer"}},
        "group_compare": {"field": _enum(num), "by": _enum(every), "stat": _enum(["mean", "median", "sum", "count"])},
    }  # fmt: skip
    props["count"] = props["threshold_filter"]
    if family not in props:
        raise FamilyError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    p = props[family]
    return {"title": f"{family}_parameters", "type": "object", "properties": p, "required": list(p)}


# -- one compiler per family -----------------------------------------------------------------------


def _topk(c: FamilyContext) -> Aggregation:
    f = c.field()
    steps = [*c.year_filter(), c.rank(f, c.k(), c.direction())]
    if c.fields[f].type == "date":  # "which company was earliest" is answered with its date
        c.sources["output"] = "rule(date)"
        return Aggregation(steps=steps, output=Output(form="entity_values", value=f))
    return Aggregation(steps=steps, output=c.entities(f, c.unit(f)))


_FALSE_WORDS = {"false", "no", "0", "否", "无", "没有", "未"}


def _condition(c: FamilyContext, name: str, cond: str, value: str) -> tuple[str | None, FilterOp | None]:
    """(expression, or a FilterOp when the condition cannot be an expression: substring tests)."""
    spec = c.fields.get(name)
    if spec is not None and spec.type == "boolean" and cond not in ("is_true", "is_false"):
        # A yes/no value is only true or false: "contains GRI" or "equals 是" on a flag means it is set.
        cond = "is_false" if value.strip().lower() in _FALSE_WORDS else "is_true"
        c.sources["condition"] = f"rule(yes/no field: {cond})"
    if cond == "is_true":
        return name, None
    if cond == "is_false":
        return f"not {name}", None
    if cond == "contains":
        if not value:
            raise FamilyError("condition 'contains' needs a value (the word to look for)")
        return None, FilterOp(field=name, cmp="contains", value=value)
    try:
        num = float(value)
    except (TypeError, ValueError):
        if cond == "equals":
            return None, FilterOp(field=name, cmp="eq", value=value)
        raise FamilyError(f"condition {cond!r} needs a number value, got {value!r}") from None
    op = {"greater_than": ">", "less_than": "<", "equals": "=="}[cond]
    return f"{name} {op} {num:g}", None


def _filter_steps(c: FamilyContext) -> list[Any]:
    shown = c.shown_field()
    names = [n for n in c.field_list() if n != shown]
    if not names:  # the model filtered on the shown value only: the conditions are the flags
        names = [n for n, f in c.fields.items() if f.type == "boolean"]
        c.sources["fields"] = "rule (the flags, not the shown value)"
    flags = [(n, d) for n, d in c.described if c.fields[n].type == "boolean"]
    named = [n for n in flags_named(c.facts.question, flags, load_hints()) if n not in names]
    if named and all(c.fields[n].type == "boolean" for n in names):
        names += named  # "股东、债权人、职工…五个方面": every flag the question names is a condition
        c.sources["fields"] = f"model+rule({len(named)} named flags)"
    place = c.facts.located  # "办公地址在深圳": the place is the word looked for
    contains = c.facts.effect("filter_cmp") == "contains" or place is not None
    cond = c.pick("condition", "contains" if contains else None, "is_true")
    grew = len(c.facts.years) >= 2 and c.facts.growth_words
    # one year named: a condition on the value itself, whatever the model says (growth needs two)
    on = c.pick("on", "growth" if grew else ("value" if len(c.facts.years) < 2 else None), "value")
    value = str(c.pick("value", place[1]) if place and cond == "contains" else c.p.get("value") or "")
    steps: list[Any] = []
    if on == "growth":
        y1, y2 = c.two_years()
        steps.append(GrowthOp(fields=names, from_year=y1, to_year=y2))
        names = [f"{n}_growth" for n in names]
        if cond in ("is_true", "is_false", "contains"):
            cond, value = "greater_than", "0"  # "grew" on a growth column means a positive growth
            c.sources["condition"] = "rule(growth>0)"
        elif c.facts.threshold is None and cond in ("greater_than", "less_than"):
            value = "0"  # the question states no number: "增长"/"下降" is the sign (the model invented 1e7)
            c.sources["value"] = "rule(sign of growth)"
    else:
        steps += c.year_filter()
    if cond in ("greater_than", "less_than") and c.facts.threshold is not None:
        pct = on == "growth" and threshold_is_percent(c.facts.question)  # a growth is a ratio: 50% is 0.5
        value = f"{c.facts.threshold / 100 if pct else c.facts.threshold:g}"
        c.sources["value"] = "rule(percent of a ratio)" if pct else "rule"
    combine = c.pick("combine", c.facts.combine, "all")
    exprs, ops_ = [], []
    for n in names:
        e, op = _condition(c, n, cond, value)
        exprs += [e] if e else []
        ops_ += [op] if op else []
    if exprs:
        steps.append(FilterOp(expr=f" {'or' if combine == 'any' else 'and'} ".join(f"({e})" for e in exprs)))
    return steps + ops_


# A list of unknown length says how many it holds ("共3家"): the count is part of such an answer.
LISTED = Output(form="entities", show_count=True)


def _threshold_filter(c: FamilyContext) -> Aggregation:
    if _ALL_GREW.search(c.facts.question) and len(c.facts.years) >= 2:
        return _all_grew(c)  # "营业总成本和净利润都实现正向增长的公司": every growth positive
    steps = _filter_steps(c)
    if c.facts.share:  # "…的公司股票代码和采用比例": the list with the share of the year's companies it holds
        return _listed_with_share(c, steps)
    association = _association(c, steps)
    if association is not None:
        return association
    # "…的公司股票代码和审验机构名称": each company with the value asked for; "办公地址在深圳的所有公司股票代码
    # 和具体办公地址": with the address it was picked by, which the reader checks the filter by
    shown, why = c.shown_field(), "rule (asked value shown)"
    if shown is None and c.facts.located is not None:
        names = c.field_list()
        shown, why = (names[0] if len(names) == 1 else None), "rule (located value shown)"
    if shown is None:
        return Aggregation(steps=steps, output=LISTED)
    c.sources["output"] = why
    return Aggregation(steps=steps, output=Output(form="entity_values", value=shown, show_count=True))


# "GRI标准与第三方审验的关联情况分析：既采用GRI又审验的公司股票代码及数量统计"
_ASSOCIATION = re.compile(r"关联情况|关联分析|交叉分析|\bassociation between\b|\bcross-?tab", re.I)


def _association(c: FamilyContext, steps: list[Any]) -> Aggregation | None:
    """Two yes/no facts analysed against each other: the companies with both, and how many have
    only one or neither (what "关联情况" asks for). None unless the plan filters on exactly two flags
    both being set and the question asks for their association."""
    flags = [n for n, spec in c.fields.items() if spec.type == "boolean"]
    conds = [s for s in steps if isinstance(s, FilterOp) and s.field != "year"]
    if not _ASSOCIATION.search(c.facts.question) or len(flags) != 2 or len(conds) != 1:
        return None
    a, b = (("field", n) for n in flags)
    if conds[0].expr is None or parse_expr(conds[0].expr) not in (
        ("bool", "and", a, b),
        ("bool", "and", b, a),
    ):
        return None  # only "both set" is their association; "or", "not" or a number is another question
    c.sources["output"] = "rule(association of two yes/no facts)"
    labels = {n: c.fields[n].description for n in flags}
    return Aggregation(steps=c.year_filter(), output=Output(form="crosstab", also=flags, labels=labels))


def _listed_with_share(c: FamilyContext, steps: list[Any]) -> Aggregation:
    """The condition's filter also keeps the share of the year's companies it kept."""
    conditions = [i for i, s in enumerate(steps) if isinstance(s, FilterOp) and s.field != "year"]
    if len(conditions) != 1:  # the share is of one filter's input: the companies of the year
        raise FamilyError(f"a share of companies needs one condition filter, the plan has {len(conditions)}")
    (i,) = conditions
    steps = [*steps[:i], steps[i].model_copy(update={"share": "share"}), *steps[i + 1 :]]
    c.sources["output"] = "rule (share of the companies listed)"
    return Aggregation(steps=steps, output=LISTED.model_copy(update={"share": "share"}))


def _count(c: FamilyContext) -> Aggregation:
    unit = "家" if c.facts.language == "zh" else None
    steps = _filter_steps(c)
    association = _association(c, steps)  # "关联情况…数量统计": a count per combination of the two facts
    if association is not None:
        return association
    return Aggregation(steps=[*steps, CountOp()], output=Output(form="count", unit=unit))


# "各种表决方式的使用情况", "时间分布情况", "distribution of": every value with its companies, not the mode
_DISTRIBUTION = re.compile(
    r"各种|各类|分布|使用情况|distribution|breakdown|for each (value|method|month)", re.I
)


# A part of each record in a list field the question counts by ("哪个月份召开股东大会的公司最多": the
# month of each meeting in a list of meetings).
_RECORD_KEYS = {"month": re.compile(r"月份|哪个月|各月|\bmonths?\b", re.I)}


def _groupby_mode(c: FamilyContext) -> Aggregation:
    f = c.field()
    unit = "家" if c.facts.language == "zh" else "companies"
    stat = "frequency" if _DISTRIBUTION.search(c.facts.question) else "mode"
    c.sources["stat"] = f"rule({stat})"
    steps: list[Any] = [*c.year_filter()]
    key = next((k for k, cue in _RECORD_KEYS.items() if cue.search(c.facts.question)), None)
    if key and c.fields[f].type == "list_text":
        steps.append(ExplodeOp(field=f, key=key))
        c.sources["explode"] = f"rule(each element's {key!r})"
        f = key
    steps.append(StatOp(field=f, stat=stat))
    return Aggregation(steps=steps, output=Output(form="entity_values", entity=f, value="count", unit=unit))


# "营业总成本和净利润都实现正向增长的公司": a condition on every growth, not a ranking
_ALL_GREW = re.compile(
    r"(?<!平)[都均](?:实现|有|为)?了?(?:正向|正)?的?增长|\b(?:both|all) (?:grew|increased|rose)\b", re.I
)


def _all_grew(c: FamilyContext) -> Aggregation:
    names = [n for n, spec in c.fields.items() if spec.type in NUMERIC_TYPES]
    if not names:
        raise FamilyError("a growth condition needs numeric fields")
    y1, y2 = c.two_years()
    cols = [f"{n}_growth" for n in names]
    c.sources["condition"] = "rule(every growth > 0)"
    steps = [
        GrowthOp(fields=names, from_year=y1, to_year=y2),
        FilterOp(expr=" and ".join(f"{g} > 0" for g in cols)),
    ]
    return Aggregation(
        steps=steps, output=Output(form="entity_values", value=cols[0], also=cols[1:], show_count=True)
    )


def _growth(c: FamilyContext) -> Aggregation:
    if _ALL_GREW.search(c.facts.question):
        return _all_grew(c)
    rule_weights = weights_in(c.facts.question, c.described)
    if len(rule_weights) >= 2:  # "A增长率权重40%，B增长率权重30%…": the question fixes fields and weights
        names, weights = list(rule_weights), list(rule_weights.values())
        c.sources["fields"] = c.sources["weights"] = "rule"
    else:
        names = c.field_list(types=NUMERIC_TYPES)
        weights = [float(w) for w in (c.p.get("weights") or [])]
        c.sources["weights"] = "model"
    y1, y2 = c.two_years()
    steps: list[Any] = [GrowthOp(fields=names, from_year=y1, to_year=y2)]
    target = f"{names[0]}_growth"
    if len(names) > 1:
        if len(weights) != len(names):
            raise FamilyError(f"give one weight per field: {len(names)} fields, {len(weights)} weights")
        weights = [w / 100 if w > 1 else w for w in weights]  # "40%" written as 40
        formula = " + ".join(f"{w:g}*{n}_growth" for w, n in zip(weights, names, strict=True))
        steps.append(DeriveOp(name="score", expr=formula))
        target = "score"
    steps.append(c.rank(target, c.k(), c.direction()))
    inputs = [f"{n}_growth" for n in names] if len(names) > 1 else []
    output = c.entities(target, None)
    if len(names) == 1:
        # a growth is a fraction (0.5532); a reader, and every reference, writes it 55.32%
        output = output.model_copy(update={"percent": True})
    output = c.with_inputs(output, inputs, c.growth_labels(names))
    return Aggregation(steps=steps, output=output.model_copy(update={"also_percent": bool(output.also)}))


def _change_kind(c: FamilyContext, names: list[str]) -> str | None:
    """The kind the field types and the question force (None: any kind fits, the model decides)."""
    types = {c.fields[n].type for n in names}
    if types == {"date"}:
        if len(names) >= 2 and len(c.facts.years) < 2:
            return "gap_between_dates"
        return "date_moved" if c.facts.threshold is not None else "largest_shift"
    if types == {"boolean"}:
        return "flags_improved"
    if types <= {"text", "list_text"}:
        return "value_changed"
    return None


def _change(c: FamilyContext) -> Aggregation:
    names = c.field_list()
    dates = [n for n in names if c.fields[n].type == "date"]
    if dates and len(dates) < len(names):
        # A date beside other fields: the others are what the change yields ("提前天数"), computed
        # from the dates here, not read from the documents.
        names = dates
        c.sources["fields"] = f"rule(the date fields {dates})"
    kind = c.pick("kind", _change_kind(c, names), "value_changed")
    if kind == "gap_between_dates":
        if len(names) != 2 or any(c.fields[n].type != "date" for n in names):
            raise FamilyError("gap_between_dates needs exactly two date fields")
        steps: list[Any] = [*c.year_filter(), DeriveOp(name="gap_days", expr=f"abs({names[1]} - {names[0]})")]
        steps.append(c.rank("gap_days", c.k(1), c.pick("direction", c.facts.direction, "lowest")))
        unit = "天" if c.facts.language == "zh" else "days"
        return Aggregation(
            steps=steps, output=Output(form="entity_values", value="gap_days", unit=unit, decimals=0)
        )
    y1, y2 = c.two_years()
    f = names[0]
    if kind == "value_changed":
        norm = c.pick("normalize", c.facts.effect("normalize"), "text")
        output = LISTED
        if c.facts.from_to:  # "具体由哪家会计事务所换到哪家": each company with both years' values
            before, after = f"{f}_{y1}", f"{f}_{y2}"
            labels = (
                {before: f"{y1}年", after: f"{y2}年"}
                if c.facts.language == "zh"
                else {before: str(y1), after: str(y2)}
            )
            output = Output(form="entity_values", value=before, also=[after], labels=labels, show_count=True)
            c.sources["output"] = "rule (old and new value shown)"
        return Aggregation(steps=[ChangeOp(field=f, from_year=y1, to_year=y2, normalize=norm)], output=output)
    if kind in ("date_moved", "largest_shift"):
        # An annual event's dates compare by their place in the calendar: 06-13 is 31 days before 07-14
        # in any year (ordinal days differ by 30 when a leap year's Feb 29 lies between the two dates)
        shift = f"calendar_day({f}_{y1}) - calendar_day({f}_{y2})"  # > 0: earlier in the later year
        if c.facts.later:
            shift = f"calendar_day({f}_{y2}) - calendar_day({f}_{y1})"
        steps = [PivotYearsOp(fields=[f], years=[y1, y2])]
        if kind == "largest_shift":
            steps += [
                DeriveOp(name="shift_days", expr=f"abs({shift})"),
                c.rank("shift_days", c.k(), "highest"),
            ]
        else:
            threshold = c.pick("threshold", c.facts.threshold, 0)
            steps += [
                DeriveOp(name="shift_days", expr=shift),
                FilterOp(field="shift_days", cmp="gt", value=float(threshold)),
            ]
        unit = "天" if c.facts.language == "zh" else "days"  # "提前了多少天": the shift beside each company
        if kind == "largest_shift":
            # "变化最大的三家公司…及其具体变化情况": the shift with both dates, which say its direction
            dated = {f"{f}_{y}": (f"{y}年" if c.facts.language == "zh" else str(y)) for y in (y1, y2)}
            c.sources["output"] = "rule (the shift and both dates shown)"
            return Aggregation(steps=steps, output=Output(form="entity_values", value="shift_days", unit=unit,
                                                          decimals=0, also=list(dated), labels=dated))  # fmt: skip
        return Aggregation(steps=steps, output=Output(form="entity_values", value="shift_days", unit=unit,
                                                      decimals=0, show_count=True))  # fmt: skip
    if kind == "flags_improved":
        steps = [PivotYearsOp(fields=names, years=[y1, y2])]
        score = " + ".join(f"({n}_{y2} and not {n}_{y1})" for n in names)
        steps += [
            DeriveOp(name="improvement", expr=score),
            FilterOp(field="improvement", cmp="gt", value=0),
            c.rank("improvement", c.k(), "highest"),
        ]
        return Aggregation(steps=steps, output=LISTED)
    raise FamilyError(f"unknown change kind {kind!r}; expected one of {', '.join(CHANGE_KINDS)}")


def _range_std(c: FamilyContext) -> Aggregation:
    f = c.field()
    stat = c.pick("stat", c.facts.stat, "range")
    op_stat = "range" if stat == "range" else "std_sample"  # MuDABench: dispersion is the sample std
    # one year named: a spread within it, whatever the model says (it said "between years" for
    # "2022年…营业总成本的极差", and the plan failed for want of a second year)
    rule = True if c.facts.between_years else (False if len(c.facts.years) < 2 else None)
    between = c.pick("between_years", rule, False)
    unit = c.unit(f)
    if between:
        y1, y2 = c.two_years()
        steps: list[Any] = [
            StatOp(op="group_by", field=f, stat=op_stat, by=["year"], name="v"),
            PivotYearsOp(fields=["v"], key=[], years=[y1, y2]),
            DeriveOp(name="delta", expr=f"v_{y2} - v_{y1}"),
        ]
        return Aggregation(steps=steps, output=Output(form="number", value="delta", unit=unit))
    steps = [*c.year_filter(), StatOp(field=f, stat=op_stat, name="v")]
    return Aggregation(steps=steps, output=Output(form="number", value="v", unit=unit))


def _outlier(c: FamilyContext) -> Aggregation:
    names = c.field_list(types=NUMERIC_TYPES)
    method = c.pick("method", "mean_k_sigma" if c.facts.stat == "std" else None, "mean_k_sigma")
    k = float(c.pick("k", c.facts.multiplier, 2.0))
    on = c.pick("on", "growth" if len(c.facts.years) >= 2 else None, "value")
    steps: list[Any] = []
    labels: dict[str, str] = {}
    if on == "growth":
        y1, y2 = c.two_years()
        steps.append(GrowthOp(fields=names, from_year=y1, to_year=y2))
        labels = c.growth_labels(names)
        names = [f"{n}_growth" for n in names]
    else:
        steps += c.year_filter()
    side = "above" if method == "k_times_mean" else "both"
    steps.append(OutliersOp(fields=names, method=method, k=k, side=side, combine=c.facts.combine or "any"))
    return Aggregation(steps=steps, output=_tested_values(c, names, labels))


def _tested_values(c: FamilyContext, tested: list[str], labels: dict[str, str]) -> Output:
    """Each outlier with the values it was tested on ("002958（资本充足率变化率=0.84%；营业总成本变化率=
    13.09%…）"): the question asks for them ("及其具体变化率"), and an analyst checks an outlier by
    its numbers. Growths are fractions, shown as percentages; more than five values would bury the
    codes, so then only the codes."""
    if len(tested) > 5:
        return Output(form="entities")
    growth = bool(labels)
    c.sources["output"] = "rule(the tested values)"
    first = tested[0]
    unit = None if growth else c.unit(first)
    out = Output(form="entity_values", value=first, unit=unit, percent=growth, decimals=2 if growth else None,
                 ordered=False, also_percent=growth)  # fmt: skip
    # the first value is labelled too when there are others ("资本充足率变化率=0.84%；营业总成本变化率=…")
    return c.with_inputs(out, tested[1:], labels or {first: c.fields[first].description})


def _weighted_score(c: FamilyContext) -> Aggregation:
    parts = formula_parts(c.facts.question, c.described)
    if parts:  # "综合得分=完整性得分×60%+规范性得分×40%": each sub-score is a column, shown beside the score
        c.sources["formula"] = "rule(sub-scores " + ", ".join(f"{n}={label}" for n, label, _e in parts) + ")"
        steps = [*c.year_filter(), *(DeriveOp(name=n, expr=e) for n, _l, e in parts)]
        steps.append(c.rank("score", c.k(), c.direction()))
        return Aggregation(
            steps=steps,
            output=c.with_inputs(
                c.entities("score"),
                [n for n, _l, _e in parts[:-1]],
                {n: label for n, label, _e in parts[:-1]},
            ),
        )
    formula = str(c.pick("formula", formula_in(c.facts.question, c.described), "")).strip()
    formula = formula.replace("×", "*").replace("÷", "/")
    try:
        used = fields_of(parse_expr(formula))
    except ExpressionError as e:
        raise FamilyError(f"formula {formula!r} does not parse: {e}") from None
    unknown = [u for u in used if u not in c.fields and u not in c.columns]
    if unknown or not used:
        raise FamilyError(
            f"formula uses {unknown or 'no fields'}; use only these field names: {sorted(c.fields)}"
        )
    steps = [*c.year_filter(), DeriveOp(name="score", expr=formula), c.rank("score", c.k(), c.direction())]
    return Aggregation(
        steps=steps, output=c.with_inputs(c.entities("score"), [u for u in used if u in c.fields])
    )


_TOTAL = re.compile(r"总和|合计|总计|\btotal\b|\bsum\b", re.I)


def _group_compare(c: FamilyContext) -> Aggregation:
    steps: list[Any] = [*c.year_filter()]
    formula = formula_in(c.facts.question, c.described)
    if formula:  # "四大与非四大客户的ESG质量得分差值。得分=（第三方审验+GRI标准+披露不足）÷3"
        used = fields_of(parse_expr(formula))
        steps.append(DeriveOp(name="score", expr=formula))
        f = "score"
        c.sources["field"] = "rule(the question's formula)"
        others = [n for n, spec in c.fields.items() if n not in used and spec.type not in NUMERIC_TYPES]
        if len(others) == 1:  # the one field the score does not use names the groups
            by = others[0]
            c.sources["by"] = "rule"
        else:
            by = c.field("by")
        if by in used:
            raise FamilyError(f"{by!r} is part of the score; group by another field: {others}")
    else:
        f, by = c.field(), c.field("by")
        if by == f:
            raise FamilyError("group_compare needs a second field that names the groups")
    if c.fields[by].type in NUMERIC_TYPES:
        raise FamilyError("group_compare needs a second, non-numeric field that names the groups")
    # a per-company score compares by its mean, unless the question asks for a total
    rule_stat = None if not formula else "sum" if _TOTAL.search(c.facts.question) else "mean"
    stat = c.pick("stat", rule_stat, "mean")
    steps.append(CompareGroupsOp(field=f, by=by, stat=stat))
    return Aggregation(steps=steps, output=Output(form="table"))


@dataclass(frozen=True)
class Family:
    """A planner family: the compiler of its parameters, and the operations that answer its question
    (the `op` names of plan/aggregation.py; a compiler adds year filters, derives and ranks around them)."""

    compile: Callable[[FamilyContext], Aggregation]
    operations: tuple[str, ...]


# The one table from planner family to operation. Family names are the planner's vocabulary, not the
# operations': "topk" is answered by `top_k`/`bottom_k`, "outlier" by `outliers`, "group_compare" by
# `compare_groups`. They stay as they are because the small model reads and answers them: they are
# the enum of the family step, the keys of hints.yaml's descriptions, few-shot examples and cues, and
# of the planner's PARAM_GUIDES, and each `<family>_parameters` schema title. Planning prompts are
# replayed from a journal keyed by their hash, so renaming a family would change every planning
# prompt (and its recorded answer). The order is the order of the enum in the family prompt.
FAMILY_TABLE: dict[str, Family] = {
    "topk": Family(_topk, ("top_k", "bottom_k")),
    "threshold_filter": Family(_threshold_filter, ("filter",)),
    "count": Family(_count, ("count",)),
    "groupby_mode": Family(_groupby_mode, ("stat",)),  # stat mode / frequency
    "growth": Family(_growth, ("growth",)),
    "change": Family(_change, ("change", "pivot_years", "derive")),  # a value changed; dates moved
    "range_std": Family(_range_std, ("stat",)),  # stat range / std_sample
    "outlier": Family(_outlier, ("outliers",)),
    "weighted_score": Family(_weighted_score, ("derive",)),
    "group_compare": Family(_group_compare, ("compare_groups",)),
}
FAMILIES: tuple[str, ...] = tuple(FAMILY_TABLE)


def compile_family(
    family: str, params: dict[str, Any], facts: QuestionFacts, fields: list[FieldSpec], columns: set[str]
) -> Compiled:
    """Typed operations for one family's parameters; FamilyError says what to fix."""
    if family not in FAMILY_TABLE:
        raise FamilyError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    ctx = FamilyContext(params, facts, fields, columns)
    try:
        agg = _names_shown(ctx, FAMILY_TABLE[family].compile(ctx))
    except FamilyError:
        raise
    except (ValueError, TypeError) as e:  # pydantic rejects an operation: same retry path
        raise FamilyError(f"{family}: {e}") from None
    return Compiled(agg, ctx.sources)


# Steps that keep each company's row as it was read, so a list read beside the ranked value survives.
_ROW_KEEPING = (FilterOp, RankOp, SortOp)


def _names_shown(c: FamilyContext, agg: Aggregation) -> Aggregation:
    """The names a question asks to list ("…和这些公司的所有女性高管名字") beside each company of a
    list of companies: a list field no step reads goes into the output's `also`, under its name."""
    out = agg.output
    if out.form != "entity_values" or not NAMES_ASKED.search(c.facts.question):
        return agg
    if not all(isinstance(step, _ROW_KEEPING) for step in agg.steps):
        return agg  # a pivot or a statistic leaves no per-company list to show
    read = {*agg.fields_read(), out.value, out.entity}
    names = [n for n, f in c.fields.items()
             if f.type == "list_text" and n not in read and NAMES_ASKED.search(f.description)]  # fmt: skip
    if not names:
        return agg
    labels = {n: re.sub(r"(?:列表|\s*list)$", "", c.fields[n].description.rstrip("。. ")) for n in names}
    return agg.model_copy(update={"output": c.with_inputs(out, names, labels)})
