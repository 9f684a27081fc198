"""A lease's recognised obligation is its lease liability: "Long-term operating lease obligations" on a
balance sheet drawn here is the non-current operating lease liability, and the contractual-obligations
table's undiscounted "Operating lease obligations" payments are not read for it."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT
from tests.test_statement_labels import annual, millions_page, read

ASKED = (
    "Operating lease liabilities, non-current (the long-term portion, excluding the current portion) at the "
    "end of the fiscal year of the report (balance sheet), in USD millions"
)

CONTRACTUAL = millions_page(
    "CONTRACTUAL OBLIGATIONS",
    ("Total", "Less than 1 year", "1-3 years"),
    ("Long-term debt", "43,012", "5,362", "8,123"),
    ("Operating lease obligations", "21,480", "2,163", "3,950"),
)
BALANCE = millions_page(
    "CONSOLIDATED BALANCE SHEETS",
    ("December 31, 2023", "December 31, 2022"),
    ("Accounts payable", "46,973", "47,060"),
    ("Operating lease obligations due within one year", "1,793", "—"),
    ("Total current liabilities", "77,790", "77,477"),
    ("Long-term debt", "43,714", "43,520"),
    ("Long-term operating lease obligations", "16,171", "—"),
    ("Total liabilities", "154,943", "139,661"),
)


def test_long_term_lease_obligations_are_the_noncurrent_lease_liability(tmp_path: Path) -> None:
    doc = annual(tmp_path / "l.pdf", CONTRACTUAL, BALANCE)
    res = read(doc, ASKED)
    assert (res.status, res.value) == ("found", 16171)
    assert res.confidence >= CONFIDENT
