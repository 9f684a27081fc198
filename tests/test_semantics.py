"""Field semantics and plausibility through the table reader, on PDFs drawn here: a per-share amount per
the shares the field asks for, a reading the words around it deny (a headcount from a sentence about
shares, an amount printed as a percentage or after "an increase in"), a parent-only or segment figure
against the consolidated one, a rounded prose figure against the exact table figure, workforce counts
and the auditor where the audit report is signed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import Status, view_from_parse
from mdqa_kernel.readers.base import DocumentView, Evidence, ReadResult, found
from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.readers.plausibility import checked, field_kind, implausibility, reading_implausibility
from mdqa_kernel.readers.semantics import change_before, field_scope, rebase, share_basis, statement_scope
from mdqa_kernel.readers.table.reader import TableReader
from tests._extract_fixtures import table_pdf
from tests._pdfs import text_pdf


def fld(
    description: str, type: str = "number", unit: str | None = None, scale: float = 1.0, name: str = "x"
) -> Any:
    return SimpleNamespace(name=name, type=type, description=description, question="", unit=unit, scale=scale)


def _view(path: Path, year: int = 2023) -> DocumentView:
    return view_from_parse(parse_pdf(path), path.stem, {"year": year})


def _prose(tmp_path: Path, name: str, lines: list[str], cjk: bool = False) -> DocumentView:
    return _view(text_pdf(tmp_path / f"{name}.pdf", [lines], cjk=cjk))


def _read(doc: DocumentView, field: Any) -> ReadResult:
    return TableReader().read(doc, field, "")


# -- 1. the field's unit words ------------------------------------------------------------------------


def test_share_basis_words() -> None:
    assert share_basis("每10股派发现金红利3.50元") == 10 and share_basis("per 10 shares") == 10
    assert share_basis("Diluted earnings per share") == 1 and share_basis("每股收益（元/股）") == 1
    assert share_basis("Total revenue") is None
    assert rebase(3.5, 10, 1) == 0.35 and rebase(0.35, 1, 10) == 3.5 and rebase(3.5, None, 1) == 3.5


def test_a_dividend_per_ten_shares_is_returned_per_the_shares_the_field_asks(tmp_path: Path) -> None:
    doc = _prose(
        tmp_path,
        "plan",
        ["2023年度利润分配预案", "公司利润分配方案：每10股派发现金红利3.50元（含税）。"],
        cjk=True,
    )
    per_ten = _read(doc, fld("每10股派发现金红利（含税）", unit="元/10股"))
    assert per_ten.value == pytest.approx(3.5) and per_ten.confidence >= CONFIDENT  # not divided by ten
    per_share = _read(doc, fld("税前每股股利"))
    assert per_share.value == pytest.approx(0.35)  # converted only when the field asks per share


def test_a_dividend_per_share_is_stated_per_ten_shares_when_asked(tmp_path: Path) -> None:
    doc = _prose(tmp_path, "div", ["The Board declared a quarterly cash dividend of $0.68 per share."])
    assert _read(doc, fld("Cash dividend per 10 shares", unit="USD")).value == pytest.approx(6.8)
    assert _read(doc, fld("Cash dividend per share", unit="USD")).value == pytest.approx(0.68)


def test_percent_unit_and_field_scale(tmp_path: Path) -> None:
    rows = [
        ("INCOME STATEMENTS",),
        ("(In thousands)",),
        ("Gross margin", "82.84%"),
        ("Total revenue", "3,294,978"),
    ]
    doc = _view(table_pdf(tmp_path / "unit.pdf", [rows]))
    assert _read(doc, fld("Gross margin", unit="%")).value == pytest.approx(82.84)  # points, as the unit says
    assert _read(doc, fld("Gross margin")).value == pytest.approx(0.8284)  # a ratio
    millions = _read(doc, fld("Total revenue", unit="USD", scale=1e6))  # the plan keeps it in millions
    assert millions.value == pytest.approx(3294.978)


# -- 2. plausibility by the words around a reading ----------------------------------------------------

EMPLOYEES = fld("Number of employees", type="integer", unit="persons")


def test_a_headcount_read_from_a_sentence_about_shares_needs_review(tmp_path: Path) -> None:
    doc = _prose(tmp_path, "shares", ["Annual report 2023", "Number of employees: 52,000 shares"])
    result = _read(doc, EMPLOYEES)
    assert result.status == Status.FOUND and result.value == 52000  # kept for the reviewer
    assert result.confidence < CONFIDENT and "about shares" in result.message


def test_a_plausible_headcount_wins_over_one_about_shares(tmp_path: Path) -> None:
    doc = _prose(
        tmp_path,
        "both",
        [
            "Employees held 52,000 shares under the plan.",
            "At year end we had approximately 12,500 employees.",
        ],
    )
    result = _read(doc, EMPLOYEES)
    assert result.value == 12500 and result.confidence >= CONFIDENT and "implausible" not in result.message


def test_a_headcount_field_without_count_words_is_a_count_of_people() -> None:
    assert field_kind(fld("Employees", type="number")).name == "people"  # type: ignore[union-attr]
    assert field_kind(fld("Employee benefit costs", type="number", unit="USD")) is None  # money, not people
    assert "count of people" in (implausibility(fld("Total headcount"), 1.7e9) or "")
    assert "whole number" in (implausibility(EMPLOYEES, -12) or "")  # a count is never negative


def test_a_per_share_amount_read_from_a_total_needs_review() -> None:
    eps = fld("Diluted earnings per share", unit="USD")
    assert "not a per-share amount" in (
        reading_implausibility(eps, 72361.0, "72,361", "Net income 72,361") or ""
    )
    assert reading_implausibility(eps, 9.68, "9.68", "Diluted earnings per share $ 9.68 $ 9.65") is None


def test_an_amount_printed_as_a_percentage_needs_review(tmp_path: Path) -> None:
    path = table_pdf(tmp_path / "pct.pdf", [[("Revenue growth table",), ("Total revenue", "18%")]])
    result = _read(_view(path), fld("Total revenue", unit="USD"))
    assert result.status == Status.FOUND and result.confidence < CONFIDENT
    assert "percentage" in result.message


def test_a_change_is_not_the_level(tmp_path: Path) -> None:
    doc = _prose(
        tmp_path, "change", ["In fiscal 2023 we reported an increase in total revenue of $32.5 billion."]
    )
    result = _read(doc, fld("Total revenue", unit="USD"))
    assert result.confidence < CONFIDENT and "change" in result.message
    assert change_before("Revenue increased by $") and change_before("营业收入同比增长")
    assert change_before("Revenue increased 18% to $") is None  # "to" states the level


def test_any_readers_quote_is_checked_for_a_change() -> None:
    """The cascade checks every reader's answer: a model's value quoted after "increased by" needs review,
    the level it quotes does not."""
    revenue = fld("Total revenue", unit="USD")

    def answer(value: float, quote: str) -> ReadResult:
        evidence = Evidence(doc_id="d", page=40, snippet=quote, reader="llm")
        return found("d", "x", "llm", value, scale=1e9, confidence=0.75, evidence=evidence)

    change = checked(
        revenue, answer(32.5e9, "Revenue increased by $32.5 billion, or 18%, to $211.9 billion.")
    )
    assert change.confidence < CONFIDENT and "change" in change.message
    level = checked(
        revenue, answer(211.9e9, "Revenue increased by $32.5 billion, or 18%, to $211.9 billion.")
    )
    assert level.confidence == 0.75 and "implausible" not in level.message


def test_the_level_after_a_change(tmp_path: Path) -> None:
    doc = _prose(tmp_path, "level", ["Total revenue increased 18% to $60.9 billion in the quarter."])
    assert _read(doc, fld("Total revenue", unit="USD")).value == pytest.approx(60.9e9)
    other = _prose(tmp_path, "other", ["Microsoft Cloud revenue increased 22% to $111.6 billion."])
    assert _read(other, fld("Total revenue", unit="USD")).status == Status.NOT_FOUND  # another line item


# -- 3. entity scope ------------------------------------------------------------------------------------


def _statements(tmp_path: Path, pages: list[list[tuple[str, ...]]], cjk: bool = False) -> DocumentView:
    return _view(table_pdf(tmp_path / "statements.pdf", pages, cjk=cjk))


CONSOLIDATED = [("CONSOLIDATED BALANCE SHEETS",), ("(In millions)",), ("Total assets", "411,976")]
PARENT = [("CONDENSED FINANCIAL INFORMATION OF REGISTRANT",), ("(In millions)",), ("Total assets", "98,765")]


def test_scope_titles() -> None:
    assert (
        statement_scope("母公司资产负债表") == "parent"
        and statement_scope("合并资产负债表") == "consolidated"
    )
    assert statement_scope("NOTE 19 — SEGMENT INFORMATION AND GEOGRAPHIC DATA") == "segment"
    assert statement_scope("归属于母公司所有者的净利润 1,234 1,100") is None  # a consolidated line item
    assert statement_scope("二十、补充资料") == "consolidated"  # a section after the parent's notes
    assert statement_scope("一、经营活动产生的现金流量：") is None  # a statement's own numbered row
    assert (
        field_scope(fld("Total assets")) == "consolidated"
        and field_scope(fld("母公司报表营业收入")) == "parent"
    )


@pytest.mark.parametrize("parent_first", [True, False])
def test_a_parent_only_statement_yields_to_the_consolidated_one(tmp_path: Path, parent_first: bool) -> None:
    pages = [PARENT, CONSOLIDATED] if parent_first else [CONSOLIDATED, PARENT]
    result = _read(_statements(tmp_path, pages), fld("Total assets", unit="USD"))
    # before: two equally good readings that differ, halved below CONFIDENT
    assert result.value == pytest.approx(411_976e6) and result.confidence >= CONFIDENT


def test_a_parent_only_figure_alone_is_less_sure(tmp_path: Path) -> None:
    result = _read(_statements(tmp_path, [PARENT]), fld("Total assets", unit="USD"))
    assert result.value == pytest.approx(98_765e6) and result.confidence < CONFIDENT
    assert "parent" in result.message
    asked = _read(_statements(tmp_path, [PARENT, CONSOLIDATED]), fld("Total assets (parent company only)"))
    assert asked.value == pytest.approx(98_765e6)  # a field that asks for the parent gets the parent


def test_chinese_parent_statement_and_segment_note(tmp_path: Path) -> None:
    cn = [
        [("合并资产负债表",), ("单位：元",), ("资产总计", "1,000,000")],
        [("母公司资产负债表",), ("单位：元",), ("资产总计", "500,000")],
    ]
    assert _read(_statements(tmp_path, cn, cjk=True), fld("资产总计")).value == pytest.approx(1_000_000)
    segment = [
        [("NOTE 19 — SEGMENT INFORMATION",), ("(In millions)",), ("Total revenue", "69,274")],
        [("CONSOLIDATED INCOME STATEMENTS",), ("(In millions)",), ("Total revenue", "211,915")],
    ]
    result = _read(_statements(tmp_path, segment), fld("Total revenue", unit="USD"))
    assert result.value == pytest.approx(211_915e6) and result.confidence >= CONFIDENT


# -- 4. prose facts -------------------------------------------------------------------------------------


def test_a_rounded_prose_figure_yields_to_the_exact_table_figure(tmp_path: Path) -> None:
    pages = [
        [("Total revenue was $211.9 billion for the year.",)],
        # two columns under no year header: the table reading alone is weak (0.3)
        [("INCOME STATEMENTS",), ("(In millions)",), ("Total revenue", "211,915", "198,270")],
    ]
    result = _read(_statements(tmp_path, pages), fld("Total revenue", unit="USD"))
    assert result.value == pytest.approx(211_915e6)  # not 211.9e9
    assert result.evidence is not None and result.evidence.page == 2 and "rounds" in result.message


def test_chinese_management_discussion_figures(tmp_path: Path) -> None:
    line = (
        "报告期内，公司实现营业收入123.45亿元，同比增长8.20%；实现归属于上市公司股东的净利润12,345.67万元。"
    )
    doc = _prose(tmp_path, "mda", ["经营情况讨论与分析", line], cjk=True)
    assert _read(doc, fld("营业收入")).value == pytest.approx(123.45e8)
    assert _read(doc, fld("归属于上市公司股东的净利润")).value == pytest.approx(12345.67e4)


def test_a_figure_too_round_names_no_exact_one(tmp_path: Path) -> None:
    pages = [
        [("Total revenue was $4 billion for the year.",)],
        [("INCOME STATEMENTS",), ("(In millions)",), ("Total revenue", "4,294", "3,870")],
    ]
    result = _read(_statements(tmp_path, pages), fld("Total revenue", unit="USD"))
    assert (
        result.value == pytest.approx(4e9) and "rounds" not in result.message
    )  # 4,294 is not "the" $4 billion


def test_scale_words_in_sentences(tmp_path: Path) -> None:
    doc = _prose(tmp_path, "crore", ["Revenue from operations was Rs. 1,234.5 crore in fiscal 2023."])
    assert _read(doc, fld("Revenue from operations")).value == pytest.approx(1234.5e7)
    zh = _prose(tmp_path, "yi", ["报告期内，公司营业收入同比增长8.2%至123.45亿元。"], cjk=True)
    assert _read(zh, fld("营业收入")).value == pytest.approx(123.45e8)


@pytest.mark.parametrize(
    ("sentence", "description", "value"),
    [
        ("As of December 31, 2023, we had approximately 221,000 employees.", "Number of employees", 221000),
        ("As of December 31, 2023, we had approximately 221,000 employees.", "Total headcount", 221000),
        (
            "Our workforce was approximately 2.1 million associates worldwide.",
            "Total number of employees",
            2_100_000,
        ),
    ],
)
def test_english_workforce_counts(tmp_path: Path, sentence: str, description: str, value: int) -> None:
    result = _read(_prose(tmp_path, "staff", ["Human capital", sentence]), fld(description, type="integer"))
    assert result.value == value and result.confidence >= CONFIDENT


def test_a_sentence_that_says_no_workforce_gives_no_headcount(tmp_path: Path) -> None:
    doc = _prose(tmp_path, "served", ["Our stores served 221,000 people every day."])
    assert _read(doc, fld("Number of employees", type="integer")).status == Status.NOT_FOUND


def test_chinese_workforce_count(tmp_path: Path) -> None:
    doc = _prose(
        tmp_path, "yuangong", ["截至报告期末，公司在职员工总数为12,345人，其中研发人员1,234人。"], cjk=True
    )
    result = _read(doc, fld("员工总数", type="integer", unit="人"))
    assert result.value == 12345 and result.confidence >= CONFIDENT


AUDITOR = fld("Independent registered public accounting firm", type="text")
REPORT = [
    "REPORT OF INDEPENDENT REGISTERED PUBLIC ACCOUNTING FIRM",
    "To the Stockholders and the Board of Directors of Acme Corporation",
    "Opinion on the Financial Statements",
    "In our opinion, the financial statements present fairly, in all material respects, ...",
]


def test_the_auditor_from_the_signature_block(tmp_path: Path) -> None:
    doc = _prose(
        tmp_path, "report", [*REPORT, "/s/ Ernst & Young LLP", "Seattle, Washington", "July 27, 2023"]
    )
    result = _read(doc, AUDITOR)
    assert result.value == "Ernst & Young LLP" and result.confidence >= CONFIDENT
    alone = _prose(
        tmp_path, "kpmg", [*REPORT, "KPMG LLP", "We have served as the Company's auditor since 1994."]
    )
    assert _read(alone, fld("Auditor", type="text")).value == "KPMG LLP"


def test_a_signature_in_capitals_reads_as_prose_prints_the_firm(tmp_path: Path) -> None:
    pages = [
        ["Our auditor, Deloitte & Touche LLP, audited the financial statements."],
        [*REPORT, "/s/ DELOITTE & TOUCHE LLP"],
    ]
    assert _read(_view(text_pdf(tmp_path / "caps.pdf", pages)), AUDITOR).value == "Deloitte & Touche LLP"


def test_no_signature_no_auditor(tmp_path: Path) -> None:
    doc = _prose(tmp_path, "ceo", ["SIGNATURES", "/s/ Jane Q. Smith", "Chief Executive Officer"])
    assert _read(doc, AUDITOR).status == Status.NOT_FOUND
    fee = _prose(tmp_path, "fee", [*REPORT, "/s/ Ernst & Young LLP"])
    assert _read(fee, fld("Audit fees paid to the auditor", type="text")).value != "Ernst & Young LLP"


def test_the_chinese_auditor_beside_its_certified_accountants(tmp_path: Path) -> None:
    path = table_pdf(
        tmp_path / "shenji.pdf",
        [
            [
                ("审计报告",),
                ("我们审计了贵公司财务报表。",),
                ("致同会计师事务所（特殊普通合伙）", "中国注册会计师：张三"),
            ]
        ],
        cjk=True,
        columns=(72, 330, 430),
    )
    result = _read(_view(path), fld("审计机构（会计师事务所）", type="text"))
    # typed text is NFKC: the full-width brackets come back half-width
    assert result.value == "致同会计师事务所(特殊普通合伙)" and result.confidence >= CONFIDENT


def test_an_undated_dividend_sentence_is_held_for_review_for_another_year(tmp_path: Path) -> None:
    """ "The Board declared a quarterly dividend of $1.15 per share" names no year: it speaks of the
    report's period, so a field asking the prior year's dividend does not take it as found."""
    doc = _prose(
        tmp_path, "div", ["On February 1, 2024, the Board declared a quarterly dividend of $1.15 per share."]
    )
    prior = _read(doc, fld("Cash dividends declared per common share for the prior fiscal year", unit="USD"))
    assert prior.confidence < REVIEW_BELOW, prior  # held for review by the extraction
    now = _read(doc, fld("Cash dividend per share", unit="USD"))
    assert now.value == pytest.approx(1.15) and now.confidence >= REVIEW_BELOW, now
