"""Periods a field description names relative to the report, on statements drawn here: the year-ago
quarter of a quarterly report ("one year earlier", "year-ago"), the prior fiscal year's closing balance
of a 10-Q balance sheet (its year-end column, not the year-ago quarter's), and a year several years back
in a five-year table ("three years before the report year"); and a quarter's title printed once, centred
over a whole block of columns, heads every column of the block."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from mdqa_kernel.text.headers import _title_span
from mdqa_kernel.text.layout import Cell, Word
from mdqa_kernel.text.periods import ReportPeriod, wanted_period
from tests.test_periods import draw, row, text, view
from tests.test_statement_labels import COVER, MILLIONS, TEN_Q, read
from tests.test_statement_labels import TEN_Q_BALANCE as BALANCE

Q2 = ReportPeriod(year=2024, end=dt.date(2023, 7, 29), quarterly=True, quarter=2)
FOUR = (300.0, 370.0, 450.0, 520.0)
INCOME = [
    text("CONDENSED CONSOLIDATED STATEMENTS OF EARNINGS"),
    MILLIONS,
    [(335, "Three Months Ended", "c"), (485, "Six Months Ended", "c")],
    row("", "July 29, 2023", "July 30, 2022", "July 29, 2023", "July 30, 2022", cols=FOUR),
    row("Revenue", "9,583", "10,329", "18,050", "20,976", cols=FOUR),
    row("Net earnings", "274", "306", "517", "647", cols=FOUR),
]


@pytest.mark.parametrize(
    ("description", "offset", "opening"),
    [
        ("Revenue for the same fiscal quarter one year earlier (three months only)", -1, False),
        ("Revenue of the year-ago quarter", -1, False),
        ("Total assets at the end of the prior fiscal year (not the quarter end)", -1, True),
        ("Total assets at the prior fiscal year end", -1, True),
        ("Revenue for the fiscal year three years before the report year", -3, False),
        ("Long-term debt two years prior", -2, False),
        ("Total assets at the end of the quarter of the report (not the prior fiscal year end)", 0, False),
    ],
)
def test_relative_words_of_a_description(description: str, offset: int, opening: bool) -> None:
    want = wanted_period(description, Q2)
    assert (want.offset, want.opening) == (offset, opening)


def test_year_ago_quarter_of_a_10q(tmp_path: Path) -> None:
    """The quarter's own column (9,583) was read for "one year earlier": the phrase named no period."""
    doc = view(draw(tmp_path / "q.pdf", [TEN_Q, INCOME]), year=2024, doctype="10-Q")
    ago = read(
        doc, "Revenue for the same fiscal quarter one year earlier (the year-ago quarter, three months only)"
    )
    assert ago.value == 10329, ago
    assert read(doc, "Net earnings of the year-ago quarter, three months only").value == 306
    assert read(doc, "Revenue for the fiscal quarter of the report (three months only)").value == 9583


def test_prior_fiscal_year_end_is_the_year_end_column(tmp_path: Path) -> None:
    """A 10-Q balance sheet with three dates: the year-ago quarter's end (15,419) was read for "the end of
    the prior fiscal year", whose balance is the January year-end column."""
    doc = view(draw(tmp_path / "q.pdf", [TEN_Q, BALANCE]), year=2024, doctype="10-Q")
    year_end = read(doc, "Total assets at the end of the prior fiscal year (the comparative column)")
    assert year_end.value == 15803, year_end
    ago = read(doc, "Cash and cash equivalents at the end of the same quarter one year earlier")
    assert ago.value == 840, ago
    assert read(doc, "Cash and cash equivalents at the end of the quarter of the report").value == 1093


def test_three_years_before_in_a_five_year_table(tmp_path: Path) -> None:
    """The current year (1,300) was read for "three years before": the phrase named no period."""
    five = (300.0, 360.0, 420.0, 480.0, 540.0)
    selected = [
        text("Item 6. Selected Financial Data"),
        MILLIONS,
        row("Fiscal year", "2023", "2022", "2021", "2020", "2019", cols=five),
        row("Total revenues", "1,300", "1,200", "1,100", "1,000", "900", cols=five),
        row("Total assets", "5,300", "5,200", "5,100", "5,000", "4,900", cols=five),
    ]
    doc = view(draw(tmp_path / "a.pdf", [COVER, selected]), year=2023, doctype="10-K")
    back = read(doc, "Total revenues for the fiscal year three years before the report year")
    assert back.value == 1000, back
    assert (
        read(doc, "Total assets at the end of the fiscal year two years before the report year").value == 5100
    )
    assert read(doc, "Total revenues for the fiscal year of the report").value == 1300


def test_a_quarter_title_centred_over_the_whole_block(tmp_path: Path) -> None:
    """An earnings release prints "SECOND QUARTER" once, centred over "2023 | % to sales | 2022 | % to
    sales | % change": it overlapped only the 2022 column, so the 2023 column named no span and the
    quarter's own figure was not found."""
    cols = (300.0, 370.0, 470.0, 540.0, 620.0)
    release = [
        text("Condensed Consolidated Statement of Earnings"),
        [(72, "(Unaudited; in Millions Except Per Share Figures)", "l"), (445, "SECOND QUARTER", "c")],
        row("", "2023", "", "2022", "", cols=cols),
        row("", "Amount", "Percent", "Amount", "Percent", "Change", cols=cols),
        row("Sales to customers", "$ 25,530", "100.0", "$ 24,020", "100.0", "6.3", cols=cols),
        row("Cost of products sold", "8,212", "32.2", "7,919", "33.0", "3.7", cols=cols),
    ]
    cover = [
        text("Acme Inc. reports second-quarter 2023 results"),
        text("For the quarter ended July 2, 2023"),
    ]
    doc = view(draw(tmp_path / "r.pdf", [cover, release]), year="2023Q2", doctype="earnings")
    quarter = read(doc, "Cost of products sold for the fiscal quarter of the report (three months only)")
    assert quarter.value == 8212, quarter
    ago = read(doc, "Cost of products sold for the same fiscal quarter one year earlier (three months only)")
    assert ago.value == 7919, ago


def test_a_full_year_title_heads_a_row_printing_amounts_only(tmp_path: Path) -> None:
    """A fourth-quarter release's full-year table: "TWELVE MONTHS" centred over "2023 | 2022 | Percent",
    each year centred over its "Amount | Percent to Sales" pair. A row printing only the amounts
    ("Effective tax rate 17.4 % 8.3 %") had its 2022 header dropped (it starts right of the row's last
    cell) and the title given to that cell alone, so its 2023 column read as a bare year of a quarterly
    report and the rate was not found."""
    cols = (300.0, 390.0, 480.0, 570.0, 650.0)
    release = [
        text("Condensed Consolidated Statement of Earnings"),
        [(72, "(Unaudited; in Millions Except Per Share Figures)", "l"), (481, "TWELVE MONTHS", "c")],
        [(331, "2023", "c"), (511, "2022", "c"), (632, "Percent", "c")],
        row("", "Amount", "to Sales", "Amount", "to Sales", "Change", cols=cols),
        row("Sales to customers", "$ 94,943", "100.0", "$ 93,775", "100.0", "1.3", cols=cols),
        row(
            "Earnings before provision for taxes on income",
            "21,725",
            "22.9",
            "22,776",
            "24.3",
            "(4.6)",
            cols=cols,
        ),
        row("Provision for taxes on income", "3,784", "4.0", "1,898", "2.0", "99.4", cols=cols),
        row("Effective tax rate", "17.4 %", "", "8.3 %", cols=cols),
    ]
    cover = [
        text("Acme Inc. reports fourth-quarter and full-year 2023 results"),
        text("For the quarter ended December 31, 2023"),
    ]
    doc = view(draw(tmp_path / "r.pdf", [cover, release]), year="2023Q4", doctype="earnings")
    rate = "Effective income tax rate for the {}, in percent"
    now = read(doc, rate.format("fiscal year of the report"), type="percent", unit="%", scale=1.0)
    assert now.value == 17.4, now
    prior = read(doc, rate.format("prior fiscal year"), type="percent", unit="%", scale=1.0)
    assert prior.value == 8.3, prior
    pretax = read(
        doc, "Income (earnings) before income taxes for the fiscal year of the report, in USD millions"
    )
    assert pretax.value == 21725, pretax


def _cells(*spans: tuple[float, float]) -> list[Cell]:
    return [Cell("1", [Word("1", x0, 100.0, x1, 108.0)]) for x0, x1 in spans]


def test_a_title_heads_the_block_only_when_centred_over_its_cells() -> None:
    """A title over the block's middle cell heads all six; a header in the gap between two cells (a
    quarterly report's "本报告期" over a column whose row cell is blank) or off the centre heads none."""
    cells = _cells((120, 160), (180, 215), (230, 265), (330, 372), (385, 425), (440, 480))
    title = ("SECOND QUARTER", 270.0, 345.0)
    assert _title_span(title, cells) == [title] * 6
    assert _title_span(("本报告期", 280.0, 316.0), cells) is None
    assert _title_span(("SECOND QUARTER", 385.0, 460.0), cells) is None
