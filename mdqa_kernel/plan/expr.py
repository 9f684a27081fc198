"""A tiny, safe expression language for `derive` and `filter` steps.

Plans are written by people and by small LLMs, so derived columns are a short string over field
names ("0.6*roe + 0.4*growth", "tax_total / contribution_per_share", "cost_growth > 0 and
profit_growth > 0") instead of code. This module parses such a string into a small tree of
tuples; it never evaluates anything (no `eval`), and it imports only the standard library so that
`operations` can validate expressions when a plan is built. `aggregate` compiles the tree to polars.

Grammar (lowest precedence first):
    expr    := or
    or      := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | cmp
    cmp     := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)?
    sum     := term (("+" | "-") term)*
    term    := unary (("*" | "/" | "%") unary)*      -- "%" after a number means percent (40% = 0.4)
    unary   := "-" unary | "+" unary | atom
    atom    := NUMBER ["%"] | NAME | `quoted name` | FUNC "(" expr ("," expr)* ")" | "(" expr ")"
Functions: abs, min, max, coalesce, if_null(x, default), round(x, digits), year/month/day/
day_of_year/calendar_day(date), len(list or text). Date − date gives days.
Names: letters (incl. CJK), digits and underscores, not starting with a digit; any other column
name can be written between backticks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdqa_kernel.errors import MdqaError

# A parsed expression is a nested tuple: ("num", float) | ("field", name) | ("neg", node)
# | ("arith", op, a, b) | ("cmp", op, a, b) | ("bool", op, a, b) | ("not", node)
# | ("call", name, (args...)). Tuples keep the tree hashable and trivially serialisable.
Node = tuple

FUNCTIONS: dict[str, tuple[int, int]] = {  # name -> (min args, max args)
    "abs": (1, 1),
    "min": (2, 16),
    "max": (2, 16),
    "coalesce": (2, 16),
    "if_null": (2, 2),
    "round": (1, 2),
    "year": (1, 1),  # of a date
    "month": (1, 1),
    "day": (1, 1),
    "day_of_year": (1, 1),
    "calendar_day": (1, 1),  # place in a common 365-day year: month-day positions compare across years
    "len": (1, 1),  # of a list or a string
}
KEYWORDS = {"and", "or", "not"}
MAX_LENGTH = 2000  # a derive expression is one formula, not a program

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)
      | (?P<quoted>`[^`]+`)
      | (?P<name>[^\W\d]\w*)
      | (?P<op><=|>=|==|!=|<|>|[-+*/%(),])
    )""",
    re.VERBOSE | re.UNICODE,
)


class ExpressionError(MdqaError, ValueError):
    """The expression string is not in the small language (message says where and why)."""


@dataclass(frozen=True)
class _Tok:
    kind: str  # num | name | op | end
    text: str
    pos: int


def tokenize(text: str) -> list[_Tok]:
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression is longer than {MAX_LENGTH} characters")
    toks: list[_Tok] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise ExpressionError(
                f"unexpected character {text[pos:].lstrip()[:1]!r} at position {pos} in {text!r}"
            )
        kind = m.lastgroup or "op"
        value = m.group(kind)
        if kind == "quoted":
            kind, value = "name", value[1:-1]
        elif kind == "name" and value in KEYWORDS:
            kind = "op"
        toks.append(_Tok(kind, value, m.start(kind)))
        pos = m.end()
    toks.append(_Tok("end", "", len(text)))
    return toks


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokenize(text)
        self.i = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def accept(self, *ops: str) -> str | None:
        tok = self.peek()
        if tok.kind == "op" and tok.text in ops:
            self.i += 1
            return tok.text
        return None

    def fail(self, what: str) -> ExpressionError:
        tok = self.peek()
        found = "end of expression" if tok.kind == "end" else repr(tok.text)
        return ExpressionError(f"expected {what} but found {found} at position {tok.pos} in {self.text!r}")

    def parse(self) -> Node:
        if self.peek().kind == "end":
            raise ExpressionError("expression is empty")
        node = self.or_()
        if self.peek().kind != "end":
            raise self.fail("an operator or the end")
        return node

    def or_(self) -> Node:
        node = self.and_()
        while self.accept("or"):
            node = ("bool", "or", node, self.and_())
        return node

    def and_(self) -> Node:
        node = self.not_()
        while self.accept("and"):
            node = ("bool", "and", node, self.not_())
        return node

    def not_(self) -> Node:
        if self.accept("not"):
            return ("not", self.not_())
        return self.cmp()

    def cmp(self) -> Node:
        node = self.sum()
        op = self.accept("<", "<=", ">", ">=", "==", "!=")
        if op:
            node = ("cmp", op, node, self.sum())
        return node

    def sum(self) -> Node:
        node = self.term()
        while op := self.accept("+", "-"):
            node = ("arith", op, node, self.term())
        return node

    def term(self) -> Node:
        node = self.unary()
        while op := self.accept("*", "/", "%"):
            if op == "%":
                raise ExpressionError(
                    f"'%' is only allowed right after a number (40% = 0.4) in {self.text!r}"
                )
            node = ("arith", op, node, self.unary())
        return node

    def unary(self) -> Node:
        if self.accept("-"):
            return ("neg", self.unary())
        if self.accept("+"):
            return self.unary()
        return self.atom()

    def atom(self) -> Node:
        tok = self.peek()
        if tok.kind == "num":
            self.take()
            value = float(tok.text)
            if self.accept("%"):  # weights are often written as percentages
                value /= 100.0
            return ("num", value)
        if tok.kind == "name":
            self.take()
            if self.peek().text == "(" and self.peek().kind == "op":
                return self.call(tok)
            return ("field", tok.text)
        if self.accept("("):
            node = self.or_()
            if not self.accept(")"):
                raise self.fail("')'")
            return node
        raise self.fail("a number, a field name or '('")

    def call(self, name_tok: _Tok) -> Node:
        name = name_tok.text
        if name not in FUNCTIONS:
            raise ExpressionError(
                f"unknown function {name!r} at position {name_tok.pos}; allowed: {', '.join(sorted(FUNCTIONS))}"
            )
        self.take()  # "("
        args = [self.or_()]
        while self.accept(","):
            args.append(self.or_())
        if not self.accept(")"):
            raise self.fail("',' or ')'")
        lo, hi = FUNCTIONS[name]
        if not lo <= len(args) <= hi:
            raise ExpressionError(f"{name}() takes {lo}..{hi} arguments, got {len(args)} in {self.text!r}")
        return ("call", name, tuple(args))


def parse_expr(text: str) -> Node:
    """Parse `text` into an expression tree; raises ExpressionError with the position on failure."""
    return _Parser(text).parse()


def fields_of(node: Node) -> list[str]:
    """Field names an expression reads, in first-use order (used for validation and lineage)."""
    out: list[str] = []

    def walk(n: Node) -> None:
        kind = n[0]
        if kind == "field" and n[1] not in out:
            out.append(n[1])
        elif kind in ("neg", "not"):
            walk(n[1])
        elif kind in ("arith", "cmp", "bool"):
            walk(n[2])
            walk(n[3])
        elif kind == "call":
            for arg in n[2]:
                walk(arg)

    walk(node)
    return out
