"""Accounting identities between the fields of one document: a part never exceeds its whole.

A reader judges each field alone, so a misread that is plausible on its own passes: cash read in
thousands beside total assets in millions, a segment's figure for a sub-total, the wrong row of a
balance sheet. The statements themselves bind their lines: cash and inventories are parts of current
assets, current assets of total assets, accounts payable of current liabilities, current liabilities
and long-term debt of total liabilities, equity of total assets (assets less liabilities, which are
never negative), gross profit of revenue (revenue less a cost that is never negative); parts that never
overlap (cash, inventories and receivables; current assets, PP&E and goodwill) add up to no more than
their whole. When a plan reads both sides of such an identity from one document for one period, a part
(or a sum of separate parts) found larger than its whole means one of the readings is wrong; which one
is not known, so all of them are held for review with the reason, never changed.

A field's line item comes from its description's head, matched whole against the statement vocabulary
(plan/statement_terms.yaml: a line item's head, the phrases questions use, the names statements print
it under); anything else ("Revenue from products only", a segment's revenue) is no line item here and
is never checked. The period is the one the description names, against the document's own
(`text.periods.wanted_period`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from mdqa_kernel.plan.analyst import load_terms, normalise_phrase
from mdqa_kernel.readers.base import FieldLike, ReadResult
from mdqa_kernel.readers.plausibility import held_as_implausible
from mdqa_kernel.text.periods import Period, ReportPeriod, wanted_period

# whole -> its parts, each never larger than the whole for the same date or period, in one currency
PARTS: dict[str, tuple[str, ...]] = {
    "total_assets": ("total_current_assets", "cash_and_equivalents", "inventories", "accounts_receivable",
                     "property_plant_equipment_net", "goodwill", "total_equity"),
    "total_current_assets": ("cash_and_equivalents", "inventories", "accounts_receivable"),
    "total_liabilities": ("total_current_liabilities", "long_term_debt", "accounts_payable"),
    "total_current_liabilities": ("accounts_payable",),
    "revenue": ("gross_profit",),
}  # fmt: skip
# whole -> groups of its parts that never overlap: their sum is never larger than the whole either
DISJOINT: dict[str, tuple[tuple[str, ...], ...]] = {
    "total_assets": (("cash_and_equivalents", "inventories", "accounts_receivable", "property_plant_equipment_net",
                      "goodwill"), ("total_current_assets", "property_plant_equipment_net", "goodwill")),
    "total_current_assets": (("cash_and_equivalents", "inventories", "accounts_receivable"),),
    "total_liabilities": (("accounts_payable", "long_term_debt"),),
}  # fmt: skip
# Parts printed rounded may add up to a little more than their whole printed rounded.
SUM_SLACK = 0.005
# Where a description's line item ends and its period or unit begins.
_HEAD_END = re.compile(
    r"\s+(?:for|at|as\s+of|as\s+at|during|in|on)\s+(?:the|fiscal|fy|each|usd|\d)|\s*[,(;]|\s+-\s", re.I
)
_PER_SHARE = re.compile(r"per\s+share|per\s+\d+\s+shares|\beps\b", re.I)


@dataclass(frozen=True)
class Reading:
    """One found value of a plan field in a document, with the line item and period it is of."""

    field: str
    item: str
    period: Period
    value: float  # in currency units (the field's scale applied)


@cache
def _items_by_name() -> dict[str, str]:
    """Every name of a line item (head, question phrases, printed labels), normalised -> its item."""
    out: dict[str, str] = {}
    for item in load_terms().items.values():
        for name in (item.head, *item.phrases, *item.labels):
            out.setdefault(_key(re.sub(r"\([^)]*\)", " ", name)), item.name)
    return out


def _key(name: str) -> str:
    """A name as compared: normalised, without apostrophes ("stockholders' equity")."""
    return normalise_phrase(name.replace("'", "").replace("’", ""))


def line_item(description: str) -> str | None:
    """The statement line item a field description names by its head ("Total assets at the end of the
    fiscal year of the report" -> total_assets); None for anything else."""
    if _PER_SHARE.search(description):
        return None
    head = _HEAD_END.split(description.strip(), maxsplit=1)[0]
    return _items_by_name().get(_key(head))


def reading(field: FieldLike, result: ReadResult, report: ReportPeriod) -> Reading | None:
    """The field's found value as a reading of a line item, or None when it is not one."""
    if not result.found or not isinstance(result.value, int | float) or isinstance(result.value, bool):
        return None
    item = line_item(field.description)
    if item is None:
        return None
    period = wanted_period(field.description, report)
    if not period.named and period.offset is None:
        return None
    return Reading(field.name, item, period, float(result.value) * float(field.scale or 1.0))


def violations(readings: Iterable[Reading]) -> dict[str, str]:
    """field -> why it is held for review: every reading on either side of a broken identity."""
    by_item: dict[tuple[str, Period], list[Reading]] = {}
    for r in readings:
        by_item.setdefault((r.item, r.period), []).append(r)
    out: dict[str, list[str]] = {}
    for (whole, period), wholes in by_item.items():
        for part in PARTS.get(whole, ()):
            for p in by_item.get((part, period), []):
                for w in wholes:
                    if p.value > w.value >= 0 and p.value > 0:
                        why = (f"{p.field} ({_shown(p.value)}) is larger than {w.field} ({_shown(w.value)}) "
                               "of the same period, of which it is a part: one of them is misread")  # fmt: skip
                        out.setdefault(p.field, []).append(why)
                        out.setdefault(w.field, []).append(why)
        for group in DISJOINT.get(whole, ()):
            # the smallest reading of each part found: a sum above the whole is then certain
            parts = [
                min(found, key=lambda r: r.value) for item in group if (found := by_item.get((item, period)))
            ]
            total = sum(p.value for p in parts)
            for w in wholes:
                if any(p.value > w.value for p in parts):
                    continue  # a part alone is larger: that identity names the readings to review
                if len(parts) >= 2 and w.value >= 0 and total > w.value * (1 + SUM_SLACK):
                    names = " + ".join(f"{p.field} ({_shown(p.value)})" for p in parts)
                    why = (f"{names} = {_shown(total)} is larger than {w.field} ({_shown(w.value)}) of the same "
                           "period, of which they are separate parts: one of them is misread")  # fmt: skip
                    for f in (*(p.field for p in parts), w.field):
                        out.setdefault(f, []).append(why)
    return {f: "; ".join(dict.fromkeys(whys)) for f, whys in out.items()}


def _shown(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:g}"


def check_document(
    fields: dict[str, FieldLike], results: dict[str, ReadResult], report: ReportPeriod
) -> dict[str, ReadResult]:
    """The results of one document's fields that break an identity, each held for review."""
    found = [r for name, res in results.items() if (r := reading(fields[name], res, report)) is not None]
    return {name: held_as_implausible(results[name], why) for name, why in violations(found).items()}
