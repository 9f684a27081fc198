"""A股年报: cover, company profile (key-value), key figures, MD&A, governance (executives table),
important matters (auditor), shareholders (top-ten table), financial statements, notes."""

from __future__ import annotations

from mdqa_kernel.benchmarks.render.context import RenderContext
from mdqa_kernel.benchmarks.render.layouts.common import (
    company_name,
    cover,
    fallback_section,
    filler,
    money_table,
    pad_to,
    percent_table,
    short_name,
)
from mdqa_kernel.benchmarks.render.writer import Cell, PageWriter

FIRMS = (
    "立信会计师事务所(特殊普通合伙)",
    "天健会计师事务所(特殊普通合伙)",
    "信永中和会计师事务所(特殊普通合伙)",
    "容诚会计师事务所(特殊普通合伙)",
    "大华会计师事务所(特殊普通合伙)",
)
SURNAMES = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗"
GIVEN_M = ("建国", "志强", "伟", "国华", "海涛", "明", "军", "晓东", "立新", "振华", "永刚", "斌")
GIVEN_F = ("丽", "静", "敏", "秀英", "海燕", "婷", "晓红", "雪梅")
TITLES = (
    "董事长",
    "董事",
    "独立董事",
    "监事会主席",
    "监事",
    "行长",
    "副行长",
    "总经理",
    "副总经理",
    "董事会秘书",
    "财务负责人",
    "首席风险官",
)
STREETS = ("人民路", "解放大道", "中山路", "金融街", "世纪大道", "建设路", "长江路", "滨江大道")


def _person(ctx: RenderContext, female: bool) -> str:
    return ctx.rng.choice(SURNAMES) + ctx.rng.choice(GIVEN_F if female else GIVEN_M)


def _other_address(ctx: RenderContext) -> str:
    base = str(ctx.value("value_office_address") or "北京市西城区")
    prefix = base[:6] if len(base) >= 6 else base
    return f"{prefix}{ctx.rng.choice(STREETS)}{ctx.rng.randint(1, 399)}号"


def profile(ctx: RenderContext, w: PageWriter) -> None:
    w.heading("第二节　公司简介和主要财务指标", 1)
    w.heading("一、公司信息", 2)
    rows: list[tuple[str, str | tuple[str, str]]] = [
        ("公司的中文名称", company_name(ctx)),
        ("公司的中文简称", short_name(ctx)),
        ("股票代码", ctx.record.symbol),
        ("公司的法定代表人", _person(ctx, False)),
        ("注册地址", _other_address(ctx)),
    ]
    if ctx.has("value_office_address"):
        rows.append(("办公地址", (str(ctx.value("value_office_address")), ctx.tag("value_office_address"))))
    rows += [
        ("办公地址的邮政编码", str(ctx.rng.randint(100000, 999999))),
        ("公司网址", f"www.sample{ctx.record.symbol}.example.cn"),
    ]
    w.key_values(rows)


def auditor_block(ctx: RenderContext, w: PageWriter, heading: str) -> None:
    w.heading(heading, 2)
    firm = ctx.value("value_accounting_firm_name")
    rows: list[tuple[str, str | tuple[str, str]]] = []
    if firm:
        rows.append(("境内会计师事务所名称", (str(firm), ctx.tag("value_accounting_firm_name"))))
    else:
        rows.append(("境内会计师事务所名称", ctx.rng.choice(FIRMS)))
    rows += [
        ("会计师事务所办公地址", _other_address(ctx)),
        ("境内会计师事务所报酬（万元）", f"{ctx.rng.randint(80, 900)}.00"),
        ("境内会计师事务所审计服务的连续年限", f"{ctx.rng.randint(1, 9)}年"),
        ("签字会计师姓名", f"{_person(ctx, False)}、{_person(ctx, True)}"),
    ]
    w.key_values(rows)


def key_figures(ctx: RenderContext, w: PageWriter) -> None:
    w.heading("二、主要会计数据和财务指标", 2)
    rng = ctx.rng
    cost = ctx.value("value_total_operating_cost_cny")
    profit = ctx.value("value_net_profit_cny")
    size = abs(cost or profit or rng.uniform(2e9, 9e10))
    revenue = size * rng.uniform(1.1, 1.5)
    rows: list[tuple[str, str | None, float, float]] = [
        ("营业总收入", None, revenue, revenue * rng.uniform(0.8, 1.1)),
    ]
    if cost is not None:
        rows.append(
            (
                "营业总成本",
                "value_total_operating_cost_cny",
                cost,
                ctx.prior_or_plausible("value_total_operating_cost_cny", cost),
            )
        )
    if profit is not None:
        rows.append(
            ("净利润", "value_net_profit_cny", profit, ctx.prior_or_plausible("value_net_profit_cny", profit))
        )
    base_profit = profit if profit is not None else size * 0.12
    rows.append(
        (
            "归属于上市公司股东的净利润",
            None,
            base_profit * rng.uniform(0.9, 0.99),
            base_profit * rng.uniform(0.7, 1.1),
        )
    )
    rows.append(
        ("经营活动产生的现金流量净额", None, size * rng.uniform(-0.2, 0.4), size * rng.uniform(-0.2, 0.4))
    )
    money_table(ctx, w, "主要会计数据", rows, style=rng.choice(["year", "period"]))
    if ctx.has("value_capital_adequacy_ratio_pct"):
        car = float(ctx.value("value_capital_adequacy_ratio_pct"))
        prior = ctx.prior_or_plausible("value_capital_adequacy_ratio_pct", car)
        cet1 = car - rng.uniform(1.5, 4.0)
        percent_table(
            ctx,
            w,
            "资本充足率情况（合并口径）",
            [
                ("核心一级资本充足率", None, cet1, prior - rng.uniform(1.5, 4.0), False),
                ("一级资本充足率", None, car - rng.uniform(0.3, 1.4), prior - rng.uniform(0.3, 1.4), False),
                ("资本充足率", "value_capital_adequacy_ratio_pct", car, prior, False),
                ("杠杆率", None, rng.uniform(5, 8), rng.uniform(5, 8), False),
            ],
        )


def executives(ctx: RenderContext, w: PageWriter) -> None:
    w.heading("第四节　公司治理", 1)
    filler(ctx, w, "一、公司治理相关情况说明", 2)
    w.heading("二、董事、监事和高级管理人员情况", 2)
    names = ctx.value("value_female_executive_names")
    n_female = ctx.value("value_female_executive_count")
    if names is None:
        n = n_female if n_female is not None else ctx.rng.randint(1, 5)
        names = [_person(ctx, True) for _ in range(n)]
    if n_female is not None:
        w.paragraph(
            [
                "报告期末，公司现任董事、监事和高级管理人员中女性共",
                (str(n_female), ctx.tag("value_female_executive_count")),
                "人。",
            ]
        )
    people = [(nm, True) for nm in names] + [
        (_person(ctx, False), False) for _ in range(ctx.rng.randint(8, 14))
    ]
    ctx.rng.shuffle(people)
    rows: list[list[Cell]] = []
    tag = ctx.tag("value_female_executive_names") if ctx.has("value_female_executive_names") else None
    for name, female in people:
        cell: Cell = (name, tag) if (female and tag) else name
        rows.append(
            [cell, "女" if female else "男", ctx.rng.choice(TITLES), str(ctx.rng.randint(38, 66)), "现任"]
        )
    w.table(
        ["姓名", "性别", "职务", "年龄", "任职状态"],
        rows,
        [1.4, 0.8, 1.6, 0.8, 1.0],
        caption="（一）现任及报告期内离任董事、监事和高级管理人员持股变动及报酬情况",
    )


def shareholders(ctx: RenderContext, w: PageWriter) -> None:
    w.heading("第七节　股份变动及股东情况", 1)
    filler(ctx, w, "一、股份变动情况", 1)
    rng = ctx.rng
    top = ctx.value("value_largest_shareholder_holding_ratio_pct")
    first = float(top) if top is not None else rng.uniform(10, 50)
    ratios = [first]
    for _ in range(9):
        ratios.append(round(ratios[-1] * rng.uniform(0.35, 0.9), 2))
    total_shares = rng.randint(10**9, 3 * 10**10)
    rows: list[list[Cell]] = []
    for i, r in enumerate(ratios):
        name = (
            f"{short_name(ctx)}控股集团有限公司"
            if i == 0
            else rng.choice(
                [
                    "香港中央结算有限公司",
                    "中国证券金融股份有限公司",
                    f"{_person(ctx, False)}",
                    "全国社保基金一零四组合",
                    f"{_person(ctx, True)}",
                    "中央汇金资产管理有限责任公司",
                ]
            )
        )
        ratio_text = f"{r:.2f}%"
        cell: Cell = ratio_text
        if i == 0 and top is not None:
            cell = (ratio_text, ctx.tag("value_largest_shareholder_holding_ratio_pct"))
        rows.append(
            [
                name,
                f"{int(total_shares * r / 100):,}",
                cell,
                rng.choice(["国有法人", "境外法人", "境内自然人", "其他"]),
            ]
        )
    w.table(
        ["股东名称（全称）", "期末持股数量（股）", "持股比例", "股东性质"],
        rows,
        [2.4, 1.5, 0.9, 0.9],
        caption="二、前十名股东持股情况（单位：股）",
    )


def statements(ctx: RenderContext, w: PageWriter) -> None:
    w.heading("第十节　财务报告", 1)
    w.heading("一、审计报告", 2)
    firm = ctx.value("value_accounting_firm_name")
    w.paragraph(
        [
            f"{company_name(ctx)}全体股东：我们审计了{company_name(ctx)}财务报表，包括{ctx.year}年12月31日的合并"
            f"及公司资产负债表，{ctx.year}年度的合并及公司利润表、现金流量表、股东权益变动表以及相关财务报表附注。"
            f"我们认为，后附的财务报表在所有重大方面按照企业会计准则的规定编制。"
            + (f"出具审计报告的会计师事务所为{firm}。" if firm else "")
        ]
    )
    w.heading("二、财务报表", 2)
    rng = ctx.rng
    cost = ctx.value("value_total_operating_cost_cny")
    profit = ctx.value("value_net_profit_cny")
    size = abs(cost or profit or rng.uniform(2e9, 9e10))
    revenue = size * rng.uniform(1.05, 1.4)
    rows: list[tuple[str, str | None, float, float]] = [
        ("一、营业总收入", None, revenue, revenue * rng.uniform(0.8, 1.1)),
        ("其中：营业收入", None, revenue * 0.97, revenue * rng.uniform(0.75, 1.05)),
    ]
    rows.append(
        _gold_row(ctx, "二、营业总成本", "value_total_operating_cost_cny", cost, (size * 0.8, size * 0.75))
    )
    base = abs(cost) if cost else size
    for label, share in (
        ("其中：营业成本", 0.62),
        ("税金及附加", 0.02),
        ("销售费用", 0.08),
        ("管理费用", 0.1),
        ("研发费用", 0.04),
        ("财务费用", 0.01),
    ):
        rows.append((label, None, base * share * rng.uniform(0.8, 1.2), base * share * rng.uniform(0.7, 1.2)))
    op = revenue - base
    rows.append(("三、营业利润", None, op, op * rng.uniform(0.7, 1.2)))
    rows.append(("四、利润总额", None, op * rng.uniform(0.95, 1.05), op * rng.uniform(0.7, 1.2)))
    rows.append(("减：所得税费用", None, abs(op) * 0.18, abs(op) * 0.16))
    rows.append(_gold_row(ctx, "五、净利润", "value_net_profit_cny", profit, (op * 0.8, op * 0.7)))
    rows.append(("（一）归属于母公司股东的净利润", None, (profit or op * 0.8) * 0.96, (profit or op) * 0.7))
    money_table(ctx, w, "合并利润表", rows, style=rng.choice(["year", "period"]))


def build(ctx: RenderContext, w: PageWriter) -> str:
    title = f"{company_name(ctx)}{ctx.year}年年度报告"
    cover(
        ctx,
        w,
        [(company_name(ctx), 18), (f"{ctx.year}年年度报告", 24), (f"证券代码：{ctx.record.symbol}", 12)],
        f"{ctx.year + 1}年{ctx.rng.randint(3, 4)}月",
    )
    w.new_page()
    filler(ctx, w, "重要提示", 2, level=1)
    w.heading("目录", 1)
    w.paragraph(
        [
            "第一节 释义　第二节 公司简介和主要财务指标　第三节 管理层讨论与分析　第四节 公司治理　"
            "第五节 环境和社会责任　第六节 重要事项　第七节 股份变动及股东情况　第十节 财务报告"
        ]
    )
    filler(ctx, w, "第一节　释义", 2, level=1)
    w.new_page()
    profile(ctx, w)
    key_figures(ctx, w)
    w.new_page()
    w.heading("第三节　管理层讨论与分析", 1)
    for h in (
        "一、报告期内公司所处行业情况",
        "二、报告期内公司从事的主要业务",
        "三、核心竞争力分析",
        "四、主要会计数据和财务指标（续）",
        "五、可能面对的风险",
    ):
        filler(ctx, w, h, ctx.rng.randint(2, 5))
    w.new_page()
    executives(ctx, w)
    w.new_page()
    filler(ctx, w, "第五节　环境和社会责任", 4, level=1)
    w.new_page()
    w.heading("第六节　重要事项", 1)
    filler(ctx, w, "一、承诺事项履行情况", 2)
    auditor_block(ctx, w, "二、聘任、解聘会计师事务所情况")
    w.new_page()
    shareholders(ctx, w)
    w.new_page()
    statements(ctx, w)
    fallback_section(ctx, w)
    pad_to(ctx, w, ctx.rng.randint(18, 32), ["三、财务报表附注", "四、重要会计政策及会计估计", "五、税项"])
    return title


def _gold_row(
    ctx: RenderContext, label: str, field: str, value: float | None, filler: tuple[float, float]
) -> tuple[str, str | None, float, float]:
    """A statement row holding a gold figure beside its prior year, or a filler row (no gold field)
    when the question does not ask for it."""
    if value is None:
        return (label, None, *filler)
    return (label, field, value, ctx.prior_or_plausible(field, value))
