"""A year's change read from a roll-forward, on roll-forwards drawn here: year blocks with one column per
segment and a total column under a year printed alone, dated balances chained one block into the next, one
amount column in thousands, and balances that name the line item ("Goodwill at …"). Decoys: a block whose
columns do not add up, a last column that is no total, two rows naming the change, and a roll-forward of
another line item."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT
from tests.test_periods import row, text
from tests.test_statement_labels import annual, read

ADDED = "Goodwill added by acquisitions during the fiscal year of the report (the goodwill roll-forward), in USD millions"
PRIOR = ADDED.replace(
    "the fiscal year of the report", "the prior fiscal year (the year before the report's fiscal year)"
)
SEGMENTS = (300.0, 380.0, 460.0, 540.0)
ONE = (520.0,)


def _segments(lead: str, total_2023: str = "90") -> list:
    """Two year blocks (2022, then 2023) by segment with a total column, each under its year."""
    return [
        text("NOTE 8 — GOODWILL AND INTANGIBLE ASSETS"),
        text(lead),
        row("", "Americas", "Europe", "Asia", "Total", cols=SEGMENTS),
        text("2022"),
        row("Balance at beginning of year", "$ 1,200", "$ 800", "$ 400", "$ 2,400", cols=SEGMENTS),
        row("Effect of foreign currency translation", "(10)", "(20)", "5", "(25)", cols=SEGMENTS),
        row("Acquisitions", "12", "—", "—", "12", cols=SEGMENTS),
        row("Impairment", "—", "(30)", "—", "(30)", cols=SEGMENTS),
        row("Balance at end of year", "$ 1,202", "$ 750", "$ 405", "$ 2,357", cols=SEGMENTS),
        text("2023"),
        row("Balance at beginning of year", "$ 1,202", "$ 750", "$ 405", "$ 2,357", cols=SEGMENTS),
        row("Effect of foreign currency translation", "8", "(4)", "—", "4", cols=SEGMENTS),
        row("Acquisitions", "—", "60", "30", total_2023, cols=SEGMENTS),
        row("Divestitures", "(2)", "—", "—", "(2)", cols=SEGMENTS),
        row("Balance at end of year", "$ 1,208", "$ 806", "$ 435", "$ 2,449", cols=SEGMENTS),
    ]


LEAD = "The following table shows the changes in the carrying amount of goodwill by segment (in millions):"


def test_the_total_column_of_the_report_year_block(tmp_path: Path) -> None:
    doc = annual(tmp_path / "segments.pdf", _segments(LEAD))
    got = read(doc, ADDED)
    assert got.value == 90 and got.confidence >= CONFIDENT, got
    assert got.evidence is not None and got.evidence.page == 2, got
    got = read(doc, PRIOR)
    assert got.value == 12 and got.confidence >= CONFIDENT, got


def test_chained_dated_balances_and_one_column_in_thousands(tmp_path: Path) -> None:
    """Blocks chained through their dated balances; the 2023 row's label carries its own date."""
    page = [
        text("NOTE 7 — GOODWILL"),
        text("The following table summarizes activity in the carrying value of goodwill (in thousands):"),
        row("Balance at December 31, 2021", "40,267", cols=ONE),
        row("Acquisitions completed during the year ended December 31, 2022", "16,432", cols=ONE),
        row("Balance at December 31, 2022", "56,699", cols=ONE),
        row("Acquisitions completed during the year ended December 31, 2023", "474", cols=ONE),
        row("Balance at December 31, 2023", "57,173", cols=ONE),
    ]
    doc = annual(tmp_path / "chained.pdf", page)
    got = read(doc, ADDED)
    assert got.value == 0.474 and got.confidence >= CONFIDENT, got
    assert read(doc, PRIOR).value == 16.432


def test_balances_named_by_the_line_item(tmp_path: Path) -> None:
    """ "Goodwill at January 1, 2023": the balances name what is rolled forward; no lead-in sentence."""
    cols = (330.0, 410.0, 490.0, 560.0)
    page = [
        text("(Dollars in Millions) Consumer Pharmaceutical MedTech Total"),
        row("Goodwill at December 31, 2022", "$ 9,810", "10,580", "14,856", "35,246", cols=cols),
        row("Goodwill, related to acquisitions", "—", "—", "11,056", "11,056", cols=cols),
        row("Goodwill, related to divestitures", "—", "(9)", "—", "(9)", cols=cols),
        row("Currency translation/other", "(626)", "(396)", "(49)", "(1,071)", cols=cols),
        row("Goodwill at December 31, 2023", "$ 9,184", "10,175", "25,863", "45,222", cols=cols),
    ]
    got = read(annual(tmp_path / "named.pdf", page), ADDED)
    assert got.value == 11_056 and got.confidence >= CONFIDENT, got


def test_a_block_that_does_not_add_up_is_not_read(tmp_path: Path) -> None:
    """The 2023 acquisitions' total printed 95 where its segments and balances make 90."""
    got = read(annual(tmp_path / "typo.pdf", _segments(LEAD, total_2023="95")), ADDED)
    assert got.value is None, got


def test_a_last_column_that_is_no_total_is_not_read(tmp_path: Path) -> None:
    """Three segments and no total: no column holds the company's acquisitions."""
    cols = SEGMENTS[:3]
    page = [
        text(LEAD),
        row("", "Americas", "Europe", "Asia", cols=cols),
        row("Balance as of December 31, 2022", "1,202", "750", "405", cols=cols),
        row("Acquisitions", "—", "60", "30", cols=cols),
        row("Balance as of December 31, 2023", "1,202", "810", "435", cols=cols),
    ]
    got = read(annual(tmp_path / "no_total.pdf", page), ADDED)
    assert got.value is None, got


def test_two_rows_naming_the_change_are_not_read(tmp_path: Path) -> None:
    page = [
        text(LEAD),
        row("Balance as of December 31, 2022", "2,357", cols=ONE),
        row("Acquisitions", "90", cols=ONE),
        row("Acquisitions, net", "(10)", cols=ONE),
        row("Balance as of December 31, 2023", "2,437", cols=ONE),
    ]
    got = read(annual(tmp_path / "two.pdf", page), ADDED)
    assert got.value is None, got


def test_a_roll_forward_of_another_line_item_is_not_read(tmp_path: Path) -> None:
    """The intangible assets' roll-forward adds up too, but its lead-in names no goodwill."""
    lead = "The following table shows the changes in the carrying amount of intangible assets (in millions):"
    got = read(annual(tmp_path / "intangibles.pdf", _segments(lead)), ADDED)
    assert got.value is None, got


OPTIONS_END = "Stock options outstanding at the end of the fiscal year of the report (the option activity table), in millions of options"
OPTIONS_START = OPTIONS_END.replace("at the end of", "at the beginning of")
OPTION_COLS = (330.0, 410.0, 480.0, 560.0)


def _options(
    caption: str,
    changes: tuple[str, ...] = ("Granted", "Exercised", "Forfeited"),
    title: str = "Stock Options",
    counted: str = "Number of stock options outstanding",
) -> list:
    """An option activity table: counts that add up, prices, terms and values that do not."""
    counts = ("1,538,109", "(11,017,713)", "(509,318)")
    prices = ("59.46", "10.54", "60.65")
    return [
        text(title),
        text(caption),
        row("", counted, "Price", "Term", "Value", cols=OPTION_COLS),
        row("Balance at December 31, 2022", "23,619,804", "$ 12.66", "4.89", "$ 1,191,746", cols=OPTION_COLS),
        *(
            row(label, n, p, cols=OPTION_COLS[:2])
            for label, n, p in zip(changes, counts, prices, strict=True)
        ),
        row("Balance at December 31, 2023", "13,630,882", "$ 17.84", "3.84", "$ 2,723,394", cols=OPTION_COLS),
    ]


def test_an_option_roll_forward_closing_and_opening_balance(tmp_path: Path) -> None:
    """The count column adds up; the caption's thousands exempt share data, so the counts are as printed."""
    caption = (
        "A summary of stock option activity is as follows (in thousands, except share and per share data):"
    )
    doc = annual(tmp_path / "options.pdf", _options(caption))
    got = read(doc, OPTIONS_END, unit="shares")
    assert got.value == 13.630882 and got.confidence >= CONFIDENT, got
    got = read(doc, OPTIONS_START, unit="shares")
    assert got.value == 23.619804 and got.confidence >= CONFIDENT, got


def test_a_roll_forward_that_is_not_of_options_is_not_read(tmp_path: Path) -> None:
    """Treasury shares rolled forward, one change row naming options among others: no option balance."""
    caption = "Treasury stock activity was as follows:"
    changes = ("Purchases", "Employee compensation and stock option plans", "Retirements")
    page = _options(caption, changes, title="Treasury Stock", counted="Number of shares")
    got = read(annual(tmp_path / "treasury.pdf", page), OPTIONS_END, unit="shares")
    assert got.value != 13.630882, got


def test_a_liability_roll_forward_is_not_the_cost_of_the_year(tmp_path: Path) -> None:
    """The restructuring liability's "Charges" are only the part of the year's restructuring cost accrued."""
    cols = (400.0, 480.0, 560.0)
    page = [
        text("Our net liability balance for restructuring costs was (in millions):"),
        row("", "Severance", "Other", "Total", cols=cols),
        row("Balance at December 31, 2022", "$ 32", "$ 33", "$ 65", cols=cols),
        row("Charges", "15", "1", "16", cols=cols),
        row("Cash payments", "(21)", "(10)", "(31)", cols=cols),
        row("Balance at December 31, 2023", "$ 26", "$ 24", "$ 50", cols=cols),
    ]
    description = "Restructuring charges recognised in the fiscal year of the report, in USD millions"
    got = read(annual(tmp_path / "liability.pdf", page), description)
    assert got.value is None, got


def test_a_share_roll_forward_is_no_weighted_average(tmp_path: Path) -> None:
    """Shares of common stock rolled forward name shares, but not a year's weighted average of them."""
    caption = "Changes in the number of shares of common stock outstanding were as follows:"
    page = _options(caption, ("Issued", "Repurchased", "Exercises"), title="Common Stock", counted="Shares")
    description = "Basic weighted average shares outstanding for the fiscal year of the report, in millions"
    got = read(annual(tmp_path / "shares.pdf", page), description, unit="shares")
    assert got.value != 13.630882, got
