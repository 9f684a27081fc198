"""A contractual obligations table's bare "Total" row, on pages drawn here: the sentence introducing the
table is found past a column header spread over the table ("Description of Commitment | Cash Payments Due
During the Year Ending December 31,"), and a paragraph that presents the table ("The following table
summarizes … . To satisfy these obligations, …") introduces it though it ends with a full stop; a total row
under headers naming no period gives the cell adding up the others (the years are the table's rows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from tests.test_note_fields import OBLIGATIONS
from tests.test_periods import row, text
from tests.test_statement_labels import annual, read

COLS = (300.0, 360.0, 420.0, 480.0, 540.0)


def _spread_header(lead: str) -> list:
    return [
        text(lead),
        [
            (72, "Description of Commitment", "l"),
            (250, "Cash Payments Due During the Year Ending December 31,", "l"),
        ],
        row("(In millions)", "2024", "2025", "2026", "Thereafter", "Total", cols=COLS),
        row("Operating Leases", "$ 589", "$ 523", "$ 472", "$ 1,608", "$ 3,192", cols=COLS),
        row("Long-Term Debt", "115", "115", "112", "4,713", "5,055", cols=COLS),
        row("TOTAL", "$ 704", "$ 638", "$ 584", "$ 6,321", "$ 8,247", cols=COLS),
    ]


@pytest.mark.parametrize(
    ("lead", "expected"),
    [
        ("Our significant long-term contractual obligations as of December 31, 2023 are as follows:", 8247),
        ("Our significant purchase commitments as of December 31, 2023 are as follows:", None),
    ],
)
def test_the_lead_in_above_a_header_spread_over_the_table(
    tmp_path: Path, lead: str, expected: int | None
) -> None:
    got = read(annual(tmp_path / "spread.pdf", _spread_header(lead)), OBLIGATIONS)
    if expected is None:
        assert got.value is None or got.confidence < REVIEW_BELOW, got
    else:
        assert got.status is Status.FOUND and got.value == expected, got


def _years_as_rows(paragraph: tuple[str, str]) -> list:
    cols = (330.0, 400.0, 470.0, 540.0)
    return [
        text(paragraph[0]),
        text(paragraph[1]),
        row("(Dollars in Millions)", "Debt", "Interest", "Leases", "Total", cols=cols),
        row("2024", "$ 1,551", "893", "522", "2,966", cols=cols),
        row("2025", "1,392", "843", "401", "2,636", cols=cols),
        row("After 2025", "19,562", "8,772", "1,200", "29,534", cols=cols),
        row("Total", "$ 22,505", "10,508", "2,123", "35,136", cols=cols),
    ]


@pytest.mark.parametrize(
    ("paragraph", "expected"),
    [
        (
            (
                "The following table summarizes our material contractual obligations and their maturities as of",
                "December 31, 2023. To satisfy these obligations, we intend to use cash from operations.",
            ),
            35136,
        ),
        (
            (
                "We expect to meet our contractual obligations from the cash our operations generate.",
                "Our material obligations are described in Note 9 to the consolidated financial statements.",
            ),
            None,
        ),
    ],
)
def test_a_paragraph_presenting_the_table_is_its_lead_in(
    tmp_path: Path, paragraph: tuple[str, str], expected: int | None
) -> None:
    got = read(annual(tmp_path / "rows.pdf", _years_as_rows(paragraph)), OBLIGATIONS)
    if expected is None:
        assert got.value is None or got.confidence < REVIEW_BELOW, got
    else:
        assert got.status is Status.FOUND and got.value == expected and got.confidence >= REVIEW_BELOW, got
