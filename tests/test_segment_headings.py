"""One segment's heading in a discussion of results ("Northern Segment") makes the tables under it, on its
page, that segment's: the consolidated table's operating margin is the company's, not one of the segments'
that repeat its row names. The heading's scope ends with its page."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.semantics import statement_scope
from tests.test_periods import text
from tests.test_statement_labels import annual, millions_page, read

MARGIN = (
    "Operating margin (operating income as a percentage of revenue) for the fiscal year of the report, as "
    "printed by the filing, in percent"
)
OPERATING_CASH = (
    "Net cash provided by operating activities for the fiscal year of the report, in USD millions"
)


def _results(title: str, sales: str, income: str, margin: str) -> list:
    return millions_page(
        title,
        ("2023", "2022"),
        ("Net sales", sales, "300,000"),
        ("Operating income", income, "17,000"),
        ("Operating income as a percentage of net sales", margin, "5.8%"),
    )


def test_segment_tables_under_their_headings_are_not_the_company_figure(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "mdna.pdf",
        [
            *_results("Consolidated Results of Operations", "495,761", "20,437", "4.1%"),
            text("Northern Segment"),
            *_results("Fiscal Years Ended December 31,", "318,477", "17,869", "5.6%"),
        ],
        [
            text("Southern Club Segment"),
            *_results("Fiscal Years Ended December 31,", "59,216", "982", "1.7%"),
        ],
        millions_page(
            "Liquidity and Capital Resources",
            ("2023", "2022"),
            ("Net cash provided by operating activities", "28,337", "31,673"),
            ("Payments for property and equipment", "(10,051)", "(10,619)"),
        ),
    )
    margin = read(doc, MARGIN, type="percent", unit="%", scale=1.0)
    assert margin.value == pytest.approx(4.1) and margin.confidence >= CONFIDENT, margin
    # the page after a segment's heading is no longer that segment's
    cash = read(doc, OPERATING_CASH)
    assert cash.value == 28_337 and cash.confidence >= CONFIDENT, cash


@pytest.mark.parametrize(
    ("line", "scope"),
    [
        ("Walmart U.S. Segment", "segment heading"),
        ("Sam's Club Segment", "segment heading"),
        ("International Segment Results", "segment heading"),
        ("Results by segment", None),
        ("The segment grew in all regions", None),
    ],
)
def test_segment_heading_lines(line: str, scope: str | None) -> None:
    assert statement_scope(line) == scope


def test_prose_after_a_segment_heading_is_still_the_company_s(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "business.pdf",
        [
            text("Global Services Segment"),
            text("Global Services provides services to our commercial and defense customers worldwide."),
            text("Employees"),
            text("Total workforce level at December 31, 2023 was approximately 153,000."),
        ],
        [
            text(
                "Approximately 54,000 employees, which constitute 35% of our total workforce, were union represented."
            )
        ],
    )
    employees = read(
        doc,
        "Number of employees at the end of the fiscal year of the report, as stated in the filing",
        type="integer",
        unit="persons",
        scale=1.0,
    )
    assert employees.value == 153_000 and employees.confidence >= 0.8, employees
