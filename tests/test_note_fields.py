"""Fields asked of the notes to the statements, on pages drawn here: a magnitude asked "as a positive amount",
a table's header line labelled by its scale caption, a payments-due table's "Total" column, a numbered note
heading under a table's last row, a field placed in a note beside a statement's like-named line, a table
introduced as covering only some items, "Total current" / "Total deferred" under the measure they split (named
by a line above or by the table's lead-in), the current tax line under its printed names ("Current taxes"), and a
bare "Total" closing the table its lead-in names."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.readers.semantics import asks_magnitude
from mdqa_kernel.readers.table.candidates import value_at
from mdqa_kernel.readers.table.columns import page_rows
from mdqa_kernel.readers.table.naming import refused_row
from mdqa_kernel.readers.table.reader import _lines_by_page
from mdqa_kernel.text.statement_context import head_cover
from mdqa_kernel.text.statement_titles import asks_note
from tests.test_periods import row, text
from tests.test_semantics import fld as semantics_field
from tests.test_statement_labels import MILLIONS, WIDE, annual, fld, millions_page, read

ALLOWANCE = (
    "Valuation allowance (income tax note) at the end of the fiscal year of the report, in USD millions"
)
DEFERRED = (
    "Deferred income tax expense (the income tax note's total of federal, state and foreign deferred taxes) "
    "for the fiscal year of the report, in USD millions (a benefit is negative)"
)
YEARS = row("", "2023", "2022", cols=WIDE)
OBLIGATIONS = (
    "Total contractual obligations (the contractual obligations table's total over all years) at the end of the"
    " fiscal year of the report, in USD millions"
)
CURRENT_TAX = (
    "Current income tax expense (the income tax note's total of federal, state and foreign current taxes) for the"
    " fiscal year of the report, in USD millions"
)
OBLIGATION = "Projected benefit obligation of the pension plans at the end of the fiscal year of the report, in USD millions"


def _tax_note() -> list:
    return [
        text("NOTE 9. INCOME TAXES"),
        text("The components of the net deferred tax assets are as follows (in millions):"),
        YEARS,
        row("Accrued expenses", "28", "26", cols=WIDE),
        row("Tax attributes carryforwards", "93", "81", cols=WIDE),
        row("Deferred tax assets", "121", "107", cols=WIDE),
        row("Valuation allowance", "(81)", "(61)", cols=WIDE),
        row("Deferred tax assets, net of valuation allowance", "40", "46", cols=WIDE),
    ]


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Valuation allowance at the end of the year, in USD millions, as a positive amount", True),
        ("Accumulated depreciation at the end of the year, in USD millions (in absolute value)", True),
        ("Valuation allowance at the end of the year, in USD millions (unsigned)", True),
        (ALLOWANCE, False),
        ("Net income, in USD millions (a loss is negative)", False),
    ],
)
def test_a_magnitude_is_asked_in_the_description(description: str, expected: bool) -> None:
    assert asks_magnitude(semantics_field(description, unit="USD")) is expected


def test_a_figure_deducted_in_its_table_is_read_positive_where_a_magnitude_is_asked(tmp_path: Path) -> None:
    doc = annual(tmp_path / "tax.pdf", _tax_note())
    assert read(doc, f"{ALLOWANCE}, as a positive amount").value == 81
    assert read(doc, ALLOWANCE).value == -81  # as printed where no sign is asked


def test_a_header_line_labelled_by_the_scale_caption_holds_no_values(tmp_path: Path) -> None:
    cols = (300.0, 360.0, 420.0, 480.0, 540.0)
    doc = annual(
        tmp_path / "obligations.pdf",
        [
            text("Contractual Obligations"),
            row("(In millions)", "2024", "2025-2026", "2027-2028", "Thereafter", "Total", cols=cols),
            row("Long-term debt", "0", "5,050", "5,250", "30,649", "40,949", cols=cols),
            row("Operating leases", "961", "1,918", "1,467", "2,118", "6,464", cols=cols),
            row("Total contractual obligations", "961", "6,968", "6,717", "32,767", "47,413", cols=cols),
        ],
    )
    got = read(doc, OBLIGATIONS)
    assert got.value in (None, 47413), got  # the first year of the header line is no figure
    lines = _lines_by_page(doc)[2]
    header = next(r for r in page_rows(doc, 2, lines) if r.label == "(In millions)")
    assert refused_row(lines, header, fld(OBLIGATIONS))


def _obligations(total: str) -> list:
    cols = (300.0, 360.0, 420.0, 480.0, 540.0)
    return [
        text("Contractual Obligations"),
        MILLIONS,
        row("", "2024", "2025-2026", "2027-2028", "Thereafter", "Total", cols=cols),
        row("Long-term debt", "0", "5,050", "5,250", "30,649", "40,949", cols=cols),
        row("Operating leases", "961", "1,918", "1,467", "2,118", "6,464", cols=cols),
        row("Total contractual obligations", "961", "6,968", "6,717", "32,767", total, cols=cols),
    ]


def test_the_total_column_of_a_payments_due_table_is_the_amount_at_the_reports_end(tmp_path: Path) -> None:
    doc = annual(tmp_path / "due.pdf", _obligations("47,413"))
    got = read(doc, OBLIGATIONS)
    assert got.value == 47413 and got.confidence >= CONFIDENT, got
    prior = OBLIGATIONS.replace("of the fiscal year of the report", "of the prior fiscal year")
    assert read(doc, prior).value != 47413  # the table is as of the report's end only
    # a "Total" that does not add up the years is not trusted as their total
    off = read(annual(tmp_path / "off.pdf", _obligations("47,000")), OBLIGATIONS)
    assert off.value is None or off.confidence < REVIEW_BELOW, off


def test_a_total_row_whose_first_cell_adds_up_the_others_under_headers_naming_no_period(
    tmp_path: Path,
) -> None:
    """ "Total contractual obligations (1) | $ 183,376 | $ 75,462 | …" with its column headers garbled out of reach:
    the first cell adds up the others, so it is the row's total; a first cell that does not is not trusted."""
    cols = (300.0, 360.0, 420.0, 480.0, 540.0)

    def page(total: str) -> list:
        return [
            text("Contractual Obligations"),
            text(
                "The following table summarizes our known obligations to make future payments (in millions)."
            ),
            row("Long-term debt", "$ 13,932", "$ 3,137", "$ 1,927", "$ 1,326", "$ 7,542", cols=cols),
            row("Operating lease obligations", "1,850", "278", "432", "291", "849", cols=cols),
            row(
                "Total contractual obligations (1)",
                total,
                "$ 3,415",
                "$ 2,359",
                "$ 1,617",
                "$ 8,391",
                cols=cols,
            ),
            text("(1) Excludes income tax matters."),
        ]

    got = read(annual(tmp_path / "first.pdf", page("$ 15,782")), OBLIGATIONS)
    assert got.value == 15782 and got.confidence >= REVIEW_BELOW, got
    off = read(annual(tmp_path / "off.pdf", page("$ 15,000")), OBLIGATIONS)
    assert off.value is None or off.confidence < REVIEW_BELOW, off


def test_a_numbered_note_heading_is_not_the_tail_of_the_row_above(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "derivatives.pdf",
        [
            text(
                "The following table presents the notional amounts of our derivative instruments ($ in millions):"
            ),
            YEARS,
            row("Derivatives designated as net investment hedges", "$ 15", "$ 462", cols=WIDE),
            row("Derivatives designated as interest rate swap contracts", "1,150", "1,150", cols=WIDE),
            row("Total", "$ 1,165", "$ 1,612", cols=WIDE),
            text("6. Debt"),
            text("Short-term debt consisted of the following. Long-term debt is presented below."),
        ],
    )
    got = read(doc, "Total debt at the end of the fiscal year of the report, in USD millions")
    assert got.value is None or got.confidence < REVIEW_BELOW, got


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        (DEFERRED, True),
        ("Finished goods inventories (inventory note) at the end of the year, in USD millions", True),
        ("Notes payable at the end of the year, in USD millions", False),
        ("Senior note due 2030, principal, in USD millions", False),
        (
            "Interest income for the fiscal year of the report (income statement or its note), in USD millions",
            False,
        ),
    ],
)
def test_a_description_places_its_figure_in_a_note(description: str, expected: bool) -> None:
    assert asks_note(description) is expected


def test_a_field_placed_in_a_note_is_the_notes_row_not_a_like_named_statement_line(tmp_path: Path) -> None:
    cash_flows = millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022"),
        ("Net income", "11,292", "14,293"),
        ("Deferred income taxes", "(304)", "761"),
        ("Net cash provided by operating activities", "28,337", "31,530"),
    )
    note = [
        text("NOTE 10. INCOME TAXES"),
        text("A summary of the provision for income taxes is as follows:"),
        MILLIONS,
        YEARS,
        text("Current:"),
        row("U.S. federal", "2,998", "3,454", cols=WIDE),
        row("Total current tax provision", "4,780", "5,459", cols=WIDE),
        text("Deferred:"),
        row("U.S. federal", "(22)", "1,054", cols=WIDE),
        row("International", "(158)", "(309)", cols=WIDE),
        row("Total deferred tax expense (benefit)", "(180)", "745", cols=WIDE),
        row("Total provision for income taxes", "4,600", "6,204", cols=WIDE),
    ]
    doc = annual(tmp_path / "deferred.pdf", cash_flows, note)
    got = read(doc, DEFERRED)
    assert got.value == -180 and got.confidence >= CONFIDENT, got


def _pension(lead_in: list) -> list:
    return [
        text("NOTE 13. PENSION AND OTHER POSTRETIREMENT BENEFIT PLANS"),
        *lead_in,
        row("December 31,", "2023", "2022", cols=WIDE),
        row("Projected benefit obligation", "$ 7,833", "$ 7,907", cols=WIDE),
        row("Fair value of plan assets", "6,330", "6,303", cols=WIDE),
    ]


def test_a_table_covering_only_some_plans_is_not_the_whole(tmp_path: Path) -> None:
    subset = annual(
        tmp_path / "subset.pdf",
        _pension(
            [
                text(
                    "Certain of our pension plans have projected benefit obligations in excess of the fair value"
                ),
                text(
                    "of plan assets. For these plans, the projected benefit obligations and the fair value of plan"
                ),
                text("assets were as follows (in millions):"),
            ]
        ),
    )
    got = read(subset, OBLIGATION)
    assert got.value is None or got.confidence < REVIEW_BELOW, got
    whole = annual(
        tmp_path / "whole.pdf",
        _pension(
            [
                text(
                    "The projected benefit obligations and the fair value of plan assets were as follows (in millions):"
                )
            ]
        ),
    )
    assert read(whole, OBLIGATION).value == 7833


def test_a_total_naming_only_its_part_reads_under_the_measure_above_it(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "provision.pdf",
        [
            text("NOTE 19. INCOME TAXES"),
            MILLIONS,
            YEARS,
            text("Income tax expense (benefit):"),
            text("Current:"),
            row("Federal", "$ 136", "$ (208)", cols=WIDE),
            row("Foreign", "323", "280", cols=WIDE),
            row("Total current", "459", "72", cols=WIDE),
            text("Deferred:"),
            row("Federal", "700", "(153)", cols=WIDE),
            row("Foreign", "(1,037)", "19", cols=WIDE),
            row("Total deferred", "(337)", "(134)", cols=WIDE),
            row("Income tax expense", "122", "(62)", cols=WIDE),
        ],
    )
    assert read(doc, CURRENT_TAX).value == 459
    assert read(doc, DEFERRED).value == -337
    prior = CURRENT_TAX.replace("for the fiscal year of the report", "for the prior fiscal year")
    assert read(doc, prior).value == 72


def test_a_total_current_under_a_lead_in_naming_the_measure(tmp_path: Path) -> None:
    # the measure named by the table's lead-in sentence, the period line and scale caption between
    doc = annual(
        tmp_path / "lead_in.pdf",
        [
            text("The provision for income taxes is as follows:"),
            text("YEAR ENDED MAY 31,"),
            row("(Dollars in millions)", "2023", "2022", cols=WIDE),
            text("Current:"),
            text("United States"),
            row("Federal", "$ 430", "$ 231", cols=WIDE),
            row("Foreign", "634", "926", cols=WIDE),
            row("Total Current", "1,064", "1,157", cols=WIDE),
            text("Deferred:"),
            row("Federal", "(162)", "(522)", cols=WIDE),
            row("Total Deferred", "(162)", "(522)", cols=WIDE),
            row("INCOME TAX EXPENSE", "902", "635", cols=WIDE),
        ],
    )
    assert read(doc, CURRENT_TAX).value == 1064


@pytest.mark.parametrize(
    ("label", "names"),
    [
        ("Current tax expense", True),
        ("Total current tax provision", True),
        ("Current taxes", True),
        ("Current taxes payable", False),  # a balance
        ("Current income taxes receivable", False),
    ],
)
def test_the_current_part_of_the_tax_line_under_its_printed_names(label: str, names: bool) -> None:
    assert (head_cover(label, CURRENT_TAX) > 0) is names


def test_a_current_taxes_row_closing_its_block_is_the_current_tax_expense(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "current_taxes.pdf",
        [
            text("The components of the provision for income taxes were as follows:"),
            MILLIONS,
            YEARS,
            text("Current Taxes"),
            row("U.S. federal", "$ 14,009", "$ 8,329", cols=WIDE),
            row("Foreign", "6,678", "6,672", cols=WIDE),
            row("Current taxes", "$ 20,687", "$ 15,001", cols=WIDE),
            text("Deferred Taxes"),
            row("U.S. federal", "$ (6,146)", "$ (4,815)", cols=WIDE),
            row("Deferred taxes", "$ (6,146)", "$ (4,815)", cols=WIDE),
            row("Provision for income taxes", "$ 14,541", "$ 10,186", cols=WIDE),
        ],
    )
    assert read(doc, CURRENT_TAX).value == 20687


@pytest.mark.parametrize(
    ("lead", "expected"),
    [
        (
            "The following table summarizes our contractual obligations at December 31, 2023 (in millions):",
            47413,
        ),
        ("The following table summarizes our purchase commitments at December 31, 2023 (in millions):", None),
    ],
)
def test_a_bare_total_closing_the_table_its_lead_in_names(
    tmp_path: Path, lead: str, expected: int | None
) -> None:
    cols = (300.0, 360.0, 420.0, 480.0, 540.0)
    doc = annual(
        tmp_path / "bare_total.pdf",
        [
            text(lead),
            row("", "2024", "2025-2026", "2027-2028", "Thereafter", "Total", cols=cols),
            row("Long-term debt", "0", "5,050", "5,250", "30,649", "40,949", cols=cols),
            row("Operating leases", "961", "1,918", "1,467", "2,118", "6,464", cols=cols),
            row("Total", "961", "6,968", "6,717", "32,767", "47,413", cols=cols),
        ],
    )
    got = read(doc, OBLIGATIONS)
    if expected is None:
        assert got.value is None or got.confidence < REVIEW_BELOW, got
    else:
        assert got.value == expected and REVIEW_BELOW <= got.confidence < CONFIDENT, got


def test_a_footnote_mark_before_a_row_s_amounts_is_no_value(tmp_path: Path) -> None:
    """ "Total contractual obligations (1) $183,376 $75,462": the "(1)" after the label is a footnote mark,
    known by the amount after it; a line reader takes no value from it (a "(12)" before plain figures may be a
    negative amount and is still read)."""
    assert value_at(" (1) $183,376 $75,462", "number") is None
    assert value_at(" (12) 5 3", "number") == (" (12)", None, 0, 5)
    line = "Total contractual obligations (1) $183,376 due over the next five years and thereafter."
    got = read(annual(tmp_path / "mark.pdf", [text("Contractual Obligations"), text(line)]), OBLIGATIONS)
    assert got.value is None or got.value > 0, got  # never the mark read as -1
