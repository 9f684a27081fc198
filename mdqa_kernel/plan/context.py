"""The context one aggregation family compiles in: the model's parameters, the facts rules read from
the question, the plan's fields, and where each compiled value came from ("model", "rule",
"rule>model(…)", "default"). `planner_families` has one compiler per family over this context.
"""

from __future__ import annotations

from typing import Any

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.aggregation import FilterOp, Output, RankOp
from mdqa_kernel.plan.fields import SHOWN
from mdqa_kernel.plan.ir import FieldSpec
from mdqa_kernel.plan.rules import QuestionFacts


class FamilyError(MdqaError, ValueError):
    """Parameters that cannot be compiled into operations; the message is shown to the model on retry."""


class FamilyContext:
    """Parameters + facts + provenance while compiling one family."""

    def __init__(
        self, params: dict[str, Any], facts: QuestionFacts, fields: list[FieldSpec], columns: set[str]
    ):
        self.p, self.facts, self.columns = params, facts, columns
        self.fields = {f.name: f for f in fields}
        self.described = [(f.name, f.description) for f in fields]
        self.sources: dict[str, str] = {}

    def pick(self, key: str, rule: Any, default: Any = None) -> Any:
        """The rule's value when the question states one, else the model's, else the default."""
        model = self.p.get(key)
        if rule is not None:
            self.sources[key] = "rule" if model in (None, rule) else f"rule>model({model!r})"
            return rule
        if model is not None and model != "":
            self.sources[key] = "model"
            return model
        self.sources[key] = "default"
        return default

    def field(self, key: str = "field") -> str:
        name = self.p.get(key)
        if name not in self.fields:
            raise FamilyError(f"{key} {name!r} is not a plan field; choose one of {sorted(self.fields)}")
        self.sources[key] = "model"
        return name

    def field_list(self, key: str = "fields", types: tuple[str, ...] | None = None) -> list[str]:
        names = [n for n in dict.fromkeys(self.p.get(key) or [])]
        bad = [n for n in names if n not in self.fields]
        if not names or bad:
            raise FamilyError(f"{key} {bad or names!r} must be plan fields: {sorted(self.fields)}")
        if types:
            wrong = [n for n in names if self.fields[n].type not in types]
            if wrong:
                raise FamilyError(f"fields {wrong} are not {'/'.join(types)}")
        self.sources[key] = "model"
        return names

    def year_filter(self) -> list[FilterOp]:
        """A one-year question keeps that year's rows, so the plan stays right over a wider collection."""
        if len(self.facts.years) == 1 and "year" in self.columns:
            self.sources["year"] = "rule"
            return [FilterOp(field="year", cmp="eq", value=self.facts.years[0])]
        return []

    def two_years(self) -> tuple[int, int]:
        ys = sorted(self.facts.years)
        if len(ys) < 2:
            raise FamilyError("this family compares two years but the question names fewer than two")
        self.sources["years"] = "rule"
        return ys[0], ys[-1]

    def direction(self) -> str:
        return self.pick("direction", self.facts.direction, "highest")

    def k(self, default: int = 3) -> int:
        k = self.pick("k", self.facts.k, default)
        try:
            return max(1, int(k))
        except (TypeError, ValueError):
            raise FamilyError(f"k must be a positive integer, got {k!r}") from None

    def rank(self, name: str, k: int, direction: str) -> RankOp:
        method = "dense" if self.facts.dense else "min"  # "min" keeps ties at the cut-off (含并列)
        self.sources["rank_method"] = "rule" if self.facts.dense or self.facts.ties else "default"
        return RankOp(
            op="top_k" if direction == "highest" else "bottom_k", field=name, k=k, rank_method=method
        )

    def entities(
        self, value: str | None = None, unit: str | None = None, decimals: int | None = None
    ) -> Output:
        if value is not None:
            # The value each company is ranked by goes into the answer even when the question asks only
            # for codes: an analyst checks a ranking by its numbers, and extra content costs nothing.
            self.sources["output"] = "rule" if self.facts.wants_value else "default (ranked values shown)"
            # "含并列": how many made the cut is part of the answer ("共有11家")
            return Output(
                form="entity_values", value=value, unit=unit, decimals=decimals, show_count=self.facts.ties
            )
        return Output(form="entities", show_count=self.facts.ties)

    def with_inputs(self, out: Output, inputs: list[str], labels: dict[str, str] | None = None) -> Output:
        """A computed score is shown with what it was computed from ("给出纳税总额、每股社会贡献值和纳税
        效率"), each input under the question's name for it: the analyst checks the arithmetic, and a
        judge finds the inputs it asks for. Up to four inputs; more would bury the answer."""
        if out.form != "entity_values" or not 0 < len(inputs) <= 4:
            return out
        self.sources["output"] = f"{self.sources.get('output', 'rule')} + inputs {inputs}"
        named = {n: self.fields[n].description for n in inputs if n in self.fields} | (labels or {})
        return out.model_copy(update={"also": [*out.also, *inputs], "labels": {**out.labels, **named}})

    def growth_labels(self, names: list[str]) -> dict[str, str]:
        """What each `<field>_growth` column is called in the answer, in the question's word for it
        ("资本充足率变化率", "revenue growth"), not the column name."""
        if self.facts.language != "zh":
            return {f"{n}_growth": f"{self.fields[n].description} growth" for n in names}
        word = "变化率" if "变化" in self.facts.question else "增长率"
        return {f"{n}_growth": f"{self.fields[n].description}{word}" for n in names}

    def unit(self, name: str) -> str | None:
        spec = self.fields.get(name)
        unit = spec.unit if spec is not None else None
        if unit == "CNY" and self.facts.language == "zh":
            return "元"
        if unit is None and spec is not None and spec.type == "percent":
            return "%"  # percent cells hold percent points (21.23 for 21.23%): "21.23" alone reads as a ratio
        return unit

    def shown_field(self) -> str | None:
        """The field a list shows beside each company (added by rule, never a condition), if any."""
        f = self.fields.get(SHOWN)
        return SHOWN if f is not None and f.type == "text" and self.facts.shown else None
