"""An amount asked before a deduction: "Property and equipment at cost before accumulated depreciation
(gross)", "Total deferred tax assets before the valuation allowance". The deduction's name is not part of
the line item's printed name; the gross row is the one the deduction's row follows in its table ("Total
property, plant and equipment 8,891 / Less accumulated depreciation (4,437)"), and a row that states the
deduction as made ("… after valuation allowance", "…, net") is the net amount."""

from __future__ import annotations

import re
from functools import lru_cache

# The deductions a gross amount is asked before: depreciation's, a valuation or credit-loss allowance, the
# interest that discounts a maturity table's payments. "Income before income taxes" names its line: taxes
# are no deduction from a balance here.
_DEDUCTION_NAME = (
    r"accumulated\s+(?:depreciation|amortization|depletion)(?:\s+and\s+(?:depreciation|amortization|depletion))?"
    r"|valuation\s+allowances?|allowances?\s+for\s+(?:doubtful|credit|uncollectible)\s+\w+|imputed\s+interest"
)
_BEFORE = re.compile(rf"\bbefore\s+(?:the\s+|any\s+)?(?P<d>{_DEDUCTION_NAME})\b", re.IGNORECASE)
# the clause as the line item's name carries it, with the basis said before it ("… at cost before …")
_CLAUSE = re.compile(rf"(?:,?\s+at\s+cost)?,?\s+before\s+(?:the\s+|any\s+)?(?:{_DEDUCTION_NAME})\b.*$", re.I)

# Words a label may add to the line item's name when it prints the gross amount ("Total property, plant and
# equipment, gross", "Total cost of property and equipment", "Total, at cost")
GROSS_WORDS = frozenset({"gross", "cost"})


@lru_cache(maxsize=1024)  # asked for every row a field's description is scored against
def asked_deduction(description: str) -> str | None:
    """The deduction the description asks its amount before ("accumulated depreciation", "valuation
    allowance"); None when it asks none."""
    m = _BEFORE.search(description)
    return re.sub(r"\s+", " ", m.group("d")).lower() if m else None


def without_deduction_clause(name: str) -> str:
    """The line item's name without its "(at cost) before <deduction>" clause."""
    return _CLAUSE.sub("", name)
