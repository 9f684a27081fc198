"""The reporting basis a column header names, for the columns a table prints under one period.

A restatement note prints one year as "As Previously Reported | Adjustment | As Restated"; an
accounting-change table as "As Reported | Adjustments | Balances without Adoption of Topic 606"; a
reconciliation as "GAAP | Restructuring | Non-GAAP". All their cells fit the period, but only one is the
figure the filing now reports: the restated, the as-reported, the GAAP one. `column_basis` sorts a header
into the current figure, a superseded or hypothetical one, an adjustment between them, or none of these.
"""

from __future__ import annotations

import re
from enum import Enum


class Basis(Enum):
    CURRENT = "current"  # "As Restated", "As Revised", "As Recast", "As Adjusted", "As Reported", "GAAP"
    SUPERSEDED = "superseded"  # "As Previously Reported", "Without Adoption of …", "Non-GAAP", "Pro Forma"
    ADJUSTMENT = "adjustment"  # "Adjustment(s)", "Effect of …", "Impact of …", "Reclassification"


_ADJUSTMENT = re.compile(
    r"\b(?:adjustments?|effects?\s+of|impacts?\s+of|reclassifications?|corrections?\s+of\s+errors?)\b",
    re.IGNORECASE,
)
_SUPERSEDED = re.compile(
    r"\b(?:previously|originally|formerly)\s+(?:reported|presented|issued|filed)\b"
    r"|\bprior\s+to\s+(?:the\s+)?(?:restatement|revision|adoption)\b"
    r"|\b(?:without|before|excluding)\s+(?:the\s+)?(?:adoption|impact|effect)\b"
    r"|\bnon[-\s]?gaap\b|\bpro\s*forma\b",
    re.IGNORECASE,
)
_CURRENT = re.compile(
    r"\bas\s+(?:restated|revised|recast|adjusted|reported)\b|\b(?:restated|revised|recast)\b"
    r"|\bgaap\b",  # after _SUPERSEDED has taken "Non-GAAP"
    re.IGNORECASE,
)


def column_basis(header: str) -> Basis | None:
    """The basis a column header names; None when it names none (the usual column: a period alone).
    An adjustment is tested first: "Restatement Adjustments" is the adjustment, not the restated figure."""
    if _ADJUSTMENT.search(header):
        return Basis.ADJUSTMENT
    if _SUPERSEDED.search(header):
        return Basis.SUPERSEDED
    if _CURRENT.search(header):
        return Basis.CURRENT
    return None
