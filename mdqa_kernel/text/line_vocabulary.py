"""The vocabulary a line item's name is compared in (`text/statement_context`): words that restrict nothing
anywhere or beside one head word, words dropped before comparing, and the other printed names of one line
item, each rewritten to one form."""

from __future__ import annotations

import re

# Words that add nothing to a line item's identity ("Total net revenue" is total revenue).
HARMLESS = frozenset({"total", "net", "consolidated", "common", "company", "amount", "reported"})
# Words that restrict nothing beside one head: "operating revenues" is the top line of utilities,
# carriers and bottlers ("Net operating revenues"), not a component of revenue; a cash-flow total is
# "Net cash (flows) from operating (activities)"; dividends paid are "Dividends (to shareholders)".
ACTIVITY = frozenset({"activity"})
HARMLESS_BESIDE = {
    "revenue": frozenset({"operating"}),
    "cash": frozenset({"flow"}),
    "operating": ACTIVITY,
    "investing": ACTIVITY,
    "financing": ACTIVITY,
    # a dividend is declared, then paid: a name may state either stage or neither (`DIVIDEND_STAGES`)
    "dividend": frozenset({"cash", "paid", "declared", "shareholder", "stockholder", "shareowner"}),
    # "Income from continuing operations before income taxes": discontinued operations are reported net of
    # tax, below that line, so every pre-tax income is the continuing operations' ("before income tax
    # expense" and "before provision for income taxes" are before the income taxes line)
    "before": frozenset({"continuing", "operating", "expense", "provision"}),
    # a retailer's inventory is its "Merchandise inventories" line
    "inventory": frozenset({"merchandise"}),
    # "Long-term debt obligations" is the long-term debt line, not a kind of it
    "debt": frozenset({"obligation"}),
    # a balance sheet's intangible assets are the acquired, identifiable ones ("Acquired intangible assets, net")
    "intangible": frozenset({"acquired", "identifiable"}),
    # an amortization is an expense ("Amortization of intangible assets expense" is the "Amortization of
    # intangible assets" line), and only intangibles of a finite life are amortized ("definite-lived")
    "amortization": frozenset({"expense", "finite", "definite", "lived", "amortizable"}),
    # an income statement's "Restructuring" line is its restructuring charges ("Restructuring and related costs")
    "restructuring": frozenset({"charge", "cost", "expense", "related"}),
    # "Currency translation adjustments", "Foreign currency translation": one line of other comprehensive income
    "currency": frozenset({"foreign"}),
    "translation": frozenset({"adjustment"}),
    # a pension plan's "Benefit obligation" is its projected benefit obligation; the accumulated one says so
    "obligation": frozenset({"projected"}),
    # the "Pension" column of a benefits table is the pension plans'
    "pension": frozenset({"plan"}),
}
# The stages of a dividend: a label stating one names no line the description names by the other
# ("Dividends paid per share" is not "Cash dividends declared per share"; one declared in December is paid
# in January).
DIVIDEND_STAGES = frozenset({"declared", "paid"})
# "Revenue from products only": "only" restricts nothing a label would print
STOP = frozenset(
    {"the", "of", "a", "an", "and", "to", "in", "on", "for", "by", "from", "at", "its", "or", "only"}
)
# Verbs of a cash-flow total's name: "Net cash provided by (used in)" names one line either way.
PERIOD_TOKEN = re.compile(r"q[1-4]|fy\d*|h[12]|20\d\dq[1-4]")  # "Revenues Q1 2023": a period, not a word
FLOW_VERBS = frozenset({"provided", "used", "generated"})
# "Restructuring charges recognised in the fiscal year": when a charge is booked, not a kind of it
BOOKED = frozenset({"recognised", "recognized"})
# Same concept under another word, after stemming ("net earnings" is net income, "cost of sales" is
# cost of revenue).
# "Income from operations" is operating income; "Net cash from operations" the operating cash flow.
SAME_WORD = {"earning": "income", "sale": "revenue", "profit": "income", "operation": "operating"}
# Printed names of one line item that differ by more than a word, each rewritten to one form first:
# the outflow for fixed assets ("Additions to / Payments for / Payments to acquire / Purchase of
# property and equipment", "Property and equipment additions", "Capital spending"), the cost of what was sold
# ("Cost of products sold").
# A cash flow named by both directions, one in parentheses: "Operating cash inflows/(outflows) from operating
# leases", "(Outflows)/inflows" (`text.labels.sign_of_pair` reads its figure's sign)
FLOW_PAIR = re.compile(
    r"\b(?P<plain>in|out)flows?\s*/?\s*\(\s*(?P<last>in|out)flows?\s*\)"
    r"|\(\s*(?P<first>in|out)flows?\s*\)\s*/?\s*(?P<then>in|out)flows?\b",
    re.IGNORECASE,
)

SAME_PHRASE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:additions?\s+to|payments?\s+(?:for|to\s+acquire)|purchases?\s+of)\s+(?=property and equipment)"
        ),
        "purchases of ",
    ),
    # the same outflow named noun first: "Property, plant and equipment additions"
    (
        re.compile(r"\bproperty and equipment\s+(?:additions?|purchases?|expenditures?)\b"),
        "purchases of property and equipment",
    ),
    (re.compile(r"\bcapital\s+spending\b"), "capital expenditures"),
    # "Retirement Plans" beside "Other Benefit Plans" heads the defined benefit pension plans' columns; a
    # defined contribution plan ("401(k) retirement savings plan") and "postretirement" benefits are not pensions
    (re.compile(r"(?<!contribution )\bretirement\s+plan(s?)\b"), r"pension plan\1"),
    # "Operating cash inflows/(outflows) from operating leases": a flow named by both its directions is the flow
    (FLOW_PAIR, "flows"),
    # the expense of equity awards under any of its names: "Share-based plans expense", "Equity award
    # compensation expense" are the stock-based compensation expense
    (
        re.compile(
            r"\b(?:stock|share|equity)(?:[\s-]based)?\s+(?:award|plan)s?\s+(?:compensation\s+)?expense\b"
        ),
        "stock-based compensation expense",
    ),
    # A financing flow of the company's debt: "Repayments of debt", "Debt repayments", "Repayment of
    # borrowings" are its repayments of long-term debt, "Borrowings of debt", "Proceeds from issuance of debt"
    # its proceeds (short-term debt, commercial paper and credit lines keep their restricting words); a
    # repayment is always of the debt's current part, so ", including current portion" names the same flow
    (
        re.compile(
            r"(?:\b(?:re)?payments?\s+(?:of|on)\s+(?:long[\s-]term\s+)?(?:debt|borrowings)\b"
            r"|\b(?:long[\s-]term\s+)?(?:debt|borrowings?)\s+(?:re)?payments?\b)"
            r"(?:\s*,?\s*(?:including|and)\s+(?:the\s+)?current\s+(?:portions?|maturities)\b)?"
        ),
        "repayments of debt",
    ),
    (
        re.compile(
            r"\b(?:proceeds\s+from\s+(?:the\s+)?(?:issuances?\s+of\s+)?|issuances?\s+of\s+|borrowings\s+of\s+)"
            r"(?:long[\s-]term\s+)?(?:debt|borrowings)\b"
        ),
        "proceeds from issuance of debt",
    ),
    # Interest expense under its itemised names: "Interest expense on debt", "Interest expense from debt and
    # amortization of debt discount and deferred financing costs" (debt discount and issuance costs are
    # amortized into interest expense, so they name no other line)
    (
        re.compile(
            r"\binterest\s+expense(?:\s+(?:from|on)\s+(?:the\s+)?(?:debt|borrowings|notes))?"
            r"(?:\s*,?\s*(?:and|including)\s+(?:the\s+)?amortization\s+of\s+debt\s+(?:discounts?|premiums?|issuance\s+costs)"
            r"(?:\s*,?\s*(?:and\s+)?(?:deferred\s+)?(?:financing|issuance)\s+costs)?)?"
        ),
        "interest expense",
    ),
    (re.compile(r"\bcost\s+of\s+(?:goods|products|merchandise)\s+sold\b"), "cost of sales"),
    # A lender's top line: "Total revenues net of interest expense" is its net revenue (interest expense is a
    # cost of its revenue, as a bank's "Total net revenue" nets it); "… after provisions for credit losses"
    # deducts more and stays another line
    (
        re.compile(r"\b(revenues?)\s*,?\s+net\s+of\s+interest\s+expense\b(?!\s*,?\s*after\b)"),
        r"net \1",
    ),
    # "Deferred income tax provision/(benefit)", "Deferred income tax expense": the deferred part of the tax
    # line is the deferred income taxes (before the tax line's own names turn "expense" into "provision")
    (
        re.compile(
            r"\bdeferred\s+(?:income\s+)?tax(?:es)?\s+(?:provision|expense)(?:\s*/?\s*\(\s*benefit\s*\))?"
        ),
        "deferred income taxes",
    ),
    # The current part of the tax line: "Current tax expense", "Total current tax provision", "Current taxes"
    # ("Current taxes payable" is a balance); the current/deferred split is always of the income taxes
    (
        re.compile(
            r"\bcurrent\s+(?:income\s+)?tax(?:es)?\s+(?:provision|expense)(?:\s*/?\s*\(\s*benefit\s*\))?"
            r"|\bcurrent\s+taxes\b(?!\s+(?:payable|receivable|recoverable))"
        ),
        "current provision for income taxes",
    ),
    # "Currently payable:" heading a tax note's current taxes ("Total currently payable") is their current part
    # ("Income taxes currently payable" is a balance and keeps its words)
    (re.compile(r"^(\s*(?:total\s+)?)currently\s+payable\b"), r"\1current"),
    # The income tax line: "Income tax expense", "Income tax provision", "Provision for taxes on income";
    # "Income taxes from continuing operations" is that line of a filer with discontinued operations,
    # whose taxes are netted into their own line below it (a bare "Income taxes" row may be a balance)
    (
        re.compile(
            r"\b(?:provision\s+for\s+)?income\s+tax(?:es)?(?:\s+(?:expense|provision))?\s+(?:from|on)\s+"
            r"continuing\s+operations\b|\bincome\s+tax\s+(?:expense|provision)\b|\bprovision\s+for\s+taxes\s+on\s+income\b"
        ),
        "provision for income taxes",
    ),
    # The cash-flow statement's line between the activities and the net change, under its printed names: "Effect
    # of (foreign) exchange rate(s) (changes) on cash", "… on cash and cash equivalents", "… on cash, cash
    # equivalents and restricted cash", "Foreign currency effect on cash": a statement prints it once, whatever
    # its cash aggregate is
    (
        re.compile(
            r"\b(?:effects?\s+of\s+(?:changes\s+in\s+)?(?:foreign\s+)?(?:currency\s+)?exchange[\s-]+rates?"
            r"(?:\s+(?:changes?|fluctuations?|movements?|variations?))?"
            r"|(?:foreign\s+)?(?:currency|exchange[\s-]+rate)\s+(?:translation\s+)?(?:effects?|impact))"
            r"\s+on\s+cash(?:(?:\s*,\s*|\s+)(?:and\s+)?(?:(?:restricted\s+)?cash(?:\s+equivalents)?|equivalents))*"
        ),
        "effect of exchange rate changes on cash and cash equivalents",
    ),
    # Cash paid for businesses bought, under its printed names: "Acquisitions, net of cash acquired", "Business
    # combinations, net of cash acquired", "Payments to acquire business, net of cash acquired" (only a business
    # bought brings cash with it, so "net of cash acquired" says what was acquired, and every such line is net of it)
    (
        re.compile(
            r"\b(?:payments?\s+(?:to\s+acquire|for)\s+(?:(?:a\s+)?business(?:es)?|companies|acquisitions)"
            r"|business\s+(?:acquisitions?|combinations?)"
            r"|acquisitions?(?:\s+of\s+(?:(?:a\s+)?business(?:es)?|companies|subsidiaries))?)"
            r"(?:\s*,\s*|\s+)net\s+of\s+cash\s+acquired\b"
        ),
        "acquisitions of businesses",
    ),
    # "Sales to customers": the sales (a region or a class of customer after it still restricts them)
    (re.compile(r"\bsales\s+to\s+customers\b"), "sales"),
    # "Common stock cash dividends paid", "Dividends — common and preferred": the dividends paid to
    # shareholders, every class of them (a preferred stock's dividends alone keep their restricting word)
    (re.compile(r"\bcommon(?:\s+and\s+preferred)?\s+(?:stock|shares?)\s+(?=(?:cash\s+)?dividends?\b)"), ""),
    (
        re.compile(
            r"(?<=\bdividends)(?:\s+paid)?\s*(?:[—–-]|,|\s+on|\s+to)\s*common\s+and\s+preferred"
            r"(?:\s+(?:stock|shares?|stockholders|shareholders))?\b"
        ),
        "",
    ),
    # "Earnings before income tax expense and equity in income of affiliates": the pre-tax line of a filer
    # that adds its share of affiliates' earnings after the tax line, so it is the pre-tax income
    (
        re.compile(
            r"\b(before\s+(?:provision\s+for\s+)?income\s+tax(?:es)?(?:\s+expense)?)\s+and\s+equity\s+in\s+"
            r"(?:the\s+)?(?:net\s+)?\(?(?:income|earnings|loss(?:es)?)\)?(?:\s*\([a-z]+\))?\s+of\s+"
            r"(?:unconsolidated\s+|equity[\s-]+method\s+)?(?:affiliates?|investees?|subsidiaries|joint\s+ventures?|"
            r"companies|entities)\b"
        ),
        r"\1",
    ),
    # "Depreciation and amortization of property and intangibles": of both classes of assets it applies to, so
    # the whole of it
    (
        re.compile(
            r"\b(depreciation\s+(?:and|&)\s+amortization)\s+of\s+property(?:\s+and\s+equipment|,\s+equipment)?,?"
            r"\s+and\s+intangible(?:s|\s+assets)\b"
        ),
        r"\1",
    ),
    # The share count behind earnings per share, as statements head it: "Average shares outstanding",
    # "Shares used in per share calculation", "Weighted-average shares used to compute net loss per share
    # attributable to common stockholders", "Weighted average shares of common stock outstanding, including
    # dilutive effect" all name the weighted-average shares outstanding ("number of" is the description's).
    (
        re.compile(
            r"\b(?:weighted[\s-]+average\s+)?(?:common\s+)?shares\s+used\s+(?:in|to|for)\s+(?:the\s+)?(?:comput\w*"
            r"\s+(?:of\s+)?(?:basic\s+and\s+diluted\s+)?)?(?:[a-z]+\s+){0,3}?per[\s-]+(?:common\s+)?share"
            r"(?:\s+calculations?|\s+attributable\s+to\s+common\s+(?:stock|share)holders)?"
        ),
        "weighted average shares outstanding",
    ),
    # "Average common shares outstanding for earnings per common share:", "… in computing basic and diluted
    # net income per share": the purpose of the count, not a restriction of it
    (
        re.compile(
            r"\b(shares\s+outstanding)\s*,?\s+(?:used\s+)?(?:for|in)\s+(?:(?:comput|calculat|determin)\w*\s+)?"
            r"(?:[a-z()]+\s+){0,4}?per[\s-]+(?:common\s+)?share\b:?"
        ),
        r"\1",
    ),
    (re.compile(r"\bweighted[\s-]+average\s+number\s+of\b"), "weighted average"),
    # "Number of common shares outstanding" heading a roll-forward of the shares names the shares: a count
    (re.compile(r"\bnumber\s+of\s+(?=(?:[a-z]+\s+){0,2}shares\b)"), ""),
    (re.compile(r"(?<!weighted )(?<!weighted-)\baverage\s+(?=(?:common\s+)?shares\b)"), "weighted average "),
    (re.compile(r"\bshares\s+of\s+common\s+stock\b"), "shares"),
    # "Long-term debt, less current portion", "Operating lease liabilities, net of current maturities": what is
    # left without the current part is the non-current part (a row that starts "Less current maturities of
    # long-term debt" is the deduction, not named here)
    (
        re.compile(
            r"\b(debt|borrowings|obligations?|liabilit(?:y|ies))\s*,?\s*(?:less|net\s+of|excluding|exclusive\s+of)"
            r"\s*:?\s+(?:the\s+)?current\s+(?:portions?|maturities|installments)"
            r"(?:\s+of\s+(?:long[\s-]+term\s+)?(?:debt|borrowings|obligations?|liabilit(?:y|ies)))?\b"
        ),
        r"\1, noncurrent",
    ),
    # "Long-term …", "Non-current …", "…, noncurrent": one section word, never read as "current"
    (re.compile(r"\b(?:non[\s-]?current|long[\s-]+term)\b"), "noncurrent"),
    # "Long-term operating lease obligations": a lease's recognised obligation is its lease liability
    (re.compile(r"\b(lease)\s+obligations?\b"), r"\1 liability"),
    # "Amortization of intangibles": the noun names the intangible assets
    (re.compile(r"\bintangibles\b"), "intangible assets"),
    # "Gross profit as a % of revenue", "… as a percent of net sales": one ratio's name
    (re.compile(r"\bas\s+a\s+(?:%|percent\b)\s*of\b"), "as a percentage of"),
    (re.compile(r",?\s*including\s+(?:the\s+)?dilutive\s+effects?\b"), " diluted"),
)
