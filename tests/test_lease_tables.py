"""A lease note's supplemental cash flow table, on pages drawn here: the row names the cash flow
("Operating cash flows from operating leases") and leaves the words "paid" and "liabilities" to the heading
above it ("Cash paid for amounts included in the measurement of lease liabilities:"); a heading that does not
state them does not name the row. A lease maturity table's total ("Total future undiscounted lease payments |
684 | 226") is the operating leases' in the column headed "Operating Leases", beside the finance leases'; the
year rows between do not end its header, and the header of the table above its lead-in is not its own."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from tests.test_periods import row, text
from tests.test_statement_labels import annual, read

UNDISCOUNTED = (
    "Total undiscounted future {} lease payments (the lease maturity table's total before imputed interest is"
    " subtracted) at the end of the fiscal year of the report, in USD millions"
)

OPERATING = (
    "Operating cash flows paid for operating lease liabilities (the lease note's supplemental cash flow"
    " information) for the fiscal year of the report, in USD millions"
)
FINANCE = (
    "Operating cash flows paid for finance lease liabilities (the lease note's supplemental cash flow"
    " information) for the fiscal year of the report, in USD millions"
)
COLS = (420.0, 500.0)


def _supplemental(heading: str) -> list:
    return [
        text("NOTE 7. LEASES"),
        text("Other information related to our leases was as follows ($ in millions):"),
        row("", "2023", "2022", cols=COLS),
        text(heading),
        row("Operating cash flows from operating leases", "$ 781", "$ 814", cols=COLS),
        row("Operating cash flows from finance leases", "1", "2", cols=COLS),
        row("Financing cash flows from finance leases", "18", "17", cols=COLS),
        text("Weighted average remaining lease term (in years):"),
        row("Operating leases", "5.1", "5.3", cols=COLS),
        row("Finance leases", "5.5", "5.0", cols=COLS),
    ]


def test_a_heading_states_the_words_a_cash_flow_row_leaves_out(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "leases.pdf",
        _supplemental("Cash paid for amounts included in the measurement of lease liabilities:"),
    )
    operating = read(doc, OPERATING)
    assert operating.status is Status.FOUND and operating.value == 781
    assert operating.confidence >= REVIEW_BELOW
    # the finance leases' row names its own kind; the operating row's qualifier is not the finance one's
    assert read(doc, FINANCE).value == 1


def test_a_heading_not_stating_them_names_no_row(tmp_path: Path) -> None:
    doc = annual(tmp_path / "other.pdf", _supplemental("Amounts recognized in the statement of cash flows:"))
    found = read(doc, OPERATING)
    assert found.value is None or found.confidence < REVIEW_BELOW


def _maturities(kinds: tuple[str, str] = ("Operating", "Finance")) -> list:
    return [
        *_supplemental("Cash paid for amounts included in the measurement of lease liabilities:"),
        text("Future minimum lease payments for leases in effect at December 31, 2023 were (in millions):"),
        row("", *kinds, cols=COLS),
        row("", "Leases", "Leases", cols=COLS),
        row("2024", "$ 168", "$ 33", cols=COLS),
        row("2025", "131", "74", cols=COLS),
        row("2026", "96", "22", cols=COLS),
        row("Thereafter", "289", "97", cols=COLS),
        row("Total future undiscounted lease payments", "684", "226", cols=COLS),
        row("Less imputed interest", "(83)", "(40)", cols=COLS),
        row("Total lease liability", "$ 601", "$ 186", cols=COLS),
    ]


def test_a_column_header_states_the_kind_of_lease_a_total_row_leaves_out(tmp_path: Path) -> None:
    doc = annual(tmp_path / "maturities.pdf", _maturities())
    operating = read(doc, UNDISCOUNTED.format("operating"))
    assert operating.status is Status.FOUND and operating.value == 684
    assert operating.confidence >= REVIEW_BELOW
    assert read(doc, UNDISCOUNTED.format("finance")).value == 226


def test_columns_headed_by_other_kinds_name_no_cell(tmp_path: Path) -> None:
    doc = annual(tmp_path / "kinds.pdf", _maturities(("Real Estate", "Equipment")))
    found = read(doc, UNDISCOUNTED.format("operating"))
    assert found.value is None or found.confidence < REVIEW_BELOW
