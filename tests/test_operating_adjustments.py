"""The operating activities' adjustments of a cash flow statement drawn here: "Change in deferred income
taxes" is the deferred income taxes adjustment where the description places its line in that section (and
never a balance); "Deferred income tax provision/(benefit)" names the deferred income taxes, read as printed
because the field states its sign convention."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT
from tests.test_statement_labels import annual, millions_page, read

ADJUSTMENT = (
    "Deferred income taxes in the operating activities section of the cash flow statement for the fiscal "
    "year of the report, as printed (a figure in parentheses is negative), in USD millions"
)


def _cash_flows(*adjustments: tuple[str, ...]) -> list:
    return millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022"),
        ("Cash flows from operating activities:",),
        ("Net income", "1,930", "1,810"),
        ("Adjustments to reconcile net income to net cash provided by operating activities:",),
        ("Depreciation and amortization", "640", "611"),
        *adjustments,
        ("Accounts receivable", "(120)", "(88)"),
        ("Net cash provided by operating activities", "2,150", "2,402"),
    )


def test_a_change_named_adjustment_is_the_adjustment(tmp_path: Path) -> None:
    doc = annual(tmp_path / "c.pdf", _cash_flows(("Change in deferred income taxes", "(8,016)", "(1,376)")))
    res = read(doc, ADJUSTMENT)
    assert (res.status, res.value) == ("found", -8016)
    assert res.confidence >= CONFIDENT


def test_a_change_row_is_never_the_balance(tmp_path: Path) -> None:
    doc = annual(tmp_path / "b.pdf", _cash_flows(("Change in deferred income taxes", "(8,016)", "(1,376)")))
    res = read(
        doc, "Deferred income taxes (balance sheet liability) at the end of the fiscal year, in USD millions"
    )
    assert res.status == "not_found"


def test_the_deferred_part_of_the_tax_provision_is_the_deferred_income_taxes(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "p.pdf", _cash_flows(("Deferred income tax provision/(benefit)", "(293)", "(1,967)"))
    )
    res = read(doc, ADJUSTMENT)
    # a row named by both signs, for a field that says a figure in parentheses is negative: as printed
    assert res.value == -293 and res.confidence >= CONFIDENT, res
