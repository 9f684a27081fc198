"""The plan's field types: each one's polars dtype, whether it is numeric, and the one `coerce`.

A value reaches a field from a table cell, an LLM's JSON, a gold file or an analyst's correction;
every path types it here, so that "2023年2月3日" is a date for a correction exactly as for the table
reader, and the extraction frame's column dtype is the type's `dtype`.

What `coerce` accepts, per type:
- number, percent: a number, or a printed one ("1,234.5", "(12)", "７，１７６", "12.6%" → 12.6 points,
  "$3.00"); also a plainly written one that a page would not print ("1 234", "+5", "1e6"). Never a
  boolean, NaN or infinity.
- integer: a number within 1e-6 of a whole one.
- boolean: a bool or a yes/no word ("true", "yes", "是", "有", "已", "披露" / "false", "否", "无", "未", …).
- date: a date (a datetime gives its date), an ISO string, or any printed form `values.find_dates`
  knows ("2023年2月3日", "February 3, 2023").
- text: the text with NFKC applied and whitespace collapsed; "" becomes None.
- list_text: a list, or a text split at 、,，;； and line breaks; blank items are dropped.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.text.values import clean_printed, parse_date, parse_number

FieldTypeName = Literal["number", "integer", "percent", "boolean", "date", "text", "list_text"]
FIELD_TYPES: tuple[str, ...] = get_args(FieldTypeName)
"""The type names, in the order plans and the planner's prompt list them."""


class FieldValueError(MdqaError, ValueError):
    """A value that is not one of its field type's values ("abc" for a number)."""


class UnknownFieldTypeError(MdqaError, ValueError):
    """A field type name that is not one of `FIELD_TYPES`."""


_TRUE = {"true", "yes", "y", "1", "是", "有", "已", "披露", "t"}
_FALSE = {"false", "no", "n", "0", "否", "无", "未", "没有", "f"}
_LIST_SEPARATORS = re.compile(r"[、,，;；\n]")


def _plain_number(text: str) -> float | None:
    """A number written plainly rather than printed: "1 234", "+5", "1e6" (thousands commas and a
    percent sign ignored, parentheses negative); None when it is not one."""
    s = text.strip().replace(",", "").replace("，", "").replace("%", "").replace(" ", "")
    if s.startswith("(") and s.endswith(")"):
        s = "-" + s[1:-1]
    try:
        return float(s)
    except ValueError:
        return None


def _number(value: Any) -> float:
    if isinstance(value, bool):
        raise FieldValueError(f"{value!r} is a boolean, not a number")
    if isinstance(value, int | float):
        number: float | None = float(value)
    else:
        text = str(value)
        number = parse_number(text)
        if number is None:
            number = _plain_number(text)
    if number is None or not math.isfinite(number):
        raise FieldValueError(f"{value!r} is not a number")
    return number


def _integer(value: Any) -> int:
    number = _number(value)
    if abs(number - round(number)) > 1e-6:
        raise FieldValueError(f"{value!r} is not a whole number")
    return round(number)


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise FieldValueError(f"{value!r} is not a yes/no answer")


def _date(value: Any) -> dt.date:
    day = parse_date(value)
    if day is None:
        raise FieldValueError(f"{value!r} is not a date")
    return day


def _text(value: Any) -> str | None:
    return clean_printed(str(value)) or None


def _list_text(value: Any) -> list[str]:
    items = value if isinstance(value, list | tuple) else _LIST_SEPARATORS.split(str(value))
    return [str(v).strip() for v in items if str(v).strip()]


@dataclass(frozen=True)
class FieldType:
    """One plan field type: its name, polars dtype, whether it is numeric, and how to write a value."""

    name: str
    dtype: pl.DataType
    numeric: bool
    hint: str  # how to write a value, for error messages
    _convert: Callable[[Any], Any]

    def coerce(self, value: Any) -> Any:
        """A raw value as this type's Python value (None stays None); raises FieldValueError."""
        return None if value is None else self._convert(value)


_REGISTRY: dict[str, FieldType] = {
    t.name: t
    for t in (
        FieldType("number", pl.Float64(), True, "a number such as 1234.5 or 1,234.5", _number),
        FieldType("integer", pl.Int64(), True, "a whole number", _integer),
        FieldType("percent", pl.Float64(), True, "a number such as 12.5 (percent points)", _number),
        FieldType("boolean", pl.Boolean(), False, "true/false, yes/no, 是/否", _boolean),
        FieldType("date", pl.Date(), False, "a date such as 2023-02-03 or 2023年2月3日", _date),
        FieldType("text", pl.String(), False, "a value", _text),
        FieldType("list_text", pl.List(pl.String), False, "a value", _list_text),
    )
}
assert tuple(_REGISTRY) == FIELD_TYPES  # one list of names: the Literal and the registry agree

NUMERIC_TYPES: tuple[str, ...] = tuple(name for name, t in _REGISTRY.items() if t.numeric)


def field_type(name: str) -> FieldType:
    """The field type of this name; raises UnknownFieldTypeError for any other name."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownFieldTypeError(
            f"unknown field type {name!r}; expected one of {', '.join(FIELD_TYPES)}"
        ) from None


def coerce(value: Any, type_name: str) -> Any:
    """`field_type(type_name).coerce(value)`: a raw value as the Python value of a field type."""
    return field_type(type_name).coerce(value)
