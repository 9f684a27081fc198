"""Statement context in the table reader: a row's section (changes block, per-share block, a heading
above "Basic"/"Diluted") and how specific its label is (a component vs the total, "attributable to
the company" vs the whole or the noncontrolling share) — on statements this test draws."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import view_from_parse
from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.table.reader import TableReader
from mdqa_kernel.text.statement_context import (
    asked_statement,
    description_heads,
    specificity,
    statement_title,
)
from tests.test_periods import draw, row, text, view  # drawn statements with free layouts

# (indent in points, label, current-year value, prior-year value); a row without values is a heading
Line = tuple[float, str, str, str]


def statement_pdf(path: Path, pages: list[list[Line]]) -> Path:
    """Statements with indented labels and two year columns (2022, 2021), in millions."""
    c = canvas.Canvas(str(path), pagesize=A4)
    for lines in pages:
        c.setFont("Helvetica", 10)
        c.drawString(72, 800, "(In millions, except per share amounts)")
        c.drawRightString(400, 784, "2022")
        c.drawRightString(500, 784, "2021")
        y = 766.0
        for indent, label, cur, prior in lines:
            c.drawString(72 + indent, y, label)
            if cur:
                c.drawRightString(400, y, cur)
                c.drawRightString(500, y, prior)
            y -= 16
        c.showPage()
    c.save()
    return path


def fld(name: str, description: str, unit: str | None = "USD", scale: float = 1e6):
    return SimpleNamespace(
        name=name, type="number", description=description, question="", unit=unit, scale=scale
    )


def read(path: Path, field: SimpleNamespace):
    doc = view_from_parse(parse_pdf(path), path.stem, {"year": 2022})
    return TableReader().read(doc, field, "")


INVENTORIES = fld("inventories", "Inventories at the end of the fiscal year of the report, in USD millions")
NET_INCOME = fld(
    "net_income", "Net income attributable to the company for the fiscal year of the report, in USD millions"
)
DILUTED = fld(
    "diluted_eps",
    "Diluted earnings per share attributable to the company for the fiscal year of the report",
    unit="USD/share",
    scale=1.0,
)
REVENUE = fld("total_revenue", "Total revenue (net sales) for the fiscal year of the report, in USD millions")


def test_a_change_row_is_not_the_balance(tmp_path):
    cash_flow = [
        (0, "Cash flows from operating activities:", "", ""),
        (10, "Net income", "500", "400"),
        (10, "Changes in operating assets and liabilities:", "", ""),
        (20, "Inventories", "(37)", "(24)"),
        (20, "Accounts payable", "12", "8"),
        (0, "Net cash provided by operating activities", "475", "384"),
    ]
    only_changes = read(statement_pdf(tmp_path / "cf.pdf", [cash_flow]), INVENTORIES)
    # a change of inventories is no balance of them: the table rows give nothing (a prose reading of
    # the line may remain, never confident)
    assert not only_changes.message.startswith("table") and only_changes.confidence < 0.8
    balance = [(0, "Current assets:", "", ""), (10, "Inventories", "5,140", "5,965")]
    both = read(statement_pdf(tmp_path / "both.pdf", [cash_flow, balance]), INVENTORIES)
    assert both.value == pytest.approx(5140) and both.confidence >= 0.8


def test_a_per_share_block_is_not_the_amount(tmp_path):
    highlights = [
        (0, "Statement of Earnings Data", "", ""),
        (10, "Revenue", "39,403", "39,528"),
        (10, "Net earnings attributable to the company shareholders", "1,228", "897"),
        (0, "Per Share Data", "", ""),
        (10, "Net earnings", "3.81", "2.56"),
    ]
    income = read(statement_pdf(tmp_path / "hl.pdf", [highlights]), NET_INCOME)
    assert income.value == pytest.approx(1228) and income.confidence >= 0.8


def test_a_short_row_reads_under_its_heading(tmp_path):
    statement = [
        (0, "Net income", "5,070", "6,046"),
        (0, "Earnings per common share:", "", ""),
        (10, "Basic", "3.27", "3.83"),
        (10, "Diluted", "3.23", "3.75"),
        (0, "Weighted average common shares outstanding:", "", ""),
        (10, "Basic", "1,551.6", "1,578.8"),
        (10, "Diluted", "1,569.8", "1,610.8"),
    ]
    eps = read(statement_pdf(tmp_path / "eps.pdf", [statement]), DILUTED)
    assert eps.value == pytest.approx(3.23) and eps.confidence >= 0.8


def test_attributable_to_the_company_beats_the_whole_and_never_the_noncontrolling_share(tmp_path):
    statement = [
        (0, "Net income", "8,978", "7,679"),
        (0, "Less: Net income attributable to noncontrolling interests", "68", "61"),
        (0, "Net Income Attributable to Acme", "8,910", "7,618"),
    ]
    path = statement_pdf(tmp_path / "ni.pdf", [statement])
    assert read(path, NET_INCOME).value == pytest.approx(8910)
    whole = fld(
        "net_income_including_noncontrolling",
        "Net income including the part attributable to noncontrolling interests, in USD millions",
    )
    assert read(path, whole).value == pytest.approx(8978)


def test_a_component_is_not_the_total(tmp_path):
    statement = [
        (0, "Revenue:", "", ""),
        (10, "Transaction-based revenue", "3,294", "3,081"),
        (10, "Hardware revenue", "91", "84"),
        (20, "Total net revenue", "9,497", "4,713"),
    ]
    revenue = read(statement_pdf(tmp_path / "rev.pdf", [statement]), REVENUE)
    assert revenue.value == pytest.approx(9497) and revenue.confidence >= 0.8


def test_operating_revenues_are_the_top_line(tmp_path):
    """Utilities, carriers and bottlers print their top line as "(Net) operating revenues": the total
    revenue, while "Other operating revenues" stays a component and "Operating income" another item."""
    statement = [
        (0, "Net operating revenues", "35,410", "41,863"),
        (10, "Other operating revenues", "410", "863"),
        (0, "Operating income", "7,501", "8,626"),
        (0, "Net income", "1,248", "6,527"),
    ]
    path = statement_pdf(tmp_path / "top.pdf", [statement])
    revenue = read(path, REVENUE)
    assert revenue.value == pytest.approx(35_410) and revenue.confidence >= CONFIDENT
    assert read(path, NET_INCOME).value == pytest.approx(1_248)
    assert specificity("Other operating revenues", REVENUE.description) < 0.7


def test_a_share_basis_in_parentheses_names_the_row(tmp_path):
    """ "Net earnings per share (Diluted)": the parenthesised basis is part of the line's name."""
    statement = [
        (0, "Net earnings", "3,520", "4,736"),
        (0, "Net earnings per share (Basic)", "1.34", "1.79"),
        (0, "Net earnings per share (Diluted)", "1.33", "1.77"),
    ]
    path = statement_pdf(tmp_path / "eps.pdf", [statement])
    diluted = read(path, DILUTED)
    assert diluted.value == pytest.approx(1.33) and diluted.confidence >= CONFIDENT
    basic = fld(
        "basic_eps", "Basic earnings per share for the fiscal year of the report", unit="USD/share", scale=1.0
    )
    assert read(path, basic).value == pytest.approx(1.34)


def test_specificity_and_heads():
    desc = REVENUE.description
    assert description_heads(desc) == ["Total revenue", "net sales"]
    assert specificity("Total net revenue", desc) == 1.0
    assert specificity("Transaction-based revenue", desc) < 0.7
    assert specificity("Net income attributable to noncontrolling interests", NET_INCOME.description) == 0.0
    assert specificity("营业收入", desc) == 1.0  # other languages keep their string score


def test_primary_statements_define_their_line_items(tmp_path):
    """A page titled by a primary statement is where its line items are defined: the same label in a
    note's table does not put its reading in doubt, and a field that names its statement ("as printed in
    the cash flow statement") takes that statement's row, whatever the management discussion prints."""
    md_a = [
        text("Liquidity and capital resources"),
        text("(In millions)"),
        row("", "2023", "2022"),
        row("Capital expenditures", "$ 1,675", "$ 2,262"),
        text("Foreign currency forward contracts - gains (losses)"),
        text("(In millions)"),
        row("", "2023", "2022"),
        row("Research and development", "(10)", "(3)"),
    ]
    statements = [
        text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
        text("(In millions)"),
        row("", "2023", "2022"),
        row("Research and development", "947", "1,072"),
    ]
    cash_flows = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        text("(In millions)"),
        row("", "2023", "2022"),
        row("Purchases of property, plant and equipment", "(1,675)", "(2,262)"),
    ]
    doc = view(draw(tmp_path / "k.pdf", [md_a, statements, cash_flows]), year=2023, doctype="10-K")
    rd = TableReader().read(doc, fld("research", "Research and development for the fiscal year"), "")
    assert rd.value == pytest.approx(947) and rd.confidence >= CONFIDENT and rd.evidence.page == 2
    capex = TableReader().read(
        doc,
        fld("capex", "Capital expenditures (purchases of property and equipment) for the fiscal year of the "
            "report as printed in the cash flow statement, in USD millions"),
        "",
    )  # fmt: skip
    assert capex.value == pytest.approx(-1_675) and capex.evidence.page == 3
    assert statement_title("Notes to Consolidated Financial Statements") is None
    assert (
        statement_title("合并现金流量表") == "cash_flow"
        and asked_statement("on the balance sheet") == "balance"
    )
