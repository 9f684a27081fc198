"""Small PDFs for the extraction tests: financial tables drawn cell by cell with reportlab."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

Row = tuple[str, ...]


def _font(cjk: bool) -> str:
    if not cjk:
        return "Helvetica"
    if "STSong-Light" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    return "STSong-Light"


def table_pdf(
    path: Path,
    pages: list[list[Row]],
    *,
    cjk: bool = False,
    columns: tuple[float, ...] = (72, 300, 430),
    encrypt: str | None = None,
) -> Path:
    """Each page is a list of rows; each row's cells are drawn at `columns` x positions (numbers
    right-aligned at the column's right edge, like a real statement). A row of one cell is prose."""
    c = canvas.Canvas(str(path), pagesize=A4, encrypt=encrypt)
    font = _font(cjk)
    for rows in pages:
        c.setFont(font, 10)
        y = 780.0
        for row in rows:
            if not row:  # an empty row: an image-only page
                c.rect(72, 400, 300, 200, fill=1)
                continue
            for k, cell in enumerate(row):
                if k == 0:
                    c.drawString(columns[0], y, cell)
                else:
                    right = columns[k] + 100
                    c.drawRightString(right, y, cell)
            y -= 16
        c.showPage()
    c.save()
    return path


def annual_cn(path: Path, current_left: bool = True, scale: str = "万元") -> Path:
    """A Chinese income-statement page: fiscal 2022, prior 2021, in `scale`."""
    head = ("项目", "2022年度", "2021年度") if current_left else ("项目", "2021年度", "2022年度")

    def row(label: str, cur: str, prior: str) -> Row:
        return (label, cur, prior) if current_left else (label, prior, cur)

    return table_pdf(
        path,
        [
            [
                ("样本公司2022年年度报告",),
                ("第一节 主要会计数据",),
                (f"单位：{scale}",),
                head,
                row("营业总收入", "1,234,567.89", "1,100,000.00"),
                row("营业总成本", "(987,654.32)", "900,000.00"),
                row("归属于上市公司股东的净利润", "222,222.22", "111,111.11"),
                row("净利润", "246,913.57", "200,000.00"),
                row("资本充足率（%）", "14.30%", "13.90%"),
            ],
            [
                ("第二节 公司信息",),
                ("会计师事务所：毕马威华振会计师事务所(特殊普通合伙)",),
                ("公司利润分配方案：每10股派发现金红利3.50元（含税）。",),
                ("本公司持续加强职工权益保护，依法签订劳动合同。",),
            ],
        ],
        cjk=True,
    )


def annual_us(path: Path) -> Path:
    """An English balance sheet: current year LEFT, in thousands."""
    return table_pdf(
        path,
        [
            [
                ("CONSOLIDATED BALANCE SHEETS",),
                ("(in thousands, except per share data)",),
                ("", "2022", "2021"),
                ("Total assets", "542,093", "498,120"),
                ("Total liabilities", "(12,345)", "10,000"),
                ("Total stockholders' equity", "530,149", "488,120"),
                ("Auditor: Deloitte & Touche LLP",),
            ]
        ],
    )


ROSTER_CN = [
    ("姓名", "性别", "职务"),
    ("王丽", "女", "董事长"),
    ("张强", "男", "总经理"),
    ("李娜", "女", "财务负责人"),
    ("赵敏", "女", "独立董事"),
    ("陈刚", "男", "独立董事"),
]


def governance_cn(
    path: Path, auditor: str = "天健会计师事务所(特殊普通合伙)", roster: list[tuple[str, ...]] | None = None
) -> Path:
    """A Chinese governance page: top shareholders (largest first), a female-executive count, the
    auditor, and an ESG assurance provider that is a Big Four firm (not the auditor); then the
    directors' and executives' roster (3 women, 2 independent directors) on a page of its own."""
    return table_pdf(
        path,
        [
            [
                ("第四节 公司治理",),
                ("报告期末，公司现任董事、监事和高级管理人员中女性共3人。",),
                ("二、前十名股东持股情况（单位：股）",),
                ("股东名称（全称）", "期末持股数量（股）", "持股比例"),
                ("样本控股集团有限公司", "1,234,567,890", "34.71%"),
                ("香港中央结算有限公司", "456,789,012", "12.85%"),
                ("全国社保基金一零四组合", "98,765,432", "2.78%"),
            ],
            [
                ("第十节 财务报告",),
                (f"年度财务报告审计机构：{auditor}",),
                ("本报告经独立第三方机构审验。审验机构：毕马威华振会计师事务所(特殊普通合伙)。",),
            ],
            [
                ("三、董事、监事和高级管理人员情况",),
                *(ROSTER_CN if roster is None else roster),
                ("四、其他",),
            ],
        ],
        cjk=True,
    )
