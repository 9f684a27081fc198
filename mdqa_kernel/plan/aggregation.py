"""The typed specification of a Plan's aggregation: a list of named operations plus an output form.

This module only *describes* computations (pydantic v2 models, no execution): `aggregate` compiles
the steps to polars (one module per operation in aggregate/ops/, found by the `op` name; the plan
does not import aggregate), `answer` renders the output. Adding an operation is a spec class here
plus one module there. The models are deliberately flat (scalars, enums, lists of strings) with a
discriminating `op` field so that a small LLM can fill them through a JSON schema and an analyst can
write them as a few lines of YAML:

    steps:
      - {op: filter, field: year, cmp: eq, value: 2021}
      - {op: top_k, field: capital_adequacy_ratio, k: 3}
    output: {form: entities, entity: symbol}

Operations read the "rows" frame (one row per document: doc_id, metadata such as symbol/year, one
typed column per plan field) or the frame the previous step produced.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from functools import partial
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mdqa_kernel.plan.expr import ExpressionError, fields_of, parse_expr

# The plan IR's names for the columns that describe a document rather than hold a value read from
# it: the identifier of its subject (a company's symbol), its year and its type. The specs' defaults
# (pivot, growth and change keys, `Output.entity`) name them; `aggregate` takes them as its default
# entity column (ties in a ranking, members of a value count) and metadata (no lineage cells). A
# collection with other names passes its own to `aggregate`.
ENTITY_COLUMN = "symbol"
YEAR_COLUMN = "year"
DOCUMENT_COLUMNS: tuple[str, ...] = ("doc_id", ENTITY_COLUMN, YEAR_COLUMN, "doctype")

Scalar = float | int | str | bool | None
FilterValue = Scalar | list[float | int | str | bool]


class _Op(BaseModel):
    """Common base: unknown keys are errors, so a typo in a plan fails loudly at validation."""

    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    def fields_read(self) -> list[str]:
        """Columns of the incoming frame this step reads (validation and lineage)."""
        return []


class Cmp(StrEnum):
    eq = "eq"
    ne = "ne"
    gt = "gt"
    ge = "ge"
    lt = "lt"
    le = "le"
    in_ = "in"
    not_in = "not_in"
    is_true = "is_true"
    is_false = "is_false"
    is_null = "is_null"
    not_null = "not_null"
    contains = "contains"  # substring for text, membership for list fields


class Stat(StrEnum):
    count = "count"  # type: ignore[assignment]  # shadows str.count; the name is the plan's word
    n_unique = "n_unique"
    sum = "sum"
    mean = "mean"
    median = "median"
    min = "min"
    max = "max"
    mode = "mode"
    frequency = "frequency"  # every value with its count, most frequent first ("各种…的使用情况")
    range = "range"  # max - min
    std_sample = "std_sample"  # ddof=1, the MuDABench convention for dispersion
    std_population = "std_population"  # ddof=0


class SelectOp(_Op):
    """Keep only these columns (the entity key is not added automatically)."""

    op: Literal["select"] = "select"
    fields: list[str] = Field(min_length=1)

    def fields_read(self) -> list[str]:
        return list(self.fields)


class FilterOp(_Op):
    """Keep rows where `field cmp value` holds, or where the boolean expression `expr` holds."""

    op: Literal["filter"] = "filter"
    field: str | None = None
    cmp: Cmp = Cmp.eq
    value: FilterValue = None
    expr: str | None = Field(default=None, description="e.g. 'cost_growth > 0 and profit_growth > 0'")
    ignore_case: bool = False
    share: str | None = Field(
        default=None, description="also add this column: the fraction of the incoming rows the filter kept"
    )

    @model_validator(mode="after")
    def _one_form(self) -> FilterOp:
        if (self.field is None) == (self.expr is None):
            raise ValueError("filter needs exactly one of `field` (with cmp/value) or `expr`")
        if self.expr is not None:
            _check_expr(self.expr)
        needs_value = self.cmp not in ("is_true", "is_false", "is_null", "not_null")
        if self.field is not None and needs_value and self.value is None:
            raise ValueError(f"filter on {self.field!r} with cmp {self.cmp!r} needs a `value`")
        if self.cmp in ("in", "not_in") and not isinstance(self.value, list):
            raise ValueError(f"filter cmp {self.cmp!r} needs a list `value`")
        return self

    def fields_read(self) -> list[str]:
        return [self.field] if self.field else fields_of(parse_expr(self.expr or ""))


class DeriveOp(_Op):
    """Add column `name` computed by a small arithmetic expression over columns (booleans count 0/1)."""

    op: Literal["derive"] = "derive"
    name: str
    expr: str = Field(description="e.g. '0.4*car_growth + 0.3*profit_growth', 'tax / contribution'")

    @field_validator("expr")
    @classmethod
    def _parse(cls, v: str) -> str:
        _check_expr(v)
        return v

    def fields_read(self) -> list[str]:
        return fields_of(parse_expr(self.expr))


class PivotYearsOp(_Op):
    """One row per entity, columns `<field>_<year>` for each field and year (join across years)."""

    op: Literal["pivot_years"] = "pivot_years"
    fields: list[str] = Field(min_length=1)
    key: list[str] = Field(
        default_factory=lambda: [ENTITY_COLUMN], description="entity key; [] = whole frame"
    )
    year_field: str = YEAR_COLUMN
    years: list[int] | None = Field(default=None, description="years to keep; default all present")
    how: Literal["inner", "full"] = Field(
        default="inner", description="inner: entities present in every year"
    )

    def fields_read(self) -> list[str]:
        return [*self.key, self.year_field, *self.fields]


class GrowthOp(_Op):
    """Per entity and field: `<f>_growth` = (v2 - v1) / |v1| (relative) or v2 - v1 (difference).

    Works on the long rows frame (pivots by `year_field` itself) or on a frame already pivoted
    with columns `<f>_<from_year>` and `<f>_<to_year>`.
    """

    op: Literal["growth"] = "growth"
    fields: list[str] = Field(min_length=1)
    from_year: int
    to_year: int
    key: list[str] = Field(default_factory=lambda: [ENTITY_COLUMN])
    year_field: str = YEAR_COLUMN
    mode: Literal["relative", "difference"] = "relative"
    suffix: str = Field(default="_growth", description="output column = field + suffix")

    def fields_read(self) -> list[str]:
        return list(self.fields)


class ChangeOp(_Op):
    """Per entity, compare a field between two years; adds boolean column `name`.

    `normalize`: exact | text (case, whitespace, punctuation, full-width forms) | entity (text plus
    a registered entity normaliser, e.g. auditor names without legal-form suffixes) | place (two
    writings of one address are no change: `normalize.same_place`).
    """

    op: Literal["change"] = "change"
    field: str
    from_year: int
    to_year: int
    key: list[str] = Field(default_factory=lambda: [ENTITY_COLUMN])
    year_field: str = YEAR_COLUMN
    normalize: Literal["exact", "text", "entity", "place"] = "text"
    normalizer: str = Field(default="default", description="registered entity normaliser name")
    keep: Literal["changed", "unchanged", "all"] = "changed"
    name: str = "changed"

    def fields_read(self) -> list[str]:
        return [self.field]


class RankOp(_Op):
    """top_k (largest first) or bottom_k (smallest first), with ties at the cut-off included.

    `rank_method`: min → rows whose value is at least the k-th value (ties included);
    dense → the k highest distinct values ("top three tiers"); ordinal → exactly k rows.
    Adds column `rank`. Nulls never rank.
    """

    op: Literal["top_k", "bottom_k"] = "top_k"
    field: str
    k: int = Field(ge=1)
    rank_method: Literal["min", "dense", "ordinal"] = "min"
    by: list[str] = Field(default_factory=list, description="rank within each group")

    def fields_read(self) -> list[str]:
        return [self.field, *self.by]


class CountOp(_Op):
    """Number of rows (per group when `by` is given) in column `name`."""

    op: Literal["count"] = "count"
    by: list[str] = Field(default_factory=list)
    name: str = "count"

    def fields_read(self) -> list[str]:
        return list(self.by)


class StatOp(_Op):
    """One statistic of `field` over the frame, or per group of `by` (op `group_by`)."""

    op: Literal["stat", "group_by"] = "stat"
    field: str | None = Field(default=None, description="not needed for stat=count")
    stat: Stat
    by: list[str] = Field(default_factory=list)
    name: str | None = Field(default=None, description="output column; default '<field>_<stat>'")

    @model_validator(mode="after")
    def _needs_field(self) -> StatOp:
        if self.field is None and self.stat != "count":
            raise ValueError(f"stat {self.stat!r} needs a `field`")
        return self

    def out_name(self) -> str:
        return self.name or (f"{self.field}_{self.stat}" if self.field else "count")

    def fields_read(self) -> list[str]:
        return [f for f in (self.field, *self.by) if f]


class OutliersOp(_Op):
    """Keep (or flag) rows where any/all of `fields` is an outlier.

    k_times_mean: value > k × mean (above), value < mean / k (below), either (both).
    mean_k_sigma: |value - mean| > k·σ (both) or one side; σ is population by default (MuDABench).
    `absolute` compares |value| (e.g. size of a change regardless of sign).
    """

    op: Literal["outliers"] = "outliers"
    fields: list[str] = Field(min_length=1)
    method: Literal["k_times_mean", "mean_k_sigma"] = "mean_k_sigma"
    k: float = 2.0
    side: Literal["above", "below", "both"] = "both"
    sigma: Literal["population", "sample"] = "population"
    absolute: bool = False
    combine: Literal["any", "all"] = "any"
    keep_only: bool = Field(default=True, description="False: keep all rows with a boolean column")
    name: str = "is_outlier"

    def fields_read(self) -> list[str]:
        return list(self.fields)


class CompareGroupsOp(_Op):
    """A statistic of `field` per group of `by`, one row per group, largest first.

    Adds `<field>_<stat>`, `n` (rows per group), `diff_from_first` (value − first group's) and
    `gap_to_first` (first group's − value).
    `groups` fixes the order (and keeps only those groups).
    """

    op: Literal["compare_groups"] = "compare_groups"
    field: str
    by: str
    stat: Stat = Stat.mean
    groups: list[str | int | bool] | None = None

    def fields_read(self) -> list[str]:
        return [self.field, self.by]


class ExplodeOp(_Op):
    """One row per distinct element of a list field in each row (a company with three meetings gives
    three rows, two meetings in June one June row). With `key`, elements that are records (JSON
    objects or structs) give their value under that key ("month"); plain elements stay as they are."""

    op: Literal["explode"] = "explode"
    field: str
    key: str | None = None
    name: str | None = Field(default=None, description="output column; default the key, else the field")

    def out_name(self) -> str:
        return self.name or self.key or self.field

    def fields_read(self) -> list[str]:
        return [self.field]


class SortOp(_Op):
    op: Literal["sort"] = "sort"
    by: list[str] = Field(min_length=1)
    descending: bool = True

    def fields_read(self) -> list[str]:
        return list(self.by)


class CodeOp(_Op):
    """Last resort: free polars code run in the sandbox; it gets `rows` and must set `result`."""

    op: Literal["code"] = "code"
    code: str = Field(min_length=1, max_length=20_000)
    description: str = ""
    reads: list[str] = Field(default_factory=list, description="columns the code reads (lineage)")

    def fields_read(self) -> list[str]:
        return list(self.reads)


Operation = Annotated[
    SelectOp
    | FilterOp
    | DeriveOp
    | PivotYearsOp
    | GrowthOp
    | ChangeOp
    | RankOp
    | CountOp
    | StatOp
    | OutliersOp
    | CompareGroupsOp
    | ExplodeOp
    | SortOp
    | CodeOp,
    Field(discriminator="op"),
]


def _op_names() -> tuple[str, ...]:
    """Every `op` literal of the specs, in the order of `Operation` (read off the models, not retyped)."""
    specs = get_args(get_args(Operation)[0])
    return tuple(name for spec in specs for name in get_args(spec.model_fields["op"].annotation))


# The names aggregate's operations registry must know (aggregate/ops/: one module per operation).
OP_NAMES: tuple[str, ...] = _op_names()


class Output(BaseModel):
    """What the answer shows, read from the last step's frame.

    form: entities (identifiers in order) | entity_values (identifier with its value) |
    number (one value) | count | boolean | groups (rows grouped by equal value, tiers) |
    table (all rows) | text | crosstab (two yes/no `also` columns: the identifiers with both, and
    how many have only one or neither) | choice (the `also` column, by its label, whose value in the
    first row is the largest, or the smallest with `pick: min`, with every column's value).
    """

    model_config = ConfigDict(extra="forbid")

    form: Literal[
        "entities",
        "entity_values",
        "number",
        "count",
        "boolean",
        "groups",
        "table",
        "text",
        "crosstab",
        "choice",
    ]
    entity: str | None = Field(default=ENTITY_COLUMN, description="column with identifiers")
    value: str | None = Field(default=None, description="column with the number to show")
    unit: str | None = Field(default=None, description="e.g. '%', '元', 'USD', '家', 'people'")
    percent: bool = Field(default=False, description="value is a fraction: show ×100 with '%'")
    decimals: int | None = Field(default=None, ge=0, le=10, description="None: keep ≥2 significant decimals")
    ordered: bool = Field(default=True, description="the order of entities is part of the answer")
    subject: str | None = Field(default=None, description="short noun phrase for the template")
    show_count: bool = Field(default=False, description="also say how many entities (e.g. '共11家')")
    share: str | None = Field(
        default=None, description="column holding the share of all companies listed (a filter's `share`)"
    )
    also: list[str] = Field(
        default_factory=list,
        description="entity_values: more columns shown beside the value (a score's inputs)",
    )
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="what the `also` columns are called in the answer (their descriptions)",
    )
    also_percent: bool = Field(
        default=False, description="the `also` columns are fractions: show ×100 with '%'"
    )
    pick: Literal["max", "min"] = Field(
        default="max", description="choice: name the `also` column with the largest (max) or smallest value"
    )


class Aggregation(BaseModel):
    """The aggregation part of a Plan: steps run in order on the rows frame, then `output`."""

    model_config = ConfigDict(extra="forbid")

    steps: list[Operation] = Field(default_factory=list)
    output: Output

    def to_dict(self) -> dict[str, Any]:
        """Plain dict with defaults left out (what a person would write); `op` always first."""
        steps = [{"op": s.op, **s.model_dump(mode="json", exclude_defaults=True)} for s in self.steps]
        return {"steps": steps, "output": self.output.model_dump(mode="json", exclude_defaults=True)}

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_yaml(self) -> str:
        from mdqa_kernel.text.yamlsafe import dump_yaml  # the writer Plan uses (no anchors/aliases)

        return dump_yaml(self.to_dict(), sort_keys=False, allow_unicode=True, width=110)

    @classmethod
    def from_json(cls, text: str | bytes, source: str | None = None) -> Aggregation:
        """Operations from JSON, with the bounds of YAML (duplicate keys, size and depth caps)."""
        from mdqa_kernel.text.yamlsafe import load_json

        return cls._from_text(load_json, text, source)

    @classmethod
    def from_yaml(cls, text: str | bytes, source: str | None = None) -> Aggregation:
        """Operations from YAML, read by the bounded loader (no aliases or duplicate keys, size caps)."""
        from mdqa_kernel.text.yamlsafe import load_yaml

        return cls._from_text(partial(load_yaml, what="an aggregation"), text, source)

    @classmethod
    def _from_text(
        cls, loader: Callable[[str | bytes, str | None], Any], text: str | bytes, source: str | None
    ) -> Aggregation:
        """Load and validate, raising what `Plan.from_yaml`/`from_json` raise: PlanLoadError for text
        refused before validation, PlanValidationError (with key paths) for a malformed aggregation."""
        # ir imports this module, so its errors are imported when first needed, not at import time
        from mdqa_kernel.plan.ir import PlanLoadError, _from_pydantic
        from mdqa_kernel.text.yamlsafe import YamlLoadError

        try:
            data = loader(text, source)
        except YamlLoadError as e:
            raise PlanLoadError(e, source) from None
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise _from_pydantic(e, source) from None

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """JSON schema for schema-constrained generation by an LLM."""
        return cls.model_json_schema()

    def fields_read(self) -> list[str]:
        out: list[str] = []
        for step in self.steps:
            out += [f for f in step.fields_read() if f not in out]
        # columns shown as they are (a crosstab's two facts) are read too: for lineage and extraction
        return out + [f for f in self.output.also if f not in out]


def _check_expr(text: str) -> None:
    try:
        parse_expr(text)
    except ExpressionError as exc:  # re-raised as ValueError so pydantic reports it on the field
        raise ValueError(str(exc)) from exc


__all__ = [
    "DOCUMENT_COLUMNS",
    "ENTITY_COLUMN",
    "OP_NAMES",
    "YEAR_COLUMN",
    "Aggregation",
    "ChangeOp",
    "Cmp",
    "CodeOp",
    "CompareGroupsOp",
    "CountOp",
    "DeriveOp",
    "ExplodeOp",
    "FilterOp",
    "GrowthOp",
    "Operation",
    "OutliersOp",
    "Output",
    "PivotYearsOp",
    "RankOp",
    "SelectOp",
    "SortOp",
    "Stat",
    "StatOp",
]
