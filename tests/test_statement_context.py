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
from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.readers.table.reader import TableReader, _lines_by_page
from mdqa_kernel.text.statement_context import description_heads, specificity
from mdqa_kernel.text.statement_titles import asked_statement, page_statement, statement_title
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


OPERATING_CF = fld(
    "operating_cash_flow",
    "Net cash provided by operating activities for the fiscal year of the report, in USD millions",
)
FINANCING_CF = fld(
    "financing_cash_flow",
    "Net cash provided by (used in) financing activities for the fiscal year of the report, in USD millions",
)
CAPEX = fld(
    "capital_expenditures",
    "Capital expenditures (purchases of property and equipment) for the fiscal year of the report as printed in "
    "the cash flow statement, in USD millions (an outflow in parentheses is negative)",
)
DIVIDENDS = fld(
    "dividends_paid",
    "Cash dividends paid to shareholders in the fiscal year of the report as printed in the cash flow statement, "
    "in USD millions (an outflow in parentheses is negative)",
)
COST = fld(
    "cost_of_revenue",
    "Total cost of revenue (cost of sales) for the fiscal year of the report, in USD millions",
)
GROSS = fld(
    "gross_profit",
    "Gross profit (gross margin in dollars) for the fiscal year of the report, in USD millions",
)


@pytest.mark.parametrize(
    "operating, capex, dividends, financing",
    [
        ("Net cash from operations", "Additions to property and equipment", "Dividends", "Net cash used in financing"),
        ("Cash provided (used) by operations", "Capital spending", "Dividends to shareholders",
         "Cash used by financing activities"),
        ("Net cash flows from operating activities", "Payments to acquire property, plant and equipment",
         "Cash dividends paid", "Net cash provided by (used in) financing activities"),
    ],
)  # fmt: skip
def test_cash_flow_lines_under_their_printed_names(tmp_path, operating, capex, dividends, financing):
    """A cash-flow statement words its totals and outflows freely ("Net cash from operations", "Cash
    provided (used) by operations", "Capital spending", "Additions to property, plant and equipment",
    "Dividends"): each names the line the field describes, while lines that add a word (investing's
    total, a noncontrolling interest's dividends) do not."""
    statement = [
        (0, "Cash flows from operating activities:", "", ""),
        (10, "Net income", "1,248", "1,170"),
        (10, "Depreciation and amortization", "310", "290"),
        (0, operating, "1,702", "1,515"),
        (0, "Investing activities:", "", ""),
        (10, capex, "(420)", "(390)"),
        (10, "Proceeds from sales of property and equipment", "35", "12"),
        (0, "Net cash used in investing activities", "(385)", "(378)"),
        (0, "Financing activities:", "", ""),
        (10, dividends, "(610)", "(580)"),
        (10, "Dividends paid to noncontrolling interests", "(15)", "(12)"),
        (0, financing, "(795)", "(702)"),
    ]
    path = statement_pdf(tmp_path / "cf.pdf", [statement])
    for field, value in ((OPERATING_CF, 1_702), (CAPEX, -420), (DIVIDENDS, -610), (FINANCING_CF, -795)):
        got = read(path, field)
        assert got.value == pytest.approx(value), (field.name, got.message)
        assert got.confidence >= CONFIDENT, (field.name, got.message)


def test_income_statement_lines_under_their_printed_names(tmp_path):
    """ "Cost of products sold" is the cost of sales; "Gross margin" printed in dollars is gross profit
    when the description says so, and a gross margin percentage row is not."""
    statement = [
        (0, "Net sales", "9,497", "8,921"),
        (0, "Cost of products sold", "6,102", "5,710"),
        (0, "Gross margin", "3,395", "3,211"),
        (0, "Gross margin percentage", "35.7%", "36.0%"),
        (0, "Operating income", "1,201", "1,150"),
    ]
    path = statement_pdf(tmp_path / "is.pdf", [statement])
    assert read(path, COST).value == pytest.approx(6_102)
    gross = read(path, GROSS)
    assert gross.value == pytest.approx(3_395) and gross.confidence >= CONFIDENT
    assert specificity("Gross margin percentage", GROSS.description) < 0.6


OPERATING_INCOME = fld(
    "operating_income", "Operating income (loss) for the fiscal year of the report, in USD millions"
)


def test_a_loss_line_names_its_income_line(tmp_path):
    """A year with a loss prints "Loss from operations" / "Net loss per share": the income lines the fields
    describe, with the printed sign; a positive figure on a loss line (the loss's size, or a year with
    income) is held for review, never returned as income."""
    statement = [
        (0, "Revenue", "1,210", "1,380"),
        (0, "Loss from operations", "(170)", "(95)"),
        (0, "Loss on extinguishment of debt", "(12)", "—"),
        (0, "Net loss", "(182)", "(101)"),
        (0, "Net loss per share attributable to common stockholders:", "", ""),
        (10, "Basic", "(0.52)", "(0.31)"),
        (10, "Diluted", "(0.50)", "(0.30)"),
    ]
    path = statement_pdf(tmp_path / "loss.pdf", [statement])
    operating = read(path, OPERATING_INCOME)
    assert operating.value == pytest.approx(-170) and operating.confidence >= CONFIDENT
    assert read(path, DILUTED).value == pytest.approx(-0.50)
    net_loss = fld("net_loss", "Net loss for the fiscal year of the report, in USD millions")
    assert read(path, net_loss).value == pytest.approx(-182)  # a field that asks for the loss keeps its word
    unsigned = [(0, "Revenue", "1,210", "1,380"), (0, "Operating loss", "170", "95")]
    held = read(statement_pdf(tmp_path / "unsigned.pdf", [unsigned]), OPERATING_INCOME)
    assert held.value == pytest.approx(170) and held.confidence < REVIEW_BELOW  # extract: needs_review


def test_a_note_on_a_statement_and_its_quarterly_table_do_not_rival_the_statement(tmp_path):
    """A note titled after a statement ("Note 23. Other Financial Data / Consolidated Statements of Income
    Information") is no primary statement, and a quarterly table under "2019 Quarters" holds quarters, not
    the year: the income statement's net sales stay the sure reading."""
    cols4 = (300.0, 370.0, 440.0, 510.0)
    statement = [
        text("Consolidated Statements of Income"),
        text("(in millions, except per share data)"),
        row("", "December 28, 2019", "December 29, 2018", "December 30, 2017"),
        row("Net sales", "$ 24,977", "$ 26,268", "$ 26,076"),
        row("Cost of products sold", "16,830", "17,347", "17,043"),
    ]
    note = [
        text("Note 23. Other Financial Data"),
        text("Consolidated Statements of Income Information"),
        text("Our quarterly financial data for 2019 is summarized as follows:"),
        [(405, "2019 Quarters", "c")],
        row("", "Fourth", "Third", "Second", "First", cols=cols4),
        text("(in millions, except per share data)"),
        row("Net sales", "$ 6,536", "$ 6,076", "$ 6,406", "$ 5,959", cols=cols4),
        row("Gross profit", "2,107", "1,947", "2,082", "2,011", cols=cols4),
    ]
    doc = view(draw(tmp_path / "q.pdf", [statement, note]), year=2019, doctype="10k")
    sales = TableReader().read(doc, REVENUE, "")
    assert sales.value == pytest.approx(24_977) and sales.confidence >= CONFIDENT, sales.message
    assert page_statement_of(doc, 2) is None and page_statement_of(doc, 1) == "income"


def page_statement_of(doc, page: int) -> str | None:
    return page_statement(_lines_by_page(doc)[page])


def test_an_adjusted_block_does_not_rival_the_statement_row(tmp_path):
    """An earnings release repeats "Net earnings per share (Diluted)" under "Adjusted earnings …" (non-GAAP):
    the statement's row is the sure reading, the adjusted block's does not put it in doubt."""
    page = [
        text("Condensed Consolidated Statement of Earnings"),
        text("(Unaudited; in Millions Except Per Share Figures)"),
        row("", "2023", "2022"),
        row("Net earnings", "$ 5,144", "$ 4,814"),
        row("Net earnings per share (Diluted)", "$ 1.96", "$ 1.80"),
        row("Average shares outstanding (Diluted)", "2,625.7", "2,667.9"),
        text("Adjusted earnings before provision for taxes and net earnings"),
        row("Net earnings", "$ 7,358", "$ 6,912"),
        row("Net earnings per share (Diluted)", "$ 2.80", "$ 2.59"),
    ]
    doc = view(draw(tmp_path / "adj.pdf", [page]), year=2023, doctype="10k")
    eps = TableReader().read(doc, DILUTED, "")
    assert eps.value == pytest.approx(1.96) and eps.confidence >= CONFIDENT, eps.message


def test_a_sub_total_asked_with_only(tmp_path):
    """ "Revenue from products only": "Product" under "Revenue:", "Sales of products" and "Product sales"
    each name it; the product line under "Cost of revenue:" does not."""
    product = fld(
        "product_revenue",
        "Revenue from products only (the product sub-total, not total revenue) for the fiscal year of the report, "
        "in USD millions",
    )
    statement = [
        (0, "Revenue:", "", ""),
        (10, "Product", "64,699", "72,732"),
        (10, "Service and other", "147,216", "125,538"),
        (0, "Total revenue", "211,915", "198,270"),
        (0, "Cost of revenue:", "", ""),
        (10, "Product", "17,804", "19,064"),
    ]
    got = read(statement_pdf(tmp_path / "product.pdf", [statement]), product)
    assert got.value == pytest.approx(64_699) and got.confidence >= CONFIDENT, got.message
    for label in ("Sales of products", "Product sales"):
        other = [(0, label, "55,893", "51,386"), (0, "Sales of services", "10,715", "10,900")]
        assert read(statement_pdf(tmp_path / "p2.pdf", [other]), product).value == pytest.approx(55_893)
