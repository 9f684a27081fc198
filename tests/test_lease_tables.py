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
from mdqa_kernel.readers.table.reader import _lines_by_page
from mdqa_kernel.text.labels import sign_of_pair
from mdqa_kernel.text.statement_titles import page_statement
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


def _operating_only(lead_in: str, heading: str) -> list:
    """A note on operating leases only: a footnote naming the balance sheet near the page's top, then the
    supplemental table whose one cash row names no kind of lease ("Cash paid for amounts included in the
    measurement of lease liabilities"), the lead-in saying which."""
    return [
        text("NOTE 7. LEASES"),
        row("Operating lease cost (a)", "563", "539", cols=COLS),
        text("(a) Includes right-of-use asset amortization."),
        text("(b) Not recorded on our balance sheet."),
        text(lead_in),
        row("", "2023", "2022", cols=COLS),
        text(heading),
        row(
            "Cash paid for amounts included in the measurement of lease liabilities", "567", "555", cols=COLS
        ),
        text("Non-cash activity:"),
        row("Right-of-use assets obtained in exchange for lease obligations", "934", "621", cols=COLS),
    ]


def test_the_lease_standard_s_cash_paid_row_under_a_lead_in_naming_operating_leases(tmp_path: Path) -> None:
    """ "Cash paid for amounts included in the measurement of lease liabilities" names the cash paid for the
    liabilities; the lead-in states which leases. A footnote naming the balance sheet is no statement title:
    the page is a note's, and its rows are not discounted as a balance sheet's for a flow."""
    doc = annual(
        tmp_path / "operating.pdf",
        _operating_only(
            "Supplemental cash flow information related to our operating leases is as follows (in millions):",
            "Operating cash flow information:",
        ),
    )
    assert page_statement(_lines_by_page(doc)[2]) is None
    found = read(doc, OPERATING)
    assert found.value == 567 and found.confidence >= REVIEW_BELOW, found
    # the same table about leases of no named kind leaves "operating" unsaid
    unnamed = annual(
        tmp_path / "unnamed.pdf",
        _operating_only(
            "Supplemental cash flow information related to our leases (in millions):", "Cash flows:"
        ),
    )
    held = read(unnamed, OPERATING)
    assert held.value is None or held.confidence < REVIEW_BELOW, held


def test_a_flow_named_by_both_directions_reads_the_direction_asked(tmp_path: Path) -> None:
    """ "Operating cash inflows/(outflows) from operating leases | (196)": the row names the operating leases'
    operating cash flows, and its "(196)" is 196 paid."""
    page = [
        text("NOTE 7. LEASES"),
        text("Cash flows arising from lease transactions were (in millions):"),
        row("", "December 30, 2023", cols=COLS[1:]),
        text("Cash paid for amounts included in the measurement of lease liabilities:"),
        row("Operating cash inflows/(outflows) from operating leases", "$ (196)", cols=COLS[1:]),
        row("Operating cash inflows/(outflows) from finance leases", "(6)", cols=COLS[1:]),
        row("Financing cash inflows/(outflows) from finance leases", "(28)", cols=COLS[1:]),
    ]
    doc = annual(tmp_path / "directions.pdf", page)
    found = read(doc, OPERATING)
    assert found.value == 196 and found.confidence >= REVIEW_BELOW, found
    assert read(doc, FINANCE).value == 6
    # the inflow asked reads the figure as printed; a description asking neither direction gives no sign
    label = "Net cash inflows/(outflows) from asset sales"
    assert sign_of_pair(label, "Proceeds received from asset sales") == 1
    assert sign_of_pair(label, "Cash paid for asset purchases") == -1
    assert sign_of_pair(label, "Net cash flows from asset sales") is None
