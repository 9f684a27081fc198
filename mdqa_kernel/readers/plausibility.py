"""Plausibility: a reading that no real document could hold is never returned as a confident value.

Documents are untrusted: a sentence planted in a PDF ("… employed 999999999 people …") is read by
the deterministic readers like any other. A check by the field's kind, never by document, catches
the values that cannot be true whatever the filing says:

- a count of people (employees, staff, directors), of shareholders or of meetings that is negative,
  not a whole number, or beyond the largest such count there is (KIND_BOUNDS);
- a percentage beyond ±1000 points;
- a per-share amount beyond one million (the highest per-share figures, Berkshire Hathaway's class A
  book value, are under half of that).

The kind comes from the field's type, unit and the words of its name and description. When the reader
knows where the value was printed (the raw text and the row or sentence around it), the words there are
checked too (`reading_implausibility`):

- a count of people is not read from a row or sentence about shares ("1,700,000,000 shares");
- a per-share amount is small: a figure of a thousand or more from a row or sentence that names no
  per-share basis is a total, not a per-share amount;
- an amount or a count (a level: "Total revenue", "Number of employees") is not a value printed as a
  percentage ("18%") nor a change ("increased by $32.5 billion", "同比增长1.2亿元").

Such a reading keeps its value and evidence but its confidence is capped at IMPLAUSIBLE (below
CONFIDENT) and the message says why: the cascade then lets the LLM look, and a reviewer sees the reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from mdqa_kernel.readers.base import FieldLike, ReadResult
from mdqa_kernel.readers.confidence import IMPLAUSIBLE
from mdqa_kernel.readers.semantics import change_before, is_amount, share_basis
from mdqa_kernel.text.values import find_numbers

_PERCENT_BOUND = 1000.0  # points
_PER_SHARE_BOUND = 1e6  # in the currency unit

# Counts of whom or of what: the largest real count of each kind, with margin.
KIND_BOUNDS = {
    "meetings": 1_000,  # meetings or sessions held in a reporting period
    "people": 10_000_000,  # the largest employers have about 2 million staff
    "shareholders": 100_000_000,  # holders of record of the most widely held companies: a few million
}
_MEETINGS = re.compile(r"meeting|session|会议|大会|次数", re.I)
# A count of the people at a meeting ("出席股东及股东代表人数") counts people, not meetings.
_COUNTS_PEOPLE = re.compile(r"人数|户数|\bpersons?\b|\bpeople\b|attendees|attending|出席", re.I)
_SHAREHOLDERS = re.compile(r"shareholder|stockholder|holders? of record|股东|持有人", re.I)
_PEOPLE = re.compile(
    r"employ|staff|worker|personnel|headcount|people|persons?\b|director|officer|executive"
    r"|员工|职工|雇员|人员|人数|董事|监事|高管",
    re.I,
)
_COUNT_WORDS = re.compile(r"number of|\bcount\b|how many|headcount|数量|人数|户数|次数|总数", re.I)
_COUNT_UNITS = {"persons", "people", "person", "count", "人", "次", "户", "名", "位"}
# A share, ratio or average of a count is not a count ("研发人员数量占比", "average staff cost").
_NOT_A_COUNT = re.compile(
    r"占比|比例|比率|比重|平均|人均|ratio|\brate\b|percent|proportion|share of|average|per\s+(?:employee|capita|person)|%",
    re.I,
)
# Counts of things that are not people nor meetings, however the label names them ("votes for director").
_OTHER_COUNT = re.compile(r"\bvotes?\b|\bshares\b|\bshare\b(?!holder)|股份|股数|票数|表决", re.I)
_PER_SHARE = re.compile(r"每股|per\s+share|/\s*share|每\s*10\s*股|\beps\b", re.I)
# A field that names a workforce is a count of people even without "number of" ("Employees", "员工总数"),
# unless it is money paid to it ("employee benefit costs", "职工薪酬").
_WORKFORCE = re.compile(
    r"\bemployees?\b|headcount|workforce|full[- ]time\s+equivalents?|\bftes?\b|员工|职工|雇员|从业人员", re.I
)
_MONEY = re.compile(
    r"\bcosts?\b|expense|compensation|benefit|salar|wage|\bpay\b|payroll|income|revenue|pension|stock|shares?\b"
    r"|薪酬|费用|成本|工资|支出|福利|收入|社保|股",
    re.I,
)
_CURRENCIES = {
    "usd", "cny", "rmb", "eur", "gbp", "hkd", "jpy", "inr", "cad", "chf", "元", "万元", "亿元", "$", "€", "£", "¥", "dollars"
}  # fmt: skip
# What a count of people cannot be read from: a row or sentence about shares (and not about people).
_SHARES_AFTER = re.compile(r"^\s*(?:million|billion|thousand|万|亿)?\s*(?:shares\b|股(?!东))", re.I)
_SHARES_TEXT = re.compile(r"\bshares?\b(?!holder)|股份|股本|股数|万股|亿股", re.I)
_PEOPLE_TEXT = re.compile(
    r"employ|staff|worker|personnel|headcount|people|persons|associates|员工|职工|人员|人数", re.I
)
_PER_SHARE_SMALL = 1000.0  # a per-share figure this large must be printed under a per-share label


@dataclass(frozen=True)
class Kind:
    """What a field's value is, for the plausibility check."""

    name: str  # "people", "shareholders", "meetings", "percent", "per_share"
    bound: float  # the largest plausible magnitude
    whole: bool = False  # must be a whole, non-negative number


def field_kind(field: FieldLike) -> Kind | None:
    """The kind of a numeric field from its type, unit and words; None when no bound applies."""
    if field.type not in ("number", "integer", "percent"):
        return None
    unit = (field.unit or "").strip().lower()
    words = f"{field.name.replace('_', ' ')} {field.description}"
    if field.type == "percent" or unit in ("%", "percent", "pct"):
        return Kind("percent", _PERCENT_BOUND)
    if _PER_SHARE.search(f"{words} {unit}") or share_basis(f"{words} {unit}") is not None:
        return Kind("per_share", _PER_SHARE_BOUND)
    workforce = bool(_WORKFORCE.search(words)) and not _MONEY.search(words) and unit not in _CURRENCIES
    counted = field.type == "integer" or unit in _COUNT_UNITS or _COUNT_WORDS.search(words) or workforce
    if not counted or _NOT_A_COUNT.search(words) or _OTHER_COUNT.search(words):
        return None
    if _MEETINGS.search(words) and not _COUNTS_PEOPLE.search(words):
        name = "meetings"
    elif _SHAREHOLDERS.search(words):
        name = "shareholders"
    elif _PEOPLE.search(words) or unit in ("persons", "people", "person", "人"):
        name = "people"
    else:
        return None
    return Kind(name, KIND_BOUNDS[name], whole=True)


# An amount a plan keeps in millions (or more) is a statement's figure: a table in millions prints
# nothing below half a million, one in thousands nothing below a thousand. A few units ("$0.2" from a
# sentence, a price, a note number read with the wrong scale) is another fact.
_LARGE_FIELD_SCALE = 1e6
_SMALLEST_AMOUNT = 1_000.0


def _tiny_amount(field: FieldLike, value: Any) -> str | None:
    if field.type != "number" or (field.scale or 1.0) < _LARGE_FIELD_SCALE:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value == 0:
        return None
    number = float(value) * field.scale
    if not math.isfinite(number) or abs(number) >= _SMALLEST_AMOUNT:
        return None
    return (
        f"{number:,.6g} in plain units is too small for an amount kept in units of {field.scale:,.0f} "
        f"(a statement figure is at least {_SMALLEST_AMOUNT:,.0f})"
    )


def implausibility(field: FieldLike, value: Any) -> str | None:
    """Why `value` cannot be this field's value, or None when it can (or no bound applies)."""
    if (tiny := _tiny_amount(field, value)) is not None:
        return tiny
    kind = field_kind(field)
    if kind is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value) * (field.scale or 1.0)  # the value in plain units (a field kept in 万 → ×1e4)
    if not math.isfinite(number):
        return f"{value!r} is not a finite number"
    if kind.whole and (number < 0 or abs(number - round(number)) > 1e-6):
        return f"{value:g} is not a count of {kind.name} (a count is a whole number ≥ 0)"
    if abs(number) > kind.bound:
        what = {"percent": "a percentage", "per_share": "a per-share amount"}.get(
            kind.name, f"a count of {kind.name}"
        )
        return f"{number:,.10g} is beyond {kind.bound:,.0f}, more than {what} can be"
    return None


def reading_implausibility(field: FieldLike, value: Any, printed: str, context: str) -> str | None:
    """Why `value`, printed as `printed` in `context` (the row or sentence it was read from), cannot be
    this field's value, or None. The value-only checks (`implausibility`) come first."""
    why = implausibility(field, value)
    if why is not None or isinstance(value, bool) or not isinstance(value, int | float) or not printed:
        return why
    at = context.find(printed)
    before, after = (context[:at], context[at + len(printed) :]) if at >= 0 else ("", "")
    kind = field_kind(field)
    about_shares = (
        bool(_SHARES_AFTER.match(after))
        or bool(_SHARES_TEXT.search(printed))  # "52,000 shares" read as one value after a label
        or (bool(_SHARES_TEXT.search(context)) and not _PEOPLE_TEXT.search(context))
    )
    if kind is not None and kind.name == "people" and about_shares:
        return f"{printed!r} was read from a text about shares, not people ({_clip(context)!r})"
    large = abs(float(value)) >= _PER_SHARE_SMALL
    if kind is not None and kind.name == "per_share" and large and share_basis(context) is None:
        return (
            f"{value:,.10g} is a total, not a per-share amount: {_clip(context)!r} names no per-share basis"
        )
    if is_amount(field):
        if "%" in printed or "％" in printed or after.lstrip().startswith(("%", "％")):
            return f"{printed!r} is printed as a percentage; the field asks for an amount"
        change = change_before(before) if at >= 0 else None
        if change:
            return f"{printed!r} follows {change!r}: it is a change, not the level the field asks for"
    return None


def printed_in(snippet: str, value: Any, scale: float | None, field_scale: float) -> str | None:
    """The text of the number in `snippet` that `value` was read from (the value back in the printed
    scale), or None when the snippet prints no such number (or more than one reading of it)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    target = float(value) * (field_scale or 1.0) / (scale or 1.0)
    hits = [
        snippet[start:end].strip()
        for number, start, end, _pct in find_numbers(snippet)
        if abs(number - target) <= 1e-9 * max(1.0, abs(target))
    ]
    return hits[0] if len(set(hits)) == 1 else None


def _clip(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def checked(field: FieldLike, result: ReadResult, printed: str | None = None) -> ReadResult:
    """`result`, or a copy flagged for review (confidence capped below CONFIDENT, the reason in the
    message) when its value is implausible for the field's kind, or, given the `printed` text it was read
    from, for the words around it in the evidence snippet. Applying it twice changes nothing."""
    if not result.found:
        return result
    snippet = result.evidence.snippet if result.evidence is not None else ""
    if not printed and snippet:
        printed = printed_in(snippet, result.value, result.scale, field.scale)  # an LLM reader's quote
    why = (
        reading_implausibility(field, result.value, printed, snippet)
        if printed
        else implausibility(field, result.value)
    ) or unscaled_fraction(field, result.value, result.scale)
    return result if why is None else held_as_implausible(result, why)


def asks_scaled_unit(field: FieldLike) -> bool:
    """The field asks an amount in thousands or millions (its unit is itself a rounding)."""
    return bool(field.scale) and field.scale >= 1000


def asks_money(field: FieldLike) -> bool:
    """The field asks an amount of money: in a currency unit, or kept in thousands or millions."""
    return asks_scaled_unit(field) or (field.unit or "").strip().lower() in _CURRENCIES


def unscaled_fraction(field: FieldLike, value: Any, scale: float | None) -> str | None:
    """Why an amount read with no scale (as units) is doubtful for a field asking thousands or millions:
    it comes out a fraction of the field's unit ("$1,556" in a filing that writes its notes in millions
    without saying so would be 0.001556 million)."""
    if scale not in (None, 1.0) or not asks_scaled_unit(field):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < abs(value) < 1:
        return None
    return f"{value:g} is a fraction of the field's unit (×{field.scale:g}): read with no printed scale"


def held_as_implausible(result: ReadResult, why: str) -> ReadResult:
    """`result` with its confidence capped at IMPLAUSIBLE and the reason in its message (once)."""
    note = f"implausible, needs review: {why}"
    if note in result.message and result.confidence <= IMPLAUSIBLE:
        return result
    message = result.message if note in result.message else "; ".join(m for m in (result.message, note) if m)
    return result.model_copy(update={"confidence": min(result.confidence, IMPLAUSIBLE), "message": message})
