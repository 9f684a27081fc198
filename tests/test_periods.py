"""Period-aware statement tables: a number's column is chosen by the period its header names, against
the document's reporting period and the period the field asks for, never by its position; scales come
from the caption or the column header. Each statement is drawn by the test (reportlab) and read through
the real parser and the table reader."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import Status, view_from_parse
from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.readers.semantics import statement_scope
from mdqa_kernel.readers.table.reader import TableReader
from mdqa_kernel.text.fiscal_names import NAMED_LOOSELY, YEAR_UNNAMED, fiscal_naming, named_report
from mdqa_kernel.text.period_fit import column_periods, fits
from mdqa_kernel.text.periods import (
    ReportPeriod,
    counted_quarter,
    dates_in,
    parse_period,
    report_period,
    wanted_period,
)
from mdqa_kernel.text.values import declared_scale, is_scale_caption

# A drawn line: (x, text, how) with how "l" (x is the left edge), "r" (right edge) or "c" (centre).
Item = tuple[float, str, str]
COLS = (330.0, 420.0, 510.0)  # right edges of the number columns


def draw(path: Path, pages: list[list[list[Item]]], cjk: bool = False) -> Path:
    font = "Helvetica"
    if cjk:
        if "STSong-Light" not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
        font = "STSong-Light"
    c = canvas.Canvas(str(path), pagesize=A4)
    for lines in pages:
        c.setFont(font, 9)
        y = 790.0
        for items in lines:
            for x, text, how in items:
                {"l": c.drawString, "r": c.drawRightString, "c": c.drawCentredString}[how](x, y, text)
            y -= 15
        c.showPage()
    c.save()
    return path


def row(label: str, *values: str, cols: tuple[float, ...] = COLS) -> list[Item]:
    return [(72, label, "l"), *((x, v, "r") for x, v in zip(cols, values, strict=False))]


def text(line: str) -> list[Item]:
    return [(72, line, "l")]


def fld(description: str, type: str = "number", unit: str | None = None):
    return SimpleNamespace(name="f", type=type, description=description, question="", unit=unit, scale=1.0)


def view(path: Path, **meta):
    return view_from_parse(parse_pdf(path), path.stem, meta)


def read(doc, description: str, type: str = "number"):
    return TableReader().read(doc, fld(description, type), "")


def income_statement(path: Path, years: tuple[str, ...], cover: str = "", spanned: bool = True) -> Path:
    """A 10-K income statement: "Year Ended December 31," spans the columns (unless not `spanned`), the
    years below it."""
    by_year = {
        "2023": ("211,915", "72,361", "9.68", "221"),
        "2022": ("198,270", "72,738", "9.65", "210"),
        "2021": ("168,088", "61,271", "8.05", "181"),
    }

    def values(k: int) -> tuple[str, ...]:
        return tuple(by_year[y][k] for y in years)

    return draw(
        path,
        [
            [text(cover)] if cover else [text("ANNUAL REPORT")],
            [
                text("CONSOLIDATED STATEMENTS OF INCOME"),
                text("(In millions, except per share data)"),
                *([[(430, "Year Ended December 31,", "c")]] if spanned else []),
                [(x, y, "r") for x, y in zip(COLS, years, strict=True)],
                row("Total revenue", *values(0)),
                row("Net income", *values(1)),
                row("Diluted earnings per share", *values(2)),
                row("Employees (in thousands)", *values(3)),
            ],
        ],
    )


@pytest.mark.parametrize("years", [("2023", "2022", "2021"), ("2021", "2022", "2023")])
def test_us_year_row_under_a_spanning_header(tmp_path, years):
    """The current year is whichever column its header names: leftmost or rightmost."""
    doc = view(income_statement(tmp_path / "is.pdf", years), year=2023, doctype="10-K")
    revenue = read(doc, "Total revenue")
    assert revenue.value == pytest.approx(211_915e6) and revenue.confidence >= CONFIDENT
    assert read(doc, "Net income").value == pytest.approx(72_361e6)
    # "except per share data": a per-share row is printed as it is
    assert read(doc, "Diluted earnings per share").value == pytest.approx(9.68)
    # a unit in the row label wins over the caption's
    assert read(doc, "Employees", "integer").value == 221_000
    # the field asks for another year: that column
    assert read(doc, "Net income for the prior fiscal year").value == pytest.approx(72_738e6)
    assert read(doc, "Total revenue fiscal 2021").value == pytest.approx(168_088e6)
    assert read(doc, "Net income for the year ended December 31, 2022").value == pytest.approx(72_738e6)


@pytest.mark.parametrize("spanned", [True, False])
def test_an_annual_report_s_year_columns_hold_no_quarter(tmp_path, spanned):
    """A field asking the quarter's three months, run over a 10-K: its columns are years, printed bare
    ("2023" under the statement's title) or under "Year Ended December 31,". The year's figure was returned
    as the quarter's (0.9) when the columns named no span."""
    path = income_statement(tmp_path / "is.pdf", ("2023", "2022", "2021"), spanned=spanned)
    doc = view(path, year=2023, doctype="10-K")
    assert read(doc, "Net income for the fiscal year of the report").value == pytest.approx(72_361e6)
    for asked in (
        "Net income for the fiscal quarter of the report (three months only)",
        "Total revenue for the same fiscal quarter one year earlier (the year-ago quarter, three months only)",
    ):
        assert read(doc, asked).status == Status.NOT_FOUND, asked


def test_reporting_period_from_the_cover_page(tmp_path):
    """No year in the metadata: the cover's "For the fiscal year ended" names the period."""
    path = income_statement(
        tmp_path / "cover.pdf",
        ("2021", "2022", "2023"),
        cover="FORM 10-K  For the fiscal year ended December 31, 2023",
    )
    doc = view(path, doctype="10-K")
    revenue = read(doc, "Total revenue")
    assert revenue.value == pytest.approx(211_915e6) and revenue.confidence >= CONFIDENT


def retail_10k(path: Path, *between: str) -> Path:
    """A retailer's 10-K: the cover names a January year end, then a page per `between` line, then the
    statement of operations whose columns are headed by the dates the two fiscal years end."""
    statement = [
        text("CONSOLIDATED STATEMENTS OF OPERATIONS ($ in thousands)"),
        [(COLS[0], "Fiscal Year Ended", "r"), (COLS[1], "Fiscal Year Ended", "r")],
        [(COLS[0], "January 29, 2022", "r"), (COLS[1], "January 28, 2023", "r")],
        row("Net sales", "8,958,100", "8,747,000"),
    ]
    cover = [text("FORM 10-K  For the fiscal year ended January 28, 2023")]
    return draw(path, [cover, *([text(line)] for line in between), statement])


def test_fiscal_year_end_dates_as_column_headers(tmp_path):
    """A 52/53-week year named by the date it ends ("January 28, 2023"), the cover giving that date."""
    doc = view(retail_10k(tmp_path / "retail.pdf"), year=2022, doctype="10-K")
    sales = read(doc, "Net sales")
    assert sales.value == pytest.approx(8_747_000e3) and sales.confidence >= CONFIDENT
    assert read(doc, "Net sales prior fiscal year").value == pytest.approx(8_958_100e3)


def test_a_view_of_the_statement_page_keeps_the_covers_period(tmp_path):
    """The `pages` reader (an analyst's statement pages, FinanceBench's oracle pages) reads one page of a
    filing, but the period the filing reports is still the one its cover states: a January year end is
    resolved as in the whole document, not guessed from the page's own first lines."""
    from mdqa_kernel.readers.pages import PagesReader, restrict

    path = retail_10k(tmp_path / "retail.pdf", "PART II  Item 8. Financial Statements")
    doc = view(path, year=2022, doctype="10-K")
    assert restrict(doc, [3]).pages["page"].to_list() == [3]
    reader = PagesReader(TableReader(), {doc.doc_id: [3]})
    for description, value in (("Net sales", 8_747_000e3), ("Net sales prior fiscal year", 8_958_100e3)):
        whole, page = read(doc, description), reader.read(doc, fld(description), "")
        assert page.value == pytest.approx(value) and page.evidence is not None and page.evidence.page == 3
        assert page.confidence == whole.confidence >= CONFIDENT


def quarterly(path: Path) -> Path:
    """A 10-Q: three and six months ended June 30, each 2023 then 2022; a balance sheet below."""
    cols = (300.0, 370.0, 450.0, 520.0)
    return draw(
        path,
        [
            [text("FORM 10-Q  For the quarterly period ended June 30, 2023")],
            [
                text("CONDENSED CONSOLIDATED STATEMENTS OF INCOME (In millions)"),
                [(335, "Three Months Ended June 30,", "c"), (485, "Six Months Ended June 30,", "c")],
                [(x, y, "r") for x, y in zip(cols, ("2023", "2022", "2023", "2022"), strict=True)],
                row("Revenue", "100.5", "90.25", "210.75", "180.5", cols=cols),
                row("Net income", "20.5", "18.25", "41.5", "36.75", cols=cols),
                text(""),
                text("CONDENSED CONSOLIDATED BALANCE SHEETS (In millions)"),
                [(cols[1], "June 30, 2023", "r"), (cols[3], "December 31, 2022", "r")],
                row("Total assets", "5,400", "5,100", cols=(cols[1], cols[3])),
            ],
        ],
    )


def test_quarter_and_year_to_date_columns_of_a_10q(tmp_path):
    doc = view(quarterly(tmp_path / "q.pdf"), year="2023Q2", doctype="10-Q")
    assert read(doc, "Revenue for the three months ended June 30, 2023").value == pytest.approx(100.5e6)
    assert read(doc, "Revenue, six months ended June 30, 2023 (year to date)").value == pytest.approx(
        210.75e6
    )
    assert read(doc, "Net income, three months, prior year").value == pytest.approx(18.25e6)
    # a flow in a quarterly report that names neither span: both columns fit, the reader does not pick
    unsure = read(doc, "Revenue")
    assert unsure.status == Status.FOUND and unsure.confidence < CONFIDENT
    # a balance: the report's end date; "beginning of the year" is the prior fiscal year's end
    assets = read(doc, "Total assets")
    assert assets.value == pytest.approx(5_400e6) and assets.confidence >= CONFIDENT
    assert read(doc, "Total assets at the beginning of the year").value == pytest.approx(5_100e6)


def _offset_cash_flow(path: Path) -> Path:
    """A 10-Q whose cash flow statement centres "Six Months Ended" over its two dates, the numbers set
    right of their dates: the spanning header overlaps only the first column's number."""
    cols = (300.0, 370.0, 450.0, 520.0)
    return draw(
        path,
        [
            [
                text("FORM 10-Q  For the quarterly period ended July 29, 2023"),
                text("CONDENSED CONSOLIDATED STATEMENTS OF EARNINGS ($ in millions)"),
                [(335, "Three Months Ended", "c"), (485, "Six Months Ended", "c")],
                [(x, d, "r") for x, d in zip(cols, ("July 29, 2023", "July 30, 2022") * 2, strict=True)],
                row("Revenue", "9,583", "10,329", "18,050", "19,976", cols=cols),
                row("Net earnings", "274", "306", "518", "647", cols=cols),
            ],
            [
                text("CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS ($ in millions)"),
                [(465, "Six Months Ended", "c")],
                [(400, "July 29, 2023", "c"), (530, "July 30, 2022", "c")],
                text("Operating activities"),
                row("Net earnings", "518", "647", cols=(452.0, 582.0)),
                row("Depreciation and amortization", "473", "453", cols=(452.0, 582.0)),
            ],
        ],
    )


def test_a_header_centred_over_two_dates_heads_both_columns(tmp_path):
    doc = view(_offset_cash_flow(tmp_path / "q.pdf"), year="2024", doctype="10q")
    # the year-ago quarter is the income statement's, not the cash flow's year-ago six months
    prior = read(doc, "Net income for the same fiscal quarter one year earlier (three months only)")
    assert prior.value == pytest.approx(306e6) and prior.confidence >= CONFIDENT
    assert prior.evidence.page == 1
    # the six months' depreciation of the year before is still read, under the spanning header
    assert read(doc, "Depreciation and amortization, six months of the prior year").value == pytest.approx(
        453e6
    )


def test_numeric_dates_in_headers():
    assert dates_in("(unaudited) 3/25/2023") == [dt.date(2023, 3, 25)]
    assert dates_in("31/03/2025") == [dt.date(2025, 3, 31)]  # day first: 31 is no month
    assert dates_in("3/4/2023") == []  # March 4 or April 3: not known
    assert parse_period("12/31/2022").end == dt.date(2022, 12, 31)


def _release_balance_sheet(path: Path) -> Path:
    """A first-quarter earnings release: its cover names the quarter, not the quarter's end date; the
    balance sheet's columns are dated "3/25/2023" and "12/31/2022"."""
    cols = (450.0, 530.0)
    return draw(
        path,
        [
            [text("Acme Reports First Quarter 2023 Results")],
            [
                text("Condensed Consolidated Balance Sheet (in millions)"),
                [(cols[0], "(unaudited)", "r")],
                [(cols[0], "3/25/2023", "r"), (cols[1], "12/31/2022", "r")],
                row("Total Assets", "$ 93,042", "$ 92,187", cols=cols),
            ],
        ],
    )


def test_a_release_dates_its_quarter_by_its_balance_sheet(tmp_path):
    doc = view(_release_balance_sheet(tmp_path / "r.pdf"), year="2023", doctype="earnings")
    prior = read(doc, "Total assets at the end of the prior fiscal year, in USD millions")
    assert prior.value == pytest.approx(92_187e6) and prior.confidence >= CONFIDENT
    assert read(doc, "Total assets at the end of the quarter").value == pytest.approx(93_042e6)


def test_a_numbered_note_after_the_segment_note_is_the_company_s(tmp_path: Path) -> None:
    """ "15. Quarterly Financial Data (Unaudited)" after "14. Segment Information" opens a note of the
    company's own figures: its fourth quarter's revenue was dropped as a segment's. A numbered sentence
    ("1. We sell …") opens nothing."""
    cols = (290.0, 365.0)
    segment = [
        text("14. Segment Information"),
        text("(In millions)"),
        row("", "2023", "2022", cols=cols),
        row("Domestic", "20,000", "17,000", cols=cols),
        row("Total revenue", "22,000", "19,500", cols=cols),
    ]
    quarterly = _quarters_by_year_block(False, True)
    cover = [text("ANNUAL REPORT ON FORM 10-K  For the fiscal year ended December 31, 2023")]
    ask = "Total revenue (net sales) of the fiscal fourth quarter only (quarterly financial data, unaudited)"
    doc = view(
        draw(
            tmp_path / "n.pdf",
            [cover, [*segment, text("15. Quarterly Financial Data (Unaudited)"), *quarterly[1:]]],
        ),
        year=2023,
        doctype="10-K",
    )
    got = read(doc, ask)
    assert got.value == pytest.approx(6_400e6) and got.confidence >= CONFIDENT, got
    assert statement_scope("15. Quarterly Financial Data (Unaudited)") == "consolidated"
    assert statement_scope("1. We sell our products in stores.") is None


@pytest.mark.parametrize("year", ["2023", "2023Q2"])
def test_a_10q_holds_no_other_quarter_of_its_year(tmp_path, year):
    # its metadata may name only the year: the six months ended on its end date make it a second quarter
    doc = view(quarterly(tmp_path / "q.pdf"), year=year, doctype="10-Q")
    assert read(doc, "Revenue for the quarter").value == pytest.approx(100.5e6)
    for asked in ("Revenue of the fiscal fourth quarter only", "Net income of the first quarter"):
        assert read(doc, asked).status == Status.NOT_FOUND, asked


@pytest.mark.parametrize(
    ("text", "end", "quarter"),
    [
        ("Three Months Ended Six Months Ended\nJune 30, June 30,", dt.date(2023, 6, 30), 2),
        ("Twenty-Six Weeks Ended\nJuly 29, 2023", dt.date(2023, 7, 29), 2),
        ("For the nine months ended Sept. 30, 2022 and 2021", dt.date(2022, 9, 30), 3),
        ("Three Months Ended June 30, 2023", dt.date(2023, 6, 30), None),  # a first quarter's, or not said
        ("Six months ended December 31, 2022", dt.date(2023, 6, 30), None),  # another date's span
        ("Six Months Ended June 30 … Nine Months Ended June 30", dt.date(2023, 6, 30), None),  # both
    ],
)
def test_the_quarter_a_year_to_date_counts(text, end, quarter):
    assert counted_quarter(text, end) == quarter


@pytest.mark.parametrize("current_left", [True, False])
def test_chinese_current_and_prior_period_columns_in_wan_yuan(tmp_path, current_left):
    head = ["本期发生额", "上期发生额"] if current_left else ["上期发生额", "本期发生额"]

    def cells(cur: str, prior: str) -> tuple[str, str]:
        return (cur, prior) if current_left else (prior, cur)

    cols = (360.0, 480.0)
    path = draw(
        tmp_path / "cn.pdf",
        [
            [
                text("合并利润表"),
                [(72, "编制单位：样本股份有限公司", "l"), (400, "单位：万元", "l")],
                [(72, "项目", "l"), *((x, h, "r") for x, h in zip(cols, head, strict=True))],
                row("一、营业总收入", *cells("12,345.67", "11,000.00"), cols=cols),
                row("净利润", *cells("2,345.60", "2,000.10"), cols=cols),
            ]
        ],
        cjk=True,
    )
    doc = view(path, year=2024, doctype="annual_report", language="zh")
    revenue = read(doc, "营业总收入")
    assert revenue.value == pytest.approx(12_345.67e4) and revenue.confidence >= CONFIDENT
    assert read(doc, "上期净利润").value == pytest.approx(2_000.10e4)
    assert read(doc, "上年同期营业总收入").value == pytest.approx(11_000e4)


def _quarterly_statement(title: str, cost: tuple[str, str]) -> list[list[Item]]:
    cols = (360.0, 480.0)
    return [
        text("样本股份有限公司 2025 年第三季度报告"),
        text(title),
        [(72, "编制单位：样本股份有限公司", "l"), (400, "单位：万元", "l")],
        [(72, "项目", "l"), (cols[0], "本期发生额", "r"), (cols[1], "上期发生额", "r")],
        row("一、营业总收入", "21,986.40", "19,740.29", cols=cols),
        row("其中：营业成本", *cost, cols=cols),
    ]


def test_a_quarterly_statement_s_title_names_the_span_of_its_current_and_prior_columns(tmp_path):
    """The columns "本期发生额 | 上期发生额" name the year and not the span: "合并年初到报告期末利润表" says they are the year to
    date, "合并第三季度利润表" the quarter; under a title naming neither the span stays unknown."""
    pages = [
        _quarterly_statement("2、合并年初到报告期末利润表", ("10,219.77", "9,341.05")),
        _quarterly_statement("3、合并第三季度利润表", ("3,500.12", "3,100.45")),
    ]
    doc = view(draw(tmp_path / "q3.pdf", pages, cjk=True), year="2025Q3", doctype="quarterly_report")
    ytd = read(doc, "营业成本 2025 Jan-Sep")
    assert ytd.value == pytest.approx(10_219.77e4) and ytd.confidence >= CONFIDENT and ytd.evidence.page == 1
    assert read(doc, "营业成本 Jan-Sep 2024").value == pytest.approx(9_341.05e4)
    quarter = read(doc, "营业成本 2025Q3 (Jul-Sep)")
    assert quarter.value == pytest.approx(3_500.12e4) and quarter.evidence.page == 2
    plain = view(
        draw(
            tmp_path / "plain.pdf", [_quarterly_statement("合并利润表", ("10,219.77", "9,341.05"))], cjk=True
        ),
        year="2025Q3",
        doctype="quarterly_report",
    )
    assert read(plain, "营业成本 2025 Jan-Sep").confidence < CONFIDENT


def _continued_balance_sheet(path: Path, between: str = "") -> Path:
    """A balance sheet over two pages, its header and caption on the first only; `between` is printed under
    the first page's last row (a paragraph there ends the table)."""
    first = [
        text("Sample Corp. Annual Report 2023"),
        text("CONSOLIDATED BALANCE SHEETS"),
        text("(In millions)"),
        row("", "December 31, 2023", "December 31, 2022"),
        row("Total current assets", "9,100", "8,200"),
        row("Total assets", "12,500", "11,000"),
        row("Accounts payable", "1,400", "1,300"),
    ]
    if between:
        first.append(text(between))
    second = [
        text("Sample Corp. Annual Report 2023"),
        row("Long-term debt", "2,600", "2,200"),
        row("Total liabilities", "5,000", "4,000"),
        row("Total stockholders' equity", "7,500", "7,000"),
    ]
    return draw(path, [first, second])


def test_rows_continued_on_the_next_page_are_read_under_the_header_and_scale_of_the_page_before(tmp_path):
    doc = view(_continued_balance_sheet(tmp_path / "bs.pdf"), year=2023, doctype="10-K")
    prior = read(doc, "Total liabilities at December 31, 2022")
    assert (
        prior.value == pytest.approx(4_000e6) and prior.confidence >= CONFIDENT and prior.evidence.page == 2
    )
    assert read(doc, "Total stockholders' equity at December 31, 2023").value == pytest.approx(7_500e6)
    # a paragraph under the first page's last row ends that table: the next page's rows name no period
    ended = view(
        _continued_balance_sheet(
            tmp_path / "ended.pdf",
            "The accompanying notes are an integral part of these consolidated statements.",
        ),
        year=2023,
        doctype="10-K",
    )
    assert read(ended, "Total liabilities at December 31, 2022").confidence < CONFIDENT


def test_a_chinese_statement_continued_keeps_its_title_s_span(tmp_path):
    """A year-to-date income statement over two pages: the rows on the second are the year to date's,
    in the first page's 万元."""
    first = _quarterly_statement("2、合并年初到报告期末利润表", ("10,219.77", "9,341.05"))
    cols = (360.0, 480.0)
    second = [
        text("样本股份有限公司 2025 年第三季度报告"),
        row("三、营业利润", "3,425.64", "3,886.84", cols=cols),
        row("五、净利润", "2,899.30", "3,244.72", cols=cols),
    ]
    doc = view(
        draw(tmp_path / "q3.pdf", [first, second], cjk=True), year="2025Q3", doctype="quarterly_report"
    )
    profit = read(doc, "净利润 2025 Jan-Sep")
    assert profit.value == pytest.approx(2_899.30e4) and profit.confidence >= CONFIDENT
    assert read(doc, "营业利润 Jan-Sep 2024").value == pytest.approx(3_886.84e4)
    quarter = read(doc, "净利润 2025Q3 (Jul-Sep)")  # the quarter is in no column of this statement
    assert quarter.value is None or quarter.confidence < REVIEW_BELOW


def test_statement_titles_and_their_spans():
    from mdqa_kernel.text.statement_span import title_span

    assert title_span("2、合并年初到报告期末利润表") == "ytd"
    assert title_span("合并年初至报告期末现金流量表") == "ytd"
    assert title_span("合并第三季度利润表") == "quarter"
    assert title_span("合并本报告期利润表") == "quarter"
    assert title_span("合并利润表") == ""  # a statement that names no span
    assert title_span("2025 年第三季度报告") is None  # the report's title, no statement's
    assert title_span("本公司编制的合并年初到报告期末利润表已经董事会审议，现予公告。") is None  # a sentence


@pytest.mark.parametrize(("caption", "factor"), [("(₹ in crore)", 1e7), ("Rs. in Lakhs", 1e5)])
def test_indian_brsr_current_and_previous_financial_year(tmp_path, caption, factor):
    cols = (400.0, 520.0)
    path = draw(
        tmp_path / "brsr.pdf",
        [
            [
                text("SECTION A: GENERAL DISCLOSURES"),
                text(f"Turnover and net worth {caption}"),
                [(72, "Particulars", "l"), (cols[0], "FY 2023-24", "r"), (cols[1], "FY 2024-25", "r")],
                [(cols[0], "(Previous Financial Year)", "r"), (cols[1], "(Current Financial Year)", "r")],
                row("Turnover", "1,100.25", "1,234.50", cols=cols),
                row("Net worth", "800.00", "950.75", cols=cols),
            ]
        ],
    )
    # the metadata may name the year by its start ("2024") or as printed: the words decide
    for year in ("FY2024-25", "2024"):
        doc = view(path, year=year, doctype="brsr")
        turnover = read(doc, "Turnover")
        assert turnover.value == pytest.approx(1_234.50 * factor) and turnover.confidence >= CONFIDENT
        assert read(doc, "Net worth, previous year").value == pytest.approx(800.0 * factor)


def test_columns_that_name_no_wanted_period(tmp_path):
    cols = (400.0, 520.0)
    path = draw(
        tmp_path / "other.pdf",
        [
            [
                text("(In thousands)"),
                [(cols[0], "Segment A", "r"), (cols[1], "Segment B", "r")],
                row("Total assets", "4,000", "5,000", cols=cols),
            ],
            [
                text("FIVE-YEAR SUMMARY (In thousands)"),
                [(x, y, "r") for x, y in zip(cols, ("2019", "2018"), strict=True)],
                row("Operating income", "700", "650", cols=cols),
            ],
        ],
    )
    doc = view(path, year=2023, doctype="10-K")
    # no header names a period: not the first or the last column with confidence, but a reading to review
    assets = read(doc, "Total assets")
    assert assets.status == Status.FOUND and assets.confidence < CONFIDENT
    # the header names only other years: no table reading (a sentence-like reading of the row is left
    # for review), never a confident wrong year's number
    assert read(doc, "Operating income").confidence < CONFIDENT


def test_a_scale_caption_heads_the_table_below_not_the_row_above(tmp_path):
    """A statement in millions ends just above a note table captioned "(In thousands)": the statement's
    last row is in millions (the caption is not a wrapped tail of its label), the note's rows in thousands."""
    path = draw(
        tmp_path / "two_tables.pdf",
        [
            [
                text("CONSOLIDATED STATEMENTS OF INCOME"),
                text("(In millions)"),
                row("", "2023", "2022"),
                row("Net sales", "5,000", "4,400"),
                row("Net income", "460", "390"),
                text("SEGMENT INFORMATION"),
                text("(In thousands)"),
                row("", "2023", "2022"),
                row("International operating income", "190,000", "160,000"),
            ]
        ],
    )
    doc = view(path, year=2023, doctype="10-K")
    income = read(doc, "Net income")
    assert income.value == pytest.approx(460e6) and income.confidence >= CONFIDENT
    assert read(doc, "International operating income").value == pytest.approx(190e6)
    assert is_scale_caption("(In thousands, except per share data)") and is_scale_caption("单位：万元")
    assert is_scale_caption("Amounts in millions") and not is_scale_caption("净利润（元）")
    assert not is_scale_caption("Revenue (in millions)")


def _retailer(path: Path, naming: str) -> Path:
    """A retailer's 10-K for the year ended January 28, 2023 whose income statement heads its columns
    "Fiscal 2022 | Fiscal 2021" only: which of them is the report's year only its text can say."""
    cols = (400.0, 480.0)
    return draw(
        path,
        [
            [text("FORM 10-K For the fiscal year ended January 28, 2023"), text(naming)],
            [
                text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
                text("(In millions)"),
                [(x, y, "r") for x, y in zip(cols, ("Fiscal 2022", "Fiscal 2021"), strict=True)],
                row("Net sales", "5,000", "4,400", cols=cols),
            ],
        ],
    )


def test_a_year_ending_in_january_is_read_by_the_name_the_filing_gives_it(tmp_path):
    """Metadata naming the year by the calendar year it ends in (2023) and a filing calling it "Fiscal
    2022": the filing's own sentence decides which column is the report's year. Without one, a column
    headed only by a year is not trusted either way."""
    named = view(
        _retailer(tmp_path / "named.pdf", "Fiscal 2022 ended January 28, 2023 and had 52 weeks."),
        year=2023,
        doctype="10-K",
    )
    current, prior = read(named, "Net sales"), read(named, "Net sales for the prior fiscal year")
    assert current.value == pytest.approx(5_000e6) and current.confidence >= CONFIDENT
    assert prior.value == pytest.approx(4_400e6) and prior.confidence >= CONFIDENT
    listed = "Fiscal 2022 and 2021 ended January 28, 2023 and January 29, 2022, respectively."
    listed_view = view(_retailer(tmp_path / "listed.pdf", listed), year=2023, doctype="10-K")
    assert read(listed_view, "Net sales").value == pytest.approx(5_000e6)
    assert read(listed_view, "Net sales").confidence >= CONFIDENT
    silent = view(_retailer(tmp_path / "silent.pdf", "We operate 2,700 stores."), year=2023, doctype="10-K")
    assert read(silent, "Net sales").confidence < REVIEW_BELOW
    assert read(silent, "Net sales for the prior fiscal year").confidence < REVIEW_BELOW


def test_fiscal_naming_pairs_a_fiscal_year_with_its_january_end():
    assert fiscal_naming("Fiscal 2022 ended January 28, 2023.") == (-1, 1.0)
    assert fiscal_naming("the fiscal year ended January 28, 2023 (“fiscal 2023”)") == (0, 1.0)
    assert fiscal_naming("fiscal year 2023, which ended on February 3, 2024, had 53 weeks") == (-1, 1.0)
    # a list pairs by position ("respectively"), names after the dates or before them; a list whose
    # counts or offsets do not agree names nothing
    assert fiscal_naming(
        "Fiscal 2022 and 2021 ended January 28, 2023 and January 29, 2022, respectively"
    ) == (
        -1,
        1.0,
    )
    dates_first = (
        "Our fiscal years ended February 3, 2024, January 28, 2023 and January 29, 2022 (“fiscal 2023,” "
        "“fiscal 2022” and “fiscal 2021,” respectively) had 53, 52 and 52 weeks."
    )
    assert fiscal_naming(dates_first) == (-1, 1.0)
    assert fiscal_naming(
        "Fiscal years 2023 and 2022 ended January 28, 2023 and January 29, 2022, respectively"
    ) == (
        0,
        1.0,
    )
    assert (
        fiscal_naming("Fiscal 2022, 2021 and 2020 ended January 28, 2023 and January 29, 2022, respectively")
        is None
    )
    assert (
        fiscal_naming("Fiscal 2022 and 2020 ended January 28, 2023 and January 29, 2022, respectively")
        is None
    )
    sales = "Net sales were $5.0 billion and $4.4 billion in fiscal 2022 and 2021, respectively."
    assert fiscal_naming(sales) is None
    # a year ending in the first days of January is no retailer's
    assert fiscal_naming("Fiscal 2022 ended January 1, 2023.") is None
    assert fiscal_naming("Fiscal 2022 ended January 28, 2023. Fiscal 2023 ended February 3, 2024.") == (
        -1,
        1.0,
    )
    assert fiscal_naming("Fiscal 2022 ended January 28, 2023; fiscal 2023 ended January 28, 2023") is None
    # one fiscal year and one January date in a sentence: a likely name, not a stated one; a year two
    # apart from the date is another year spoken of
    loose = (
        "A 10% change as of January 28, 2023, would have affected net earnings by $45 million in fiscal 2023."
    )
    assert fiscal_naming(loose) == (0, NAMED_LOOSELY)
    assert fiscal_naming("Leases as of January 28, 2023 are due in fiscal 2025.") is None
    ambiguous = ReportPeriod(year=2023, end=dt.date(2023, 1, 28))
    assert named_report(ambiguous, (-1, 1.0)).year == 2022
    assert named_report(ambiguous, None) == ReportPeriod(2023, dt.date(2023, 1, 28), year_named=YEAR_UNNAMED)
    december = ReportPeriod(year=2022, end=dt.date(2023, 1, 1))
    assert named_report(december, None) == december


def test_period_parsing_and_matching():
    fy = ReportPeriod(year=2023, end=dt.date(2023, 12, 31))
    want = wanted_period("Revenue", fy)
    assert fits(parse_period("Year Ended December 31, 2023"), want, fy) is True
    assert fits(parse_period("Year Ended December 31, 2022"), want, fy) is False
    assert fits(parse_period("% Change"), want, fy) is False
    assert fits(parse_period("Segment A"), want, fy) is None
    assert parse_period("FY 2024-25 (Current Financial Year)").year == 2025
    q3 = report_period({"year": "2025Q3", "doctype": "quarterly_report"}, "")
    assert q3.quarterly and q3.quarter == 3 and q3.end == dt.date(2025, 9, 30)
    quarter = wanted_period("营业收入 (本报告期)", q3)
    ytd = wanted_period("营业收入 2025 Jan-Sep (年初至报告期末)", q3)
    assert fits(parse_period("本报告期"), quarter, q3) and not fits(
        parse_period("年初至报告期末"), quarter, q3
    )
    assert fits(parse_period("年初至报告期末"), ytd, q3) and not fits(parse_period("本报告期"), ytd, q3)
    # a change field is measured in the current period: its "上年同期" names the base, not the period
    change = wanted_period("营业收入比上年同期增减(%)", q3)
    assert fits(parse_period("本报告期比上年同期增减变动幅度(%)"), change, q3) is True
    assert fits(parse_period("上年同期"), change, q3) is False
    # a line item that is a change within its period names no base: its prior year is asked
    assert wanted_period("Net increase (decrease) in cash for the prior fiscal year", fy).offset == -1
    assert wanted_period("Change in revenue from the prior fiscal year", fy).offset == 0
    assert report_period({}, "For the quarterly period ended June 30, 2023").quarterly
    # "期初" inside a line item's name ("期初现金及现金等价物余额") is not the opening column
    opening_cash = wanted_period("期初现金及现金等价物余额", q3)
    assert opening_cash.offset == 0 and not opening_cash.opening
    assert wanted_period("总资产（期初）", q3).opening
    # Indian filings: ordinals, day.month.year, short fiscal years
    brsr = report_period({}, "for the financial year ended 31st March, 2025")
    assert brsr.end == dt.date(2025, 3, 31) and brsr.year == 2025
    current = wanted_period("Turnover", brsr)
    assert fits(parse_period("As at 31st March, 2025"), current, brsr) is True
    assert fits(parse_period("31.03.2024"), current, brsr) is False
    assert parse_period("Q2 FY24").year == 2024 and parse_period("Q2 FY24").months == 3
    # a January year end is named either way by companies: without the report's end date, unknown
    no_end = ReportPeriod(year=2023)
    assert fits(parse_period("January 28, 2023"), wanted_period("Revenue", no_end), no_end) is None


@pytest.mark.parametrize(
    ("caption", "factor"),
    [
        ("(in millions, except per-share data)", 1e6),
        ("(Millions)", 1e6),
        ("$ in thousands", 1e3),
        ("单位：元", 1.0),
        ("单位：千元", 1e3),
        ("₹ in crore", 1e7),
        ("₹ in lakh", 1e5),
        ("(Amount in ₹ crore)", 1e7),
    ],
)
def test_scale_declarations(caption, factor):
    found = declared_scale(caption)
    assert found is not None and found[0] == factor


def test_quarterly_data_columns_are_quarters_not_the_year(tmp_path: Path) -> None:
    """A 10-K's quarterly data: four dates a quarter apart head the columns. The first ends on the
    fiscal year's last day, but it is the fourth quarter, not the year: an annual field takes the
    income statement's figure, and with only the quarterly table it takes none."""
    quarter_cols = (260.0, 340.0, 420.0, 500.0)
    quarterly = [
        text("Supplementary quarterly financial data (unaudited)"),
        text("(In millions)"),
        row("", "Dec. 31, 2023", "Sep. 30, 2023", "Jun. 30, 2023", "Mar. 31, 2023", cols=quarter_cols),
        row("Net revenue", "1,450", "1,300", "1,210", "1,100", cols=quarter_cols),
    ]
    annual = [
        text("Consolidated statements of operations"),
        text("(In millions)"),
        row("", "2023", "2022"),
        row("Net revenue", "5,060", "4,700"),
    ]
    periods_only = [fits(p, wanted_period("Net revenue", ReportPeriod(year=2023)), ReportPeriod(year=2023))
                    for p in column_periods(["Dec. 31, 2023", "Sep. 30, 2023", "Jun. 30, 2023", "Mar. 31, 2023"])]  # fmt: skip
    assert periods_only == [False, False, False, False]
    both = view(draw(tmp_path / "both.pdf", [quarterly, annual]), year=2023, doctype="10-K")
    result = read(both, "Net revenue for the fiscal year")
    assert result.value == 5_060_000_000 and result.confidence >= CONFIDENT
    alone = view(draw(tmp_path / "alone.pdf", [quarterly]), year=2023, doctype="10-K")
    assert read(alone, "Net revenue for the fiscal year").confidence < CONFIDENT


def test_header_dates_split_over_lines_and_read_together() -> None:
    """Column headers read together: a month and day under a spanning year is one date; end months a
    quarter apart are quarters with or without a year; "Total" beside quarters is the year; a column
    that lost its own label ("Q1" printed inside the caption) is not known."""
    assert parse_period("Dec. 26").month_day == (12, 26) and parse_period("Dec. 26").named
    assert parse_period("2015 Dec. 26").end == dt.date(2015, 12, 26)
    assert parse_period("Decrease 5").month_day is None and not parse_period("Decrease 5").named
    assert parse_period("4th Qtr.").months == 3
    fy15 = ReportPeriod(year=2015, end=dt.date(2015, 12, 26))
    annual = wanted_period("Research and development for the fiscal year", fy15)
    no_year = column_periods(["Dec. 26", "Sep. 26", "Jun. 27", "Mar. 28"])
    assert all(p.months == 3 for p in no_year)
    assert [fits(p, annual, fy15) for p in no_year] == [False] * 4
    # balance-sheet dates a year apart are not quarters
    assert all(p.months is None for p in column_periods(["December 26, 2015", "December 27, 2014"]))
    fy18 = ReportPeriod(year=2018, end=dt.date(2018, 1, 31))
    span = "Fiscal Year Ended January 31, 2018"
    headers = [span, f"{span} Q2", f"{span} Q3", f"{span} Q4", "Total"]
    verdicts = [fits(p, wanted_period("Diluted EPS", fy18), fy18) for p in column_periods(headers)]
    assert verdicts == [None, False, False, False, True]


QUARTER_ENDS_2019 = ("December 31, 2019", "September 30, 2019", "June 30, 2019", "March 31, 2019")


def _quarterly_pages(quarter_line: list[Item], year_line: list[Item] | None, cols: tuple[float, ...]):
    lines = [text("Supplementary financial information (unaudited)")]
    lines += [text("All quarters of 2015 and 2014 consisted of 13 weeks, ended on December 26, 2015.")]
    lines += [text("(In millions)")]
    if year_line:
        lines.append(year_line)
    lines += [quarter_line, row("Research and development", "229", "241", "235", "242", cols=cols)]
    return lines


def test_quarterly_data_under_split_headers_is_not_the_year(tmp_path: Path) -> None:
    """A 10-K's quarterly data whose column dates print the month and day on one line and the year
    spanning them on the line above, and the statement whose headers ("December 26," over "2015") sit
    left of right-aligned numbers: the annual field takes the statement's figure, confidently; with the
    quarterly table alone it takes none with confidence."""
    cols = (300.0, 370.0, 440.0, 510.0)
    quarterly = _quarterly_pages(
        [(x - 20, d, "r") for x, d in zip(cols, ("Dec. 26", "Sep. 26", "Jun. 27", "Mar. 28"), strict=True)],
        [(405, "2015", "c")],
        cols,
    )
    statement_cols = (380.0, 470.0)
    statement = [
        text("Consolidated Statements of Operations"),
        [(436, "Year Ended", "c")],
        [(x - 25, d, "r") for x, d in zip(statement_cols, ("December 26,", "December 27,"), strict=True)],
        [(x - 30, y, "r") for x, y in zip(statement_cols, ("2015", "2014"), strict=True)],
        text("(In millions)"),
        row("Research and development", "947", "1,072", cols=statement_cols),
    ]
    both = view(draw(tmp_path / "both.pdf", [quarterly, statement]), year=2015, doctype="10-K")
    result = read(both, "Research and development for the fiscal year")
    assert result.value == pytest.approx(947e6) and result.confidence >= CONFIDENT
    alone = view(draw(tmp_path / "alone.pdf", [quarterly]), year=2015, doctype="10-K")
    lone = read(alone, "Research and development for the fiscal year")
    assert lone.status != Status.FOUND or lone.confidence < CONFIDENT


def _quarters_by_year_block(stacked: bool, headed: bool) -> list:
    """A 10-K's quarterly data: one header of quarters that name no year ("First" over "Quarter", or
    "First Quarter" on one line), each year a block of rows under its own "2023" / "2022" heading."""
    cols = (290.0, 365.0, 440.0, 515.0)
    ordinals = ("First", "Second", "Third", "Fourth")
    header = (
        [row("", *ordinals, cols=cols), row("", *(["Quarter"] * 4), cols=cols)]
        if stacked
        else [row("", *(f"{o} Quarter" for o in ordinals), cols=cols)]
    )
    blocks = []
    for year, sales in (
        ("2023", ("5,100", "5,200", "5,300", "6,400")),
        ("2022", ("4,100", "4,200", "4,300", "5,400")),
    ):
        blocks += ([text(year)] if headed else []) + [row("Net sales", *sales, cols=cols)]
    return [text("Quarterly Financial Data (Unaudited)"), text("(In millions)"), *header, *blocks]


@pytest.mark.parametrize("stacked", [True, False])
def test_quarters_under_a_year_heading(tmp_path: Path, stacked: bool) -> None:
    """Quarter columns naming no year ("First" over "Quarter") take the year heading their block of rows:
    the fourth quarter of 2023 is 6,400, of the block headed "2023" (it was not found: "Quarter" under
    "First" was dropped from the header, and a quarter of no year fits no period). Without the headings
    which year each block is stays unknown: nothing is read."""
    cover = [text("ANNUAL REPORT ON FORM 10-K  For the fiscal year ended December 31, 2023")]
    ask = "Total revenue (net sales) of the fiscal fourth quarter only (quarterly financial data, unaudited)"
    headed = view(
        draw(tmp_path / "h.pdf", [cover, _quarters_by_year_block(stacked, True)]), year=2023, doctype="10-K"
    )
    got = read(headed, ask)
    assert got.value == pytest.approx(6_400e6) and got.confidence >= CONFIDENT, got
    first = read(headed, "Total revenue (net sales) of the fiscal first quarter of the prior fiscal year")
    assert first.value == pytest.approx(4_100e6), first
    bare = view(
        draw(tmp_path / "b.pdf", [cover, _quarters_by_year_block(stacked, False)]), year=2023, doctype="10-K"
    )
    unheaded = read(bare, ask)
    assert unheaded.status != Status.FOUND or unheaded.confidence < REVIEW_BELOW, unheaded


@pytest.mark.parametrize(
    ("close", "ends", "year"),
    [
        ("June 30, 2023", ("September 30", "December 31", "March 31", "June 30"), 2023),
        # a retailer's 52/53-week year named by the year it starts in: fiscal 2022 closes January 28, 2023
        ("January 28, 2023", ("April 30", "July 30", "October 29", "January 28"), 2022),
    ],
)
def test_quarters_named_by_their_end_under_a_fiscal_year_heading(
    tmp_path: Path, close: str, ends: tuple[str, ...], year: int
) -> None:
    """ "Quarter Ended September 30 | December 31 | March 31 | June 30 | Total" over a block per fiscal
    year ("Fiscal Year 2023", "Fiscal Year 2022"): each month and day is dated within its block's fiscal
    year as the report's own year closes, so the fourth quarter is the column of the year's close in the
    report's block, and the first quarter of the prior year the prior block's first column. The quarters
    were read for no year: every block's row fitted, and the reading was held for review."""
    cols = (250.0, 325.0, 400.0, 475.0, 550.0)  # 75 points apart: no two headers run together
    cover = [text(f"ANNUAL REPORT ON FORM 10-K  For the fiscal year ended {close}")]
    blocks = []
    for fiscal, sales in (
        (year, ("5,100", "5,200", "5,300", "6,400")),
        (year - 1, ("4,100", "4,200", "4,300", "5,400")),
    ):
        total = f"{sum(int(v.replace(',', '')) for v in sales):,}"
        blocks += [text(f"Fiscal Year {fiscal}"), row("Revenue", *sales, total, cols=cols)]
    note = [
        text("NOTE 22 - QUARTERLY INFORMATION (UNAUDITED)"),
        text("(In millions)"),
        [(72, "Quarter Ended", "l"), *((x, h, "r") for x, h in zip(cols, (*ends, "Total"), strict=True))],
        *blocks,
    ]
    doc = view(draw(tmp_path / "q.pdf", [cover, note]), year=year, doctype="10-K")
    fourth = read(
        doc,
        "Total revenue (net sales) of the fiscal fourth quarter only (quarterly financial data, unaudited)",
    )
    assert fourth.value == pytest.approx(6_400e6) and fourth.confidence >= CONFIDENT, fourth
    first = read(doc, "Total revenue (net sales) of the fiscal first quarter of the prior fiscal year")
    assert first.value == pytest.approx(4_100e6) and first.confidence >= CONFIDENT, first


def test_total_column_beside_quarters_and_a_sentence_above_the_table(tmp_path: Path) -> None:
    """ "Q1" printed on the caption's line, "Total" beside Q2-Q4: the annual field takes the total. A
    sentence above a table that names a date is not the header of its first column."""
    cols = (300.0, 360.0, 420.0, 480.0, 540.0)
    cover = [text("FORM 10-K  For the fiscal year ended January 31, 2018")]
    quarters = [
        text("Note 17. Quarterly Financial Data (Unaudited)"),
        [(420, "Fiscal Year Ended January 31, 2018", "c")],
        [(72, "(Amounts in millions, except per share data) Q1", "l"),
         *((x, q, "r") for x, q in zip(cols[1:], ("Q2", "Q3", "Q4", "Total"), strict=True))],
        row("Diluted earnings per share", "1.00", "0.96", "0.58", "0.73", "3.28", cols=cols),
    ]  # fmt: skip
    qcols = (330.0, 410.0, 490.0, 570.0)
    dated = [
        text("As of December 31, 2019, we did not have any letters of credit issued or outstanding."),
        text("For the Quarters Ended"),
        [(x, d, "r") for x, d in zip(qcols, QUARTER_ENDS_2019, strict=True)],
        text("(Amounts in millions, except per share data)"),
        row("Net income", "525", "204", "328", "447", cols=qcols),
    ]
    doc = view(draw(tmp_path / "q.pdf", [cover, quarters]), year=2018, doctype="10-K")
    eps = read(doc, "Diluted earnings per share for the fiscal year")
    assert eps.value == pytest.approx(3.28)
    dated_doc = view(draw(tmp_path / "d.pdf", [dated]), year=2019, doctype="10-K")
    income = read(dated_doc, "Net income for the fiscal year")
    assert income.status != Status.FOUND or income.confidence < CONFIDENT


def test_cash_flow_rows_named_by_a_qualified_description_and_their_scale(tmp_path: Path) -> None:
    """A description that names its recipient and period in words ("… paid to shareholders in the
    fiscal year of the report") still names the row "Cash dividends paid"; a number a line reader takes
    from a row-shaped line ("Common and participating shares cash dividends paid (19,800) …", a row the table
    scores as another line item) is under the declared
    "(In millions)" like the table's rows, never a million times too small."""
    statement = [
        text("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        text("(In millions)"),
        row("", "2023", "2022", "2021"),
        row("Financing activities", "", "", ""),
        row("Cash dividends paid", "(6,172)", "(5,815)", "(5,509)"),
    ]
    doc = view(draw(tmp_path / "cf.pdf", [statement]), year=2023, doctype="10-K")
    description = "Cash dividends paid to shareholders in the fiscal year of the report, in USD"
    paid = read(doc, description)
    assert paid.value == pytest.approx(-6_172e6) and paid.confidence >= CONFIDENT
    statement[-1] = row(
        "Common and participating shares cash dividends paid", "(19,800)", "(18,135)", "(16,521)"
    )
    other = view(draw(tmp_path / "cf2.pdf", [statement]), year=2023, doctype="10-K")
    common = read(other, description)
    assert common.value == pytest.approx(-19_800e6) and common.message.startswith("prose")


def _release(path: Path, headline: str, quarter_header: tuple[str, str], later: list[list[Item]]) -> Path:
    """An earnings release: a headline naming the quarter, a summary table whose span words ("Q2") were
    printed over the pair of columns and landed on the prior year's only, then fuller statements."""
    return draw(
        path,
        [
            [
                text(headline),
                text("($ in Millions)"),
                [(COLS[0], quarter_header[0], "r"), (COLS[1], quarter_header[1], "r")],
                row("Reported Sales", "$25,530", "$24,020"),
            ],
            later,
        ],
    )


def test_an_earnings_release_names_its_quarter_in_the_headline(tmp_path: Path) -> None:
    """No "for the quarterly period ended" line and a year-only metadata: the headline's quarter makes
    the release quarterly, so a year-to-date field is not read from the quarter's columns."""
    cols = (300.0, 370.0, 450.0, 520.0)
    later = [
        text("CONSOLIDATED STATEMENTS OF EARNINGS (Dollars in Millions)"),
        [(335, "Second Quarter Ended July 2,", "c"), (485, "Six Months Ended July 2,", "c")],
        [(x, y, "r") for x, y in zip(cols, ("2023", "2022", "2023", "2022"), strict=True)],
        row("Reported Sales", "25,530", "24,020", "50,276", "47,446", cols=cols),
    ]
    path = _release(
        tmp_path / "q2.pdf", "Acme Reports Second-Quarter 2023 Results", ("2023", "Q2 2022"), later
    )
    doc = view(path, year=2023, doctype="earnings")
    assert report_period(
        {"year": 2023, "doctype": "earnings"}, "Acme Reports Second-Quarter 2023 Results"
    ) == (ReportPeriod(year=2023, quarterly=True, quarter=2))
    ytd = read(doc, "Reported sales for the fiscal year to date at the end of the quarter (e.g. six months)")
    assert ytd.value == pytest.approx(50_276e6) and ytd.confidence >= CONFIDENT
    quarter = read(doc, "Reported sales for the fiscal quarter of the report (three months only)")
    assert quarter.value == pytest.approx(25_530e6) and quarter.confidence >= CONFIDENT
    # a 10-K's cover is not a headline, whatever quarter its first lines name
    annual = report_period({"year": 2023, "doctype": "10k"}, "Fourth-quarter dividends were declared")
    assert not annual.quarterly and annual.quarter is None


def test_the_year_to_date_of_a_fourth_quarter_release_is_the_year(tmp_path: Path) -> None:
    cols = (300.0, 370.0, 450.0, 520.0)
    path = draw(
        tmp_path / "q4.pdf",
        [
            [
                text("2022 Fourth-Quarter reported sales decline of 4.4% to $23.7 Billion"),
                text("($ in Millions)"),
                [
                    (x, h, "r")
                    for x, h in zip(cols, ("2022", "Q4 2021", "2022", "Full Year 2021"), strict=True)
                ],
                row("Reported Sales", "$23,706", "$24,804", "$94,943", "$93,775", cols=cols),
            ]
        ],
    )
    doc = view(path, year=2022, doctype="earnings")
    ytd = read(doc, "Reported sales for the fiscal year to date at the end of the quarter of the report")
    assert ytd.value == pytest.approx(94_943e6) and ytd.confidence >= CONFIDENT
    quarter = read(doc, "Reported sales for the fiscal quarter of the report (three months only)")
    assert quarter.value == pytest.approx(23_706e6) and quarter.confidence >= CONFIDENT


def test_span_words_printed_over_a_pair_of_columns() -> None:
    """A year-only column beside "<span> <year - 1>" has that span; both neighbours could be its mate
    when the table's other pairs say which side the prior year stands on."""
    spans = [(p.year, p.months) for p in column_periods(["2022", "Q4 2021", "2022", "Full Year 2021"])]
    assert spans == [(2022, 3), (2021, 3), (2022, 12), (2021, 12)]
    assert [(p.year, p.months) for p in column_periods(["Q2 2022", "2023"])] == [(2022, 3), (2023, 3)]
    # no span anywhere, or the same year beside it: nothing to inherit
    assert [p.months for p in column_periods(["2023", "2022"])] == [None, None]
    assert [p.months for p in column_periods(["2023", "Q4 2023"])] == [None, 3]


def test_a_bare_year_in_english_prose_is_a_year_not_an_amount(tmp_path):
    """ "our 2019 Productivity Plan", "2022 restructuring charges": a 19xx/20xx number without a currency
    sign, scale word or thousands separator is a year, after the label or before it; "$2019 million" and
    "2,019" are amounts."""
    lines = [
        text("ANNUAL REPORT"),
        text(
            "Restructuring charges related to our 2019 Multi-Year Productivity Plan were recorded in the year."
        ),
        text("2022 restructuring charges were incurred in every division."),
    ]
    doc = view(draw(tmp_path / "years.pdf", [lines]), year=2022)
    f = fld("Restructuring charges")
    assert [c.value for c in TableReader().candidates(doc, f, "")] == []
    assert read(doc, "Restructuring charges").value is None
    for printed, value in (("$2019 million", 2019e6), ("2,019 million", 2019e6)):
        stated = [*lines, text(f"Restructuring charges were {printed} in fiscal 2022.")]
        doc = view(draw(tmp_path / "amount.pdf", [stated]), year=2022)
        assert read(doc, "Restructuring charges").value == pytest.approx(value), printed


def test_a_sign_note_or_a_series_inside_a_name_does_not_cut_its_label(tmp_path):
    """ "Income (loss) before income taxes" is not "Income"; "Selling, general and administrative
    expenses" is not "Selling": the short name would take a sentence's "income of $1 million"."""
    from mdqa_kernel.text.labels import field_labels
    from mdqa_kernel.text.statement_context import description_heads

    labels = field_labels("pretax", "Income (loss) before income taxes for the fiscal year, in USD millions")
    assert "income" not in labels.primary and "incomebeforeincometaxes" in labels.primary
    cash = field_labels("inv", "Net cash provided by (used in) investing activities for the fiscal year")
    assert "netcashprovidedbyinvestingactivities" in cash.primary and "netcashprovidedby" not in cash.primary
    assert field_labels("oi", "Operating income (loss) for the fiscal year").primary[0] == "operatingincome"
    assert description_heads("Selling, general and administrative expenses for the fiscal year")[0] == (
        "Selling, general and administrative expenses"
    )
    assert description_heads("Property, plant and equipment, net at the end of the fiscal year")[0] == (
        "Property, plant and equipment"
    )
    assert (
        description_heads("Accounts receivable, net at the end of the fiscal year")[0]
        == "Accounts receivable"
    )
    lines = [
        text("ANNUAL REPORT"),
        text("Non-operating income was $58 million in 2022, compared with income of $1 million in 2021."),
    ]
    doc = view(draw(tmp_path / "pretax.pdf", [lines]), year=2022)
    assert read(doc, "Income (loss) before income taxes for the fiscal year, in USD millions").value is None


def _tax_statement(path: Path, label: str, values: tuple[str, str]) -> Path:
    return draw(
        path,
        [
            [text("ANNUAL REPORT")],
            [
                text("CONSOLIDATED STATEMENTS OF OPERATIONS"),
                text("(Dollars in millions)"),
                [(x, y, "r") for x, y in zip(COLS, ("2022", "2021"), strict=False)],
                row("Total revenues", "66,608", "62,286"),
                row("Loss before income taxes", "(5,022)", "(5,033)"),
                row(label, *values),
                row("Net loss", "(5,053)", "(4,290)"),
            ],
        ],
    )


@pytest.mark.parametrize(
    ("label", "values", "expense"),
    [
        # the expense printed in parentheses: (31) is an expense of 31, 743 a benefit
        ("Income tax (expense)/benefit", ("(31)", "743"), (31e6, -743e6)),
        ("(Provision) benefit for income taxes", ("(31)", "743"), (31e6, -743e6)),
        ("Benefit (provision) for income taxes", ("(31)", "743"), (31e6, -743e6)),
        # the benefit in parentheses: 31 is an expense, (743) a benefit
        ("Income tax expense/(benefit)", ("31", "(743)"), (31e6, -743e6)),
        ("Provision for income taxes", ("31", "(743)"), (31e6, -743e6)),
    ],
)
def test_a_line_named_by_both_signs_reads_the_asked_side(tmp_path, label, values, expense):
    """ "Income tax (expense)/benefit" is the tax expense line, its expense printed negative: the field
    asking for the provision reads (31) as 31; a field naming neither side (or both) is held."""
    from mdqa_kernel.text.labels import normalize_label, sign_of_pair

    assert normalize_label("Income tax (expense)/benefit") == "incometaxexpense"
    assert normalize_label("Total other income (expense)") == "totalotherincome"  # a trailing note
    assert sign_of_pair("Other (income) expense, net", "Other income, net") == -1
    assert sign_of_pair("Income tax (expense)/benefit", "Income taxes of the year") is None
    assert sign_of_pair("Net income (loss)", "Net income") == 1  # a loss is not a side of a pair
    doc = view(_tax_statement(tmp_path / "tax.pdf", label, values), year=2022, doctype="10-K")
    desc = "Provision for income taxes (also: income tax expense) for the fiscal year, in USD millions"
    now = read(doc, desc)
    prior = read(doc, desc.replace("for the fiscal year", "for the prior fiscal year"))
    assert (now.value, prior.value) == pytest.approx(expense)
    assert now.confidence >= CONFIDENT and now.evidence is not None and now.evidence.page == 2
    assert ("negated" in now.message) == values[0].startswith("(")  # the analyst sees why (31) is 31
    neither = read(doc, "Income taxes for the fiscal year, in USD millions")
    if "(" in label:
        assert neither.value is None or neither.confidence < CONFIDENT
    # "Income (loss) before income taxes" is printed "Loss before income taxes" in a year with a loss
    pretax = read(doc, "Income (loss) before income taxes for the fiscal year, in USD millions")
    assert pretax.value == pytest.approx(-5_022e6) and pretax.confidence >= CONFIDENT


@pytest.mark.parametrize(
    ("text_", "factor"),
    [
        ("Unless otherwise noted, tabular dollars are presented in millions, except per share amounts.", 1e6),
        ("Unless otherwise noted, tabular dollars are in millions.", 1e6),
        ("All amounts are in ₹ crore unless otherwise stated", 1e7),
        ("(Dollars in millions, unless otherwise indicated)", 1e6),
        ("Amounts in thousands, except as otherwise noted.", 1e3),
        # the notes' opening heading with its caption heads the whole notes section
        (
            "Notes to the Consolidated Financial Statements\nYears ended December 31, 2023, 2022 and 2021\n"
            "(Dollars in millions, except per share data)",
            1e6,
        ),
        ("Notes to Condensed Consolidated Financial Statements (Unaudited)\n(In thousands)", 1e3),
        # a sentence or a continuation heading between them: the caption is one table's
        ("See Notes to Consolidated Financial Statements. Revenue (in millions)", None),
        ("Notes to Consolidated Financial Statements (continued)\n(in millions)", None),
        # a table's own caption, or a sentence about one amount, declares nothing for the filing
        ("(in millions)", None),
        ("Revenue was $5 million, unless otherwise adjusted", None),
    ],
)
def test_standing_scale_declarations(text_, factor):
    from mdqa_kernel.text.values import standing_scale

    found = standing_scale(text_)
    assert (found[0] if found else None) == factor


def test_a_table_without_a_caption_takes_the_filings_standing_scale(tmp_path: Path) -> None:
    """A note's table prints no "(in millions)"; the notes open with "Unless otherwise noted, tabular
    dollars are in millions": its 411 is $411 million, read as confidently as a captioned table. A filing
    without the declaration leaves the number in units, held for review as implausibly small."""
    note = [
        row("", "2023", "2022", "2021"),
        row("Cost of sales", "33", "29", "30"),
        row("Selling, general and administrative expenses", "347", "208", "239"),
        row("Total restructuring and impairment charges", "411", "247", "289"),
    ]
    opening = [text("Notes to the Consolidated Financial Statements"),
               text("Unless otherwise noted, tabular dollars are in millions, except per share amounts.")]  # fmt: skip
    desc = ("Restructuring charges (also: restructuring and impairment charges / restructuring costs) for the "
            "fiscal year of the report, in USD millions")  # fmt: skip
    field = SimpleNamespace(name="f", type="number", description=desc, question="", unit="USD", scale=1e6)
    cover = [
        text("Acme Inc. ANNUAL REPORT ON FORM 10-K"),
        text("For the fiscal year ended December 31, 2023"),
    ]
    declared = view(draw(tmp_path / "declared.pdf", [cover, opening, [text("Note 3 - Restructuring"), *note]]),
                    year=2023, doctype="10-K")  # fmt: skip
    got = TableReader().read(declared, field, "")
    assert got.status == Status.FOUND and got.value == 411.0 and got.confidence >= CONFIDENT, got
    # the declaration is in force from its page on: a table before it is not covered
    before = view(draw(tmp_path / "before.pdf", [cover, [text("Note 3 - Restructuring"), *note], opening]),
                  year=2023, doctype="10-K")  # fmt: skip
    unscaled = TableReader().read(before, field, "")
    assert unscaled.value == 0.000411 and unscaled.confidence < REVIEW_BELOW, unscaled  # held for review


def test_a_table_without_a_caption_in_a_filing_that_captions_its_tables(tmp_path: Path) -> None:
    """A note's table prints no scale and no standing declaration covers it. In a filing whose statements
    are headed "(In millions)" its caption was probably lost: which scale it is in is unknown, so the
    value is held for review. In a filing that captions no table at all it is read in units."""
    cover = [
        text("Acme Inc. ANNUAL REPORT ON FORM 10-K"),
        text("For the fiscal year ended December 31, 2023"),
    ]
    statement = [text("CONSOLIDATED STATEMENTS OF OPERATIONS"), text("(In millions)"),
                 row("", "2023", "2022", "2021"), row("Net sales", "9,120", "8,870", "8,400")]  # fmt: skip
    note = [text("Note 3 - Restructuring"), row("", "2023", "2022", "2021"),
            row("Total restructuring charges", "411", "247", "289")]  # fmt: skip
    field = SimpleNamespace(name="f", type="number", description="Total restructuring charges for the year",
                            question="", unit=None, scale=1.0)  # fmt: skip
    captioned = view(draw(tmp_path / "captioned.pdf", [cover, statement, note]), year=2023, doctype="10-K")
    held = TableReader().read(captioned, field, "")
    assert held.value == 411.0 and held.confidence < REVIEW_BELOW, held
    assert TableReader().read(captioned, fld("Net sales"), "").confidence >= CONFIDENT
    uncaptioned = [statement[0], *statement[2:]]
    plain = view(draw(tmp_path / "plain.pdf", [cover, uncaptioned, note]), year=2023, doctype="10-K")
    read_plain = TableReader().read(plain, field, "")
    assert read_plain.value == 411.0 and read_plain.confidence >= REVIEW_BELOW, read_plain


def test_a_sentence_amount_under_the_notes_caption_is_in_its_scale(tmp_path: Path) -> None:
    """The notes open with "(Dollars in millions, except per share data)" under their heading; a later
    note's sentence prints "$1,556" with no scale word: $1,556 million, read confidently. Without the
    caption the same sentence is held for review as a fraction of a million; a percentage in it is not
    scaled."""
    cover = [
        text("Acme Inc. ANNUAL REPORT ON FORM 10-K"),
        text("For the fiscal year ended December 31, 2023"),
    ]
    opening = [text("Acme Inc. and Subsidiaries"), text("Notes to the Consolidated Financial Statements"),
               text("Years ended December 31, 2023, 2022 and 2021"),
               text("(Dollars in millions, except per share data)"),
               text("Note 1 - Summary of Significant Accounting Policies")]  # fmt: skip
    note = [text("Note 11 - Property, Plant and Equipment"),
            text("Depreciation expense was $1,556, $1,548 and $1,418 for the years ended December 31, 2023,"),
            text("2022 and 2021, respectively. Depreciation was 2.5% of revenues in 2023.")]  # fmt: skip
    field = SimpleNamespace(name="f", type="number", question="", unit="USD", scale=1e6,
                            description="Depreciation expense for the fiscal year of the report, in USD millions")  # fmt: skip
    declared = view(draw(tmp_path / "declared.pdf", [cover, opening, note]), year=2023, doctype="10-K")
    got = TableReader().read(declared, field, "")
    assert got.status == Status.FOUND and got.value == 1556.0 and got.confidence >= CONFIDENT, got
    bare = view(
        draw(tmp_path / "bare.pdf", [cover, opening[:3] + opening[4:], note]), year=2023, doctype="10-K"
    )
    held = TableReader().read(bare, field, "")
    assert held.value == pytest.approx(0.001556) and held.confidence < REVIEW_BELOW, held
    percent = SimpleNamespace(name="p", type="percent", question="", unit="%", scale=None,
                              description="Depreciation as a percentage of revenues for the fiscal year of the report")  # fmt: skip
    assert TableReader().read(declared, percent, "").value != 2.5e6


def test_a_name_the_description_lists_as_also_is_no_component() -> None:
    """ "(also: restructuring and impairment charges / …)" names the same line item: its extra word
    ("impairment") is not a restricting word that marks a component."""
    from mdqa_kernel.text.statement_context import description_heads, specificity

    desc = ("Restructuring charges (also: restructuring and impairment charges / restructuring costs) for the "
            "fiscal year of the report, in USD millions")  # fmt: skip
    assert description_heads(desc) == ["Restructuring charges", "restructuring and impairment charges",
                                       "restructuring costs"]  # fmt: skip
    assert specificity("Restructuring and impairment charges", desc) == 1.0
    # a component of a name the description does not list still is one
    assert specificity("Restructuring charges for severance", desc) < 0.6


def test_a_row_label_that_names_a_period() -> None:
    """A roll-forward dates its rows, not its columns: the label's year or date is the row's period; a
    year that names an instrument, a programme or a maturity is not."""
    from mdqa_kernel.text.label_periods import label_period

    assert label_period("2022 restructuring charges").year == 2022
    assert label_period("Charges in fiscal 2021").year == 2021
    assert label_period("Liability as of December 31, 2022").end == dt.date(2022, 12, 31)
    for label in ("2025 Notes", "Notes due 2027", "2019 Multi-Year Productivity Plan", "Net sales",
                  "Tax Cuts and Jobs Act of 2017", "2023 vs. 2022", "Balance, 2021 and 2022"):  # fmt: skip
        assert not label_period(label).named, label
    fy = ReportPeriod(year=2023, end=dt.date(2023, 12, 31))
    assert fits(label_period("2023 restructuring charges"), wanted_period("Restructuring charges", fy), fy)
    assert fits(label_period("Balance at December 31, 2022"), wanted_period("Liability", fy), fy) is False


def test_a_cumulative_column_holds_no_one_period() -> None:
    """ "Plan to Date through 12/31/2022" runs through the year's end but sums the programme's years."""
    fy = ReportPeriod(year=2022, end=dt.date(2022, 12, 31))
    col = parse_period("Plan to Date through 12/31/2022")
    assert col.cumulative and col.named
    assert fits(col, wanted_period("Restructuring charges", fy), fy) is False
    assert fits(col, wanted_period("Restructuring charges, cumulative total", fy), fy) is True
    assert not parse_period("Year-to-date 2022").cumulative
    assert not parse_period("Cumulative translation adjustment").cumulative


def _roll_forward(path: Path, plan_to_date: bool) -> Path:
    """A restructuring note: charges by year with a programme-to-date column, then the liability's
    roll-forward whose columns are the cost's components and whose rows carry the years."""
    comps = (330.0, 420.0, 510.0)
    by_year = [
        row("", "Severance", "Other costs", "Total", cols=comps),
        row("Liability as of December 31, 2021", "60", "10", "70", cols=comps),
        row("2022 restructuring charges", "120", "127", "247", cols=comps),
        row("Cash payments", "(100)", "(90)", "(190)", cols=comps),
        row("Liability as of December 31, 2022", "80", "47", "127", cols=comps),
        row("2023 restructuring charges", "243", "168", "411", cols=comps),
        row("Cash payments", "(200)", "(150)", "(350)", cols=comps),
        row("Liability as of December 31, 2023", "123", "65", "188", cols=comps),
    ]
    cover = [
        text("Acme Inc. ANNUAL REPORT ON FORM 10-K"),
        text("For the fiscal year ended December 31, 2023"),
    ]
    note = [text("Note 5 - Restructuring (in millions)")]
    if plan_to_date:
        note += [
            row("", "2023", "Plan to Date", cols=(420.0, 510.0)),
            row("Severance charges", "243", "363", cols=(420.0, 510.0)),
            text("The liability's roll-forward:"),
        ]
    return draw(path, [cover, [*note, *by_year]])


def test_roll_forward_rows_are_read_by_the_period_their_label_names(tmp_path: Path) -> None:
    """The asked year's row, its "Total" column, at full confidence; another year's row is never read as
    the asked one (before, the rows tied and the first column was read at low confidence)."""
    doc = view(_roll_forward(tmp_path / "rf.pdf", plan_to_date=False), year=2023, doctype="10-K")
    current = read(doc, "Restructuring charges")
    assert current.value == 411e6 and current.confidence >= CONFIDENT, current
    prior = read(doc, "Restructuring charges for fiscal year 2022")
    assert prior.value == 247e6 and prior.confidence >= CONFIDENT, prior
    # a programme-to-date column is no year's value: the year's column is read, never the sum
    doc = view(_roll_forward(tmp_path / "ptd.pdf", plan_to_date=True), year=2023, doctype="10-K")
    assert read(doc, "Severance charges for fiscal year 2022").confidence < REVIEW_BELOW
    assert read(doc, "Severance charges").value == 243e6


def roll_forward(
    path: Path, year_end: str, opening: str, closing: str, lead: tuple[str, str] = ("", "")
) -> Path:
    """A note's roll-forward of a balance whose rows are dated without a year ("… – January 1" / "… –
    December 31"), or named by a lead word ("Beginning …" / "Ending …") when `lead` is given."""
    first, last = (f"{lead[0]} widget reserves", f"{lead[1]} widget reserves") if lead[0] else (
        f"Widget reserves – {opening}", f"Widget reserves – {closing}")  # fmt: skip
    return draw(path, [[text("Acme Inc. ANNUAL REPORT ON FORM 10-K"),
                        text(f"For the fiscal year ended {year_end}, 2023")],
                       [text("Notes to the Consolidated Financial Statements"),
                        text("(Dollars in millions, except per share data)"),
                        text("A reconciliation of the beginning and ending amount of widget reserves is as follows:"),
                        row("", "2023", "2022", "2021"),
                        row(first, "$858", "$966", "$1,476"),
                        row("Additions for prior period positions", "17", "64", "44"),
                        row("Reductions for prior period positions", "(51)", "(245)", "(581)"),
                        row("Settlements", "", "", "(109)"),
                        row(last, "$824", "$858", "$966")]])  # fmt: skip


RESERVES = "Widget reserves at the end of the {} (the note's roll-forward), in USD millions"


@pytest.mark.parametrize(
    ("year_end", "opening", "closing", "lead"),
    [
        ("December 31", "January 1", "December 31", ("", "")),
        ("June 30", "July 1", "June 30", ("", "")),
        ("December 31", "", "", ("Beginning", "Ending")),
    ],
)
def test_a_roll_forwards_dated_rows_name_its_balance(tmp_path, year_end, opening, closing, lead):
    """A balance row's date ("– December 31") or lead word ("Ending …") dates the balance; it is not a
    part of the line item's name, so the row names the field. The opening row ("– January 1", the day
    after the fiscal year's end; "Beginning …") holds each column's prior close: the report's balance
    is the closing row's, and the prior year's end is read from either row."""
    doc = view(roll_forward(tmp_path / "rf.pdf", year_end, opening, closing, lead), year=2023, doctype="10-K")
    field = SimpleNamespace(name="widget_reserves", type="number", question="", unit="USD", scale=1e6,
                            description=RESERVES.format("fiscal year of the report"))  # fmt: skip
    got = TableReader().read(doc, field, "")
    assert got.status == Status.FOUND and got.value == 824.0 and got.confidence >= CONFIDENT, got
    prior = SimpleNamespace(**{**vars(field), "description": RESERVES.format("prior fiscal year")})
    got = TableReader().read(doc, prior, "")
    assert got.status == Status.FOUND and got.value == 858.0 and got.confidence >= CONFIDENT, got


def test_balance_names_and_opening_rows() -> None:
    from mdqa_kernel.text.label_periods import balance_name, opening_row

    assert balance_name("Unrecognized tax benefits – December 31") == "Unrecognized tax benefits"
    assert balance_name("Unrecognized tax benefits balance at December 31") == "Unrecognized tax benefits"
    assert balance_name("UNRECOGNIZED TAX BENEFITS, END OF THE PERIOD") == "UNRECOGNIZED TAX BENEFITS"
    assert balance_name("Ending unrecognized tax benefits") == "unrecognized tax benefits"
    # nothing but period words, or none of them: the label itself
    assert balance_name("Balance at December 31") == "Balance at December 31"
    assert balance_name("Senior notes due March 15") == "Senior notes due March 15"
    assert balance_name("Net sales") == "Net sales"
    december = ReportPeriod(2023, dt.date(2023, 12, 31))
    june = ReportPeriod(2023, dt.date(2023, 6, 30))
    assert opening_row("Reserves – January 1", december) and not opening_row(
        "Reserves – December 31", december
    )
    assert opening_row("Reserves – July 1", june) and not opening_row("Reserves – January 1", june)
    assert opening_row("Reserves – January 1", ReportPeriod(2023)) and opening_row("Beginning reserves")
    assert not opening_row("Reserves at January 1, 2023", december)  # a dated row: its own period
    assert opening_row("Balance at beginning of year") and not opening_row("Ending reserves", december)
