"""A股ESG报告: report notes (GRI statement), profile (auditor), responsibility sections that appear
only when the record says the topic is disclosed, social contribution table, assurance statement."""

from __future__ import annotations

from mdqa_kernel.benchmarks.render.context import RenderContext
from mdqa_kernel.benchmarks.render.fields import Scale, format_plain
from mdqa_kernel.benchmarks.render.layouts.common import (
    company_name,
    cover,
    fallback_section,
    filler,
    money_table,
    pad_to,
)
from mdqa_kernel.benchmarks.render.writer import PageWriter

BIG4 = (
    "普华永道中天会计师事务所(特殊普通合伙)",
    "德勤华永会计师事务所(特殊普通合伙)",
    "安永华明会计师事务所(特殊普通合伙)",
    "毕马威华振会计师事务所(特殊普通合伙)",
)
OTHERS = (
    "立信会计师事务所(特殊普通合伙)",
    "天健会计师事务所(特殊普通合伙)",
    "容诚会计师事务所(特殊普通合伙)",
)

# (field, section heading, the statement whose presence encodes True)
TOPICS = (
    (
        "value_system_construction_disclosed",
        "社会责任管理",
        "公司建立了社会责任管理制度体系，明确了社会责任工作的组织架构和职责分工，并持续完善改进措施。",
    ),
    (
        "value_environment_protection_disclosed",
        "环境保护与可持续发展",
        "公司在本报告中披露了环境保护和可持续发展信息，包括能源资源消耗、排放管理和应对气候变化等方面的举措与成效。",
    ),
    (
        "value_shareholder_protection_disclosed",
        "股东权益保护",
        "公司依法保障股东特别是中小股东的知情权、参与权和决策权，持续提升信息披露质量，维护股东合法权益。",
    ),
    (
        "value_creditor_protection_disclosed",
        "债权人权益保护",
        "公司严格遵守合同约定，按时履行偿债义务，及时向债权人通报与其权益相关的重大信息，保护债权人合法权益。",
    ),
    (
        "value_staff_protection_disclosed",
        "职工权益保护",
        "公司依法与员工签订劳动合同，足额缴纳社会保险和住房公积金，保障职工在薪酬、休假、培训和职业发展等方面的合法权益。",
    ),
    (
        "value_customer_protection_disclosed",
        "客户及消费者权益保护",
        "公司建立健全客户权益保护工作机制，规范产品销售和服务流程，妥善处理客户投诉，保护客户及消费者合法权益。",
    ),
    (
        "value_supplier_protection_disclosed",
        "供应商权益保护",
        "公司坚持公开、公平、公正的采购原则，建立供应商准入和评价机制，按时支付款项，保护供应商合法权益。",
    ),
    (
        "value_work_safety_disclosed",
        "安全生产",
        "公司落实安全生产责任制，开展安全隐患排查治理和应急演练，报告期内未发生重大安全生产事故。",
    ),
    (
        "value_public_relations_disclosed",
        "公共关系和社会公益事业",
        "公司积极参与乡村振兴、助学助困和志愿服务等社会公益事业，持续加强与社区和公众的沟通。",
    ),
    (
        "value_deficiency_disclosed",
        "存在的不足与改进方向",
        "公司在社会责任工作中仍存在不足：环境信息披露的量化程度有待提高，利益相关方沟通机制有待进一步完善。",
    ),
)


def _auditor(ctx: RenderContext) -> str:
    big4 = ctx.value("value_big4_auditor_client")
    org = ctx.value("value_assurance_org_name")
    if big4 is True and org in BIG4:
        return str(org)
    return ctx.rng.choice(BIG4 if big4 else OTHERS)


def report_notes(ctx: RenderContext, w: PageWriter) -> None:
    w.heading("关于本报告", 1)
    w.paragraph(
        [
            f"本报告为{company_name(ctx)}发布的{ctx.year}年度环境、社会及治理（ESG）报告，报告期间为{ctx.year}年1月1日至"
            f"{ctx.year}年12月31日，部分内容适当追溯以往年份。本报告数据来源于公司内部统计和年度报告。"
        ]
    )
    if ctx.value("value_uses_gri_standard") is True:
        w.paragraph(
            [
                (
                    "本报告参照全球报告倡议组织（GRI）《可持续发展报告标准》（GRI Standards）编制。",
                    ctx.tag("value_uses_gri_standard"),
                )
            ]
        )
    else:
        ctx.mark("value_uses_gri_standard", "absent: no GRI statement printed")
        w.paragraph(["本报告依据证券交易所上市公司自律监管指引及相关法律法规编制。"])
    filler(ctx, w, None, 1)


def profile(ctx: RenderContext, w: PageWriter) -> None:
    w.heading("关于我们", 1)
    filler(ctx, w, None, 2)
    rows: list[tuple[str, str | tuple[str, str]]] = [
        ("公司名称", company_name(ctx)),
        ("股票代码", ctx.record.symbol),
    ]
    if ctx.record.values.get("value_big4_auditor_client") is not None:
        rows.append(("年度财务报告审计机构", (_auditor(ctx), ctx.tag("value_big4_auditor_client"))))
        ctx.notes["value_big4_auditor_client"] = "encoded as the auditor's name (a Big Four firm or not)"
    w.key_values(rows)


def contribution(ctx: RenderContext, w: PageWriter) -> None:
    fields = ("value_tax_total_10k_cny", "value_social_donation_10k_cny")
    if not any(ctx.has(f) for f in (*fields, "value_social_contribution_per_share_cny")):
        return
    w.heading("社会贡献", 2)
    rows: list[tuple[str, str | None, float, float]] = []
    for field, label in (
        ("value_tax_total_10k_cny", "纳税总额"),
        ("value_social_donation_10k_cny", "对外捐赠总额"),
    ):
        gold = ctx.value(field)
        if gold is None:
            # A null annotation means the report does not state it: print no row (a made-up figure
            # under the field's own label would contradict the gold value).
            ctx.mark(field, "absent: not disclosed")
            continue
        cur = float(gold) * 1e4
        prior = ctx.prior(field)
        pri = prior * 1e4 if prior is not None else cur * ctx.rng.uniform(0.7, 1.3)
        rows.append((label, field, cur, pri))
    base = rows[0][2] if rows else 1e9 * ctx.rng.uniform(0.2, 3)
    rows.append(("员工薪酬总额", None, base * ctx.rng.uniform(0.5, 2), base * ctx.rng.uniform(0.5, 2)))
    money_table(ctx, w, "社会贡献主要数据", rows)
    per_share = ctx.value("value_social_contribution_per_share_cny")
    if per_share is not None:
        ctx.scales["value_social_contribution_per_share_cny"] = Scale("元/股", 1)
        w.paragraph(
            [
                f"按照上海证券交易所相关指引计算，{ctx.year}年公司每股社会贡献值为",
                (format_plain(float(per_share)), ctx.tag("value_social_contribution_per_share_cny")),
                f"元，{ctx.year - 1}年为{format_plain(float(per_share) * ctx.rng.uniform(0.7, 1.3))}元。",
            ]
        )
    else:
        ctx.mark("value_social_contribution_per_share_cny", "absent: not disclosed")


def assurance(ctx: RenderContext, w: PageWriter) -> None:
    assured = ctx.value("value_third_party_assured")
    org = ctx.value("value_assurance_org_name")
    if assured is not True and not org:
        ctx.mark("value_third_party_assured", "absent: no assurance statement printed")
        ctx.mark("value_assurance_org_name", "absent: null")
        return
    w.heading("独立鉴证报告", 1)
    segs: list[str | tuple[str, str]] = []
    if assured is True:
        segs.append(
            ("本报告经独立第三方机构审验，并出具了独立鉴证报告。", ctx.tag("value_third_party_assured"))
        )
    else:
        ctx.mark("value_third_party_assured", "absent: no assurance statement printed")
    if org:
        segs += ["审验机构：", (str(org), ctx.tag("value_assurance_org_name")), "。"]
    else:
        ctx.mark("value_assurance_org_name", "absent: null")
    w.paragraph(segs)
    filler(ctx, w, None, 2)


def build(ctx: RenderContext, w: PageWriter) -> str:
    name = company_name(ctx)
    title = f"{name}{ctx.year}年度环境、社会及治理（ESG）报告"
    cover(
        ctx,
        w,
        [(name, 18), (f"{ctx.year}年度", 20), ("环境、社会及治理（ESG）报告", 20)],
        f"{ctx.year + 1}年{ctx.rng.randint(3, 4)}月",
    )
    w.new_page()
    report_notes(ctx, w)
    filler(ctx, w, "董事长致辞", 3, level=1)
    w.new_page()
    profile(ctx, w)
    for field, heading, statement in TOPICS:
        if ctx.value(field) is True:
            if ctx.rng.random() < 0.4:
                w.new_page()
            w.heading(heading, 1)
            filler(ctx, w, None, ctx.rng.randint(1, 3))
            w.paragraph([(statement, ctx.tag(field))])
            filler(ctx, w, None, ctx.rng.randint(1, 3))
            if field == "value_public_relations_disclosed":
                contribution(ctx, w)
        else:
            ctx.mark(field, "absent: the section and its statement are not printed")
    if ctx.value("value_public_relations_disclosed") is not True:
        w.heading("社会贡献", 1)
        contribution(ctx, w)
    w.new_page()
    assurance(ctx, w)
    fallback_section(ctx, w)
    pad_to(ctx, w, ctx.rng.randint(10, 20), ["附录：关键绩效表", "附录：指标索引"])
    return title
