"""Which line a description names and how its figure is signed and scaled, on pages drawn here: an
"attributable to" clause in parentheses asks the company's share, also where the row's label wraps after
"ATTRIBUTABLE TO"; "(net of tax)" is a basis, not another name of the line; "Currency translation
adjustments" is the foreign currency translation line; an amount paid out (capital expenditures) is negative
where the description says outflows are, however a discussion table prints it; a store count in a "$ in
millions" table is counted one by one, and its block's bare "Total" row is the count; a sentence is not the
balance sheet line a description names when the balance sheet is printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.text.statement_context import description_heads, head_cover
from tests.test_periods import row, text
from tests.test_statement_labels import WIDE, annual, millions_page, read

COMPREHENSIVE = (
    "Total comprehensive income (attributable to the company) for the prior fiscal year, in USD millions"
)
TRANSLATION = (
    "Foreign currency translation adjustment in other comprehensive income (net of tax) for the fiscal year of "
    "the report, in USD millions (a loss is negative)"
)
CAPEX_TWO_BACK = (
    "Capital expenditures (purchases of property, plant and equipment) for the fiscal year two years before the "
    "report, in USD millions (an outflow is negative)"
)
THREE = (430.0, 500.0, 570.0)  # right edges of a three-year table's columns
CAPEX_UNSIGNED = "Capital expenditures for the fiscal year two years before the report, in USD millions"
STORES = (
    "Number of stores (retail locations) the company operated at the end of the fiscal year of the report"
)
DEFERRED_TAX_ASSETS = (
    "Deferred income tax assets (the noncurrent balance sheet line) at the end of the fiscal year of the report, "
    "in USD millions"
)


def _comprehensive(wrapped: bool) -> list:
    owners = (
        [
            row("TOTAL COMPREHENSIVE INCOME ATTRIBUTABLE TO"),
            row("SHAREOWNERS OF ACME INC.", "$ 5,496", "$ 2,148", cols=WIDE),
        ]
        if wrapped
        else [row("Comprehensive income attributable to Acme Inc.", "$ 5,496", "$ 2,148", cols=WIDE)]
    )
    return [
        text("CONSOLIDATED STATEMENTS OF COMPREHENSIVE INCOME"),
        text("(In millions)"),
        row("", "2023", "2022", cols=WIDE),
        row("Net income", "6,550", "1,283", cols=WIDE),
        row("Net foreign currency translation adjustment", "(626)", "861", cols=WIDE),
        row("Total comprehensive income", "5,506", "2,221", cols=WIDE),
        row(
            "Less: Comprehensive income attributable to noncontrolling interests",
            "10",
            "73",
            cols=WIDE,
        ),
        *owners,
    ]


@pytest.mark.parametrize("wrapped", [False, True])
def test_the_company_s_comprehensive_income_asked_in_parentheses(tmp_path: Path, wrapped: bool) -> None:
    # the prior year is the second column: 2,148 under 2022
    doc = annual(tmp_path / "oci.pdf", _comprehensive(wrapped))
    got = read(doc, COMPREHENSIVE, name="comprehensive_income_prior_year")
    assert got.value == 2148 and got.confidence >= CONFIDENT, got


def test_net_of_tax_is_a_basis_not_a_name() -> None:
    assert description_heads(TRANSLATION) == ["Foreign currency translation adjustment"]
    assert head_cover("TAXES", TRANSLATION) == 0.0
    for label in (
        "Currency translation adjustments",
        "Foreign currency translation",
        "Net currency translation adjustment",
    ):
        assert head_cover(label, TRANSLATION) > 0, label
    for label in ("Cumulative foreign currency translation adjustment", "Foreign currency translation gains"):
        assert head_cover(label, TRANSLATION) == 0.0, label


def test_the_translation_line_under_another_name(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "translation.pdf",
        millions_page(
            "CONSOLIDATED STATEMENTS OF COMPREHENSIVE INCOME",
            ("2023", "2022"),
            ("Net earnings", "10,460", "8,458"),
            ("Currency translation adjustments", "(86)", "128"),
            ("Other comprehensive income/(loss), net of tax", "1,290", "247"),
        ),
        [text("EARNINGS BEFORE INTEREST AND"), row("TAXES", "$ 6,201", "$ 6,651", cols=WIDE)],
    )
    got = read(doc, TRANSLATION)
    assert got.value == -86 and got.confidence >= CONFIDENT, got


def test_an_amount_paid_out_is_negative_where_the_description_says_outflows_are(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "capex.pdf",
        [
            text("Capital Expenditures"),
            text("(In millions)"),
            row("", "2023", "2022", "2021", cols=THREE),
            row("Capital expenditures", "$ 1,675", "$ 2,262", "$ 2,553", cols=THREE),
        ],
    )
    got = read(doc, CAPEX_TWO_BACK)
    assert got.value == -2553 and got.confidence >= CONFIDENT, got
    # a description that states no sign convention, or one for printed signs only, keeps the printed figure
    plain = read(doc, CAPEX_UNSIGNED)
    assert plain.value == 2553, plain
    printed = read(doc, f"{CAPEX_UNSIGNED} (an outflow in parentheses is negative)")
    assert printed.value == 2553, printed


def test_a_store_count_in_a_money_table_is_its_blocks_total(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "highlights.pdf",
        [
            text("Five-Year Financial Highlights"),
            text("$ in millions, except per share amounts"),
            row("Fiscal Year", "2023", "2022", "2021", cols=THREE),
            row("Revenue", "$ 42,879", "$ 42,151", "$ 39,403", cols=THREE),
            row("Total assets", "$ 12,901", "$ 13,049", "$ 13,856", cols=THREE),
            text("Number of stores"),
            row("Domestic", "1,026", "1,298", "1,369", cols=THREE),
            row("International", "212", "216", "212", cols=THREE),
            row("Total", "1,238", "1,514", "1,581", cols=THREE),
            text("Retail square footage (in thousands)"),
            row("Domestic", "39,500", "40,360", "41,039", cols=THREE),
            row("Total", "44,107", "44,962", "45,550", cols=THREE),
        ],
    )
    got = read(doc, STORES, type="integer", unit="stores", scale=1.0)
    assert got.value == 1238 and got.confidence >= REVIEW_BELOW, got


def test_a_sentence_is_not_the_balance_sheet_line_it_names(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "dta.pdf",
        [
            text("Critical Accounting Estimates"),
            text("The Company had deferred income tax assets of $12,301 million at December 31, 2023 that"),
            text("can be used to offset taxable income in future years."),
        ],
        millions_page(
            "CONSOLIDATED STATEMENTS OF FINANCIAL POSITION",
            ("2023", "2022"),
            ("Cash and cash equivalents", "14,614", "8,052"),
            ("Deferred income taxes", "63", "82"),
            ("Total assets", "137,100", "138,552"),
        ),
    )
    got = read(doc, DEFERRED_TAX_ASSETS)
    # the sentence's figure is never read; the statement's "Deferred income taxes" among the assets (closed by
    # "Total assets") is the line, below CONFIDENT as its label leaves "assets" to its block
    assert got.value != 12301 and (got.value is None or got.confidence < REVIEW_BELOW or got.value == 63), got
