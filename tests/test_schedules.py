"""Amounts of a fiscal year after the report read from a schedule of future years, on schedules drawn here:
years down the rows ("2024 | 5,250"), years across the columns over one unlabeled line of amounts or over
labeled rows ("Debt", "Minimum finance lease obligations"). Decoys: another obligation's schedule, a schedule
that starts at the report's own year, a header whose years do not match the amounts one for one, and a
field asking the report's own year."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.table.schedule import _header_years, _subject
from mdqa_kernel.text.periods import ReportPeriod, wanted_period
from tests.test_periods import row, text
from tests.test_statement_labels import annual, read

NEXT = "Principal of debt maturing in the first fiscal year after the report (the debt maturity schedule), in USD millions"
SECOND = NEXT.replace("first fiscal year", "second fiscal year")
FIVE = (330.0,)
SIX = (250.0, 300.0, 350.0, 400.0, 450.0, 520.0)


def _down(lead: str, first: int = 2024) -> list:
    """A maturity schedule with one year per row, from `first` on, under `lead`."""
    amounts = ("5,250", "2,250", "3,000", "8,000", "0")
    return [
        text("NOTE 11 — DEBT"),
        text(lead),
        text("(In millions)"),
        text("Year Ending December 31,"),
        *(row(str(first + k), amount, cols=FIVE) for k, amount in enumerate(amounts)),
        row("Thereafter", "34,366", cols=FIVE),
        row("Total", "52,866", cols=FIVE),
    ]


def test_the_year_after_the_report_down_the_rows(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "down.pdf", _down("The following table outlines maturities of our long-term debt:")
    )
    got = read(doc, NEXT)
    assert got.value == 5_250 and got.confidence >= CONFIDENT, got
    assert got.evidence is not None and got.evidence.page == 2, got
    got = read(doc, SECOND)
    assert got.value == 2_250 and got.confidence >= CONFIDENT, got


def test_the_year_after_the_report_across_the_columns(tmp_path: Path) -> None:
    """One unlabeled line of amounts under the years; the paragraph ended above the lead-in (about interest)
    is not the schedule's lead-in."""
    page = [
        text(
            "The current debt balance includes commercial paper at a weighted average interest rate of 4.1%."
        ),
        text("Aggregate maturities of long-term debt obligations commencing in 2024 are:"),
        text("(Dollars in Millions)"),
        row("", "2024", "2025", "2026", "2027", "2028", "After 2028", cols=SIX),
        row("", "$1,551", "1,392", "1,667", "1,996", "2,271", "19,562", cols=SIX),
    ]
    got = read(annual(tmp_path / "across.pdf", page), NEXT)
    assert got.value == 1_551 and got.confidence >= CONFIDENT, got


def _two_rows(caption: str, lead: str, *lines: tuple[str, ...]) -> list:
    """A schedule of five columns under its caption and lead-in: the header of years, then two labeled rows."""
    return [text(caption), text(lead), *(row(*line, cols=SIX[:5]) for line in lines)]


def test_the_subject_s_own_row_of_a_schedule_of_two_obligations(tmp_path: Path) -> None:
    page = _two_rows(
        "(Dollars in millions)",
        "Scheduled principal payments for debt and minimum finance lease obligations are as follows:",
        ("", "2024", "2025", "2026", "2027", "2028"),
        ("Minimum finance lease obligations", "$69", "$52", "$41", "$22", "$5"),
        ("Debt", "$5,128", "$5,081", "$4,306", "$7,966", "$3,300"),
    )
    doc = annual(tmp_path / "two.pdf", page)
    got = read(doc, NEXT)
    assert got.value == 5_128 and got.confidence >= CONFIDENT, got
    got = read(doc, SECOND)
    assert got.value == 5_081 and got.confidence >= CONFIDENT, got


@pytest.mark.parametrize(
    ("lead", "first"),
    [
        ("Future minimum payments under operating leases are as follows:", 2024),  # another obligation
        ("Maturities of long-term debt and operating lease liabilities are as follows:", 2024),  # two in one
        (
            "The following table outlines maturities of our long-term debt:",
            2023,
        ),  # the report's own year first
    ],
)
def test_a_schedule_that_is_not_the_subject_s_from_the_next_year_is_not_read(
    tmp_path: Path, lead: str, first: int
) -> None:
    got = read(annual(tmp_path / "decoy.pdf", _down(lead, first)), NEXT)
    assert got.value is None, got


def test_years_that_do_not_head_the_amounts_one_for_one_place_nothing(tmp_path: Path) -> None:
    page = [
        text("Aggregate maturities of long-term debt are:"),
        text("(Dollars in Millions)"),
        row("", "2024", "2025", "2026", "2027", cols=SIX[:4]),
        row("", "$1,551", "1,392", "1,667", cols=SIX[:3]),
    ]
    got = read(annual(tmp_path / "short.pdf", page), NEXT)
    assert got.value is None, got


def test_the_report_s_own_year_is_no_schedule_year(tmp_path: Path) -> None:
    """A field asking the report's own year never reads a future year's amount."""
    report = ReportPeriod(year=2023)
    assert wanted_period(NEXT, report).offset == 1
    assert wanted_period(SECOND, report).offset == 2
    assert wanted_period("Long-term debt at the end of the fiscal year of the report", report).offset == 0
    doc = annual(
        tmp_path / "own.pdf", _down("The following table outlines maturities of our long-term debt:")
    )
    got = read(doc, "Principal of debt maturing in the fiscal year of the report, in USD millions")
    assert got.value != 5_250, got


def test_schedule_header_and_subject_units() -> None:
    assert _header_years("2023 2024 2025 2026 2027 After 2026") == ([2023, 2024, 2025, 2026, 2027], 6)
    assert _header_years("2023 2024 2025 Thereafter Total") == ([2023, 2024, 2025], 5)
    assert _header_years("2023 2025 2027") is None  # not one year after another
    assert _header_years("Debt due 2024 2025") is None
    assert _subject(NEXT) == {"debt"}


def test_an_obligation_that_is_the_subject_is_read_from_its_own_row(tmp_path: Path) -> None:
    """A lease field's subject is the lease: its own row "Operating leases" names it, while the finance leases'
    row and the lead-in naming both leave the other row unread."""
    page = _two_rows(
        "(In millions)",
        "Future payments under our leases are as follows:",
        ("", "2024", "2025", "2026", "Thereafter", "Total"),
        ("Operating leases", "$812", "$700", "$655", "$2,004", "$4,171"),
        ("Finance leases", "$41", "$39", "$35", "$80", "$195"),
    )
    asked = "Operating lease payments due in the first fiscal year after the report, in USD millions"
    assert _subject(asked) == {"operating", "lease"}
    got = read(annual(tmp_path / "leases.pdf", page), asked)
    assert got.value == 812 and got.confidence >= CONFIDENT, got


TOTAL = (
    "Total undiscounted future operating lease payments (the lease maturity table's total before imputed "
    "interest is subtracted) at the end of the fiscal year of the report, in USD millions"
)
LEASE_NEXT = "Operating lease payments due in the first fiscal year after the report, in USD millions"
TWO = (400.0, 520.0)


def _leases(lead: str, total: str = "2,702", first: int = 2024) -> list:
    """A lease maturity schedule down the rows under `lead`, closed by its total and the imputed interest."""
    amounts = ("541", "465", "386", "326", "266")
    return [
        text("NOTE 12 — LEASES"),
        text(lead),
        *(row(str(first + k), amount, cols=FIVE) for k, amount in enumerate(amounts)),
        row(f"{first + 5} and beyond", "718", cols=FIVE),
        row("Total lease payments", total, cols=FIVE),
        row("Less: Imputed interest", "286", cols=FIVE),
        row("Present value of lease liabilities", "2,416", cols=FIVE),
    ]


def test_a_schedule_s_total_that_adds_up_its_years(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "total.pdf",
        _leases(
            "Maturities of lease liabilities by year for our operating leases (in millions) are as follows:"
        ),
    )
    got = read(doc, TOTAL)
    assert got.value == 2_702 and got.confidence >= CONFIDENT, got
    assert got.evidence is not None and "Total lease payments" in (got.evidence.snippet or ""), got


def test_the_lead_in_sentence_starts_after_the_sentence_before_on_its_line(tmp_path: Path) -> None:
    """The lead-in runs over two lines and starts after another sentence's end on the first; a sentence's end
    inside a name ("U.S. and") is none."""
    page = [
        text("NOTE 16 — COMMITMENTS"),
        text(
            "Rent expense for U.S. and international facilities was $1.0 billion in fiscal year 2023. Future minimum"
        ),
        text(
            "rental commitments under non-cancellable operating leases in place at year end are as follows:"
        ),
        text("(In millions)"),
        *(row(str(2024 + k), a, cols=FIVE) for k, a in enumerate(("961", "996", "922", "833", "634"))),
        row("Thereafter", "2,118", cols=FIVE),
        row("Total", "$ 6,464", cols=FIVE),
    ]
    got = read(annual(tmp_path / "rental.pdf", page), TOTAL)
    assert got.value == 6_464 and got.confidence >= CONFIDENT, got


@pytest.mark.parametrize(
    ("lead", "total", "first"),
    [
        (
            "Maturities of our operating lease liabilities (in millions) are as follows:",
            "2,720",
            2024,
        ),  # no sum
        (
            "Maturities of our operating lease liabilities (in millions) are as follows:",
            "2,702",
            2023,
        ),  # own year
        ("Future payments under purchase obligations and operating leases are as follows:", "2,702", 2024),
    ],
)
def test_a_total_that_is_not_the_subject_s_schedule_total_is_not_read(
    tmp_path: Path, lead: str, total: str, first: int
) -> None:
    got = read(annual(tmp_path / "decoy.pdf", _leases(lead, total, first)), TOTAL)
    assert got.value is None, got


def test_the_subject_s_column_of_a_schedule_of_two_obligations(tmp_path: Path) -> None:
    """Years down the rows, one column per obligation: the column headed by the subject's name is read, for a
    year and for the total; the other column's total is never the subject's."""
    years = (("2,587", "797"), ("2,358", "757"), ("2,138", "640"), ("1,932", "552"), ("1,728", "492"))
    page = [
        text("The aggregate annual lease obligations at December 31, 2023 are as follows:"),
        text("(Amounts in millions)"),
        row("Fiscal Year", "Operating Leases", "Finance Leases", cols=TWO),
        *(row(str(2024 + k), *pair, cols=TWO) for k, pair in enumerate(years)),
        row("Thereafter", "15,514", "5,612", cols=TWO),
        row("Total undiscounted lease obligations", "26,257", "8,850", cols=TWO),
        row("Less imputed interest", "(8,293)", "(4,032)", cols=TWO),
    ]
    doc = annual(tmp_path / "columns.pdf", page)
    got = read(doc, TOTAL)
    assert got.value == 26_257 and got.confidence >= CONFIDENT, got
    got = read(doc, LEASE_NEXT)
    assert got.value == 2_587 and got.confidence >= CONFIDENT, got
    got = read(doc, TOTAL.replace("operating lease", "finance lease"))
    assert got.value == 8_850 and got.confidence >= CONFIDENT, got


def test_a_column_no_header_names_alone_is_not_read(tmp_path: Path) -> None:
    """Two amount columns whose headers both name the subject, or neither does: no column is the subject's."""
    years = (("2,587", "797"), ("2,358", "757"), ("2,138", "640"))
    for name, headers in (
        (
            "both",
            [
                ("", "Related Parties", "Third Parties"),
                ("Fiscal Year", "Operating Leases", "Operating Leases"),
            ],
        ),
        ("none", [("Fiscal Year", "Owned", "Other")]),
    ):
        page = [
            text("The aggregate annual operating lease obligations are as follows:"),
            *(row(*header, cols=TWO) for header in headers),
            *(row(str(2024 + k), *pair, cols=TWO) for k, pair in enumerate(years)),
            row("Total", "7,083", "2,194", cols=TWO),
        ]
        got = read(annual(tmp_path / f"{name}.pdf", page), LEASE_NEXT)
        assert got.value is None, (name, got)


STATED = (
    "The scheduled maturity of long-term debt in each of the years ending December 31, {first} through {last} are"
    " $6 million, $3 million, $0 million, $500 million and $0 million, respectively, at face value."
)


def test_a_sentence_listing_each_year_s_maturity(tmp_path: Path) -> None:
    """The sentence's years run from the year after the report's and list one amount each: the first is the next
    year's, the second the year after's."""
    first, second = STATED.format(first=2024, last=2028).split(" $500")  # wrapped over two lines
    doc = annual(tmp_path / "stated.pdf", [text("NOTE 11 — DEBT"), text(first), text("$500" + second)])
    got = read(doc, NEXT)
    assert got.value == 6 and got.confidence >= CONFIDENT, got
    assert read(doc, SECOND).value == 3


@pytest.mark.parametrize(
    "sentence",
    [
        STATED.format(first=2023, last=2027),  # starts at the report's own year
        STATED.format(first=2024, last=2029),  # six years, five amounts
        STATED.replace("long-term debt", "purchase obligations").format(first=2024, last=2028),
    ],
)
def test_a_sentence_of_other_years_or_another_obligation_is_not_read(tmp_path: Path, sentence: str) -> None:
    got = read(annual(tmp_path / "other.pdf", [text("NOTE 11 — DEBT"), text(sentence)]), NEXT)
    assert got.value != 6 or got.confidence < CONFIDENT, got
