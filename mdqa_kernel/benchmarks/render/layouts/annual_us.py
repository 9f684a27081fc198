"""US Stock Annual Report (10-K-like): cover, Part I (business, risk factors), Item 7 MD&A with a
key-ratio table, Item 8 statements (operations, balance sheet) with prior-year columns."""

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
)
from mdqa_kernel.benchmarks.render.writer import PageWriter

AUDITORS = ("Marcum LLP", "BDO USA, P.C.", "Grant Thornton LLP", "RSM US LLP", "Moss Adams LLP")
RATIOS = (
    "value_gross_profit_margin",
    "value_debt_to_assets_ratio",
    "value_intangible_to_total_assets_ratio",
    "value_inventory_to_current_assets_ratio",
    "value_other_business_revenue_ratio",
)


class Financials:
    """A consistent set of statement lines for one year, built around the gold values: derived lines
    (cost of revenues from the gross margin, liabilities from the debt ratio, …) agree with the
    ratios, so a reader recomputing a ratio from the statements gets the gold value back."""

    def __init__(self, ctx: RenderContext, values: dict[str, float | None]) -> None:
        rng = ctx.rng
        g = values.get
        self.revenue = g("value_operating_revenue_usd") or rng.uniform(5e7, 5e9)
        gm = g("value_gross_profit_margin")
        self.cost = self.revenue * (1 - gm) if gm is not None else self.revenue * rng.uniform(0.4, 0.8)
        self.gross = self.revenue - self.cost
        other_r = g("value_other_business_revenue_ratio")
        self.other_revenue = self.revenue * (other_r if other_r is not None else rng.uniform(0.01, 0.08))
        self.product_revenue = self.revenue - self.other_revenue
        op = g("value_operating_profit_usd")
        self.operating = op if op is not None else self.gross * rng.uniform(-0.2, 0.5)
        self.opex = self.gross - self.operating
        net = g("value_net_profit_usd")
        self.net = net if net is not None else self.operating * rng.uniform(0.6, 0.9)
        self.pretax = self.net / rng.uniform(0.75, 0.85) if self.net > 0 else self.net * 0.97
        ta = g("value_total_assets_usd")
        self.assets = ta if ta is not None else self.revenue * rng.uniform(0.8, 2.5)
        tl = g("value_total_liabilities_usd")
        dr = g("value_debt_to_assets_ratio")
        self.liabilities = (
            tl if tl is not None else self.assets * (dr if dr is not None else rng.uniform(0.3, 0.7))
        )
        eq = g("value_shareholders_equity_usd")
        self.equity = eq if eq is not None else self.assets - self.liabilities
        self.current_assets = self.assets * rng.uniform(0.3, 0.6)
        inv = g("value_inventory_to_current_assets_ratio")
        self.inventory = self.current_assets * (inv if inv is not None else rng.uniform(0.1, 0.4))
        intang = g("value_intangible_to_total_assets_ratio")
        self.intangibles = self.assets * (intang if intang is not None else rng.uniform(0.01, 0.08))


def _numeric(ctx: RenderContext, years_back: int) -> dict[str, float | None]:
    if years_back == 0:
        return {
            k: v
            for k, v in ctx.record.values.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)
        }
    fields = [
        *RATIOS,
        "value_operating_revenue_usd",
        "value_net_profit_usd",
        "value_operating_profit_usd",
        "value_total_assets_usd",
        "value_total_liabilities_usd",
        "value_shareholders_equity_usd",
    ]
    out: dict[str, float | None] = {}
    for f in fields:
        found = ctx.prior(f, years_back)
        cur = ctx.value(f)
        if found is not None:
            out[f] = found
        elif isinstance(cur, float):
            out[f] = cur * ctx.rng.uniform(0.85, 1.15) if f in RATIOS else cur * ctx.rng.uniform(0.75, 1.2)
    return out


def _gold(ctx: RenderContext, field: str) -> str | None:
    return field if ctx.has(field) else None


def statements(ctx: RenderContext, w: PageWriter, cur: Financials, pri: Financials) -> None:
    w.heading("CONSOLIDATED STATEMENTS OF OPERATIONS", 2)
    money_table(
        ctx,
        w,
        "Consolidated Statements of Operations",
        [
            ("Product and service revenues", None, cur.product_revenue, pri.product_revenue),
            ("Other revenues", None, cur.other_revenue, pri.other_revenue),
            ("Total revenues", _gold(ctx, "value_operating_revenue_usd"), cur.revenue, pri.revenue),
            ("Cost of revenues", None, cur.cost, pri.cost),
            ("Gross profit", None, cur.gross, pri.gross),
            ("Total operating expenses", None, cur.opex, pri.opex),
            (
                "Operating income (loss)",
                _gold(ctx, "value_operating_profit_usd"),
                cur.operating,
                pri.operating,
            ),
            ("Income (loss) before income taxes", None, cur.pretax, pri.pretax),
            ("Net income (loss)", _gold(ctx, "value_net_profit_usd"), cur.net, pri.net),
        ],
    )
    w.heading("CONSOLIDATED BALANCE SHEETS", 2)
    money_table(
        ctx,
        w,
        "Consolidated Balance Sheets",
        [
            ("Inventories", None, cur.inventory, pri.inventory),
            ("Total current assets", None, cur.current_assets, pri.current_assets),
            ("Intangible assets, net", None, cur.intangibles, pri.intangibles),
            ("Total assets", _gold(ctx, "value_total_assets_usd"), cur.assets, pri.assets),
            (
                "Total liabilities",
                _gold(ctx, "value_total_liabilities_usd"),
                cur.liabilities,
                pri.liabilities,
            ),
            (
                "Total stockholders' equity",
                _gold(ctx, "value_shareholders_equity_usd"),
                cur.equity,
                pri.equity,
            ),
            (
                "Noncontrolling interests and other",
                None,
                cur.assets - cur.liabilities - cur.equity,
                pri.assets - pri.liabilities - pri.equity,
            ),
            ("Total liabilities and stockholders' equity", None, cur.assets, pri.assets),
        ],
        style="balance",
    )


def ratios(ctx: RenderContext, w: PageWriter, cur: Financials, pri: Financials) -> None:
    labels = {
        "value_gross_profit_margin": ("Gross margin", cur.gross / cur.revenue, pri.gross / pri.revenue),
        "value_debt_to_assets_ratio": (
            "Total liabilities to total assets",
            cur.liabilities / cur.assets,
            pri.liabilities / pri.assets,
        ),
        "value_intangible_to_total_assets_ratio": (
            "Intangible assets to total assets",
            cur.intangibles / cur.assets,
            pri.intangibles / pri.assets,
        ),
        "value_inventory_to_current_assets_ratio": (
            "Inventories to current assets",
            cur.inventory / cur.current_assets,
            pri.inventory / pri.current_assets,
        ),
        "value_other_business_revenue_ratio": (
            "Other revenues as a share of total revenues",
            cur.other_revenue / cur.revenue,
            pri.other_revenue / pri.revenue,
        ),
    }
    rows = []
    for field, (label, c, p) in labels.items():
        gold = ctx.value(field)
        rows.append((label, field if gold is not None else None, gold if gold is not None else c, p, True))
    rows.append(("Effective tax rate", None, ctx.rng.uniform(0.15, 0.3), ctx.rng.uniform(0.15, 0.3), True))
    percent_table(ctx, w, "Key financial ratios (percent)", rows)


def build(ctx: RenderContext, w: PageWriter) -> str:
    name = company_name(ctx)
    title = f"{name} Annual Report on Form 10-K for the fiscal year ended December 31, {ctx.year}"
    cover(
        ctx,
        w,
        [
            ("UNITED STATES", 14),
            ("SECURITIES AND EXCHANGE COMMISSION", 14),
            ("FORM 10-K", 24),
            ("ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)", 10),
            (f"For the fiscal year ended December 31, {ctx.year}", 11),
            (name, 16),
            (f"Trading symbol: {ctx.record.symbol}", 11),
        ],
        f"Filed {ctx.year + 1}",
    )
    cur = Financials(ctx, _numeric(ctx, 0))
    pri = Financials(ctx, _numeric(ctx, 1))
    w.new_page()
    w.heading("PART I", 1)
    filler(ctx, w, "Item 1. Business", ctx.rng.randint(4, 7))
    filler(ctx, w, "Item 1A. Risk Factors", ctx.rng.randint(10, 18))
    filler(ctx, w, "Item 2. Properties", 2)
    filler(ctx, w, "Item 3. Legal Proceedings", 2)
    w.new_page()
    w.heading("PART II", 1)
    filler(ctx, w, "Item 5. Market for Registrant's Common Equity", 3)
    w.heading(
        "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations", 2
    )
    filler(ctx, w, "Overview", 3, level=3)
    ratios(ctx, w, cur, pri)
    filler(ctx, w, "Results of Operations", 4, level=3)
    filler(ctx, w, "Liquidity and Capital Resources", 4, level=3)
    w.new_page()
    w.heading("Item 8. Financial Statements and Supplementary Data", 2)
    w.heading("Report of Independent Registered Public Accounting Firm", 3)
    w.paragraph(
        [
            f"To the Stockholders and Board of Directors of {name}: We have audited the accompanying "
            f"consolidated balance sheets as of December 31, {ctx.year} and {ctx.year - 1}, and the related "
            "statements of operations, comprehensive income, stockholders' equity and cash flows. "
            f"/s/ {ctx.rng.choice(AUDITORS)}"
        ]
    )
    statements(ctx, w, cur, pri)
    fallback_section(ctx, w)
    w.new_page()
    filler(ctx, w, "Notes to Consolidated Financial Statements", 6)
    filler(ctx, w, "Item 9A. Controls and Procedures", 3)
    pad_to(
        ctx, w, ctx.rng.randint(14, 28), ["Notes to Consolidated Financial Statements", "Item 10. Directors"]
    )
    return title
