"""A股利润分配权益类公告 (dividend implementation notice) and A股股东大会类公告 (shareholder-meeting
resolution notice), with the appendices real notices carry (tax notes, vote tables, history)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from mdqa_kernel.benchmarks.render.context import RenderContext
from mdqa_kernel.benchmarks.render.fields import Scale, dec, format_percent, min_decimals
from mdqa_kernel.benchmarks.render.layouts.common import (
    company_name,
    fallback_section,
    filler,
    honesty,
    pad_to,
    short_name,
    zh_date,
)
from mdqa_kernel.benchmarks.render.writer import Cell, PageWriter

ORDINALS = "一二三四五六七八九十"


def _notice_head(ctx: RenderContext, w: PageWriter, title: str) -> None:
    w.new_page()
    w.paragraph(
        [
            f"证券代码：{ctx.record.symbol}　　证券简称：{short_name(ctx)}　　公告编号：{ctx.year + 1}-0"
            f"{ctx.rng.randint(10, 60)}"
        ],
        size=9,
    )
    w.centered(company_name(ctx), 15)
    w.centered(title, 15)
    w.paragraph(
        [
            "本公司董事会及全体董事保证本公告内容不存在任何虚假记载、误导性陈述或者重大遗漏，"
            "并对其内容的真实性、准确性和完整性承担法律责任。"
        ],
        size=9,
    )
    w.paragraph([honesty(ctx)], size=7.5)


def _per10(value: float) -> str:
    x = dec(value) * 10
    return f"{x:.{max(2, min_decimals(x))}f}"


def _iso(value: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if value else None
    except ValueError:
        return None


def build_dividend(ctx: RenderContext, w: PageWriter) -> str:
    rng, y = ctx.rng, ctx.year
    title = f"{y}年年度权益分派实施公告"
    _notice_head(ctx, w, title)
    style = rng.randint(0, 1)
    record = _iso(ctx.value("value_record_date"))
    mmdd = ctx.value("value_record_date_mmdd")
    if record is None and isinstance(mmdd, str) and len(mmdd) == 5:
        record = dt.date(y + 1, int(mmdd[:2]), int(mmdd[3:]))  # the FY y distribution is paid in y + 1
    record = record or dt.date(y + 1, rng.randint(5, 7), rng.randint(1, 28))
    ex = _iso(ctx.value("value_ex_dividend_date")) or record + dt.timedelta(days=1)
    dps = ctx.value("value_pre_tax_dividend_per_share_cny")
    dps = float(dps) if dps is not None else round(rng.uniform(0.05, 1.5), 3)

    w.heading("重要内容提示：", 2)
    if ctx.has("value_pre_tax_dividend_per_share_cny"):
        ctx.scales["value_pre_tax_dividend_per_share_cny"] = Scale("每10股（元）", 0.1)
        w.paragraph(
            [
                "● 每股分配比例：本次利润分配以方案实施前的公司总股本为基数，",
                (
                    f"每10股派发现金红利{_per10(dps)}元（含税）",
                    ctx.tag("value_pre_tax_dividend_per_share_cny"),
                ),
                "。",
            ]
        )
    segs: list[str | tuple[str, str]] = ["● 相关日期：股权登记日为"]
    record_text = zh_date(record, style)
    segs.append(
        (record_text, ctx.tag("value_record_date_mmdd")) if ctx.has("value_record_date_mmdd") else record_text
    )
    segs.append(f"，现金红利发放日为{zh_date(ex, style)}。")
    w.paragraph(segs)
    w.heading("一、通过分配方案的股东大会届次和日期", 2)
    agm = record - dt.timedelta(days=rng.randint(20, 50))
    w.paragraph([f"本次利润分配方案经公司{zh_date(agm)}的{y}年年度股东大会审议通过。"])
    w.heading("二、分配方案", 2)
    shares = rng.randint(10**9, 5 * 10**10)
    total = Decimal(shares) * dec(dps)
    w.paragraph(
        [
            f"1. 发放年度：{y}年年度。2. 分派对象：截至股权登记日下午上海证券交易所收市后，在中国证券登记结算有限"
            f"责任公司上海分公司登记在册的本公司全体股东。3. 分配方案：本次利润分配以方案实施前的公司总股本"
            f"{shares:,}股为基数，每股派发现金红利",
            f"{dps}元（含税），共计派发现金红利{total:,.2f}元。",
        ]
    )
    w.heading("三、相关日期", 2)
    last_trade = record
    pay = ex
    rec_cell: Cell = zh_date(record, style)
    if ctx.has("value_record_date"):
        rec_cell = (zh_date(record, style), ctx.tag("value_record_date"))
    ex_cell: Cell = zh_date(ex, style)
    if ctx.has("value_ex_dividend_date"):
        ex_cell = (zh_date(ex, style), ctx.tag("value_ex_dividend_date"))
    w.table(
        ["股份类别", "股权登记日", "最后交易日", "除权（息）日", "现金红利发放日"],
        [["A股", rec_cell, "－", ex_cell, zh_date(pay, style)]],
        [0.8, 1.2, 1.0, 1.2, 1.3],
    )
    del last_trade
    w.heading("四、分配实施办法", 2)
    filler(ctx, w, None, 2)
    w.new_page()
    w.heading("五、扣税说明", 2)
    w.paragraph(
        [
            f"（1）对于持有公司无限售条件流通股的自然人股东及证券投资基金，持股期限超过1年的，股息红利所得暂免征收"
            f"个人所得税，每股实际派发现金红利{dps}元；持股期限在1年以内（含1年）的，公司暂不扣缴个人所得税。"
        ]
    )
    w.paragraph(["（2）对于合格境外机构投资者（QFII）股东，由公司按照10%的税率统一代扣代缴企业所得税。"])
    filler(ctx, w, None, 3)
    w.heading("六、有关咨询办法", 2)
    w.key_values(
        [
            ("联系部门", "公司董事会办公室"),
            ("联系电话", f"0{rng.randint(10, 99)}-{rng.randint(10**7, 10**8 - 1)}"),
        ]
    )
    w.new_page()
    w.heading("附件一：公司近年利润分配情况", 2)
    rows: list[list[Cell]] = []
    for back in (1, 2, 3):
        prior = ctx.prior("value_pre_tax_dividend_per_share_cny", back)
        p = prior if prior is not None else round(dps * rng.uniform(0.6, 1.2), 3)
        rows.append([f"{y - back}年度", f"{_per10(p)}", f"{rng.uniform(25, 35):.2f}%"])
    w.table(["分红年度", "每10股派息数（元）（含税）", "现金分红比例"], rows, [1.2, 1.6, 1.2])
    filler(ctx, w, "附件二：公司章程中有关利润分配的条款", 4)
    fallback_section(ctx, w)
    pad_to(ctx, w, rng.randint(8, 11), ["附件三：股东大会决议摘要", "附件四：法律意见书摘要"])
    return f"{company_name(ctx)}{title}"


def _events(ctx: RenderContext) -> list[tuple[dt.date, str]]:
    """The year's meetings: from the gold events, else an annual meeting plus the EGM count."""
    y, rng = ctx.year, ctx.rng
    raw = ctx.value("value_shareholder_meeting_events")
    if not raw:
        n = ctx.value("value_extraordinary_shareholder_meeting_count")
        n = int(n) if n is not None else rng.randint(0, 3)
        raw = [{"month": rng.randint(5, 6), "meeting_type": "年度股东大会"}] + [
            {"month": rng.randint(1, 12), "meeting_type": "临时股东大会"} for _ in range(n)
        ]
    out = [(dt.date(y, int(e["month"]), rng.randint(8, 28)), str(e["meeting_type"])) for e in raw]
    return sorted(out, key=lambda e: e[0])


def _vote_table(ctx: RenderContext, w: PageWriter, k: int) -> None:
    rng = ctx.rng
    agree = rng.uniform(95, 99.99)
    against = (100 - agree) * rng.uniform(0.3, 0.9)
    total = rng.randint(10**8, 10**10)
    w.table(
        ["股东类型", "同意票数", "比例（%）", "反对票数", "比例（%）"],
        [
            [
                "A股",
                f"{int(total * agree / 100):,}",
                f"{agree:.4f}",
                f"{int(total * against / 100):,}",
                f"{against:.4f}",
            ]
        ],
        [0.8, 1.5, 0.9, 1.3, 0.9],
        caption=f"{k}、议案名称：关于{rng.choice(['2022年度董事会工作报告', '年度财务决算报告', '续聘会计师事务所', '选举董事', '利润分配方案', '修订公司章程'])}的议案　审议结果：通过",
    )


def build_meeting(ctx: RenderContext, w: PageWriter) -> str:
    rng, y = ctx.rng, ctx.year
    events = _events(ctx)
    agm = next((d for d, t in events if t == "年度股东大会"), dt.date(y, 6, rng.randint(10, 28)))
    title = (
        f"{y - 1 if agm.month <= 6 else y}年年度股东大会决议公告"  # an AGM held by June closes the prior year
    )
    _notice_head(ctx, w, title)
    w.paragraph(["重要内容提示：● 本次会议是否有否决议案：无"])
    w.heading("一、会议召开和出席情况", 2)
    w.paragraph([f"（一）股东大会召开的时间：{zh_date(agm)}　（二）股东大会召开的地点：公司总部会议室"])
    body: list[list[Cell]] = []
    count = ctx.value("value_attending_shareholders_and_proxies_count")
    shares = ctx.value("value_attending_shares_count")
    ratio = ctx.value("value_attendance_share_ratio_pct")
    n = int(count) if count is not None else rng.randint(20, 900)
    s = int(shares) if shares is not None else rng.randint(10**8, 10**10)
    r = float(ratio) if ratio is not None else rng.uniform(30, 75)
    a_share = max(1, int(n * rng.uniform(0.6, 0.95)))
    for label, field, text in (
        ("1、出席会议的股东和代理人人数", "value_attending_shareholders_and_proxies_count", f"{n}"),
        ("其中：A股股东人数", None, f"{a_share}"),
        ("2、出席会议的股东所持有表决权的股份总数（股）", "value_attending_shares_count", f"{s:,}"),
        ("其中：A股股东持有股份总数", None, f"{int(s * rng.uniform(0.6, 0.95)):,}"),
        (
            "3、出席会议的股东所持有表决权股份数占公司有表决权股份总数的比例（%）",
            "value_attendance_share_ratio_pct",
            format_percent(r),
        ),
        (
            "其中：A股股东持股占股份总数的比例（%）",
            None,
            format_percent(round(r * rng.uniform(0.6, 0.95), 2)),
        ),
    ):
        cell: Cell = (text, ctx.tag(field)) if field and ctx.has(field) else text
        body.append([label, cell])
    if ratio is not None:
        ctx.scales["value_attendance_share_ratio_pct"] = Scale("%", 0.01)
    w.table(["（三）出席会议的普通股股东和恢复表决权的优先股股东及其持有股份情况", ""], body, [4.2, 1.3])
    methods = ctx.value("value_annual_meeting_methods")
    voting = ctx.value("value_annual_meeting_voting_methods")
    rows: list[tuple[str, str | tuple[str, str]]] = []
    if methods:
        rows.append(("会议召开方式", ("、".join(map(str, methods)), ctx.tag("value_annual_meeting_methods"))))
    if voting:
        rows.append(
            ("表决方式", ("、".join(map(str, voting)), ctx.tag("value_annual_meeting_voting_methods")))
        )
    rows.append(("会议主持人", f"董事长{short_name(ctx)}"))
    w.heading("（四）表决方式是否符合《公司法》及《公司章程》的规定，大会主持情况等", 3)
    w.key_values(rows, label_w=110)
    filler(ctx, w, None, 1)
    w.new_page()
    w.heading("二、议案审议情况", 2)
    for k in range(1, rng.randint(6, 10)):
        _vote_table(ctx, w, k)
    w.new_page()
    w.heading("三、律师见证情况", 2)
    filler(ctx, w, None, 3)
    w.heading("四、备查文件目录", 2)
    w.paragraph(
        [
            "1、经与会董事和记录人签字确认并加盖董事会印章的股东大会决议；2、经见证的律师事务所主任签字并加盖公章的法律意见书。"
        ]
    )
    w.new_page()
    w.heading("附件：报告期内股东大会召开情况", 2)
    egm = ctx.value("value_extraordinary_shareholder_meeting_count")
    n_egm = int(egm) if egm is not None else sum(1 for _, t in events if t != "年度股东大会")
    segs: list[str | tuple[str, str]] = [f"{y}年度，公司共召开1次年度股东大会和"]
    segs.append(
        (f"{n_egm}", ctx.tag("value_extraordinary_shareholder_meeting_count"))
        if egm is not None
        else f"{n_egm}"
    )
    segs.append("次临时股东大会，具体情况如下：")
    w.paragraph(segs)
    tag = ctx.tag("value_shareholder_meeting_events") if ctx.has("value_shareholder_meeting_events") else None
    table: list[list[Cell]] = []
    k_egm = 0
    for d, kind in events:
        if kind == "年度股东大会":
            session = f"{y - 1}年年度股东大会" if d.month <= 6 else f"{y}年年度股东大会"
        else:
            k_egm += 1
            session = f"{y}年第{ORDINALS[min(k_egm, 10) - 1]}次临时股东大会"
        date_cell: Cell = (zh_date(d), tag) if tag else zh_date(d)
        kind_cell: Cell = (kind, tag) if tag else kind
        table.append([session, date_cell, kind_cell, zh_date(d + dt.timedelta(days=1))])
    w.table(["会议届次", "召开日期", "会议类型", "决议刊登披露日期"], table, [2.0, 1.3, 1.2, 1.3])
    fallback_section(ctx, w)
    pad_to(ctx, w, rng.randint(8, 12), ["附件：法律意见书", "附件：议案全文"])
    return f"{company_name(ctx)}{title}"
