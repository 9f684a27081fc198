"""A Chinese quarterly report's key-figures table set in narrow cells: every amount wraps inside its cell
("2,352,826" / ",955.66"), a year-on-year percentage sits vertically centred between a cell's two lines,
and each label wraps over several lines, centred on its figures, so that a fragment can sit as close
to the row above as to its own row ("营业收入" / "（元）" / "归属于上市" / "公司股东的" / "净利润").
Drawn by the test (reportlab) and read through the real parser, `text.rows` and the table reader."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import view_from_parse
from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.table.reader import TableReader, _lines_by_page
from mdqa_kernel.text.rows import table_rows

# right edges: this quarter, its prior-year quarter, the change; year to date, its prior year, the change
_COLS = (165.0, 215.0, 319.0, 373.0, 427.0, 534.0)
_SIZE = 7.5


def _key_figures(path: Path) -> Path:
    """One page: the report's title, the header of periods, then two rows whose amounts wrap in the
    cell (head on one line, tail on the next, the percentage between them)."""
    if "STSong-Light" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    c = canvas.Canvas(str(path), pagesize=A4)
    height = A4[1]

    def put(top: float, x: float, text: str, how: str = "l") -> None:
        c.setFont("STSong-Light", _SIZE)
        draw = {"l": c.drawString, "r": c.drawRightString}[how]
        draw(x, height - top - _SIZE, text)

    put(60, 57, "样本医药股份有限公司 2025 年第三季度报告")
    put(90, 57, "一、主要财务数据")
    put(540, 57, "（一）主要会计数据和财务指标")
    # the header as such tables print it: each period's name wrapped in its narrow cell
    heads = [
        ("本报告期",),
        ("上年同期",),
        ("本报告期比", "上年同期增减"),
        ("年初至报", "告期末"),
        ("上年同期",),
        ("年初至报告", "期末比上年", "同期增减"),
    ]
    for x, lines in zip(_COLS, heads, strict=True):
        for k, head in enumerate(lines):
            put(570 + 12 * k, x, head, "r")
    rows = [
        # (top of the first line, label lines, heads, tails, percentages)
        (
            618,
            ["营业收入", "（元）"],
            ("7,176,243,", "5,634,27", "21,986,40", "19,740,28"),
            ("743.45", "4,230.28", "3,962.07", "6,995.36"),
            ("27.37%", "11.38%"),
        ),
        (
            653,
            ["公司股东的", "净利润", "（元）"],
            ("537,568,59", "561,472,", "2,352,826", "2,959,832"),
            ("2.87", "731.39", ",955.66", ",869.41"),
            ("-4.26%", "-20.51%"),
        ),
    ]
    for top, labels, head_cells, tail_cells, pcts in rows:
        amounts = (_COLS[0], _COLS[1], _COLS[3], _COLS[4])
        put(top, 62, labels[0])
        put(top + 12, 62, labels[1])
        if len(labels) > 2:
            put(top + 24, 62, labels[2])
        for x, cell in zip(amounts, head_cells, strict=True):
            put(top, x, cell, "r")
        for x, cell in zip(amounts, tail_cells, strict=True):
            put(top + 12, x, cell, "r")
        put(top + 6, _COLS[2], pcts[0], "r")
        put(top + 6, _COLS[5], pcts[1], "r")
    # the second row's label starts midway between the rows: as close to the row above as to its own
    put(641.6, 62, "归属于上市")
    c.showPage()
    c.save()
    return path


def _fld(description: str) -> SimpleNamespace:
    return SimpleNamespace(
        name="f", type="number", description=description, question="", unit="RMB", scale=1.0
    )


@pytest.fixture
def doc(tmp_path: Path):
    path = _key_figures(tmp_path / "q3.pdf")
    return view_from_parse(parse_pdf(path), "q3", {"year": "2025Q3", "doctype": "quarterly_report"})


def test_a_whole_looking_head_is_joined_with_its_tail_past_a_centred_percentage(doc) -> None:
    rows = table_rows(_lines_by_page(doc)[1])
    profit = next(r for r in rows if r.label == "公司股东的")
    amounts = [c.text for c in profit.cells if not c.percent]
    # "2,352,826" is a well-formed number by itself; ",955.66" two lines down still continues it
    assert amounts == ["537,568,592.87", "561,472,731.39", "2,352,826,955.66", "2,959,832,869.41"]


def test_a_label_closed_by_its_unit_leaves_the_next_fragment_to_the_row_below(doc) -> None:
    rows = table_rows(_lines_by_page(doc)[1])
    revenue, profit = (next(r for r in rows if r.label == name) for name in ("营业收入", "公司股东的"))
    # "营业收入（元）" is whole: "归属于上市", equally near both rows, starts the next row's label
    assert revenue.extended_label == "营业收入（元）"
    assert "归属于上市公司股东的净利润" in profit.variants
    # the row's own words are in every name it may have: "净利润" alone is not the attributable profit's
    assert "净利润" not in profit.variants and all("公司股东的" in v for v in profit.variants)


def test_the_year_to_date_profit_is_read_from_the_wrapped_table(doc) -> None:
    result = TableReader().read(doc, _fld("归属于上市公司股东的净利润 2025 Jan-Sep (年初至报告期末)"), "")
    assert result.value == pytest.approx(2_352_826_955.66)
    assert result.evidence.page == 1 and result.confidence >= CONFIDENT
    # the table has no row of the whole net profit: the attributable one is not given for it
    whole = TableReader().read(doc, _fld("净利润 2025 Jan-Sep (年初至报告期末)"), "")
    assert whole.value != pytest.approx(2_352_826_955.66) or whole.confidence < CONFIDENT
