"""Line items under words statements add to their names, on statements drawn here; each was taken for a
restricting word (a component or another line item), so its row scored low and its figure was held for
review or read from prose:

- "Common stock cash dividends paid" (negatives printed "(19,800 )"), the dividends paid to shareholders;
  a preferred stock's dividends keep their restricting word;
- "Interest expense, net of portion capitalized (Note 4)": how the expense is counted (only "net of
  capitalized interest" and "net of amounts capitalized" were known);
- "Merchandise inventories", a retailer's inventories;
- "Gross margin" printed in dollars between cost of revenue and the operating expenses: the gross profit
  under the name many US filers give it. A "Gross margin" row of percentages is no amount of dollars;
- "Dividends — common and preferred": every class's dividends, so the dividends paid to shareholders;
- "Depreciation and amortization of property and intangibles": of both classes of assets, so the whole;
- "Common shares repurchased", "Share repurchases - common": the repurchases of common stock (the class
  after a dash is the class before the line item); a preferred class stays a restriction;
- "Sales to customers": the revenue (a region after it still restricts it);
- "Revenues: / Net sales / Membership and other income / Total revenues": for "Total revenue (net sales)"
  the block's total, not its first row that the description's other name matches."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdqa_kernel.readers.confidence import REVIEW_BELOW
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import COVER, MILLIONS, YEARS, read

COLS = (400.0, 470.0, 540.0)
DIVIDENDS = (
    "Cash dividends paid to shareholders in the fiscal year of the report as printed in the cash flow statement,"
    " in USD millions (an outflow in parentheses is negative)"
)
REPURCHASED = "Common stock repurchased in the fiscal year of the report, in USD millions"


def _statement(tmp_path: Path, dividends_label: str, repurchases_label: str = "Common stock repurchased"):
    page = [
        text("CASH FLOWS STATEMENTS"),
        text("(In millions)"),
        row("Year Ended June 30,", "2023", "2022", "2021", cols=COLS),
        text("Financing"),
        row("Repayments of debt", "(2,750 )", "(9,023 )", "(3,750 )", cols=COLS),
        row("Common stock issued", "1,866", "1,841", "1,693", cols=COLS),
        row(repurchases_label, "(22,245 )", "(32,696 )", "(27,385 )", cols=COLS),
        row(dividends_label, "(19,800 )", "(18,135 )", "(16,521 )", cols=COLS),
        row("Other, net", "(1,006 )", "(863 )", "(769 )", cols=COLS),
        row("Net cash used in financing", "(43,935 )", "(58,876 )", "(48,486 )", cols=COLS),
    ]
    return view(draw(tmp_path / "cf.pdf", [page]), year=2023, doctype="10-K")


def test_common_stock_cash_dividends_paid(tmp_path: Path) -> None:
    doc = _statement(tmp_path, "Common stock cash dividends paid")
    dividends = read(doc, DIVIDENDS)
    assert (dividends.value, dividends.confidence >= REVIEW_BELOW) == (-19800, True), dividends
    repurchased = read(doc, REPURCHASED)
    assert (repurchased.value, repurchased.confidence >= REVIEW_BELOW) == (-22245, True), repurchased


@pytest.mark.parametrize(
    "label",
    [
        "Dividends — common and preferred",
        "Dividends paid on common and preferred stock",
        "Common and preferred stock cash dividends paid",
    ],
)
def test_dividends_of_common_and_preferred_stock_are_the_shareholders(tmp_path: Path, label: str) -> None:
    dividends = read(_statement(tmp_path, label), DIVIDENDS)
    assert (dividends.value, dividends.confidence >= REVIEW_BELOW) == (-19800, True), dividends


def test_preferred_stock_dividends_are_not_the_shareholders(tmp_path: Path) -> None:
    dividends = read(_statement(tmp_path, "Preferred stock dividends paid"), DIVIDENDS)
    assert dividends.confidence < REVIEW_BELOW, dividends


def test_interest_expense_net_of_portion_capitalized(tmp_path: Path) -> None:
    page = [
        text("CONSOLIDATED STATEMENTS OF EARNINGS"),
        row("(Dollars in Millions) (Note 1)", "2022", "2021", "2020", cols=COLS),
        row("Selling, marketing and administrative expenses", "24,765", "25,231", "22,084", cols=COLS),
        row("Interest income", "(490)", "(53)", "(111)", cols=COLS),
        row("Interest expense, net of portion capitalized (Note 4)", "276", "183", "201", cols=COLS),
        row("Other (income) expense, net", "(214)", "489", "2,899", cols=COLS),
    ]
    doc = view(draw(tmp_path / "is.pdf", [page]), year=2022, doctype="10-K")
    interest = read(doc, "Interest expense for the fiscal year of the report, in USD millions")
    assert (interest.value, interest.confidence >= REVIEW_BELOW) == (276, True), interest


def test_merchandise_inventories_at_both_year_ends(tmp_path: Path) -> None:
    cols = (456.0, 562.0)
    page = [
        text("For the fiscal year ended January 28, 2023"),
        text("Consolidated Balance Sheets"),
        text("$ in millions, except per share amounts"),
        row("", "January 28, 2023", "January 29, 2022", cols=cols),
        text("Current assets"),
        row("Cash and cash equivalents", "$ 1,874", "$ 2,936", cols=cols),
        row("Receivables, net", "1,141", "1,042", cols=cols),
        row("Merchandise inventories", "5,140", "5,965", cols=cols),
        row("Total current assets", "8,802", "10,539", cols=cols),
    ]
    doc = view(draw(tmp_path / "bs.pdf", [page]), year=2023, doctype="10-K")
    for asked, printed in (
        ("Inventories at the end of the fiscal year of the report, in USD millions", 5140),
        (
            "Inventories at the end of the prior fiscal year (the balance sheet's comparative column), in USD millions",
            5965,
        ),
    ):
        inventories = read(doc, asked)
        assert (inventories.value, inventories.confidence >= REVIEW_BELOW) == (printed, True), inventories


def test_gross_margin_in_dollars_is_the_gross_profit(tmp_path: Path) -> None:
    page = [
        text("INCOME STATEMENTS"),
        MILLIONS,
        YEARS,
        row("Revenue", "85,320", "93,580"),
        row("Cost of revenue", "32,780", "33,038"),
        row("Gross margin", "52,540", "60,542"),
        row("Research and development", "11,988", "12,046"),
        row("Operating income", "20,182", "18,161"),
        row("Gross margin percentage", "61.6%", "64.7%"),
    ]
    doc = view(draw(tmp_path / "is.pdf", [COVER, page]), year=2023, doctype="10-K")
    for asked, printed in (
        ("Gross profit for the fiscal year of the report, in USD millions", 52540),
        (
            "Gross profit for the prior fiscal year (the year before the report's fiscal year), in USD millions",
            60542,
        ),
    ):
        gross = read(doc, asked)
        assert (gross.value, gross.confidence >= REVIEW_BELOW) == (printed, True), gross
    ratio = read(doc, "Gross margin percentage for the fiscal year of the report", unit="percent", scale=1.0)
    assert ratio.value == 61.6, ratio


def test_gross_margin_in_percent_is_not_the_gross_profit(tmp_path: Path) -> None:
    page = [
        text("SELECTED DATA"),
        YEARS,
        row("Gross margin", "38.5%", "37.2%"),
        row("Operating margin", "10.1%", "9.4%"),
    ]
    doc = view(draw(tmp_path / "data.pdf", [COVER, page]), year=2023, doctype="10-K")
    gross = read(doc, "Gross profit for the fiscal year of the report, in USD millions")
    assert gross.confidence < REVIEW_BELOW, gross


def _operating_cash_flows(tmp_path: Path, label: str):
    cols = (475.0, 525.0, 575.0)  # clear of a long label
    page = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        text("(Dollars in Millions)"),
        row("", "2022", "2021", "2020", cols=cols),
        text("Cash flows from operating activities"),
        row("Net earnings", "17,941", "20,878", "14,714", cols=cols),
        row(label, "6,970", "7,390", "7,231", cols=cols),
        row("Stock based compensation", "1,138", "1,135", "1,005", cols=cols),
    ]
    return view(draw(tmp_path / "cf.pdf", [page]), year=2022, doctype="10-K")


D_AND_A = "Depreciation and amortization in the cash flow statement for the fiscal year of the report, in USD millions"


@pytest.mark.parametrize(
    "label",
    [
        "Depreciation and amortization of property and intangibles",
        "Depreciation and amortization of property, plant and equipment and intangible assets",
    ],
)
def test_depreciation_and_amortization_of_both_asset_classes(tmp_path: Path, label: str) -> None:
    amount = read(_operating_cash_flows(tmp_path, label), D_AND_A)
    assert (amount.value, amount.confidence >= REVIEW_BELOW) == (6970, True), amount


def test_depreciation_and_amortization_of_one_asset_class_is_a_part(tmp_path: Path) -> None:
    amount = read(
        _operating_cash_flows(tmp_path, "Depreciation and amortization of property and equipment"), D_AND_A
    )
    assert amount.confidence < REVIEW_BELOW, amount


REPURCHASES = (
    "Repurchases of common stock in the cash flow statement for the fiscal year of the report, in USD millions"
    " (an outflow in parentheses is negative)"
)


@pytest.mark.parametrize(
    "label", ["Common shares repurchased", "Share repurchases - common", "Share repurchases — common"]
)
def test_repurchases_of_common_shares(tmp_path: Path, label: str) -> None:
    doc = _statement(tmp_path, "Cash dividends paid", repurchases_label=label)
    repurchased = read(doc, REPURCHASES)
    assert (repurchased.value, repurchased.confidence >= REVIEW_BELOW) == (-22245, True), repurchased


def test_repurchases_of_preferred_shares_are_not_the_common(tmp_path: Path) -> None:
    doc = _statement(tmp_path, "Cash dividends paid", repurchases_label="Share repurchases - preferred")
    assert read(doc, REPURCHASES).confidence < REVIEW_BELOW


def test_sales_to_customers_is_the_revenue(tmp_path: Path) -> None:
    page = [
        text("CONSOLIDATED STATEMENTS OF EARNINGS"),
        MILLIONS,
        YEARS,
        row("Sales to customers", "94,943", "93,775"),
        row("Cost of products sold", "31,089", "29,855"),
        row("Gross profit", "63,854", "63,920"),
    ]
    doc = view(draw(tmp_path / "is.pdf", [COVER, page]), year=2023, doctype="10-K")
    revenue = read(doc, "Total revenue (net sales) for the fiscal year of the report, in USD millions")
    assert (revenue.value, revenue.confidence >= REVIEW_BELOW) == (94943, True), revenue
    prior = read(doc, "Total revenue (net sales) for the prior fiscal year, in USD millions")
    assert (prior.value, prior.confidence >= REVIEW_BELOW) == (93775, True), prior


def test_sales_to_customers_in_a_region_is_a_part(tmp_path: Path) -> None:
    page = [
        text("GEOGRAPHIC INFORMATION"),
        MILLIONS,
        YEARS,
        row("Sales to customers in the United States", "48,580", "47,156"),
        row("Property, plant and equipment in the United States", "9,112", "8,931"),
    ]
    doc = view(draw(tmp_path / "geo.pdf", [COVER, page]), year=2023, doctype="10-K")
    revenue = read(doc, "Total revenue (net sales) for the fiscal year of the report, in USD millions")
    assert revenue.value is None or revenue.confidence < REVIEW_BELOW, revenue


def _revenues_block(tmp_path: Path):
    page = [
        text("Consolidated Statements of Income"),
        MILLIONS,
        YEARS,
        text("Revenues:"),
        row("Net sales", "519,926", "510,329"),
        row("Membership and other income", "4,038", "4,076"),
        row("Total revenues", "523,964", "514,405"),
        text("Costs and expenses:"),
        row("Cost of sales", "394,605", "385,301"),
    ]
    return view(draw(tmp_path / "is.pdf", [COVER, page]), year=2023, doctype="10-K")


def test_the_asked_total_is_the_blocks_total_row(tmp_path: Path) -> None:
    doc = _revenues_block(tmp_path)
    total = read(doc, "Total revenue (net sales) for the fiscal year of the report, in USD millions")
    assert (total.value, total.confidence >= REVIEW_BELOW) == (523964, True), total
    prior = read(doc, "Total revenue (net sales) for the prior fiscal year, in USD millions")
    assert (prior.value, prior.confidence >= REVIEW_BELOW) == (514405, True), prior


def test_a_part_is_read_when_the_description_asks_for_it(tmp_path: Path) -> None:
    doc = _revenues_block(tmp_path)
    sales = read(doc, "Net sales for the fiscal year of the report, in USD millions")
    assert (sales.value, sales.confidence >= REVIEW_BELOW) == (519926, True), sales
