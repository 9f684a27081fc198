"""The field catalogue (label, kind, placement per value_* field) and number formatting with scales.

Numbers are printed at a scale stated in the table header (元/千元/万元/百万元/亿元, or US "in
thousands"/"in millions"). A scale is only used when the printed figure, multiplied back, keeps the
gold value's integer digits and first decimal (MuDABench's judge compares numbers that way); if a
coarse scale would lose that, a finer one is used.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from mdqa_kernel.benchmarks.render.models import Placement

Kind = Literal[
    "money",
    "percent",
    "ratio",
    "count",
    "shares",
    "per_share",
    "text",
    "date",
    "mmdd",
    "bool",
    "list",
    "events",
]


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label_zh: str
    label_en: str
    kind: Kind
    placement: Placement
    base: float = 1.0  # gold unit in base currency units (万元 fields: 10,000 元)

    def label(self, language: str) -> str:
        return self.label_zh if language == "zh" else self.label_en


def _f(name: str, zh: str, en: str, kind: Kind, placement: Placement, base: float = 1.0) -> FieldSpec:
    return FieldSpec(name, zh, en, kind, placement, base)


FIELDS: dict[str, FieldSpec] = {
    s.name: s
    for s in (
        # A股年报
        _f("value_total_operating_cost_cny", "营业总成本", "Total operating costs", "money", "table"),
        _f("value_net_profit_cny", "净利润", "Net profit", "money", "table"),
        _f("value_capital_adequacy_ratio_pct", "资本充足率", "Capital adequacy ratio", "percent", "table"),
        _f(
            "value_largest_shareholder_holding_ratio_pct",
            "第一大股东持股比例",
            "Largest shareholder's holding",
            "percent",
            "table",
        ),
        _f(
            "value_female_executive_count",
            "女性董事、监事和高级管理人员人数",
            "Female executives",
            "count",
            "prose",
        ),
        _f("value_female_executive_names", "女性高管姓名", "Female executives' names", "list", "table"),
        _f("value_accounting_firm_name", "境内会计师事务所名称", "Accounting firm", "text", "key_value"),
        _f("value_office_address", "办公地址", "Office address", "text", "key_value"),
        # US Stock Annual Report
        _f("value_operating_revenue_usd", "营业收入", "Total revenues", "money", "table"),
        _f("value_net_profit_usd", "净利润", "Net income (loss)", "money", "table"),
        _f("value_operating_profit_usd", "营业利润", "Operating income (loss)", "money", "table"),
        _f("value_total_assets_usd", "资产总计", "Total assets", "money", "table"),
        _f("value_total_liabilities_usd", "负债合计", "Total liabilities", "money", "table"),
        _f("value_shareholders_equity_usd", "股东权益合计", "Total stockholders' equity", "money", "table"),
        _f("value_gross_profit_margin", "毛利率", "Gross margin", "ratio", "table"),
        _f("value_debt_to_assets_ratio", "资产负债率", "Total liabilities to total assets", "ratio", "table"),
        _f(
            "value_intangible_to_total_assets_ratio",
            "无形资产占总资产比例",
            "Intangible assets to total assets",
            "ratio",
            "table",
        ),
        _f(
            "value_inventory_to_current_assets_ratio",
            "存货占流动资产比例",
            "Inventories to current assets",
            "ratio",
            "table",
        ),
        _f(
            "value_other_business_revenue_ratio",
            "其他业务收入占比",
            "Other revenue as a share of total revenues",
            "ratio",
            "table",
        ),
        # A股ESG报告
        _f("value_social_donation_10k_cny", "对外捐赠总额", "Donations", "money", "table", 1e4),
        _f("value_tax_total_10k_cny", "纳税总额", "Total taxes paid", "money", "table", 1e4),
        _f(
            "value_social_contribution_per_share_cny",
            "每股社会贡献值（元）",
            "Social contribution per share",
            "per_share",
            "table",
        ),
        _f("value_assurance_org_name", "第三方审验机构", "Assurance provider", "text", "statement"),
        _f("value_third_party_assured", "第三方审验", "Third-party assurance", "bool", "statement"),
        _f("value_uses_gri_standard", "GRI 标准", "GRI Standards", "bool", "statement"),
        _f("value_big4_auditor_client", "年度审计机构", "Annual auditor", "bool", "key_value"),
        _f("value_environment_protection_disclosed", "环境和可持续发展", "Environment", "bool", "statement"),
        _f("value_shareholder_protection_disclosed", "股东权益保护", "Shareholders", "bool", "statement"),
        _f("value_creditor_protection_disclosed", "债权人权益保护", "Creditors", "bool", "statement"),
        _f("value_staff_protection_disclosed", "职工权益保护", "Employees", "bool", "statement"),
        _f("value_customer_protection_disclosed", "客户及消费者权益保护", "Customers", "bool", "statement"),
        _f("value_supplier_protection_disclosed", "供应商权益保护", "Suppliers", "bool", "statement"),
        _f("value_public_relations_disclosed", "公共关系和社会公益事业", "Community", "bool", "statement"),
        _f(
            "value_system_construction_disclosed",
            "社会责任制度建设及改善措施",
            "CSR system",
            "bool",
            "statement",
        ),
        _f("value_work_safety_disclosed", "安全生产", "Work safety", "bool", "statement"),
        _f("value_deficiency_disclosed", "存在的不足", "Shortcomings", "bool", "statement"),
        # A股利润分配权益类公告
        _f(
            "value_pre_tax_dividend_per_share_cny",
            "每股现金红利（含税）",
            "Dividend per share (pre-tax)",
            "per_share",
            "prose",
        ),
        _f("value_record_date", "股权登记日", "Record date", "date", "table"),
        _f("value_record_date_mmdd", "股权登记日", "Record date", "mmdd", "table"),
        _f("value_ex_dividend_date", "除权（息）日", "Ex-dividend date", "date", "table"),
        # A股股东大会类公告
        _f(
            "value_attendance_share_ratio_pct",
            "出席会议的股东所持有表决权股份数占公司有表决权股份总数的比例（%）",
            "Attendance share ratio",
            "percent",
            "table",
        ),
        _f(
            "value_attending_shareholders_and_proxies_count",
            "出席会议的股东和代理人人数",
            "Shareholders and proxies attending",
            "count",
            "table",
        ),
        _f(
            "value_attending_shares_count",
            "出席会议的股东所持有表决权的股份总数（股）",
            "Shares attending",
            "shares",
            "table",
        ),
        _f(
            "value_extraordinary_shareholder_meeting_count",
            "临时股东大会次数",
            "Extraordinary meetings",
            "count",
            "prose",
        ),
        _f("value_shareholder_meeting_events", "股东大会召开情况", "Shareholder meetings", "events", "table"),
        _f("value_annual_meeting_methods", "会议召开方式", "Meeting methods", "list", "key_value"),
        _f("value_annual_meeting_voting_methods", "表决方式", "Voting methods", "list", "key_value"),
    )
}


def infer_kind(value: Any) -> Kind:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "count"
    if isinstance(value, float):
        return "per_share"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str) and len(value) == 10 and value[4] == "-" and value[7] == "-":
        return "date"
    return "text"


def spec_for(field: str, value: Any, description: str) -> FieldSpec:
    """The catalogue entry, or a key-value fallback labelled by the schema description."""
    if field in FIELDS:
        return FIELDS[field]
    label = description.strip().rstrip("。.") or field.removeprefix("value_").replace("_", " ")
    return FieldSpec(field, label, label, infer_kind(value), "key_value")


# -- judge-safe numbers --------------------------------------------------------------------------
def judge_equal(a: float, b: float) -> bool:
    """MuDABench's judge: integer digits and the first decimal agree (checked both truncated and
    rounded half-up, so that a printed figure is safe under either reading). Float noise beyond 12
    significant digits is ignored (3.5 * 0.1 is 0.35)."""
    da, db = Decimal(f"{a:.12g}"), Decimal(f"{b:.12g}")
    if (da < 0) != (db < 0) and da != 0 and db != 0:
        return False
    tenth = Decimal("0.1")
    return int(abs(da) * 10) == int(abs(db) * 10) and abs(da).quantize(tenth, ROUND_HALF_UP) == abs(
        db
    ).quantize(tenth, ROUND_HALF_UP)


def dec(value: float) -> Decimal:
    return Decimal(repr(float(value)))


def group(q: Decimal, decimals: int) -> str:
    """Thousands-separated text of |q| at `decimals` places."""
    return f"{abs(q):,.{decimals}f}"


def min_decimals(value: Decimal, lo: int = 2, hi: int = 6) -> int:
    for d in range(lo, hi + 1):
        if value == value.quantize(Decimal(1).scaleb(-d)):
            return d
    return hi


@dataclass(frozen=True)
class Scale:
    label: str
    factor: float


CN_SCALES = (Scale("元", 1), Scale("千元", 1e3), Scale("万元", 1e4), Scale("百万元", 1e6), Scale("亿元", 1e8))
US_SCALES = (Scale("in dollars", 1), Scale("in thousands", 1e3), Scale("in millions", 1e6))


def exact_at(amount: float, scale: Scale, decimals: int) -> bool:
    """Whether `amount` printed at `scale` with `decimals` places multiplies back to a judge-equal value."""
    q = dec(amount) / dec(scale.factor)
    back = q.quantize(Decimal(1).scaleb(-decimals)) * dec(scale.factor)
    return judge_equal(amount, float(back))


def choose_scale(amounts: list[float], language: str, pref: str, rng: random.Random) -> Scale:
    """The scale for one table: every gold amount must survive printing at it (2 decimals in
    Chinese tables, whole numbers in US tables)."""
    scales = CN_SCALES if language == "zh" else US_SCALES
    decimals = 2 if language == "zh" else 0
    ok = [s for s in scales if all(exact_at(a, s, decimals) and abs(a) / s.factor >= 1 for a in amounts if a)]
    if not ok:
        return scales[0]
    if pref == "coarse":
        return ok[-1]
    return rng.choice(ok[:2])


def format_amount(amount: float, scale: Scale, language: str) -> str:
    """Print an amount at a scale: '3,239,006.32' (CN, negatives with '-'), '(58,229)' (US)."""
    q = dec(amount) / dec(scale.factor)
    if language == "zh":
        d = max(2, min_decimals(q))
        text = group(q, d)
        return f"-{text}" if q < 0 else text
    d = 0 if q == q.to_integral_value() else max(2, min_decimals(q))
    text = group(q, d)
    return f"({text})" if q < 0 else text


def parse_number(text: str) -> float:
    """Inverse of the printers: '(1,234)' → -1234, '15.44%' → 15.44, '-3,239.00' → -3239."""
    t = text.strip().replace(",", "").replace("%", "").replace("$", "")
    neg = t.startswith("(") and t.endswith(")")
    t = t.strip("()")
    return -float(t) if neg else float(t)


def format_percent(value: float, ratio: bool = False) -> str:
    """'15.44%' for a percent; a fraction 0.3282 prints as '32.82%' (more places if needed)."""
    pct = dec(value) * 100 if ratio else dec(value)
    for d in range(2, 7):
        printed = float(round(pct, d))
        back = printed / 100 if ratio else printed
        if judge_equal(value, back) and (ratio or printed == float(pct)):
            return f"{printed:.{d}f}%"
    return f"{pct:.6f}%"


def format_plain(value: float, decimals: int = 2) -> str:
    q = dec(value)
    return f"{q:,.{max(decimals, min_decimals(q, decimals))}f}"


def plausible_other(value: float, rng: random.Random, spread: float = 0.25) -> float:
    """A different but plausible number for a prior-year cell when the data has none."""
    factor = 1 + rng.choice([-1, 1]) * rng.uniform(0.04, spread)
    return value * factor if value else rng.uniform(1, 100)
