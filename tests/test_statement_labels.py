"""How a statement row is recognised as a field's line item, on statements drawn here: another name of
the line item in the description's parentheses, the glossary's names of common US GAAP line items, the
amounts inside a "net of …" clause, the sign of an expense printed deducted, and a page number under
the last line of a page."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.readers.semantics import asks_expense, deducted_expense
from mdqa_kernel.readers.table.columns import paired_columns
from mdqa_kernel.readers.table.reader import TableReader, _lines_by_page
from mdqa_kernel.text.holders import names_noncontrolling_income
from mdqa_kernel.text.label_periods import label_period
from mdqa_kernel.text.labels import _description_core, normalize_label, without_net_of, without_share_count
from mdqa_kernel.text.layout import lines_by_page
from mdqa_kernel.text.periods import ReportPeriod, wanted_period
from mdqa_kernel.text.rows import table_rows
from mdqa_kernel.text.sections import asks_net
from mdqa_kernel.text.statement_context import (
    description_heads,
    holders_equity,
    included_words,
    location_words,
    short_term_as_current,
    without_tax_basis,
)
from mdqa_kernel.text.statement_titles import page_statement
from tests.test_periods import draw, row, text, view
from tests.test_semantics import fld as semantics_field

COVER = [text("Acme Inc. ANNUAL REPORT ON FORM 10-K"), text("For the fiscal year ended December 31, 2023")]
YEARS = row("", "2023", "2022")
WIDE = (475.0, 570.0)  # right edges of the value columns, clear of a long label
MILLIONS = text("(In millions, except per share amounts)")


def millions_page(
    title: str, header: tuple[str, ...], *rows: tuple[str, ...], cols: tuple[float, ...] = WIDE
) -> list:
    """A statement page in millions: its title, the scale line, the column header, then each row (label,
    value, …), the values right-aligned at `cols`."""
    return [text(title), MILLIONS, row("", *header, cols=cols), *(row(*r, cols=cols) for r in rows)]


# A 10-Q whose balance sheet prints the quarter's end, the prior fiscal year end and the year-ago quarter's end
TEN_Q = [
    text("Acme Inc. QUARTERLY REPORT ON FORM 10-Q"),
    text("For the quarterly period ended July 29, 2023"),
]
TEN_Q_BALANCE = millions_page(
    "CONDENSED CONSOLIDATED BALANCE SHEETS",
    ("July 29, 2023", "January 28, 2023", "July 30, 2022"),
    ("Cash and cash equivalents", "1,093", "1,874", "840"),
    ("Total assets", "15,318", "15,803", "15,419"),
    cols=(330.0, 420.0, 510.0),
)


def fld(description: str, **kw):
    """A field in USD millions unless told otherwise (values compare in the field's scale)."""
    return semantics_field(description, **{"unit": "USD", "scale": 1e6, **kw})


def read(doc, description: str, **kw):
    return TableReader().read(doc, fld(description, **kw), "")


def annual(path: Path, *pages: list) -> SimpleNamespace:
    """A 10-K for 2023: the cover, then `pages` drawn one per page, as the reader views it."""
    return view(draw(path, [COVER, *pages]), year=2023, doctype="10-K")


def _income(path: Path) -> Path:
    statement = [
        text("CONSOLIDATED STATEMENTS OF INCOME"),
        MILLIONS,
        YEARS,
        row("Net sales", "25,000", "24,000"),
        row("Operating income", "3,100", "2,900"),
        row("Interest expense", "(160)", "(150)"),
        row("Other income (expense), net", "(20)", "35"),
        row("Income/(loss) before income taxes", "2,661", "2,785"),
        row("Provision for income taxes", "726", "700"),
        row("Net income", "1,935", "2,085"),
        row("Income/(loss) attributable to common shareholders", "1,935", "2,085"),
    ]
    return draw(path, [COVER, statement])


def test_an_other_name_in_parentheses_is_part_of_the_line_item(tmp_path: Path) -> None:
    """ "Income (earnings) before income taxes" names income before taxes, not every "Income" row: cut at
    its parenthesis, the description named "Income", and "Income/(loss) attributable to common
    shareholders" was read for it at full confidence."""
    assert _description_core("Income (earnings) before income taxes for the fiscal year of the report") == [
        "Income before income taxes",
        "earnings before income taxes",
    ]
    # a sign word in parentheses stays a sign note, as before
    assert _description_core("Operating income (loss) for the fiscal year") == ["Operating income"]
    doc = view(_income(tmp_path / "is.pdf"), year=2023, doctype="10-K")
    pretax = read(
        doc, "Income (earnings) before income taxes for the fiscal year of the report, in USD millions"
    )
    assert pretax.value == 2661 and pretax.confidence >= CONFIDENT, pretax


def test_glossary_names_of_common_line_items(tmp_path: Path) -> None:
    """The glossary's other names of a line item: a loss year's "Loss before income tax", "Purchases of
    stock for treasury" for repurchases of common stock, "Accumulated deficit" for retained earnings."""
    statement = [
        text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
        MILLIONS,
        YEARS,
        row("Total revenue", "1,708", "1,267"),
        row("Loss before income tax", "(170)", "(176)"),
        row("Net loss", "(172)", "(180)"),
    ]
    balance = [
        text("CONSOLIDATED BALANCE SHEETS"),
        MILLIONS,
        row("", "December 31, 2023", "December 31, 2022"),
        row("Total assets", "1,212", "1,094"),
        row("Accumulated deficit", "(779)", "(607)"),
        row("Total liabilities and stockholders' equity", "1,212", "1,094"),
    ]
    cash = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        MILLIONS,
        YEARS,
        row("Net cash provided by operating activities", "400", "350"),
        row("Purchases of stock for treasury", "(3,682)", "(3,681)"),
        row("Net cash used in financing activities", "(3,900)", "(3,700)"),
    ]
    doc = annual(tmp_path / "gl.pdf", statement, balance, cash)
    pretax = read(
        doc, "Income (earnings) before income taxes for the fiscal year of the report, in USD millions"
    )
    assert pretax.value == -170 and pretax.confidence >= CONFIDENT, pretax
    deficit = read(
        doc, "Retained earnings (an accumulated deficit is negative) at the end of the fiscal year"
    )
    assert deficit.value == -779 and deficit.confidence >= CONFIDENT, deficit
    total = read(
        doc, "Total liabilities and shareholders' equity at the end of the fiscal year of the report"
    )
    assert total.value == 1212 and total.confidence >= CONFIDENT, total
    bought = read(
        doc,
        "Repurchases of common stock in the cash flow statement for the fiscal year of the report, in USD "
        "millions (an outflow in parentheses is negative)",
    )
    assert bought.value == -3682 and bought.confidence >= CONFIDENT, bought


def test_the_amounts_of_a_net_of_clause_belong_to_the_label(tmp_path: Path) -> None:
    """ "Property and equipment, net of accumulated depreciation of $68,251 and $59,660": the row is the
    net line item and its value is the first column's, not the accumulated depreciation."""
    label = "Property and equipment, net of accumulated depreciation of $68,251 and $59,660"
    assert without_net_of(label) == "Property and equipment, net"
    assert normalize_label(label) == "propertyandequipmentnet"
    assert normalize_label("Other comprehensive income, net of tax") == "othercomprehensiveincomenetoftax"
    assert without_tax_basis("Other comprehensive income, net of tax of $425") == "Other comprehensive income"
    balance = millions_page(
        "BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Inventories", "2,500", "3,742"),
        (label, "95,641", "74,398"),
        ("Total assets", "411,976", "364,840"),
    )
    doc = annual(tmp_path / "bs.pdf", balance)
    ppe = read(
        doc, "Property, plant and equipment, net at the end of the fiscal year of the report, in USD millions"
    )
    assert ppe.value == 95641 and ppe.confidence >= CONFIDENT, ppe


def test_a_wrapped_cash_flow_line_net_of_its_non_cash_part(tmp_path: Path) -> None:
    """ "Additions to property and equipment, net of $48, $92 and $14 of non-cash / capital expenditures":
    the listed amounts are the label's (no cells on the first line), "net of … non-cash …" is how a cash
    flow is counted, and the wrapped row is the capital expenditures line, its prior-year column asked."""
    label = "Additions to property and equipment, net of $48, $92 and $14 of non-cash capital expenditures"
    assert without_net_of(label) == "Additions to property and equipment"
    assert (
        without_net_of("Purchases of equipment, net of proceeds") == "Purchases of equipment, net of proceeds"
    )
    cols = (400.0, 480.0, 560.0)
    cash_flows = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        MILLIONS,
        row("", "2023", "2022", "2021", cols=cols),
        row("Total cash provided by operating activities", "2,545", "1,322", "1,935", cols=cols),
        text("Investing activities"),
        text("Additions to property and equipment, net of $48, $92 and $14 of non-cash"),
        [(80, "capital expenditures", "l"), *row("", "(582)", "(649)", "(561)", cols=cols)[1:]],
        row("Purchases of investments", "(3,045)", "(2,281)", "(2,804)", cols=cols),
        row("Total cash used in investing activities", "(887)", "(419)", "(1,712)", cols=cols),
    ]  # fmt: skip
    doc = annual(tmp_path / "cf.pdf", cash_flows)
    asked = (
        "Capital expenditures (purchases of property and equipment) for the {} as printed in the cash flow "
        "statement, in USD millions (an outflow in parentheses is negative)"
    )
    prior = read(doc, asked.format("prior fiscal year"))
    assert prior.value == -649 and prior.confidence >= CONFIDENT, prior
    current = read(doc, asked.format("fiscal year of the report"))
    assert current.value == -582 and current.confidence >= CONFIDENT, current
    # the listed amounts are no row of their own: nothing reads 48 for the non-cash additions
    assert not any(r.cells and r.cells[0].text == "$48," for r in table_rows(_lines_by_page(doc)[2]))


def test_capital_expenditures_named_noun_first(tmp_path: Path) -> None:
    """ "Property, plant and equipment additions" is the outflow for fixed assets, as "Additions to property,
    plant and equipment" is; "… reductions" beside it (the proceeds of disposals) is not."""
    cols = (400.0, 480.0, 560.0)
    cash_flows = millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022", "2021"),
        ("Net cash provided by operating activities", "15,322", "13,346", "10,496"),
        ("Cash flows - investing activities:",),
        ("Property, plant and equipment reductions", "120", "92", "38"),
        ("Property, plant and equipment additions", "(1,722)", "(1,739)", "(2,613)"),
        ("Net cash used by investing activities", "(4,621)", "(2,058)", "(3,378)"),
        cols=cols,
    )
    doc = annual(tmp_path / "cf.pdf", cash_flows)
    capex = read(
        doc,
        "Capital expenditures (purchases of property and equipment) for the prior fiscal year as printed in the "
        "cash flow statement, in USD millions (an outflow in parentheses is negative)",
    )
    assert capex.value == -1739 and capex.confidence >= CONFIDENT, capex


def test_a_lenders_revenue_net_of_interest_expense(tmp_path: Path) -> None:
    """A card issuer's or a bank's top line, "Total revenues net of interest expense", is its total revenue;
    "Total non-interest revenues" above it is a part, and "… after provisions for credit losses" below it
    deducts more."""
    cols = (400.0, 480.0, 560.0)
    income = millions_page(
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("2023", "2022", "2021"),
        ("Revenues",),
        ("Discount revenue", "33,416", "30,739", "24,563"),
        ("Total non-interest revenues", "50,412", "45,543", "36,087"),
        ("Interest income", "19,498", "13,543", "9,033"),
        ("Interest expense", "(9,393)", "(3,246)", "(1,283)"),
        ("Net interest income", "10,105", "10,297", "7,750"),
        ("Total revenues net of interest expense", "60,517", "55,840", "43,837"),
        ("Provisions for credit losses", "4,923", "2,182", "(1,419)"),
        (
            "Total revenues net of interest expense after provisions for credit losses",
            "55,594",
            "53,658",
            "45,256",
        ),
        ("Net income", "8,374", "7,514", "8,060"),
        cols=cols,
    )
    doc = annual(tmp_path / "is.pdf", income)
    revenue = read(doc, "Total revenue (net sales) for the fiscal year of the report, in USD millions")
    assert revenue.value == 60517 and revenue.confidence >= CONFIDENT, revenue
    prior = read(
        doc,
        "Total revenue for the prior fiscal year (the year before the report's fiscal year), in USD millions",
    )
    assert prior.value == 55840 and prior.confidence >= CONFIDENT, prior
    interest = read(doc, "Net interest income for the fiscal year of the report, in USD millions")
    assert interest.value == 10105 and interest.confidence >= CONFIDENT, interest


def test_an_equity_line_with_its_share_counts_and_dates(tmp_path: Path) -> None:
    """ "Less: Treasury stock, at cost, 428,676 and 420,100 shares at December 31, 2023 and 2022": the share
    counts and dates describe the line, they do not name it, and the label names both columns' dates, not
    one period of its own (its prior-year column was refused as another period's)."""
    treasury = "Less: Treasury stock, at cost, 428,676 and 420,100 shares at December 31, 2023 and 2022"
    assert without_share_count(treasury) == "Less: Treasury stock, at cost"
    assert without_share_count("Common stock, $0.01 par value; 2,400 shares authorized") == (
        "Common stock, $0.01 par value; 2,400 shares authorized"
    )
    assert label_period(treasury).end is None
    assert label_period("Balance at December 31, 2023").end == dt.date(2023, 12, 31)
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Total liabilities", "7,040", "6,498"),
        ("Additional paid-in capital", "11,174", "10,963"),
        (treasury, "(5,563)", "(5,400)"),
        ("Retained earnings", "7,813", "6,593"),
        ("Total shareholders' equity", "12,805", "11,392"),
        cols=(515.0, 575.0),
    )
    doc = annual(tmp_path / "bs.pdf", balance)
    asked = "Treasury stock at cost at the end of the {} (balance sheet; a deduction from equity, negative), in USD millions"
    current = read(doc, asked.format("fiscal year of the report"))
    assert current.value == -5563 and current.confidence >= CONFIDENT, current
    prior = read(doc, asked.format("prior fiscal year (the balance sheet's comparative column)"))
    assert prior.value == -5400 and prior.confidence >= CONFIDENT, prior


def test_an_expense_printed_deducted_is_the_amount_spent(tmp_path: Path) -> None:
    """An expense line in parentheses is deducted, not negative: "Interest expense (160)" is 160 of
    interest expense. A line whose label gives it a sign of its own ("Other income (expense), net") and a
    field that says parentheses are negative keep the printed sign."""
    assert asks_expense(fld("Interest expense for the fiscal year of the report, in USD millions"))
    assert not asks_expense(fld("Other income (expense), net for the fiscal year"))
    assert not asks_expense(fld("Capital expenditures for the year (an outflow in parentheses is negative)"))
    assert not asks_expense(fld("Operating income for the fiscal year"))
    assert deducted_expense("Interest expense") and deducted_expense(
        "Selling, general and administrative costs"
    )
    assert not deducted_expense("Interest and other (income) expense, net")
    assert not deducted_expense("Income tax expense (benefit)")
    doc = view(_income(tmp_path / "is.pdf"), year=2023, doctype="10-K")
    interest = read(doc, "Interest expense for the fiscal year of the report, in USD millions")
    assert interest.value == 160 and interest.confidence >= CONFIDENT, interest
    other = read(doc, "Other income (expense), net for the fiscal year of the report, in USD millions")
    assert other.value == -20, other


def test_a_page_number_under_the_last_line_is_not_a_value(tmp_path: Path) -> None:
    """A page's lone number under a prose line is its page number: once it was read as the value of a
    row labelled by the sentence's last words ("share repurchases." / "42")."""
    page = [
        text("We believe our sources of liquidity will be adequate to pay dividends and fund our"),
        text("share repurchases."),
        [(300, "42", "c")],
    ]
    doc = annual(tmp_path / "p.pdf", page)
    assert not any(r.cells for r in table_rows(lines_by_page(doc.words)[2]))  # no row holds the "42"
    bought = read(doc, "Repurchases of common stock in the cash flow statement for the fiscal year")
    assert not bought.found or bought.value != 42, bought
    assert bought.confidence < CONFIDENT or not bought.found, bought


def test_a_period_over_a_pair_of_sub_columns_does_not_say_which_cell_is_the_field(tmp_path: Path) -> None:
    """An equity statement prints each year over "Shares | Amount": the year's header sits over one of
    the two cells, so the cell under it is no more the year's amount than its neighbour (once the
    shares, 9, were read as the amount repurchased at 0.9). The pair is read for review, not trusted."""
    assert paired_columns(["2022", "", "2021", "", "2020", ""])
    assert not paired_columns(["2022", "2021", "2020"]) and not paired_columns(["2023", "", "2022"])
    subs = (300.0, 360.0, 430.0, 490.0)
    equity = millions_page(
        "CONSOLIDATED STATEMENT OF EQUITY",
        ("2023", "", "2022", ""),
        ("", "Shares", "Amount", "Shares", "Amount"),
        ("Common stock, beginning of year", "1,488", "23", "1,488", "23"),
        ("Share repurchases", "(9)", "(1,500)", "(1)", "(106)"),
        cols=subs,
    )
    doc = annual(tmp_path / "eq.pdf", equity)
    bought = read(doc, "Repurchases of common stock for the fiscal year of the report, in USD millions")
    assert bought.confidence < CONFIDENT, bought
    assert not (bought.found and bought.value == -9 and bought.confidence >= REVIEW_BELOW), bought


def test_two_years_before_is_the_third_column_of_a_three_year_statement(tmp_path: Path) -> None:
    """ "The fiscal year two years before the report's" is the statement's third year; before, no word
    named it, the field asked the current year and the current column was read at full confidence."""
    fy = ReportPeriod(year=2023, end=dt.date(2023, 12, 31))
    want = wanted_period("Total revenue for the fiscal year two years before the report's fiscal year", fy)
    assert want.offset == -2
    three = (330.0, 420.0, 510.0)
    statement = millions_page(
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("2023", "2022", "2021"),
        ("Total revenue", "211,915", "198,270", "168,088"),
        ("Net income", "72,361", "72,738", "61,271"),
        cols=three,
    )
    doc = annual(tmp_path / "is3.pdf", statement)
    two_back = read(
        doc, "Total revenue (net sales) for the fiscal year two years before the report's fiscal year"
    )
    assert two_back.value == 168088 and two_back.confidence >= CONFIDENT, two_back


def test_a_period_the_description_rules_out_is_not_the_one_it_asks(tmp_path: Path) -> None:
    """ "Total assets at the end of the quarter of the report (not the prior fiscal year end)": the
    negated period named the prior year end, and a 10-Q's year-end column was read at full confidence."""
    q2 = ReportPeriod(year=2024, end=dt.date(2023, 7, 29), quarter=2)
    want = wanted_period(
        "Total assets at the end of the quarter of the report (not the prior fiscal year end)", q2
    )
    assert want.offset == 0
    doc = view(draw(tmp_path / "q.pdf", [TEN_Q, TEN_Q_BALANCE]), year=2024, doctype="10-Q")
    assets = read(doc, "Total assets at the end of the quarter of the report (not the prior fiscal year end)")
    assert assets.value == 15318, assets
    assert not (assets.value == 15803 and assets.confidence >= REVIEW_BELOW), assets


def test_a_sentence_under_a_table_is_no_wrapped_tail_of_its_last_row(tmp_path: Path) -> None:
    """A note's sentence right under a roll-forward prints "… 2016 , and …" with its comma under a cell
    of the last row: the cell "469" is whole and does not continue with the year ("4692016"), while a
    cell cut at its comma ("2,352," over "826") still joins its tail."""
    cols = (330.0, 420.0, 510.0)
    page = [
        text("(In millions)"),
        row("", "2017", "2016", "2015", cols=cols),
        row("Balance at beginning of period", "469", "410", "370", cols=cols),
        row("Balance at end of period", "374", "469", "410", cols=cols),
        [(72, "Unrecognized tax benefits of $346 million at January 28, 2017, January 30,", "l"),
         (cols[1] - 25, "2016 , and January 31, 2015, respectively.", "l")],
        row("Gross increases", "2,352,", "11", "30", cols=cols),
        [(cols[0] - 15, "826", "l")],
    ]  # fmt: skip
    doc = view(draw(tmp_path / "rf.pdf", [COVER, page]), year=2017, doctype="10-K")
    rows = {r.label: [c.text for c in r.cells] for r in table_rows(lines_by_page(doc.words)[2])}
    assert rows["Balance at end of period"] == ["374", "469", "410"], rows
    assert rows["Gross increases"] == ["2,352,826", "11", "30"], rows


def test_an_unsigned_figure_elsewhere_is_not_the_statements_signed_one(tmp_path: Path) -> None:
    """A field asking capital expenditures "as printed in the cash flow statement" with outflows negative,
    in a filing whose statement row the reader does not name: the discussion's unsigned "$ 649" may be
    printed "(649)" in the statement, so it is held for review; a figure printed with its sign is not."""
    cash_flows = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        MILLIONS,
        YEARS,
        row("Net cash provided by operating activities", "3,200", "3,000"),
        row("Net cash used in investing activities", "(700)", "(650)"),
    ]
    asked = (
        "Capital expenditures for the fiscal year of the report as printed in the cash flow statement, in USD "
        "millions (an outflow in parentheses is negative)"
    )
    for printed, trusted in (("$ 649", False), ("$ (649)", True)):
        discussion = [
            text("LIQUIDITY AND CAPITAL RESOURCES"),
            MILLIONS,
            YEARS,
            row("Capital expenditures", printed, "$ 600"),
        ]
        doc = view(draw(tmp_path / f"capex_{trusted}.pdf", [COVER, cash_flows, discussion]), year=2023)
        capex = read(doc, asked)
        assert abs(capex.value) == 649 and (capex.confidence >= REVIEW_BELOW) is trusted, capex


def _eps_blocks(path: Path, indent: float) -> Path:
    """An income statement whose per-share data come in a basic and a diluted block printing the same
    labels, each under its heading ("Earnings per common share—basic"), the rows indented by `indent`."""

    def eps(label: str, *values: str) -> list:
        return [(72 + indent, label, "l"), *((x, v, "r") for x, v in zip(WIDE, values, strict=True))]

    holders = "Net income attributable to Acme Inc. common shareholders"
    continuing = "Income from continuing operations attributable to Acme Inc. common shareholders"
    statement = [
        text("CONSOLIDATED STATEMENTS OF INCOME"),
        MILLIONS,
        row("", "2023", "2022", cols=WIDE),
        row("Revenues", "58,496", "81,288", cols=WIDE),
        row(holders, "2,119", "3,137", cols=WIDE),
        text("Earnings per common share—basic"),
        eps(continuing, "0.38", "0.56"),
        eps("Discontinued operations—net of tax", "(0.01)", "(0.01)"),
        eps(holders, "0.37", "0.55"),
        text("Earnings per common share—diluted"),
        eps(continuing, "0.37", "0.55"),
        eps("Discontinued operations—net of tax", "(0.01)", "(0.01)"),
        eps(holders, "0.36", "0.54"),
    ]
    return draw(path, [COVER, statement])


@pytest.mark.parametrize("indent", [12.0, 0.0])
def test_the_diluted_block_of_per_share_data_is_not_the_basic_one(tmp_path: Path, indent: float) -> None:
    """Under "Earnings per common share—basic" and "—diluted" the same three labels repeat; the diluted
    EPS is the diluted block's row. The basic block's 0.37 was returned for diluted EPS at 0.90 when the
    headings stand flush with the rows; it is never returned now, whether the headings are outdented or not."""
    doc = view(_eps_blocks(tmp_path / "eps.pdf", indent), year=2023, doctype="10-K")
    diluted = TableReader().read(
        doc, fld("Diluted earnings per share attributable to the company", unit=None, scale=1.0), ""
    )
    basic = TableReader().read(
        doc, fld("Basic earnings per share attributable to the company", unit=None, scale=1.0), ""
    )
    if indent:
        assert diluted.value == 0.36 and diluted.confidence >= CONFIDENT, diluted
        assert basic.value == 0.37 and basic.confidence >= CONFIDENT, basic
    assert diluted.value != 0.37 or diluted.confidence < REVIEW_BELOW, diluted
    assert basic.value != 0.36 or basic.confidence < REVIEW_BELOW, basic


def test_the_net_figure_is_the_row_that_says_net(tmp_path: Path) -> None:
    """A balance sheet prints "Property, plant and equipment" (gross), "Accumulated depreciation" and
    "Property, plant and equipment, net": for a field asking the net figure the two named rows were equal
    rivals, and the gross 29,736 came back at 0.5. The row that says net is read; a filing printing only
    the name without "net" is still read."""
    balance = [
        text("CONSOLIDATED BALANCE SHEETS"),
        MILLIONS,
        YEARS,
        row("Property, plant and equipment", "29,736", "27,413"),
        row("Accumulated depreciation", "(6,699)", "(6,329)"),
        row("Property, plant and equipment, net", "23,037", "21,084"),
        row("Total assets", "27,075", "25,275"),
    ]
    doc = annual(tmp_path / "bs.pdf", balance)
    asked = "Property, plant and equipment, net at the end of the fiscal year of the report, in USD millions"
    net = read(doc, asked)
    assert net.value == 23_037 and net.confidence >= CONFIDENT, net
    only_name = [balance[0], balance[1], balance[2], balance[3], balance[6]]
    plain = annual(tmp_path / "plain.pdf", only_name)
    assert read(plain, asked).value == 29_736 and read(plain, asked).confidence >= CONFIDENT
    assert asks_net(asked) and asks_net("Accounts receivable, net at the end of the year")
    assert not asks_net("Net income, net of tax, for the year") and not asks_net("Total revenue (net sales)")


def _card_statement(noncontrolling: bool) -> list:
    """A card issuer's income statement: the per-share rows named only "Basic" and "Diluted", flush with
    the line opening their block, and the common shareholders' net income below the plain net income."""
    minority = (
        [row("Less: Net income attributable to noncontrolling interests", "75", "82", cols=WIDE)]
        if noncontrolling
        else []
    )
    return [
        text("CONSOLIDATED STATEMENTS OF INCOME"),
        MILLIONS,
        row("", "2023", "2022", cols=WIDE),
        row("Total revenues net of interest expense", "57,472", "51,862", cols=WIDE),
        row("Net income", "8,374", "7,514", cols=WIDE),
        *minority,
        row("Net income attributable to common shareholders", "8,299", "7,432", cols=WIDE),
        text("Earnings Per Common Share"),
        row("Basic", "11.22", "9.86", cols=WIDE),
        row("Diluted", "11.21", "9.85", cols=WIDE),
        text("Average common shares outstanding for earnings per common share:"),
        row("Basic", "740", "754", cols=WIDE),
        row("Diluted", "741", "755", cols=WIDE),
    ]


def test_a_bare_basis_row_flush_with_its_heading(tmp_path: Path) -> None:
    """ "Diluted" flush with "Earnings Per Common Share" above it is the diluted EPS (it was not found: the
    heading was read only when outdented); the share-count block's "Diluted 741" below is not."""
    doc = annual(tmp_path / "eps.pdf", _card_statement(False))
    per_share = {"unit": None, "scale": 1.0}
    diluted = read(doc, "Diluted earnings per share attributable to the company", **per_share)
    assert diluted.value == 11.21 and diluted.confidence >= CONFIDENT, diluted
    basic = read(doc, "Basic earnings per share for the fiscal year of the report", **per_share)
    assert basic.value == 11.22 and basic.confidence >= CONFIDENT, basic
    prior = read(doc, "Diluted earnings per share for the prior fiscal year", **per_share)
    assert prior.value == 9.85, prior


def test_a_share_count_heading_naming_what_the_count_is_for(tmp_path: Path) -> None:
    """ "Average common shares outstanding for earnings per common share:" heads the share counts: its
    "Diluted 741" is the diluted weighted-average share count (it was not found: "for earnings per common
    share" read as words restricting the count)."""
    doc = annual(tmp_path / "shares.pdf", _card_statement(False))
    shares = {"unit": "shares", "scale": 1e6}
    got = read(doc, "Weighted-average number of diluted shares outstanding for the fiscal year", **shares)
    assert got.value == 741 and got.confidence >= CONFIDENT, got
    prior = read(
        doc, "Weighted-average number of basic shares outstanding for the prior fiscal year", **shares
    )
    assert prior.value == 754, prior


@pytest.mark.parametrize("noncontrolling", [False, True])
def test_the_common_shareholders_net_income_is_the_company_s_only_after_minority(
    tmp_path: Path, noncontrolling: bool
) -> None:
    """Net income attributable to common shareholders is what is left after preferred dividends: with no
    noncontrolling interest deducted above it, the company's net income is the plain "Net income" row
    (8,299 was returned at 1.0). Below a noncontrolling interest's deduction it is the company's share."""
    doc = annual(tmp_path / "ni.pdf", _card_statement(noncontrolling))
    got = read(
        doc, "Net income attributable to the company for the fiscal year of the report, in USD millions"
    )
    assert got.value == (8_299 if noncontrolling else 8_374) and got.confidence >= CONFIDENT, got
    common = read(doc, "Net income attributable to common shareholders for the fiscal year of the report")
    assert common.value == 8_299 and common.confidence >= CONFIDENT, common
    assert names_noncontrolling_income("Minority interest in net\nearnings of subsidiaries")
    assert not names_noncontrolling_income("Noncontrolling interests 1,024 998")  # an equity balance


def _utility_statements() -> list:
    """A water utility's statements: per-share blocks headed "Basic earnings per share:" over a row that
    repeats the net income's label; a balance sheet closing on "Total capitalization and liabilities"."""
    return [
        [
            text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
            MILLIONS,
            row("", "2023", "2022", cols=WIDE),
            row("Operating revenues", "4,234", "3,792", cols=WIDE),
            row("Net income attributable to common shareholders", "944", "820", cols=WIDE),
            text("Basic earnings per share:"),
            row("  Net income attributable to common shareholders", "4.90", "4.51", cols=WIDE),
            text("Diluted earnings per share:"),
            row("  Net income attributable to common shareholders", "4.89", "4.50", cols=WIDE),
        ],
        [
            text("CONSOLIDATED BALANCE SHEETS"),
            MILLIONS,
            row("", "December 31, 2023", "December 31, 2022", cols=WIDE),
            row("Receivables, net", "392", "334", cols=WIDE),
            row("Total assets", "30,298", "28,142", cols=WIDE),
            row("Total capitalization and liabilities", "30,298", "28,142", cols=WIDE),
        ],
    ]


def test_a_heading_ending_in_a_colon_opens_the_rows_below_it(tmp_path: Path) -> None:
    """ "Basic earnings per share:" under the net income's row heads the per-share row below it; it was
    read as the tail of the row above, whose 944 was returned for the basic EPS. A utility's "Total
    capitalization and liabilities" is its total liabilities and equity; "Receivables, net" its accounts
    receivable."""
    doc = annual(tmp_path / "utility.pdf", *_utility_statements())
    per_share = {"unit": None, "scale": 1.0}
    basic = read(doc, "Basic earnings per share attributable to the company for the fiscal year", **per_share)
    assert basic.value == 4.90 and basic.confidence >= CONFIDENT, basic
    diluted = read(
        doc, "Diluted earnings per share attributable to the company for the fiscal year", **per_share
    )
    assert diluted.value == 4.89 and diluted.confidence >= CONFIDENT, diluted
    total = read(
        doc, "Total liabilities and shareholders' equity at the end of the fiscal year of the report"
    )
    assert total.value == 30_298 and total.confidence >= CONFIDENT, total
    receivable = read(doc, "Accounts receivable, net at the end of the fiscal year of the report")
    assert receivable.value == 392 and receivable.confidence >= CONFIDENT, receivable


@pytest.mark.parametrize("net_row", [True, False])
def test_a_gross_amount_above_its_deduction_is_not_the_net(tmp_path: Path, net_row: bool) -> None:
    """ "Total property, plant and equipment" above "Less: accumulated depreciation" is the gross cost: the
    net field reads the net row below, and nothing where the filing prints none (1,500 was returned at
    0.81 for the net)."""
    lines = [
        text("CONSOLIDATED BALANCE SHEETS"),
        MILLIONS,
        row("", "December 31, 2023", "December 31, 2022", cols=WIDE),
        row("Total property, plant and equipment", "1,500", "1,400", cols=WIDE),
        row("Less: accumulated depreciation", "(600)", "(550)", cols=WIDE),
        *([row("Property, plant and equipment, net", "900", "850", cols=WIDE)] if net_row else []),
        row("Total assets", "5,000", "4,800", cols=WIDE),
    ]
    doc = annual(tmp_path / "ppe.pdf", lines)
    got = read(doc, "Property, plant and equipment, net at the end of the fiscal year of the report")
    if net_row:
        assert got.value == 900 and got.confidence >= CONFIDENT, got
    else:
        assert got.value is None or got.confidence < REVIEW_BELOW, got


@pytest.mark.parametrize(
    "label", ["Selling, marketing and administrative expenses", "Selling and administrative expenses"]
)
def test_names_a_filer_gives_its_selling_and_administrative_expenses(tmp_path: Path, label: str) -> None:
    """A filer that names its SG&A "Selling, marketing and administrative expenses" (or without "general")
    prints no other row for it: the row was not found for the field."""
    statement = millions_page(
        "CONSOLIDATED STATEMENTS OF EARNINGS",
        ("2023", "2022"),
        ("Sales to customers", "85,159", "79,990"),
        (label, "22,084", "20,246"),
        ("Research and development expense", "15,085", "14,135"),
    )
    doc = annual(tmp_path / "sga.pdf", statement)
    got = read(doc, "Selling, general and administrative expenses for the fiscal year, in USD millions")
    assert got.value == 22_084 and got.confidence >= CONFIDENT, got


def test_long_term_debt_obligations_are_the_long_term_debt_line(tmp_path: Path) -> None:
    """A balance sheet that calls its line "Long-Term Debt Obligations" prints no other long-term debt
    row: "obligations" was read as a word restricting the line item, so the row was read only as a line
    of prose, at 0.225. The current maturities row in a debt note is not read for it."""
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEET",
        ("2023", "2022"),
        ("Total Current Liabilities", "26,785", "23,372"),
        ("Long-Term Debt Obligations", "36,026", "40,370"),
        ("Deferred Income Taxes", "4,826", "4,284"),
        ("Total Liabilities", "72,788", "79,366"),
    )
    note = millions_page(
        "Note 8 - Debt Obligations",
        ("2023", "2022"),
        ("Less: current maturities of long-term debt obligations", "3,872", "3,358"),
    )
    doc = annual(tmp_path / "debt.pdf", balance, note)
    asked = "Long-term debt excluding the current portion at the end of the {}, in USD millions"
    now = read(doc, asked.format("fiscal year of the report"))
    before = read(doc, asked.format("prior fiscal year (the balance sheet's comparative column)"))
    assert now.value == 36_026 and now.confidence >= CONFIDENT, now
    assert before.value == 40_370 and before.confidence >= CONFIDENT, before


def test_income_before_provision_for_income_taxes_is_the_pretax_line(tmp_path: Path) -> None:
    """ "Income before provision for income taxes" (and "Earnings before provision for taxes on income")
    is the pre-tax income line: the provision is the income taxes line below it. "provision" was read as
    a word restricting the line item, so the row scored 0.52 and was read only as prose, held for review.
    The provision row itself is not read for it."""
    statement = millions_page(
        "CONSOLIDATED STATEMENTS OF OPERATIONS",
        ("2023", "2022"),
        ("Operating income", "3,100", "2,900"),
        ("Other income (expense), net", "(160)", "(150)"),
        ("Income before provision for income taxes", "2,940", "2,750"),
        ("Provision for income taxes", "610", "580"),
        ("Net income", "2,330", "2,170"),
    )
    doc = annual(tmp_path / "pretax.pdf", statement)
    asked = "Income (earnings) before income taxes for the {}, in USD millions"
    now = read(doc, asked.format("fiscal year of the report"))
    before = read(doc, asked.format("prior fiscal year"))
    assert now.value == 2_940 and now.confidence >= CONFIDENT, now
    assert before.value == 2_750 and before.confidence >= CONFIDENT, before
    jj = millions_page(
        "CONSOLIDATED STATEMENTS OF EARNINGS",
        ("2023", "2022"),
        ("Earnings before provision for taxes on income", "21,725", "22,776"),
        ("Provision for taxes on income", "3,784", "1,898"),
        ("Net earnings", "17,941", "20,878"),
    )
    got = read(annual(tmp_path / "earnings.pdf", jj), asked.format("fiscal year of the report"))
    assert got.value == 21_725 and got.confidence >= CONFIDENT, got


def test_the_income_tax_line_under_its_other_names(tmp_path: Path) -> None:
    """The provision for income taxes is printed as "Income tax expense", "Income tax provision",
    "Provision for taxes on income", and by a filer with discontinued operations as "Income taxes from
    continuing operations" (the discontinued operations' taxes are netted into their own line). Each
    of those rows is the tax line whichever name the description uses; the pre-tax line, the deferred
    part and the continuing operations' net income are not."""
    statement = millions_page(
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("2023", "2022"),
        ("Income from continuing operations before income taxes", "6,742", "8,136"),
        ("Income taxes from continuing operations", "1,560", "1,586"),
        ("Net income from continuing operations", "5,182", "6,550"),
        ("Income from discontinued operations (net of income taxes of $47)", "101", "—"),
        ("Consolidated net income", "5,283", "6,550"),
    )
    doc = annual(tmp_path / "continuing.pdf", statement)
    asked = "Provision for income taxes for the {}, in USD millions"
    now = read(doc, asked.format("fiscal year of the report"))
    before = read(doc, asked.format("prior fiscal year"))
    assert now.value == 1_560 and now.confidence >= CONFIDENT, now
    assert before.value == 1_586 and before.confidence >= CONFIDENT, before
    for name in (
        "Provision for income taxes",
        "Income tax expense",
        "Income tax provision",
        "Provision for taxes on income",
    ):
        page = millions_page(
            "CONSOLIDATED STATEMENTS OF EARNINGS",
            ("2023", "2022"),
            ("Earnings before income taxes", "4,325", "4,886"),
            (name, "772", "2,392"),
            ("Net earnings", "3,553", "2,494"),
        )
        slug = name.lower().replace(" ", "_")
        other = "Income tax expense" if name == "Provision for income taxes" else "Provision for income taxes"
        got = read(
            annual(tmp_path / f"{slug}.pdf", page),
            f"{other} for the fiscal year of the report, in USD millions",
        )
        assert got.value == 772 and got.confidence >= CONFIDENT, (name, got)
    cash_flow = millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022"),
        ("Net income", "3,553", "2,494"),
        ("Deferred income tax expense", "(120)", "45"),
        ("Net cash provided by operating activities", "5,903", "4,955"),
    )
    got = read(annual(tmp_path / "deferred.pdf", cash_flow), asked.format("fiscal year of the report"))
    assert got.value is None, got


def test_a_description_placing_its_line_within_a_section_of_the_balance_sheet(tmp_path: Path) -> None:
    """ "Noncontrolling interests within equity", "Deferred revenue / unearned revenue / contract liabilities
    within current liabilities": the location clause says where the line sits, it is not printed in its
    label; each "/" alternative is a name of its own; "(balance sheet)" names the statement, no line."""
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Accounts payable", "1,200", "1,100"),
        ("Contract liabilities", "640", "590"),
        ("Total current liabilities", "1,840", "1,690"),
        ("Long-term debt", "3,000", "3,100"),
        ("Common stock", "10", "10"),
        ("Retained earnings", "5,000", "4,500"),
        ("Total Acme shareholders' equity", "5,010", "4,510"),
        ("Noncontrolling interests", "71", "57"),
        ("Total equity", "5,081", "4,567"),
    )
    doc = annual(tmp_path / "balance.pdf", balance)
    tail = "at the end of the fiscal year of the report (balance sheet), in USD millions"
    minority = read(doc, f"Noncontrolling interests within equity {tail}")
    assert minority.value == 71 and minority.confidence >= CONFIDENT, minority
    deferred = read(
        doc, f"Deferred revenue / unearned revenue / contract liabilities within current liabilities {tail}"
    )
    assert deferred.value == 640 and deferred.confidence >= CONFIDENT, deferred
    assert description_heads(f"Goodwill {tail}") == ["Goodwill"]
    assert description_heads("Deferred revenue / contract liabilities within current liabilities") == [
        "Deferred revenue",
        "contract liabilities",
    ]


def test_a_deferred_tax_table_under_a_heading_flush_with_its_rows(tmp_path: Path) -> None:
    """A tax note lists "Unearned revenue 494 520" under "Deferred Income Tax Assets", a bold heading set at
    the rows' own indent: a tax amount, not the balance sheet's unearned revenue."""
    note = [
        text("The components of the deferred income tax assets and liabilities were as follows:"),
        MILLIONS,
        row("", "2023", "2022", cols=WIDE),
        text("Deferred Income Tax Assets"),
        row("Stock-based compensation expense", "809", "884", cols=WIDE),
        row("Unearned revenue", "494", "520", cols=WIDE),
        row("Loss carryforwards", "1,703", "1,158", cols=WIDE),
        row("Deferred income tax assets", "3,006", "2,562", cols=WIDE),
    ]
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Accounts payable", "1,200", "1,100"),
        ("Unearned revenue", "2,750", "2,400"),
        ("Total current liabilities", "3,950", "3,500"),
    )
    asked = "Unearned revenue at the end of the fiscal year of the report, in USD millions"
    both = read(annual(tmp_path / "both.pdf", balance, note), asked)
    assert both.value == 2_750 and both.confidence >= CONFIDENT, both
    alone = read(annual(tmp_path / "note.pdf", note), asked)
    assert alone.value != 494, alone


def test_balance_sheet_lines_under_their_other_printed_names(tmp_path: Path) -> None:
    """Additional paid-in capital printed as "Capital surplus" or "Capital in excess of par value", the
    current portion of long-term debt as "Current maturities of long-term debt" or "Long-term debt due
    within one year", intangible assets as "Acquired intangible assets, net"; a line that also holds another
    item ("Short-term debt and current portion …", "Goodwill and intangible assets") is not the field."""
    tail = "at the end of the fiscal year of the report (balance sheet), in USD millions"
    asks = {
        "apic": f"Additional paid-in capital (capital in excess of par value) {tail}",
        "current debt": f"Current portion (current maturities) of long-term debt within current liabilities {tail}",
        "intangibles": f"Intangible assets, net (other than goodwill) {tail}",
    }
    for n, (apic, due, intangible) in enumerate(
        [
            ("Capital surplus", "Current maturities of long-term debt", "Acquired intangible assets, net"),
            (
                "Capital in excess of par value",
                "Long-term debt due within one year",
                "Identifiable intangible assets, net",
            ),
        ]
    ):
        balance = millions_page(
            "CONSOLIDATED BALANCE SHEETS",
            ("December 31, 2023", "December 31, 2022"),
            ("Goodwill", "9,100", "9,000"),
            (intangible, "2,311", "2,562"),
            ("Accounts payable", "1,200", "1,100"),
            (due, "3,298", "3,527"),
            ("Long-term debt", "31,182", "29,684"),
            (apic, "15,864", "14,993"),
            ("Retained earnings", "60,430", "65,502"),
        )
        doc = annual(tmp_path / f"names{n}.pdf", balance)
        got = {key: read(doc, asked) for key, asked in asks.items()}
        assert got["apic"].value == 15_864 and got["apic"].confidence >= CONFIDENT, got["apic"]
        assert got["current debt"].value == 3_298 and got["current debt"].confidence >= CONFIDENT, got
        assert got["intangibles"].value == 2_311 and got["intangibles"].confidence >= CONFIDENT, got
    combined = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Goodwill and intangible assets, net", "11,411", "11,562"),
        ("Short-term debt and current portion of long-term debt", "3,298", "3,527"),
    )
    doc = annual(tmp_path / "combined.pdf", combined)
    for key in ("current debt", "intangibles"):
        got = read(doc, asks[key])
        assert got.value is None or got.confidence < REVIEW_BELOW, (key, got)


def test_location_words_and_alternatives_of_unusual_descriptions() -> None:
    """Only a current section lets a label print "current"; alternatives without English words (a
    Chinese description) leave the description whole."""
    assert location_words("Deferred revenue within current liabilities at year end") == {"current"}
    # a noncurrent section's word is "noncurrent", never "current"
    assert location_words("Deferred revenue within non-current liabilities at year end") == {"noncurrent"}
    assert location_words("Noncontrolling interests within equity") == frozenset()
    assert description_heads("营业收入/营业总收入") == ["营业收入/营业总收入"]


@pytest.mark.parametrize(
    "label",
    [
        "Increase (decrease) in cash, cash equivalents and restricted cash",
        "Net (Decrease)/Increase in Cash and Cash Equivalents and Restricted Cash",
    ],
)
def test_what_a_description_says_its_line_includes_may_be_printed_in_the_label(
    tmp_path: Path, label: str
) -> None:
    """ "Net increase in cash and cash equivalents (including restricted cash …)" is printed "Increase
    (decrease) in cash, cash equivalents and restricted cash": the included words restrict nothing. A
    description that does not include them still reads the printed line as a narrower one."""
    flows = millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022"),
        ("Net cash provided by operating activities", "2,408", "2,107"),
        ("Net cash used in investing activities", "(1,210)", "(3,001)"),
        (label, "884", "(1,133)"),
        ("Cash, cash equivalents and restricted cash at beginning of year", "1,989", "3,122"),
    )
    doc = annual(tmp_path / "flows.pdf", flows)
    asked = "Net increase (decrease) in cash and cash equivalents{} for the fiscal year of the report, in USD millions"
    got = read(doc, asked.format(" (including restricted cash where the statement includes it)"))
    assert got.value == 884 and got.confidence >= CONFIDENT, got
    assert included_words(asked.format(" (including restricted cash where printed)")) == {
        "restricted",
        "cash",
    }
    narrower = read(doc, asked.format(""))
    assert narrower.value is None or narrower.confidence < CONFIDENT, narrower


def test_the_statement_s_total_of_other_comprehensive_income_outranks_a_note_row(tmp_path: Path) -> None:
    """A description naming the statement of comprehensive income: its "Total other comprehensive income
    (loss), net of tax" row (a "net of tax" tail names no other line; the title wrapped onto two lines is
    still the title) outranks a hedging note's row printed with the bare name."""
    statement = [
        text("CONSOLIDATED STATEMENTS OF COMPREHENSIVE"),
        text("INCOME"),
        MILLIONS,
        row("", "2023", "2022", cols=WIDE),
        row("Net income", "5,070", "6,046", cols=WIDE),
        row("Other comprehensive income (loss), net of tax:", cols=WIDE),
        row("Change in foreign currency translation adjustment", "267", "(522)", cols=WIDE),
        row("Change in net gains (losses) on cash flow hedges", "(354)", "1,220", cols=WIDE),
        row("Total other comprehensive income (loss), net of tax", "(87)", "698", cols=WIDE),
        row("TOTAL COMPREHENSIVE INCOME", "4,983", "6,744", cols=WIDE),
    ]
    note = [
        text("NOTE 9 — DERIVATIVE FINANCIAL INSTRUMENTS"),
        MILLIONS,
        row("", "2023", "2022", cols=WIDE),
        row("Gains (losses) on cash flow hedges", "(2)", "(4)", cols=WIDE),
        row("Other comprehensive income (loss)", "(1)", "(3)", cols=WIDE),
    ]
    doc = annual(tmp_path / "oci.pdf", statement, note)
    assert page_statement(_lines_by_page(doc)[2]) == "income"
    asked = (
        "Other comprehensive income (loss), net of tax, attributable to the company for the fiscal year of"
        " the report (the statement of comprehensive income's total of other comprehensive items, not total"
        " comprehensive income), in USD millions"
    )
    got = read(doc, asked)
    assert got.value == -87 and got.confidence >= CONFIDENT, got


def test_a_short_term_line_is_the_current_one_where_the_description_asks_a_current_section(
    tmp_path: Path,
) -> None:
    """ "Short-term unearned revenue" is current deferred revenue when the description places its line within
    current liabilities; without that clause "short-term" restricts the line (held for review), and a label
    that also says "current" ("Short-term debt and current portion …") still holds two items."""
    balance = millions_page(
        "BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Accounts payable", "18,095", "19,000"),
        ("Short-term unearned revenue", "50,901", "45,538"),
        ("Total current liabilities", "104,149", "95,082"),
        ("Long-term unearned revenue", "2,912", "2,870"),
    )
    doc = annual(tmp_path / "unearned.pdf", balance)
    tail = "at the end of the fiscal year of the report (balance sheet), in USD millions"
    current = read(doc, f"Deferred revenue / unearned revenue within current liabilities {tail}")
    assert current.value == 50_901 and current.confidence >= CONFIDENT, current
    whole = read(doc, f"Unearned revenue {tail}")
    assert whole.value is None or whole.confidence < REVIEW_BELOW, whole
    assert short_term_as_current("Short-term investments", frozenset({"current"})) == "Current investments"
    combined = "Short-term debt and current portion of long-term debt"
    assert short_term_as_current(combined, frozenset({"current"})) == combined


def test_equity_attributable_to_noncontrolling_interests_is_the_noncontrolling_interests_line(
    tmp_path: Path,
) -> None:
    """A balance sheet printing "EQUITY ATTRIBUTABLE TO NONCONTROLLING INTERESTS": the label of equity alone
    names its holders, so it is the noncontrolling interests line; a net income "attributable to
    noncontrolling interests" is not."""
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Retained earnings", "60,430", "65,502"),
        ("EQUITY ATTRIBUTABLE TO SHAREOWNERS OF ACME", "17,072", "23,062"),
        ("EQUITY ATTRIBUTABLE TO NONCONTROLLING INTERESTS", "1,905", "158"),
        ("TOTAL EQUITY", "18,977", "23,220"),
    )
    doc = annual(tmp_path / "nci.pdf", balance)
    got = read(
        doc,
        "Noncontrolling interests within equity at the end of the fiscal year (balance sheet), in USD millions",
    )
    assert got.value == 1_905 and got.confidence >= CONFIDENT, got
    assert (
        holders_equity("Total equity attributable to noncontrolling interests") == "noncontrolling interests"
    )
    income = "Net income attributable to noncontrolling interests"
    assert holders_equity(income) == income


TAX_LEAD_IN = text(
    "The items accounting for the difference between income taxes computed at the federal statutory rate"
)
TAX_LEAD_IN_END = text("and our effective rate were as follows:")
RATE_ROWS = [
    row("", "2023", "2022", cols=WIDE),
    row("Federal statutory rate", "21.0%", "21.0%", cols=WIDE),
    row("Effect of:", cols=WIDE),
    row("Foreign earnings taxed at lower rates", "(3.1)%", "(2.4)%", cols=WIDE),
    row("Effective rate", "18.2%", "19.6%", cols=WIDE),
]
RATE = "Effective income tax rate for the fiscal year of the report, in percent"


def test_a_row_names_its_line_item_with_the_words_of_its_table_s_lead_in(tmp_path: Path) -> None:
    """ "Effective rate" under a lead-in sentence about income taxes names the effective income tax rate,
    below CONFIDENT on its own; without a lead-in stating "income tax" the same row names nothing."""
    doc = annual(
        tmp_path / "tax.pdf", [text("NOTE 12 — INCOME TAXES"), TAX_LEAD_IN, TAX_LEAD_IN_END, *RATE_ROWS]
    )
    got = TableReader().read(doc, fld(RATE, type="percent", unit="%", scale=1.0), "")
    assert got.status == "found" and got.value == 18.2 and REVIEW_BELOW <= got.confidence < CONFIDENT, got
    other = annual(tmp_path / "rates.pdf", [text("The rates of the year were as follows:"), *RATE_ROWS])
    missed = TableReader().read(other, fld(RATE, type="percent", unit="%", scale=1.0), "")
    assert missed.status == "not_found", missed
    # a lead-in sharing a word by chance with the description names nothing
    allocation = [
        text("The preliminary allocation of the purchase price was as follows:"),
        row("Inventories", "1,321", cols=WIDE),
        row("Property, plant & equipment", "36", cols=WIDE),
    ]
    acquired = annual(tmp_path / "deal.pdf", [MILLIONS, *allocation])
    capex = read(
        acquired,
        "Capital expenditures (purchases of property and equipment) for the fiscal year, in USD millions",
    )
    assert capex.status == "not_found", capex


def test_a_whole_percent_in_prose_yields_to_the_exact_rate_of_the_table(tmp_path: Path) -> None:
    """ "Our effective tax rate … was 18% and 20%" and the reconciliation's "Effective rate 18.2%" are one
    fact: the table's exact rate is read, with the prose's confidence, and no rivalry."""
    prose = [
        text(
            "Our effective tax rate for fiscal years 2023 and 2022 was 18% and 20%, respectively. The decrease"
        ),
        text("was primarily due to foreign earnings taxed at lower rates."),
    ]
    doc = annual(tmp_path / "tax.pdf", prose, [TAX_LEAD_IN, TAX_LEAD_IN_END, *RATE_ROWS])
    got = TableReader().read(doc, fld(RATE, type="percent", unit="%", scale=1.0), "")
    assert got.value == 18.2 and got.status == "found", got
    prior = RATE.replace("fiscal year of the report", "prior fiscal year")
    before = TableReader().read(doc, fld(prior, type="percent", unit="%", scale=1.0), "")
    assert before.value == 19.6 and before.status == "found", before


def test_a_plain_share_count_under_a_basic_heading_is_the_basic_count(tmp_path: Path) -> None:
    """ "Weighted average shares of common stock outstanding" under "Basic Earnings Per Common Share:" is
    the basic count (below CONFIDENT: the basis is the heading's); the same label under the diluted heading
    is not read for it, and the diluted count is the row that says so."""
    note = [
        text("Note 21. Earnings Per Share"),
        MILLIONS,
        row("", "2023", "2022", cols=WIDE),
        row("Basic Earnings Per Common Share:", cols=WIDE),
        row("Net income attributable to common shareholders", "1,935", "1,012", cols=WIDE),
        row("Weighted average shares of common stock outstanding", "1,221", "1,219", cols=WIDE),
        row("Net earnings", "1.59", "0.83", cols=WIDE),
        row("Diluted Earnings Per Common Share:", cols=WIDE),
        row("Net income attributable to common shareholders", "1,935", "1,012", cols=WIDE),
        row("Weighted average shares of common stock outstanding", "1,221", "1,219", cols=WIDE),
        row("Effect of dilutive equity awards", "3", "4", cols=WIDE),
        row(
            "Weighted average shares of common stock outstanding, including dilutive effect",
            "1,224",
            "1,223",
            cols=WIDE,
        ),
        row("Net earnings", "1.58", "0.83", cols=WIDE),
    ]
    doc = annual(tmp_path / "eps.pdf", note)
    shares = "Weighted-average number of {} shares outstanding for the fiscal year of the report, in millions of shares"
    basic = read(doc, shares.format("basic"), unit="shares")
    assert basic.value == 1221 and REVIEW_BELOW <= basic.confidence < CONFIDENT, basic
    diluted = read(doc, shares.format("diluted"), unit="shares")
    assert diluted.value == 1224 and diluted.confidence >= CONFIDENT, diluted
    only_diluted = annual(tmp_path / "diluted.pdf", [note[0], MILLIONS, note[2], *note[7:]])
    assert read(only_diluted, shares.format("basic"), unit="shares").status == "not_found"


def test_a_deducted_expense_of_a_later_column_is_the_amount_spent(tmp_path: Path) -> None:
    """ "Interest expense (160) (177) (177)": the prior year's "(177)" is read as 177 spent, like the
    current year's; the earlier column's parentheses are no part of its label."""
    cols = (400.0, 470.0, 540.0)
    statement = [
        text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
        MILLIONS,
        row("", "2023", "2022", "2021", cols=cols),
        row("Operating income (loss)", "(481)", "(155)", "103", cols=cols),
        row("Interest expense", "(160)", "(177)", "(177)", cols=cols),
    ]
    doc = annual(tmp_path / "is.pdf", statement)
    assert read(doc, "Interest expense for the fiscal year of the report, in USD millions").value == 160
    assert read(doc, "Interest expense for the prior fiscal year, in USD millions").value == 177


def test_the_noncontrolling_interests_share_of_net_income_is_their_row(tmp_path: Path) -> None:
    """For the net income attributable to noncontrolling interests, "Consolidated net income" (the whole)
    names nothing, and "Less: Net income attributable to noncontrolling interests" is their row: "Less:"
    says how the row enters the sum, not what it is."""
    statement = millions_page(
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("2023", "2022"),
        ("Income from continuing operations before income taxes", "6,742", "8,136"),
        ("Income taxes", "5,560", "1,586"),
        ("CONSOLIDATED NET INCOME", "1,283", "6,550"),
        ("Less: Net income attributable to noncontrolling interests", "35", "23"),
        ("NET INCOME ATTRIBUTABLE TO SHAREOWNERS OF ACME", "1,248", "6,527"),
    )
    doc = annual(tmp_path / "is.pdf", statement)
    nci = "Net income attributable to noncontrolling interests for the fiscal year of the report (income statement), in USD millions"
    got = read(doc, nci)
    assert got.value == 35 and got.confidence >= CONFIDENT, got
    assert normalize_label("Less: Net income attributable to noncontrolling interests") == normalize_label(
        "Net income attributable to noncontrolling interests"
    )
    company = read(
        doc, "Net income attributable to the company for the fiscal year of the report, in USD millions"
    )
    assert company.value == 1248, company


def test_the_statement_section_a_description_places_its_line_in_is_no_part_of_its_name(
    tmp_path: Path,
) -> None:
    """ "Repayments of long-term debt … in the financing activities section of the cash flow statement":
    the section clause says where the line is printed, so "Repayment of long-term debt" names it, and the
    short-term line beside it does not."""
    statement = millions_page(
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("2023", "2022"),
        ("CASH FLOWS FROM FINANCING ACTIVITIES",),
        ("Proceeds from short-term debt", "2,003", "1,400"),
        ("Repayment of short-term debt", "(1,101)", "(900)"),
        ("Proceeds from issuances of long-term debt", "3,377", "4,122"),
        ("Repayment of long-term debt", "(2,134)", "(1,802)"),
    )
    doc = annual(tmp_path / "cf.pdf", statement)
    where = "in the financing activities section of the cash flow statement for the fiscal year of the report"
    assert description_heads(f"Repayments of long-term debt (principal payments) {where}") == [
        "Repayments of long-term debt",
        "principal payments",
    ]
    repaid = read(doc, f"Repayments of long-term debt {where}, in USD millions")
    assert repaid.value == -2134 and repaid.confidence >= CONFIDENT, repaid
    issued = read(doc, f"Proceeds from issuance of long-term debt {where}, in USD millions")
    assert issued.value == 3377 and issued.confidence >= CONFIDENT, issued


def test_a_ratio_named_by_its_parts_is_read_from_the_row_printing_those_parts(tmp_path: Path) -> None:
    """ "Gross margin (gross profit as a percentage of revenue)": the parenthesis is the ratio's printed
    name, so "Gross profit as a % of revenue" and "Operating income as a percentage of net sales" are the
    margins' rows; the amounts' rows are not."""
    page = millions_page(
        "RESULTS OF OPERATIONS",
        ("2023", "2022"),
        ("Revenue", "43,452", "46,298"),
        ("Gross profit", "9,912", "11,640"),
        ("Gross profit as a % of revenue", "22.8 %", "25.1 %"),
        ("Operating income", "1,795", "3,039"),
        ("Operating income as a percentage of net sales", "4.1 %", "6.6 %"),
    )
    doc = annual(tmp_path / "mdna.pdf", page)
    where = "for the fiscal year of the report, as printed by the filing, in percent"
    gross = f"Gross margin (gross profit as a percentage of revenue) {where}"
    assert description_heads(gross) == ["Gross margin", "gross profit as a percentage of revenue"]
    got = read(doc, gross, type="percent", unit="%", scale=1.0)
    assert got.value == 22.8 and got.confidence >= REVIEW_BELOW, got
    operating = f"Operating margin (operating income as a percentage of revenue) {where}"
    got = read(doc, operating, type="percent", unit="%", scale=1.0)
    assert got.value == 4.1 and got.confidence >= REVIEW_BELOW, got


def test_a_noncurrent_line_is_named_by_its_long_term_label(tmp_path: Path) -> None:
    """ "Operating lease liabilities, non-current": "Long-term …" and "…, non-current" are one section
    word, so "Long-term operating lease liabilities" is the line; the current one is not."""
    page = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Current operating lease liabilities", "638", "648"),
        ("Total current liabilities", "8,978", "10,674"),
        ("Long-term operating lease liabilities", "2,164", "2,061"),
        ("Long-term debt", "1,160", "1,216"),
    )
    doc = view(draw(tmp_path / "bs.pdf", [COVER, page]), year=2023, doctype="10-K")
    ask = "Operating lease liabilities, non-current (the long-term portion) at the end of the fiscal year (balance sheet), in USD millions"
    got = read(doc, ask)
    assert got.value == 2164 and got.confidence >= CONFIDENT, got
    assert location_words(ask) == {"noncurrent"}


ACCRUED_PAY = (
    "Accrued compensation and benefits (employee compensation) within current liabilities at the end of the "
    "fiscal year of the report, in USD millions"
)


@pytest.mark.parametrize(
    "label",
    [
        "Accrued compensation and employee benefit costs",
        "Accrued compensation and employee-related obligations",
        "Accrued salaries, wages and benefits",
        "Accrued payroll and related costs",
    ],
)
def test_accrued_compensation_under_its_printed_names(tmp_path: Path, label: str) -> None:
    """A glossary name of the line item is its name word for word: its words beyond the description's
    ("employee benefit costs") restrict nothing, so the row reads at full confidence."""
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Accounts payable", "11,703", "11,055"),
        ("Accrued liabilities", "11,456", "13,612"),
        (label, "3,328", "3,586"),
        ("Total current liabilities", "55,802", "45,226"),
    )
    got = read(annual(tmp_path / "pay.pdf", balance), ACCRUED_PAY)
    assert got.value == 3_328 and got.confidence >= CONFIDENT, got


def test_accrued_compensation_with_other_liabilities_is_not_the_line(tmp_path: Path) -> None:
    """ "Accrued compensation and other liabilities" holds more than the field; no glossary name, so its
    extra words still restrict and the row is no confident reading."""
    balance = millions_page(
        "CONSOLIDATED BALANCE SHEETS",
        ("December 31, 2023", "December 31, 2022"),
        ("Accounts payable", "11,703", "11,055"),
        ("Accrued compensation and other liabilities", "3,328", "3,586"),
        ("Total current liabilities", "55,802", "45,226"),
    )
    got = read(annual(tmp_path / "other.pdf", balance), ACCRUED_PAY)
    assert got.value is None or got.confidence < CONFIDENT, got
