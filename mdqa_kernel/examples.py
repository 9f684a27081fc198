"""Small example filings, generated with reportlab, for the demo and the tests.

Six one- or two-page "annual reports" (three Chinese A-share banks, three US companies) with a
key-figures table each, plus metadata.csv (doc_id, company, symbol, year, doctype).
Chinese text uses reportlab's built-in CID font STSong-Light, which needs no font file and whose
text comes back exactly from pypdfium2 and pdfplumber.
"""

from __future__ import annotations

import csv
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

CJK_FONT = "STSong-Light"

# doc_id, company, symbol, year, doctype, language, figures (label, current year, prior year)
EXAMPLES: list[tuple[str, str, str, int, str, str, list[tuple[str, str, str]]]] = [
    (
        "cn_bank_a_2021",
        "示例银行甲股份有限公司",
        "002142",
        2021,
        "A股年报",
        "zh",
        [
            ("营业收入（千元）", "5,631,204", "4,987,116"),
            ("归属于上市公司股东的净利润（千元）", "1,902,334", "1,611,902"),
            ("资本充足率", "15.44%", "14.80%"),
            ("不良贷款率", "0.77%", "0.88%"),
        ],
    ),
    (
        "cn_bank_b_2021",
        "示例银行乙股份有限公司",
        "601166",
        2021,
        "A股年报",
        "zh",
        [
            ("营业收入（百万元）", "221,236", "203,137"),
            ("归属于上市公司股东的净利润（百万元）", "82,680", "66,626"),
            ("资本充足率", "14.39%", "13.47%"),
            ("不良贷款率", "1.10%", "1.25%"),
        ],
    ),
    (
        "cn_bank_c_2022",
        "示例银行丙股份有限公司",
        "601398",
        2022,
        "A股年报",
        "zh",
        [
            ("营业收入（百万元）", "917,989", "942,762"),
            ("归属于上市公司股东的净利润（百万元）", "360,483", "348,338"),
            ("资本充足率", "19.26%", "18.02%"),
            ("不良贷款率", "1.38%", "1.42%"),
        ],
    ),
    (
        "us_alpha_2022",
        "Alpha Widgets Inc.",
        "ALPW",
        2022,
        "10-K",
        "en",
        [
            ("Total revenue", "12,480", "11,032"),
            ("Net income", "1,304", "1,187"),
            ("Diluted earnings per share", "2.91", "2.64"),
            ("Total assets", "30,112", "28,450"),
        ],
    ),
    (
        "us_beta_2022",
        "Beta Foods Corp.",
        "BETF",
        2022,
        "10-K",
        "en",
        [
            ("Total revenue", "86,392", "79,474"),
            ("Net income", "8,910", "7,618"),
            ("Diluted earnings per share", "6.42", "5.49"),
            ("Total assets", "92,187", "92,377"),
        ],
    ),
    (
        "us_gamma_2023",
        "Gamma Software Ltd.",
        "GAMS",
        2023,
        "10-K",
        "en",
        [
            ("Total revenue", "211,915", "198,270"),
            ("Net income", "72,361", "72,738"),
            ("Diluted earnings per share", "9.68", "9.65"),
            ("Total assets", "411,976", "364,840"),
        ],
    ),
]


def _register_cjk() -> None:
    if CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))


def write_filing(
    path: Path, company: str, year: int, language: str, figures: list[tuple[str, str, str]]
) -> None:
    """One example filing: a title, an introduction and a ruled key-figures table of `figures`."""
    if language == "zh":
        _register_cjk()
    font = CJK_FONT if language == "zh" else "Helvetica"
    c = canvas.Canvas(str(path), pagesize=A4)
    _width, height = A4
    y = height - 72
    if language == "zh":
        title, intro = (
            f"{company} {year}年年度报告",
            [
                f"本公司董事会保证本报告内容真实、准确、完整。以下为{year}年度主要会计数据和财务指标。",
                "本报告期内，公司坚持稳健经营，资产质量保持稳定。",
            ],
        )
        header = ("项目", f"{year}年", f"{year - 1}年")
    else:
        title, intro = (
            f"{company} Annual Report {year}",
            [
                f"The following table presents selected financial data for fiscal years {year} and {year - 1}.",
                "Amounts are in millions of U.S. dollars, except per-share data.",
            ],
        )
        header = ("Item", str(year), str(year - 1))
    c.setFont(font, 16)
    c.drawString(72, y, title)
    c.setFont(font, 10.5)
    for line in intro:
        y -= 24
        c.drawString(72, y, line)
    y -= 36
    # A ruled grid, so pdfplumber's table finder sees the table as well as the text pass does.
    xs, row_h = (68, 326, 446, 530), 20
    top = y + 14
    for row in [header, *figures]:
        for x, cell in zip(xs, row, strict=False):
            c.drawString(x + 4, y, cell)
        y -= row_h
    bottom = top - row_h * (len(figures) + 1)
    for k in range(len(figures) + 2):
        c.line(xs[0], top - k * row_h, xs[-1], top - k * row_h)
    for x in xs:
        c.line(x, top, x, bottom)
    c.showPage()
    c.save()


def make_example_pdfs(out_dir: str | Path) -> Path:
    """Write the example PDFs and metadata.csv into out_dir/pdfs and out_dir; return the CSV path."""
    out = Path(out_dir)
    pdf_dir = out / "pdfs"
    pdf_dir.mkdir(parents=True, exist_ok=True)
    _register_cjk()
    for doc_id, company, _symbol, year, _doctype, language, figures in EXAMPLES:
        write_filing(pdf_dir / f"{doc_id}.pdf", company, year, language, figures)
    meta = out / "metadata.csv"
    with open(meta, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["doc_id", "company", "symbol", "year", "doctype"])
        for doc_id, company, symbol, year, doctype, _language, _ in EXAMPLES:
            w.writerow([doc_id, company, symbol, year, doctype])
    return meta
