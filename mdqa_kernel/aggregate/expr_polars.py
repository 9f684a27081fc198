"""Compile a parsed `expr` tree to a polars expression, checking types against the frame's schema.

Types are tracked as small kinds (num, bool, date, text, list) so that a wrong formula fails before
polars runs with a message naming the field: "salary + name" → "'name' is text; arithmetic needs
numbers". Conventions: booleans count as 0/1 in arithmetic (ESG "disclosed" flags summed into a
score); date − date is a number of days; division by zero gives null, not inf, so a bad denominator
never tops a ranking.
"""

from __future__ import annotations

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.expr import Node, parse_expr

NUMERIC = (
    pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64,
    pl.Float32, pl.Float64, pl.Decimal,
)  # fmt: skip


class ExprTypeError(MdqaError, ValueError):
    """A field is missing or has a type the expression cannot use (message names the field)."""


def kind_of(dtype: pl.DataType) -> str:
    """The expression kind of a polars dtype: num | bool | date | text | list | other."""
    if isinstance(dtype, NUMERIC) or dtype in NUMERIC:
        return "num"
    if dtype == pl.Boolean:
        return "bool"
    if dtype in (pl.Date, pl.Datetime) or isinstance(dtype, pl.Datetime):
        return "date"
    if dtype == pl.Duration or isinstance(dtype, pl.Duration):
        return "duration"
    if dtype in (pl.String, pl.Categorical, pl.Enum) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return "text"
    if isinstance(dtype, (pl.List, pl.Array)):
        return "list"
    if dtype == pl.Null:
        return "null"
    return "other"


def compile_expr(text: str, schema: pl.Schema | dict[str, pl.DataType]) -> tuple[pl.Expr, str]:
    """Parse and compile `text`; returns the polars expression and its kind."""
    return _Compiler(dict(schema)).compile(parse_expr(text))


class _Compiler:
    def __init__(self, schema: dict[str, pl.DataType]) -> None:
        self.schema = schema

    def compile(self, node: Node) -> tuple[pl.Expr, str]:
        kind = node[0]
        return getattr(self, f"_{kind}")(node)

    def _num(self, node: Node) -> tuple[pl.Expr, str]:
        return pl.lit(node[1], dtype=pl.Float64), "num"

    def _field(self, node: Node) -> tuple[pl.Expr, str]:
        name = node[1]
        if name not in self.schema:
            cols = ", ".join(c for c in self.schema if not c.startswith("__"))
            raise ExprTypeError(f"unknown field {name!r}; available columns: {cols}")
        return pl.col(name), kind_of(self.schema[name])

    def _neg(self, node: Node) -> tuple[pl.Expr, str]:
        expr = self.numeric(node[1], "unary minus")
        return -expr, "num"

    def _not(self, node: Node) -> tuple[pl.Expr, str]:
        expr, kind = self.compile(node[1])
        if kind not in ("bool", "null"):
            raise ExprTypeError(f"'not' needs a true/false value, got {kind} ({_show(node[1])})")
        return ~expr, "bool"

    def _bool(self, node: Node) -> tuple[pl.Expr, str]:
        _, op, a, b = node
        parts = []
        for sub in (a, b):
            expr, kind = self.compile(sub)
            if kind not in ("bool", "null"):
                raise ExprTypeError(f"'{op}' needs true/false values, got {kind} ({_show(sub)})")
            parts.append(expr)
        return (parts[0] & parts[1]) if op == "and" else (parts[0] | parts[1]), "bool"

    def _cmp(self, node: Node) -> tuple[pl.Expr, str]:
        _, op, a, b = node
        (ea, ka), (eb, kb) = self.compile(a), self.compile(b)
        if ka == "bool":
            ea, ka = ea.cast(pl.Float64), "num"
        if kb == "bool":
            eb, kb = eb.cast(pl.Float64), "num"
        if ka != kb and "null" not in (ka, kb):
            raise ExprTypeError(f"cannot compare {ka} with {kb} in {_show(node)}")
        ops = {
            "<": ea.__lt__,
            "<=": ea.__le__,
            ">": ea.__gt__,
            ">=": ea.__ge__,
            "==": ea.__eq__,
            "!=": ea.__ne__,
        }
        return ops[op](eb), "bool"

    def _arith(self, node: Node) -> tuple[pl.Expr, str]:
        _, op, a, b = node
        (ea, ka), (eb, kb) = self.compile(a), self.compile(b)
        if op == "-" and ka == "date" and kb == "date":
            return (ea - eb).dt.total_days().cast(pl.Float64), "num"  # days between two dates
        ea, eb = self.as_number(ea, ka, a, op), self.as_number(eb, kb, b, op)
        if op == "+":
            return ea + eb, "num"
        if op == "-":
            return ea - eb, "num"
        if op == "*":
            return ea * eb, "num"
        # x / 0 → null: an undefined ratio must not rank first as +inf
        return pl.when(eb != 0).then(ea / eb).otherwise(None), "num"

    def _call(self, node: Node) -> tuple[pl.Expr, str]:
        _, name, args = node
        if name in ("year", "month", "day", "day_of_year", "calendar_day"):
            expr, kind = self.compile(args[0])
            if kind != "date":
                raise ExprTypeError(f"{name}() needs a date, got {kind} ({_show(args[0])})")
            if name == "calendar_day":  # a leap year's days after Feb 28 move back one (Feb 29 is Feb 28's)
                late = expr.dt.is_leap_year() & (expr.dt.ordinal_day() > 59)
                return (expr.dt.ordinal_day() - late.cast(pl.Int32)).cast(pl.Float64), "num"
            part = {"year": expr.dt.year, "month": expr.dt.month, "day": expr.dt.day,
                    "day_of_year": expr.dt.ordinal_day}[name]  # fmt: skip
            return part().cast(pl.Float64), "num"
        if name == "len":
            expr, kind = self.compile(args[0])
            if kind == "list":
                return expr.list.len().cast(pl.Float64), "num"
            if kind == "text":
                return expr.str.len_chars().cast(pl.Float64), "num"
            raise ExprTypeError(f"len() needs a list or text, got {kind} ({_show(args[0])})")
        nums = [self.numeric(arg, f"{name}()") for arg in args]
        if name == "abs":
            return nums[0].abs(), "num"
        if name == "min":
            return pl.min_horizontal(nums), "num"
        if name == "max":
            return pl.max_horizontal(nums), "num"
        if name in ("coalesce", "if_null"):
            return pl.coalesce(nums), "num"
        if name == "round":
            digits = int(args[1][1]) if len(args) > 1 and args[1][0] == "num" else 0
            return nums[0].round(digits), "num"
        raise ExprTypeError(f"function {name}() is not supported")  # parser already limits names

    def numeric(self, node: Node, where: str) -> pl.Expr:
        expr, kind = self.compile(node)
        return self.as_number(expr, kind, node, where)

    @staticmethod
    def as_number(expr: pl.Expr, kind: str, node: Node, where: str) -> pl.Expr:
        if kind in ("num", "bool", "null"):
            return expr.cast(pl.Float64)  # booleans count 0/1; integers widen so ratios are exact
        if kind == "duration":
            return expr.dt.total_days().cast(pl.Float64)
        raise ExprTypeError(f"'{where}' needs numbers, but {_show(node)} is {kind}")


def _show(node: Node) -> str:
    """A short readable rendering of a sub-expression for error messages."""
    kind = node[0]
    if kind == "field":
        return repr(node[1])
    if kind == "num":
        return f"{node[1]:g}"
    if kind in ("arith", "cmp", "bool"):
        return f"{_show(node[2])} {node[1]} {_show(node[3])}"
    if kind in ("neg", "not"):
        return f"{'-' if kind == 'neg' else 'not '}{_show(node[1])}"
    if kind == "call":
        return f"{node[1]}({', '.join(_show(a) for a in node[2])})"
    return str(node)
