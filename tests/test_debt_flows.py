"""A cash flow statement's flows of the company's debt under their printed names: "Debt repayments",
"Repayment of borrowings", "Repayments of debt", "Long-term debt payments, including current portion"
are the repayments of long-term debt; "Borrowings of debt", "Proceeds from issuance of debt" the
proceeds. Short-term debt and commercial paper keep their restricting words and are not read for
either."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from tests.test_statement_labels import annual, millions_page, read

REPAYMENTS = (
    "Repayments of long-term debt (principal payments on debt) in the financing activities section of the "
    "cash flow statement for the fiscal year of the report, in USD millions (an outflow in parentheses is "
    "negative)"
)
PROCEEDS = (
    "Proceeds from issuance of long-term debt (new borrowings) in the financing activities section of the "
    "cash flow statement for the fiscal year of the report, in USD millions"
)


def _cash_flows(*financing: tuple[str, ...]) -> list:
    return millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022"),
        ("Net cash provided by operating activities", "2,400", "2,100"),
        ("Capital expenditures", "(700)", "(650)"),
        ("Net cash used in investing activities", "(700)", "(650)"),
        ("Financing activities:",),
        *financing,
        ("Dividends paid", "(300)", "(280)"),
        ("Net cash used in financing activities", "(1,200)", "(900)"),
    )


@pytest.mark.parametrize(
    ("repaid", "borrowed"),
    [
        ("Debt repayments", "Borrowings of debt"),
        ("Repayment of borrowings", "Proceeds from issuance of debt"),
        ("Long-term debt payments, including current portion", "Proceeds from borrowings"),
    ],
)
def test_debt_flows_printed_without_long_term(tmp_path: Path, repaid: str, borrowed: str) -> None:
    doc = annual(
        tmp_path / "cf.pdf",
        _cash_flows(
            ("Repayments of short-term debt", "(50)", "(40)"),
            (repaid, "(1,310)", "(1,500)"),
            (borrowed, "498", "—"),
        ),
    )
    repayments = read(doc, REPAYMENTS)
    assert repayments.value == -1310 and repayments.confidence >= CONFIDENT, repayments
    proceeds = read(doc, PROCEEDS)
    assert proceeds.value == 498 and proceeds.confidence >= CONFIDENT, proceeds


def test_short_term_debt_and_commercial_paper_are_not_long_term_debt(tmp_path: Path) -> None:
    doc = annual(
        tmp_path / "cf.pdf",
        _cash_flows(
            ("Repayments of short-term debt", "(50)", "(40)"),
            ("Repayments of commercial paper", "(900)", "(600)"),
            ("Proceeds from short-term borrowings", "75", "60"),
        ),
    )
    assert read(doc, REPAYMENTS).confidence < CONFIDENT
    assert read(doc, PROCEEDS).confidence < CONFIDENT
