"""The weighted-average share count behind earnings per share, on income statements drawn here under the
headings statements print it with: "Average shares outstanding", "Shares used in per share calculation",
"Weighted-average shares used to compute net loss per share attributable to common stockholders", and a
row of its own "Weighted average shares of common stock outstanding, including dilutive effect". None named
a field described as the "Weighted-average number of diluted shares outstanding": only "Weighted-average
shares outstanding" did. The per-share amounts' "Diluted" row and the basic count are never read for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import REVIEW_BELOW
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import read

COLS = (455.0, 510.0, 565.0)
DILUTED = "Weighted-average number of diluted shares outstanding for the fiscal year of the report, in millions of shares"
BASIC = "Weighted-average number of basic shares outstanding for the fiscal year of the report, in millions of shares"


def _sub(label: str, *values: str) -> list:
    return [(84, label, "l"), *((x, v, "r") for x, v in zip(COLS, values, strict=True))]


def _statement(heading: list[list]) -> list[list]:
    return [
        text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
        row("(In millions, except per share amounts)", "2023", "2022", "2021", cols=COLS),
        row("Net revenue", "4,319", "3,991", "5,506", cols=COLS),
        row("Net loss", "$ (660)", "$ (403)", "$ (83)", cols=COLS),
        text("Net loss per share"),
        _sub("Basic", "$ (0.84)", "$ (0.53)", "$ (0.11)"),
        _sub("Diluted", "$ (0.85)", "$ (0.54)", "$ (0.12)"),
        *heading,
    ]


@pytest.mark.parametrize(
    "heading",
    [
        "Average shares outstanding (Notes 1 and 15)",
        "Shares used in per share calculation",
        "Weighted-average shares used to compute net loss per share attributable to common|stockholders:",
    ],
)
def test_the_diluted_row_under_a_share_count_heading(tmp_path: Path, heading: str) -> None:
    wrapped = [text(part) for part in heading.split("|")]  # a long heading wraps onto a second line
    block = [*wrapped, _sub("Basic", "783", "768", "754"), _sub("Diluted", "791", "772", "760")]
    doc = view(draw(tmp_path / "is.pdf", [_statement(block)]), year=2023, doctype="10-K")
    diluted = read(doc, DILUTED, unit="shares")
    assert (diluted.value, diluted.confidence >= REVIEW_BELOW) == (791, True), diluted
    basic = read(doc, BASIC, unit="shares")
    assert (basic.value, basic.confidence >= REVIEW_BELOW) == (783, True), basic


def test_a_share_count_row_including_dilutive_effect(tmp_path: Path) -> None:
    """An earnings-per-share note: the count is a row of the "Diluted Earnings Per Common Share:" block,
    whose amounts per share are refused for any field that is not per share; its count is not."""
    block = [
        text("Diluted Earnings Per Common Share:"),
        _sub("Net income attributable to common shareholders", "$ 1,935", "$ (10,192)", "$ 10,941"),
        _sub("Weighted average shares of common stock outstanding", "1,221", "1,219", "1,218"),
        _sub("Effect of dilutive equity awards", "3", "—", "10"),
        _sub("Weighted average shares of common stock outstanding, including dilutive effect", "1,224", "1,219",
             "1,228"),
        _sub("Net earnings/(loss)", "$ 1.58", "$ (8.36)", "$ 8.91"),
    ]  # fmt: skip
    doc = view(draw(tmp_path / "is.pdf", [_statement(block)]), year=2023, doctype="10-K")
    diluted = read(doc, DILUTED, unit="shares")
    assert (diluted.value, diluted.confidence >= REVIEW_BELOW) == (1224, True), diluted


def test_a_dash_between_the_count_and_its_basis(tmp_path: Path) -> None:
    """ "AVERAGE SHARES OUTSTANDING — DILUTED": the em dash made the label not English, and it was matched
    letter for letter only."""
    block = [
        row("AVERAGE SHARES OUTSTANDING — BASIC", "4,272", "4,317", "4,352", cols=COLS),
        row("Effect of dilutive securities", "52", "50", "53", cols=COLS),
        row("AVERAGE SHARES OUTSTANDING — DILUTED", "4,324", "4,367", "4,405", cols=COLS),
    ]
    doc = view(draw(tmp_path / "is.pdf", [_statement(block)]), year=2023, doctype="10-K")
    diluted = read(doc, DILUTED, unit="shares")
    assert (diluted.value, diluted.confidence >= REVIEW_BELOW) == (4324, True), diluted


def test_no_share_count_printed_is_not_found(tmp_path: Path) -> None:
    """Only per-share amounts: their "Diluted" row is not the count."""
    doc = view(draw(tmp_path / "is.pdf", [_statement([])]), year=2023, doctype="10-K")
    diluted = read(doc, DILUTED, unit="shares")
    assert diluted.value is None or diluted.confidence < REVIEW_BELOW, diluted
