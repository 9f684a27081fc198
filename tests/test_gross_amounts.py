"""An amount asked before a deduction, on pages drawn here: the row the deduction's row follows is the gross
amount (labelled with the line item, or a bare "Total, at cost" whose table is named above or below), a row
stating the deduction made is the net one, a row or sentence that prints no gross basis is held for review,
a scale caption wrapped from a lead-in's last line into the next still scales the table, and a component row
leaves the line item's noun to its table ("Finished goods" above "Total inventories")."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.text.deductions import asked_deduction
from mdqa_kernel.text.labels import field_labels
from mdqa_kernel.text.statement_context import description_heads
from tests.test_periods import row, text
from tests.test_statement_labels import WIDE, annual, read

GROSS_PPE = (
    "Property and equipment at cost before accumulated depreciation (gross) at the end of the fiscal year of the"
    " report, in USD millions"
)
GROSS_PPE_PRIOR = (
    "Property and equipment at cost before accumulated depreciation (gross) at the end of the prior fiscal year,"
    " in USD millions"
)
GROSS_DTA = (
    "Total deferred tax assets before the valuation allowance (income tax note) at the end of the fiscal year of"
    " the report, in USD millions"
)
NET_PPE = "Property, plant and equipment, net at the end of the fiscal year of the report, in USD millions"
YEARS = row("", "2023", "2022", cols=WIDE)
COMPONENTS = [
    row("Land", "331", "285", cols=WIDE),
    row("Buildings", "2,195", "1,564", cols=WIDE),
    row("Machinery and equipment", "4,230", "3,867", cols=WIDE),
]


@pytest.mark.parametrize(
    ("description", "deduction", "head"),
    [
        (GROSS_PPE, "accumulated depreciation", "Property and equipment"),
        (GROSS_DTA, "valuation allowance", "Total deferred tax assets"),
        (
            "Receivables before the allowance for doubtful accounts, in USD millions",
            "allowance for doubtful accounts",
            "Receivables",
        ),
        ("Income (earnings) before income taxes for the fiscal year, in USD millions", None, None),
        (
            "Treasury stock at cost at the end of the fiscal year, in USD millions",
            None,
            "Treasury stock at cost",
        ),
    ],
)
def test_the_deduction_asked_is_no_part_of_the_line_items_name(
    description: str, deduction: str | None, head: str | None
) -> None:
    assert asked_deduction(description) == deduction
    if head is not None:
        assert description_heads(description)[0] == head


def _ppe_note(
    total: str,
    net: str,
    lead_in: str = "Property, plant and equipment consisted of the following:",
    heading: str = "NOTE 5. PROPERTY, PLANT AND EQUIPMENT",
) -> list:
    return [
        text(heading),
        text(lead_in),
        text("(In millions)"),
        YEARS,
        *COMPONENTS,
        row(total, "6,756", "5,716", cols=WIDE),
        row("Less accumulated depreciation", "(2,437)", "(1,969)", cols=WIDE),
        row(net, "4,319", "3,747", cols=WIDE),
    ]


def test_the_row_above_accumulated_depreciation_is_the_gross_amount(tmp_path: Path) -> None:
    doc = annual(tmp_path / "ppe.pdf", _ppe_note("Total property, plant and equipment, gross", "Total, net"))
    found = read(doc, GROSS_PPE)
    assert found.value == 6756 and found.confidence >= CONFIDENT
    assert read(doc, GROSS_PPE_PRIOR).value == 5716
    # the net field still reads the net row
    doc = annual(
        tmp_path / "ppe_net.pdf",
        _ppe_note("Total property, plant and equipment", "Property, plant and equipment, net"),
    )
    assert read(doc, NET_PPE).value == 4319
    assert read(doc, GROSS_PPE).value == 6756  # a label without "gross" above the deduction


def test_a_bare_total_above_the_deduction_is_read_when_its_table_is_named(tmp_path: Path) -> None:
    named = annual(
        tmp_path / "named.pdf",
        _ppe_note(
            "Total, at cost", "Total, net", "The components of property and equipment were as follows:"
        ),
    )
    found = read(named, GROSS_PPE)
    assert found.value == 6756 and REVIEW_BELOW <= found.confidence < CONFIDENT
    # named only by the net row below the deduction
    below = annual(tmp_path / "below.pdf", _ppe_note("Total", "Property and equipment, net", "Our assets:"))
    assert read(below, GROSS_PPE).value == 6756
    # a table nothing names: its total is no one's
    unnamed = annual(
        tmp_path / "unnamed.pdf",
        _ppe_note("Total", "Total, net", "The balances were as follows:", "NOTE 5. OTHER ASSETS"),
    )
    assert read(unnamed, GROSS_PPE).status is Status.NOT_FOUND


def _unlabeled(
    heading: str, total: tuple[str, str], deducted: tuple[str, str], net_label: str = "Total"
) -> list:
    """A balance-sheet detail note whose total at cost prints figures only, under the block's heading."""
    return [
        text("NOTE 5. SUPPLEMENTAL BALANCE SHEET INFORMATION"),
        text("(In millions)"),
        YEARS,
        text(heading),
        *COMPONENTS,
        row("", *total, cols=WIDE),
        row("Accumulated depreciation", *deducted, cols=WIDE),
        row(net_label, "4,319", "3,747", cols=WIDE),
    ]


def test_an_unlabeled_total_the_deduction_turns_into_the_net_row_is_the_gross_amount(tmp_path: Path) -> None:
    """ "| 6,756 | 5,716" over "Accumulated depreciation | (2,437)" and "Total | 4,319": each column less the
    deduction is the net row's figure, and the block's heading names the line item."""
    doc = annual(tmp_path / "unlabeled.pdf", _unlabeled("Property and equipment, net (a)", ("6,756", "5,716"),
                                                        ("(2,437)", "(1,969)")))  # fmt: skip
    found = read(doc, GROSS_PPE)
    assert found.value == 6756 and found.confidence >= REVIEW_BELOW, found
    assert read(doc, GROSS_PPE_PRIOR).value == 5716
    assert read(doc, NET_PPE).value == 4319  # the net field reads the net row, never the unlabeled one
    # the deduction printed positive, the net row naming the item: the same reading
    less = _unlabeled("Assets", ("6,756", "5,716"), ("2,437", "1,969"), "Property and equipment, net")
    assert read(annual(tmp_path / "less.pdf", less), GROSS_PPE).value == 6756


def test_an_unlabeled_row_that_does_not_net_to_the_row_below_is_not_the_gross_amount(tmp_path: Path) -> None:
    # 6,750 − 2,437 is not 4,319: the figures are not this table's total at cost (a misread, another table's)
    off = annual(
        tmp_path / "off.pdf", _unlabeled("Property and equipment", ("6,750", "5,716"), ("(2,437)", "(1,969)"))
    )
    assert read(off, GROSS_PPE).status is Status.NOT_FOUND
    # a total that nets to its row below, in a table nothing names: no one's
    unnamed = annual(
        tmp_path / "unnamed.pdf", _unlabeled("Other assets", ("6,756", "5,716"), ("(2,437)", "(1,969)"))
    )
    assert read(unnamed, GROSS_PPE).status is Status.NOT_FOUND


def _tax_note(*rows: list) -> list:
    return [
        text("NOTE 9. INCOME TAXES"),
        text("Deferred tax assets comprise the following:"),
        text("(In millions)"),
        YEARS,
        row("Accrued expenses", "280", "260", cols=WIDE),
        row("Tax attributes carryforwards", "930", "810", cols=WIDE),
        *rows,
    ]


def test_the_total_before_the_valuation_allowance_and_never_the_one_after(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "dta.pdf",
        _tax_note(
            row("Total deferred tax assets", "1,210", "1,070", cols=WIDE),
            row("Valuation allowance", "(810)", "(610)", cols=WIDE),
            row("Total deferred tax assets after valuation allowance", "400", "460", cols=WIDE),
        ),
    )
    found = read(doc, GROSS_DTA)
    assert found.value == 1210 and found.confidence >= CONFIDENT
    # the total after the allowance is the net amount: never read for the gross one
    net_total = annual(
        tmp_path / "dta_net.pdf",
        _tax_note(
            row("Valuation allowance", "(810)", "(610)", cols=WIDE),
            row("Total deferred tax assets", "400", "460", cols=WIDE),
        ),
    )
    held = read(net_total, GROSS_DTA)
    assert held.value is None or held.confidence < REVIEW_BELOW, held


def test_a_sentence_naming_the_item_without_its_gross_basis_is_held(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "prose.pdf",
        [
            text("Investing activities"),
            text("Cash used in investing activities was partially offset by proceeds from the sale of"),
            text("property and equipment of $30.5 million."),
        ],
    )
    held = read(doc, GROSS_PPE)
    assert held.value is None or held.confidence < REVIEW_BELOW, held


def test_a_scale_caption_wrapped_from_the_lead_in_scales_the_table(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "wrapped.pdf",
        [
            text("The following is a summary of property and equipment, less accumulated depreciation (in"),
            text("thousands):"),
            YEARS,
            *COMPONENTS,
            row("Total", "6,756", "5,716", cols=WIDE),
            row("Less: Accumulated depreciation", "(2,437)", "(1,969)", cols=WIDE),
            row("Property and equipment, net", "4,319", "3,747", cols=WIDE),
        ],
    )
    found = read(doc, GROSS_PPE)
    assert found.value == pytest.approx(6.756) and found.scale == 1000.0


FINISHED_GOODS = (
    "Finished goods inventories (inventory note) at the end of the fiscal year of the report, in USD millions"
)


@pytest.mark.parametrize(
    ("lead", "total"),
    [
        ("At the end of fiscal years 2023 and 2022, inventories were comprised of:", "Total"),
        ("The components were as follows:", "Total inventories"),
    ],
)
def test_a_component_row_leaves_the_item_noun_to_its_table(tmp_path: Path, lead: str, total: str) -> None:
    doc = annual(
        tmp_path / "inventories.pdf",
        [
            text(lead),
            text("(In millions)"),
            YEARS,
            row("Raw materials", "2,070", "1,592", cols=WIDE),
            row("Work in process", "1,700", "2,287", cols=WIDE),
            row("Finished goods", "8,713", "6,508", cols=WIDE),
            row(total, "12,483", "10,387", cols=WIDE),
        ],
    )
    found = read(doc, FINISHED_GOODS)
    assert found.value == 8713 and REVIEW_BELOW <= found.confidence < CONFIDENT


def test_a_component_row_of_a_table_about_something_else_names_nothing(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "commitments.pdf",
        [
            text("Purchase commitments were as follows:"),
            text("(In millions)"),
            YEARS,
            row("Raw materials", "270", "192", cols=WIDE),
            row("Finished goods", "713", "508", cols=WIDE),
            row("Total", "983", "700", cols=WIDE),
        ],
    )
    assert read(doc, FINISHED_GOODS).status is Status.NOT_FOUND


def test_a_summary_with_the_liabilities_between_the_assets_and_the_allowance(tmp_path: Path) -> None:
    """ "Deferred tax assets / Deferred tax liabilities / Valuation allowance / Net deferred tax assets/(liabilities)":
    the assets row is the gross amount the allowance is taken from; with no net row closing the summary, the
    assets row states no gross basis and is held."""
    summary = [
        row("Deferred tax assets", "$12,310", "$11,250", cols=WIDE),
        row("Deferred tax liabilities", "(9,300)", "(8,970)", cols=WIDE),
        row("Valuation allowance", "(3,170)", "(2,420)", cols=WIDE),
    ]
    net = row("Net deferred tax assets/(liabilities)", "($160)", "($140)", cols=WIDE)
    found = read(annual(tmp_path / "summary.pdf", _tax_note(*summary, net)), GROSS_DTA)
    assert found.status is Status.FOUND and found.value == 12310 and found.confidence >= REVIEW_BELOW, found
    held = read(annual(tmp_path / "open.pdf", _tax_note(*summary)), GROSS_DTA)
    assert held.value is None or held.confidence < REVIEW_BELOW, held


RAW_MATERIALS = (
    "Raw materials (and supplies) inventories (inventory note) at the end of the fiscal year of the report, in USD"
    " millions"
)


def test_a_name_extended_in_parentheses_names_the_longer_row(tmp_path: Path) -> None:
    """ "Raw materials (and supplies) inventories": "(and supplies)" is more of the name, not a name of its own
    ("and supplies"), so "Raw materials and supplies" above "Total inventories" is the row; a "Supplies" row
    is not."""
    assert description_heads(RAW_MATERIALS)[:2] == [
        "Raw materials inventories",
        "Raw materials and supplies inventories",
    ]
    named = field_labels("raw_materials_inventory", RAW_MATERIALS).primary
    assert "rawmaterialsandsuppliesinventories" in named and "andsuppliesinventories" not in named
    rows = [
        text("At the end of fiscal years 2023 and 2022, inventories were comprised of:"),
        text("(In millions)"),
        YEARS,
        row("Raw materials and supplies", "2,070", "1,592", cols=WIDE),
        row("Finished goods", "8,713", "6,508", cols=WIDE),
        row("Total inventories", "10,783", "8,100", cols=WIDE),
    ]
    found = read(annual(tmp_path / "raw.pdf", rows), RAW_MATERIALS)
    assert found.value == 2070 and found.confidence >= REVIEW_BELOW, found
    rows[3] = row("Supplies", "2,070", "1,592", cols=WIDE)
    held = read(annual(tmp_path / "supplies.pdf", rows), RAW_MATERIALS)
    assert held.value is None or held.confidence < REVIEW_BELOW, held
