"""Per-share dividends by year and span, on pages drawn here: a list of dividends paired "respectively"
with its years (in a sentence, or in an equity statement row's label) read for the asked year; a
quarterly dividend is not the year's, and a dividend named for the next fiscal year is not the report's;
a label that leaves "declared" unsaid names the dividends declared per share, one that says "paid" does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.text.statement_context import head_cover
from tests.test_periods import row, text
from tests.test_statement_labels import annual, millions_page, read

DPS = "Cash dividends declared per common share for the fiscal year of the report"
DPS_PRIOR = "Cash dividends declared per common share for the prior fiscal year"
QUARTERLY = "Quarterly cash dividend per common share declared (or maintained) as stated in the filing"


THREE = (430.0, 500.0, 570.0)  # right edges of a three-year statement's columns


def _dps(doc, description: str):
    return read(doc, description, unit="USD/share", scale=1.0)


def _dividends_note(path: Path, *sentences: str):
    """A 10-K page under a "Dividends" heading, one sentence line after another."""
    return annual(path, [text("Dividends"), *(text(t) for t in sentences)])


def _equity_statement() -> list:
    return [
        text("CONSOLIDATED STATEMENTS OF SHAREHOLDERS' EQUITY"),
        text("(In millions, except per share data)"),
        row("Year Ended December 31,", "2023", "2022", "2021", cols=THREE),
        row("Balance at beginning of year", "40,000", "38,500", "37,000", cols=THREE),
        row("Net income", "9,000", "8,100", "7,700", cols=THREE),
        row(
            "Dividends (per share — $2.10, $1.96 and $1.84 in 2023, 2022 and 2021, respectively)",
            "(6,300)",
            "(5,900)",
            "(5,600)",
            cols=THREE,
        ),
        row("Balance at end of year", "42,700", "40,700", "39,100", cols=THREE),
    ]


def test_a_row_label_listing_the_years_dividends_gives_each_year_its_own(tmp_path: Path) -> None:
    doc = annual(tmp_path / "equity.pdf", _equity_statement())
    now, prior = _dps(doc, DPS), _dps(doc, DPS_PRIOR)
    assert now.value == pytest.approx(2.10) and now.confidence >= CONFIDENT, now
    assert prior.value == pytest.approx(1.96) and prior.confidence >= CONFIDENT, prior


def test_a_footnote_listing_the_years_dividends_is_read_by_year(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "note.pdf",
        [
            text("Capital Stock"),
            text("(a) Cash dividends declared per common share were $4.5250, $4.2475 and $4.0225 for 2023,"),
            text("2022 and 2021, respectively. We repurchased 6 million shares in 2023."),
        ],
    )
    prior = _dps(doc, DPS_PRIOR)
    assert prior.value == pytest.approx(4.2475) and prior.confidence >= CONFIDENT, prior
    two_back = _dps(
        doc, "Cash dividends declared per common share for the fiscal year two years before the report"
    )
    assert two_back.value == pytest.approx(4.0225), two_back


def test_a_quarterly_dividend_is_not_the_years_dividends_per_share(tmp_path: Path) -> None:
    doc = _dividends_note(
        tmp_path / "dividend.pdf",
        "On February 1, 2024, the Board of Directors declared a quarterly dividend of $1.15 per share,",
        "payable March 31, 2024, to shareholders of record on March 1, 2024.",
    )
    year = _dps(doc, DPS)
    assert year.value is None or year.confidence < CONFIDENT, year
    quarter = _dps(doc, QUARTERLY)
    assert quarter.value == pytest.approx(1.15) and quarter.confidence >= CONFIDENT, quarter


def test_the_next_fiscal_years_dividend_is_not_the_reports(tmp_path: Path) -> None:
    doc = _dividends_note(
        tmp_path / "approved.pdf",
        "In February 2024, the Board of Directors approved the fiscal 2024 annual dividend of $2.28 per",
        "share, an increase over the fiscal 2023 annual dividend of $2.24 per share.",
    )
    year = _dps(doc, DPS)
    assert year.value == pytest.approx(2.24) and year.confidence >= CONFIDENT, year


@pytest.mark.parametrize(
    ("label", "names"),
    [
        ("Total cash dividends per share", True),
        ("Dividends per common share", True),
        ("Cash dividends declared per share", True),
        ("Dividends paid per share", False),  # the other stage: declared in December, paid in January
        ("Cash dividends declared", False),  # the amount, not per share
    ],
)
def test_a_label_may_leave_the_dividends_stage_unsaid(label: str, names: bool) -> None:
    assert (head_cover(label, DPS) > 0) is names


def test_a_per_share_table_row_without_the_word_declared(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "dividends.pdf",
        millions_page(
            "The following table presents our dividend activity for each of the past three fiscal years:",
            ("2023", "2022"),
            ("Regular quarterly cash dividends per share", "$ 1.12", "$ 0.92"),
            ("Special cash dividends per share", "0.45", "0.51"),
            ("Total cash dividends per share", "$ 1.57", "$ 1.43"),
            ("Cash dividends declared and paid", "$ 505", "$ 499"),
        ),
    )
    prior = _dps(doc, DPS_PRIOR)
    assert prior.value == pytest.approx(1.43) and prior.confidence >= CONFIDENT, prior
