"""The Plan: a typed intermediate representation of one analytical question.

A plan says which documents to read (filters on metadata columns), which facts to read from each
(fields: name, type, unit, scale, a one-line description and a per-document question template),
and how to compute the answer from the resulting table (an aggregation made of typed operations).
An LLM may propose a plan and an analyst may write or edit one; both produce this same object, so
the plan is data, never prose. Plans round-trip through YAML and JSON; a validation error names the
offending key (`fields[1].name: ...`) so that a hand-written plan can be fixed quickly.

Filters and per-field restrictions may be written in full (`{column: year, in: [2021, 2022]}`) or
as a short mapping (`{doctype: 年报, year: [2021, 2022], revenue: {min: 0}}`): a scalar means
equality, a list membership, a mapping with min/max an inclusive range.
"""

from __future__ import annotations

import html
import json
import re
import string
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import polars as pl
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.aggregation import Aggregation
from mdqa_kernel.text.fieldtypes import FIELD_TYPES, FieldTypeName
from mdqa_kernel.text.yamlsafe import YamlLoadError, clip, dump_yaml, load_json, load_yaml, read_document

__all__ = [
    "FIELD_TYPES",
    "SCALES",
    "FieldSpec",
    "MetadataFilter",
    "Plan",
    "PlanLoadError",
    "PlanValidationError",
]


# Named scales an analyst can write instead of a factor. The factor multiplies a value as printed
# in the document to give the value in the field's unit (a table "in millions" has scale 1e6).
SCALES: dict[str, float] = {
    "unit": 1.0,
    "units": 1.0,
    "thousand": 1e3,
    "thousands": 1e3,
    "千": 1e3,
    "ten_thousand": 1e4,
    "ten_thousands": 1e4,
    "万": 1e4,
    "million": 1e6,
    "millions": 1e6,
    "hundred_million": 1e8,
    "hundred_millions": 1e8,
    "亿": 1e8,
    "billion": 1e9,
    "billions": 1e9,
}

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
_IDENT = re.compile(r"^[^\W\d]\w*$", re.UNICODE)
_FILTER_KEYS = ("equals", "in", "min", "max")


class PlanValidationError(MdqaError, ValueError):
    """A plan is malformed. `errors` holds (key path, message) pairs, e.g. ("fields[1].name", "...")."""

    def __init__(self, errors: list[tuple[str, str]], source: str | None = None) -> None:
        self.errors = errors
        self.source = source
        where = f"{source}: " if source else ""
        lines = [f"{key}: {msg}" if key else msg for key, msg in errors]
        body = lines[0] if len(lines) == 1 else f"{len(lines)} problems:\n  " + "\n  ".join(lines)
        super().__init__(where + body)


class PlanLoadError(PlanValidationError):
    """A plan's text was refused before validation (text.yamlsafe): not UTF-8, too large or too deep,
    an anchor/alias, a duplicate key, or bad YAML/JSON syntax. The message names the file and line."""

    def __init__(self, error: YamlLoadError, source: str | None = None) -> None:
        self.line = error.line
        super().__init__([("", error.located)], source or error.source)


def _key_path(loc: Iterable[int | str]) -> str:
    """('fields', 1, 'name') -> 'fields[1].name': the way people point at a key in YAML."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-", "tagged-union")):
            continue  # pydantic-internal validator names say nothing to the plan's author
        else:
            out += f".{part}" if out else str(part)
    return out


def _from_pydantic(err: ValidationError, source: str | None = None) -> PlanValidationError:
    errors: list[tuple[str, str]] = []
    for e in err.errors():
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        elif e["type"] == "missing":
            msg = "required key is missing"
        elif e["type"] == "literal_error":
            msg = f"{msg} (got {clip(e.get('input'))})"
        # No message may carry a huge value (a 1 MB string, a list of a million items) in full.
        errors.append((_key_path(e["loc"]), msg if len(msg) <= 300 else msg[:299] + "…"))
    return PlanValidationError(errors, source)


class _Strict(BaseModel):
    # extra="forbid": a misspelt key ("questoin") must be an error, not silently dropped.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)


class MetadataFilter(_Strict):
    """One condition on one metadata column: equality, membership, or an inclusive range."""

    column: str
    equals: Any = None
    in_: list[Any] | None = Field(default=None, alias="in")
    min: Any = None
    max: Any = None

    @model_validator(mode="after")
    def _one_kind(self) -> MetadataFilter:
        kinds = [k for k in ("equals", "in_") if getattr(self, k) is not None]
        if self.min is not None or self.max is not None:
            kinds.append("range")
        if len(kinds) != 1:
            raise ValueError("give exactly one of equals, in, or min/max")
        if self.in_ is not None and not self.in_:
            raise ValueError("'in' needs at least one value")
        return self

    @property
    def kind(self) -> Literal["equals", "in", "range"]:
        if self.equals is not None:
            return "equals"
        return "in" if self.in_ is not None else "range"

    def matches(self, metadata: Mapping[str, Any]) -> bool:
        """Whether one document's metadata satisfies the condition (a missing column never does)."""
        if self.column not in metadata or metadata[self.column] is None:
            return False
        value = metadata[self.column]
        if self.kind == "equals":
            return bool(value == self.equals)
        if self.kind == "in":
            return value in (self.in_ or [])
        try:
            return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)
        except TypeError:
            return False

    def to_expr(self) -> pl.Expr:
        """The same condition as a polars expression over a metadata frame."""
        col = pl.col(self.column)
        if self.kind == "equals":
            return col == self.equals
        if self.kind == "in":
            return col.is_in(self.in_ or [])
        expr = pl.lit(True)
        if self.min is not None:
            expr = expr & (col >= self.min)
        if self.max is not None:
            expr = expr & (col <= self.max)
        return expr

    def describe(self) -> str:
        if self.kind == "equals":
            return f"{self.column} = {self.equals!r}"
        if self.kind == "in":
            return f"{self.column} ∈ {self.in_!r}"
        lo = "" if self.min is None else f"{self.min!r} ≤ "
        hi = "" if self.max is None else f" ≤ {self.max!r}"
        return f"{lo}{self.column}{hi}"

    def to_short(self) -> tuple[str, Any]:
        """The (column, value) pair of the short mapping form."""
        if self.kind == "equals":
            return self.column, self.equals
        if self.kind == "in":
            return self.column, list(self.in_ or [])
        rng = {k: v for k, v in (("min", self.min), ("max", self.max)) if v is not None}
        return self.column, rng


def _expand_filters(value: Any) -> Any:
    """Accept the short mapping form {column: value} as well as a list of full filters."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        out = []
        for column, cond in value.items():
            if isinstance(cond, Mapping) and set(cond) <= {"min", "max"} and cond:
                out.append({"column": column, **cond})
            elif isinstance(cond, list | tuple):
                out.append({"column": column, "in": list(cond)})
            else:
                out.append({"column": column, "equals": cond})
        return out
    return value


def _template_parts(template: str) -> list[tuple[str, str | None]]:
    """(literal text, placeholder name or None) pairs of a question template.

    Only plain `{name}` placeholders are allowed, `{{`/`}}` being literal braces: a format spec
    (`{company:>1500000000}` pads to 1.5 GB), a conversion (`{x!r}`) or attribute/index access
    (`{a.b}`, `{a[0]}`, reaching into Python objects) raises ValueError."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as e:
        raise ValueError(f"bad template syntax ({e}); write literal braces as {{{{ and }}}}") from None
    parts: list[tuple[str, str | None]] = []
    for literal, name, spec, conversion in parsed:
        if name is not None:
            shown = clip(
                "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            )
            if not _IDENT.match(name):
                raise ValueError(f"placeholder {shown} must be a plain metadata column name like {{year}}")
            if spec or conversion:
                raise ValueError(
                    f"placeholder {shown} has a format spec or conversion; write a plain {{{name}}}"
                )
        parts.append((literal, name))
    return parts


def _placeholders(template: str) -> list[str]:
    """Names used as {name} in a template; raises ValueError on anything but plain placeholders."""
    return [name for _lit, name in _template_parts(template) if name is not None]


class FieldSpec(_Strict):
    """One fact read from each document: the column of the rows table it becomes."""

    name: str
    type: FieldTypeName
    description: str
    question: str
    unit: str | None = None
    scale: float = 1.0
    only: list[MetadataFilter] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _snake_case(cls, v: str) -> str:
        if not _SNAKE.match(v):
            raise ValueError(f"must be snake_case (lower-case letters, digits, underscores), got {v!r}")
        return v

    @field_validator("description")
    @classmethod
    def _one_line(cls, v: str) -> str:
        v = v.strip()
        if not v or "\n" in v:
            raise ValueError("must be one non-empty line")
        return v

    @field_validator("question")
    @classmethod
    def _template(cls, v: str, info: ValidationInfo) -> str:
        if not v.strip():
            raise ValueError("must be a non-empty question template")
        try:
            _placeholders(v)
        except ValueError as e:
            name = info.data.get("name")  # validated before `question`, absent when it was invalid
            raise ValueError(f"field {name!r}: {e}" if name else str(e)) from None
        return v

    @field_validator("scale", mode="before")
    @classmethod
    def _scale(cls, v: Any) -> Any:
        if v is None:
            return 1.0
        if isinstance(v, str):
            key = v.strip().lower().replace(" ", "_")
            if key in SCALES:
                return SCALES[key]
            try:
                return float(key)
            except ValueError:
                raise ValueError(f"unknown scale {v!r}; use a number or one of {sorted(SCALES)}") from None
        return v

    @field_validator("scale")
    @classmethod
    def _positive(cls, v: float) -> float:
        if v <= 0:
            raise ValueError("must be positive")
        return v

    @field_validator("only", mode="before")
    @classmethod
    def _only(cls, v: Any) -> Any:
        return _expand_filters(v)

    @property
    def placeholders(self) -> list[str]:
        return _placeholders(self.question)

    def applies_to(self, metadata: Mapping[str, Any]) -> bool:
        return all(f.matches(metadata) for f in self.only)

    def render(self, metadata: Mapping[str, Any]) -> str:
        """The question for one document, its metadata substituted into the template."""
        missing = [p for p in self.placeholders if p not in metadata]
        if missing:
            raise PlanValidationError(
                [(f"{self.name}.question", f"document metadata lacks {', '.join(missing)}")]
            )
        # Plain substitution of known names (str.format would honour specs and reach into objects).
        return "".join(
            lit + ("" if name is None else str(metadata[name]))
            for lit, name in _template_parts(self.question)
        )


class Plan(_Strict):
    """question + filters + fields + aggregation: everything needed to answer one question."""

    question: str
    filters: list[MetadataFilter] = Field(default_factory=list)
    fields: list[FieldSpec] = Field(min_length=1)
    aggregation: Aggregation | None = None

    @field_validator("filters", mode="before")
    @classmethod
    def _filters(cls, v: Any) -> Any:
        return _expand_filters(v)

    @field_validator("question")
    @classmethod
    def _question(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v.strip()

    @model_validator(mode="after")
    def _unique_names(self) -> Plan:
        seen: set[str] = set()
        for f in self.fields:
            if f.name in seen:
                raise ValueError(f"field name {f.name!r} appears twice")
            seen.add(f.name)
        return self

    # -- construction / serialisation ---------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> Plan:
        if not isinstance(data, Mapping):
            raise PlanValidationError([("", f"a plan is a mapping, got {type(data).__name__}")], source)
        try:
            return cls.model_validate(dict(data))
        except ValidationError as e:
            raise _from_pydantic(e, source) from None

    @classmethod
    def from_yaml(cls, text: str | bytes, source: str | None = None) -> Plan:
        """A plan from YAML, read by the bounded loader (no aliases, no duplicate keys, size/depth caps)."""
        return cls._from_text(load_yaml, text, source)

    @classmethod
    def from_json(cls, text: str | bytes, source: str | None = None) -> Plan:
        """A plan from JSON, with the same bounds as YAML (duplicate keys, size and depth)."""
        return cls._from_text(load_json, text, source)

    @classmethod
    def _from_text(
        cls, loader: Callable[[str | bytes, str | None], Any], text: str | bytes, source: str | None
    ) -> Plan:
        try:
            data = loader(text, source)
        except YamlLoadError as e:
            raise PlanLoadError(e, source) from None
        return cls.from_dict(data, source)

    @classmethod
    def load(cls, path: str | Path) -> Plan:
        """Read a .yaml/.yml or .json plan file (refused unread when over the size limit)."""
        p = Path(path)
        try:
            text = read_document(p)
        except YamlLoadError as e:
            raise PlanLoadError(e) from None
        if p.suffix.lower() == ".json":
            return cls.from_json(text, source=str(p))
        return cls.from_yaml(text, source=str(p))

    def to_dict(self) -> dict[str, Any]:
        """Plain data, in the readable short form for filters (round-trips through from_dict)."""
        data = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        data["filters"] = (
            dict(f.to_short() for f in self.filters) if self._short_ok(self.filters) else data["filters"]
        )
        for out, spec in zip(data["fields"], self.fields, strict=True):
            if not spec.only:
                out.pop("only", None)
            elif self._short_ok(spec.only):
                out["only"] = dict(f.to_short() for f in spec.only)
            if spec.scale == 1.0:
                out.pop("scale", None)
        if not self.filters:
            data.pop("filters")
        if self.aggregation is not None:
            data["aggregation"] = self.aggregation.to_dict()  # defaults left out, as a person writes it
        return data

    @staticmethod
    def _short_ok(filters: list[MetadataFilter]) -> bool:
        # The mapping form holds one condition per column and cannot express equality to a list.
        columns = [f.column for f in filters]
        return len(set(columns)) == len(columns) and not any(
            f.kind == "equals" and isinstance(f.equals, list | dict) for f in filters
        )

    def to_yaml(self) -> str:
        return dump_yaml(self.to_dict(), sort_keys=False, allow_unicode=True, width=110)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        text = self.to_json() if p.suffix.lower() == ".json" else self.to_yaml()
        p.write_text(text, encoding="utf-8")
        return p

    # -- use ---------------------------------------------------------------------------------
    def validate_against(self, columns: Iterable[str]) -> Plan:
        """Check that filters, restrictions and templates only name existing metadata columns."""
        cols = set(columns)
        errors: list[tuple[str, str]] = []
        for i, f in enumerate(self.filters):
            if f.column not in cols:
                errors.append((f"filters[{i}].column", f"unknown metadata column {f.column!r}"))
        for i, spec in enumerate(self.fields):
            for j, f in enumerate(spec.only):
                if f.column not in cols:
                    errors.append((f"fields[{i}].only[{j}].column", f"unknown metadata column {f.column!r}"))
            for name in spec.placeholders:
                if name not in cols:
                    errors.append(
                        (
                            f"fields[{i}].question",
                            f"placeholder {{{name}}} is not a metadata column ({sorted(cols)})",
                        )
                    )
        if errors:
            raise PlanValidationError(errors)
        return self

    def field(self, name: str) -> FieldSpec:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"plan has no field {name!r}; fields: {[f.name for f in self.fields]}")

    def selects(self, metadata: Mapping[str, Any]) -> bool:
        return all(f.matches(metadata) for f in self.filters)

    def filter_expr(self) -> pl.Expr:
        """All plan filters as one polars expression (True when there are none)."""
        expr = pl.lit(True)
        for f in self.filters:
            expr = expr & f.to_expr()
        return expr

    def tasks(self, metadata: Mapping[str, Any]) -> list[tuple[FieldSpec, str]]:
        """(field, rendered question) pairs for one document, honouring filters and restrictions."""
        if not self.selects(metadata):
            return []
        return [(f, f.render(metadata)) for f in self.fields if f.applies_to(metadata)]

    def fields_frame(self) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "name": [f.name for f in self.fields],
                "type": [f.type for f in self.fields],
                "unit": [f.unit or "" for f in self.fields],
                "scale": [f.scale for f in self.fields],
                "description": [f.description for f in self.fields],
                "question": [f.question for f in self.fields],
                "only": [", ".join(c.describe() for c in f.only) for f in self.fields],
            }
        )

    def _repr_html_(self) -> str:
        esc = html.escape
        head = ["field", "type", "unit", "scale", "description", "per-document question", "only"]
        rows = "".join(
            "<tr>"
            + "".join(
                f"<td style='text-align:left'>{esc(str(v))}</td>"
                for v in (
                    f.name,
                    f.type,
                    f.unit or "",
                    _fmt_scale(f.scale),
                    f.description,
                    f.question,
                    ", ".join(c.describe() for c in f.only),
                )
            )
            + "</tr>"
            for f in self.fields
        )
        filters = "; ".join(f.describe() for f in self.filters) or "all documents"
        agg = "none"
        if self.aggregation is not None:
            agg = f"<pre style='margin:0'>{esc(self.aggregation.to_yaml())}</pre>"
        return (
            "<div class='mdqa-plan'>"
            f"<p><b>Question:</b> {esc(self.question)}</p>"
            f"<p><b>Documents:</b> {esc(filters)}</p>"
            "<table><thead><tr>"
            + "".join(f"<th style='text-align:left'>{h}</th>" for h in head)
            + f"</tr></thead><tbody>{rows}</tbody></table>"
            f"<p><b>Aggregation:</b> {agg}</p></div>"
        )

    def __str__(self) -> str:
        return self.to_yaml()


def _fmt_scale(scale: float) -> str:
    for name in ("unit", "thousand", "万", "million", "亿", "billion"):
        if SCALES[name] == scale:
            return name if scale != 1.0 else ""
    return f"{scale:g}"
