"""What every benchmark system shares: its configuration, its input, its output, its failures.

A system is a function `run(config, question, llm) -> SystemOutput`. It gets the question, the
documents of its collection (metadata + chunks), and an LLM client (anything with `complete` and
`structured` taking `stage=`), so every system runs on every configured backend through the same
cached, accounted LLM layer. A stage that fails raises `StageError(stage, ...)`; the grid records
the stage, so failures can be counted by stage.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import polars as pl

from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.text.language import CJK_RANGES

DOC_COLUMNS = ("doc_id", "symbol", "year", "doctype")  # the document metadata every system sees
CELL_COLUMNS = {"doc_id": pl.String, "field": pl.String, "status": pl.String, "value_json": pl.String}
# Bump a system's version when its behaviour changes, so the grid re-runs it instead of reusing results.
# mdqa-oracle-rows v2: the planner is given the gold field names; v3: answers show ranked values.
# mdqa v2: fields grounded in the documents' labels, derived table readings, ranked values shown;
# v3: a phrase joining two printed values is split, unsupported LLM guesses are not answers.
# mdqa-oracle-rows v4: a gold description that says "list" makes a list field, not a number.
# mdqa v4: proposed fields that no step reads are not extracted (they cost an LLM call per document).
# both v5: value counts list their companies, a date change computes the shift; v6: scores show inputs;
# v7: ranking ties in identifier order; v8: a list of records is exploded to count by a part of each
# record ("哪个月份召开股东大会的公司最多"); v9: a group comparison of a score the question defines
# (formula with parentheses), "是否…" gold descriptions are yes/no fields; v10: "都实现正向增长" is a
# condition on every growth, not a ranking; v11: a heading named inside a quantity ("每股社会贡献值")
# is that number, not the heading's yes/no disclosure; v12: a range/std question naming one year is a
# spread within that year; v13: a field the model typed a percent but the documents print as an
# amount is read as a number; v14: a checklist score ("有第三方审验记1分", "八个方面…加一分") reads one
# yes/no field per item (disclosure topics found under the reports' own titles), verbal formulas
# ("等于…乘以百分之六十加上…") and sub-scores are expanded and shown, a percent field shows "%", a
# non-count field the model typed integer is read as a number; v15: a sub-score that compiles alone is
# never taken for the whole score, and formula terms match fields through the topic glossary; v16: a
# by-month count of meetings reads the meetings' dates, "女性高管最多" ranks by a count of people;
# v17: an amount per share the model typed a percent is a number (v14's "%" showed "1.738%");
# v18: a formula's operands are its fields, a count/list filtered by a known yes/no topic
# ("经第三方机构审验") or by a place ("办公地址在深圳") gets its field by rule, the ranked value is kept
# though no label prints it, one named year filters on the value (never growth), ties say how many;
# v19: a score's inputs are shown under the question's names for them (was the column names);
# v20: "表决方式组合" reads the printed 表决方式 (the combination is what is counted); v21: and
# "各种召开方式组合" the printed 召开方式 (v20 asked the model for "各种召开方式", 11 of 12 right);
# v22: "更换了办公地点" reads the 办公地点 (printed 办公地址) as text and compares the years;
# v23: "得分最高的全部公司（含并列）" is a k of 1 with ties (was the model's "all"), "既参照GRI标准又经
# 第三方机构审验" is two yes/no fields, a yes/no field is never a substring test, and three US ratio
# names ("inventory intensity", "intangible asset reliance", "proportion of other business revenue")
# are glossary synonyms of their printed labels; v24: "披露了环境和可持续发展信息的公司" is a yes/no
# topic fact (披露了 a verb, a topic's 信息 the topic), "最常见的召开方式" reads the printed 召开方式;
# v25: "都实现正向增长" is every growth positive in the filter family too, a growth condition the
# question gives no number for is its sign (the model invented 1e7), "增长超过50%" is 0.5 of a growth;
# mdqa v26: a field's English name counts as a printed label only when it names the same line item as
# its description ("operating_cost" for 营业总成本 had made 营业成本 a rival reading, q_bc4257c1);
# mdqa v27: a model's phrase that is a printed label plus decoration ("exact operating revenue
# amounts") is read under the label (no row matched the phrase; q_c7f10721, found on v26's cold run);
# mdqa v28: "办公地址在深圳的所有公司…和具体办公地址" is a place filter on the printed address (the cue had
# missed "的所有公司"), and the list shows each company's address (q_8eb65781, complex held-out run of v27);
# "the three most profitable companies" is a top three (q_3b9c182b; the model had chosen the most common
# value), and "percentages" is decoration around a printed label.
# mdqa v29: a list of companies filtered by a yes/no fact that asks for a named value beside each code
# ("…经第三方机构审验的公司股票代码和审验机构名称") reads that value too and shows it (q_4f818e87).
# mdqa v30, mdqa-oracle-rows v26: a change asked "由哪家…换到哪家" shows each company's value in both
# years (the answer had listed only the codes; q_c5eb3932, held-out run of v29).
# mdqa v31: a model phrase no document prints, in a question ranked by a value the glossary knows, is read
# under that value's name ("持股比率" for 第一大股东持股比例; q_3b82ef9d, held-out run of v29).
# mdqa v32: a field phrase loses a leading ranking clause ("审验客户数量最多的第三方审验机构" reads the
# 第三方审验机构), and a phrase naming a firm, an address or a name is text (q_e5d7de80, same run); the
# table reader (table-7) answers "no assurance provider" for sure where the assurance is a sure "no"
# (those reports had gone to the LLM: 8 calls on q_4f818e87).
# mdqa v33 read a value compared across years as an amount when the model typed its growth a percent
# ("revenue growth percentages", q_3c631374); v34 takes that back: on q_b602e30e ("资本增长率") the percent
# type had led the reader to 资本充足率, as the reference reads "资本", and v33 missed it (10-question grid).
# mdqa v35: v33's rule again, only for a value the glossary knows as an amount ("revenue"; "资本" keeps
# the percent type that finds 资本充足率); mdqa v35, mdqa-oracle-rows v27: a single value's growth is
# shown as a percentage (55.32%, as the question asks and every reference writes it; was 0.5532).
# mdqa v36, mdqa-oracle-rows v28: "…的公司股票代码和采用比例是多少" lists the companies the yes/no fact holds
# for with the share of the year's companies they are ("共12家，占80.00%"; q_61f7dc3c, held-out run of v35).
# mdqa v37, mdqa-oracle-rows v29: a field the model typed a list ("net profit amounts") that grounds to a
# printed amount is a number (q_dd1b8c17, q_8be68b3d: the top three had failed on a list), and a moved
# office compares addresses as places ("商务外环22号" = "商务外环路22号"; q_a91050d8), held-out run of v35.
# mdqa v38: a field phrase loses a leading "公司"/"the company's" when the rest is a label the glossary
# knows ("公司营业总成本" reads 营业总成本; q_3697b1af, held-out run of v37).
# mdqa v39, mdqa-oracle-rows v30: a moved office is another place, not another writing of one: the country,
# 省/市/区 and a district or building name may be left out (ChangeOp normalize "place"; q_3658c97b, held-out
# run of v37: three of four "moves" were one address written twice).
# mdqa v40, mdqa-oracle-rows v31: a one-year English top-k that lists one printed value beside each symbol
# ranks by it when the ranking's own words name nothing printed ("…exact other business revenue
# percentages for the top three companies with the most diversified revenue streams"; q_71b7dcd5,
# held-out run of v37: the model had named "revenues"); no fields call for such a question.
# mdqa v41, mdqa-oracle-rows v32: "…披露了环境和可持续发展信息的所有公司股票代码" is a list filtered by the
# yes/no fact ("的所有公司" now ends a fact's object and cues the list; q_91a3abc4, held-out run of v40:
# the model had compared groups of an invented "ESG报告" field).
# mdqa v42, mdqa-oracle-rows v33 (held-out run of v41): an outlier is shown with the values it was tested
# on, growths as percentages (q_074b623f asked "及其具体变化率"); a weighted growth's inputs are named and
# in percent; "GRI标准与第三方审验的关联情况分析：既采用GRI又审验的公司…及数量统计" reads two yes/no facts
# ("审验" alone is the third-party one) and answers with the companies with both and how many have only
# one or neither (q_d54fae2c: the model had read both facts as text).
# mdqa v43, mdqa-oracle-rows v34 (held-out run of v42): the largest date shifts are shown with the days
# and both years' dates ("…股权登记日变化最大的三家公司…及其具体变化情况"; q_326af5aa listed codes only).
# mdqa v44, mdqa-oracle-rows v35: an annual event's dates compare by their place in the calendar
# (`calendar_day`: 2023-07-14 to 2024-06-13 is 31 days, not the 30 ordinal days across Feb 29; q_326af5aa's
# reference, and the listed defects q_b05368dc/q_9fe447fa, whose references count 30, now disagree).
# mdqa v45, mdqa-oracle-rows v36: names a list of companies is asked for ("…和这些公司的所有女性高管名字",
# q_ce044ef8) are read as a list (table reader table-9: the roster rows marked 女) and shown beside each company.
# mdqa v46: table reader table-11 (prose read across line breaks, parts and changes told from totals,
# English dates, counts, dividends and auditors and Chinese shares in sentences; realdocs 12 → 23 of 30). It reads
# the rendered splits' cells as table-9 did; the version changes because the extraction does.
# mdqa v47: table reader table-12 (votes of a meeting's results, counts of people in sentences, "Auditor ratified"
# read as the auditor; realdocs 23 → 30 of 30); the rendered splits' cells are read as before.
# mdqa v48: table reader table-13 (a table of contents gives no values, nor a number in the clause after the
# label's); the rendered splits' cells as before.
# mdqa v49: table reader table-14 and cascade-3 (an implausible value for its kind needs review); the package
# restructure of issue 26. The rendered splits' and realdocs' cells as before.
# mdqa v50: LLM reader llm-3 (its answers typed by the one field-type module) and the review fixes of session 18.
# mdqa v51: table reader table-18 (number grammar, statement context, period-aware columns, unit semantics, entity scope, prose
# facts, OCR), cascade-4 and llm-4 (the LLM chooses among the table reader's candidates) of issue 27.
# mdqa v52: table reader table-23 and the review floor: a cell read under REVIEW_BELOW is needs_review, so the
# rows (and the answer) leave it blank instead of using a guess.
# mdqa v53: table reader table-27 (statement lines under their printed names, loss lines, segment measures,
# adjusted blocks and quarterly notes that no longer rival the statement, workforce counts in sentences).
# mdqa v54: yes/no judgements its figures decide (plan/judgement.py: a metric's trend, its consistency
# within a stated tolerance, high growth) and "Calculate X for FYy" read as the asked metric (FinanceBench);
# a boolean answer whose input was not read says "not known", never "no".
# mdqa v55: which-of questions over listed statement figures (plan/choice.py: "among operations, investing
# and financing activities, which brought in the most cash flow") answered with the chosen figure and all.
# mdqa v56: table reader table-28 (a bare year in English prose is never a value); statement vocabulary:
# restructuring charges, income before income taxes, effective tax rate, pre-tax margin.
# mdqa v57: one figure compared between two fiscal years ("How does X's effective tax rate in FY2022 compare
# to FY2021?", plan/choice.py): the year with the higher figure, both figures beside it; table reader
# table-29 (a sign note or a series inside a line item's name no longer cuts its label short).
# mdqa v58: table reader table-30/31 (a line named by both signs, "Income tax (expense)/benefit", is read
# for the side the field asks; "Income (loss) before income taxes" also names "Loss before income taxes");
# the provision for income taxes is also printed as "income tax expense".
# mdqa v59 (mdqa-oracle-pages v3): a line item a statement does not print (gross profit under the cost of
# sales) is derived from others (`otherwise` in plan/statement_terms.yaml) and the plan read again.
# mdqa v60: a question asking by how much something changed ("By how much did X increase …?") takes the
# change route (systems/change.py): the model copies the two figures, the system checks and subtracts.
# mdqa v61: table reader table-33 (a row whose label names its period is read by it; a programme-to-date
# column holds no one period's value).
# mdqa v62: a question that names no company is searched in the filings of the one company whose filings
# cover every year it names (plan/filings.only_entity_of_years), not in the whole collection.
# mdqa v63: table reader table-34 (line-item names in parentheses and in the glossary, "net of" clauses,
# deducted expenses, page numbers, paired sub-columns, "two years before", ruled-out periods).
# mdqa v64: table reader table-35 (a line reader's number has its column's or its clause's period; a
# deferred-tax table's rows are no line item's amount).
# mdqa v65: table reader table-36 (one quarter of an annual report's year from its quarterly-data table;
# opening rows "at beginning of year"; "respectively" sentences paired year by year; rounded prose held
# for review; a field name's period suffix is no part of its line item).
# mdqa v66: table reader table-37 (a description's "one year earlier", "year-ago", "N years before" name
# a period back from the report's; "the end of the prior fiscal year" is its closing balance; a period
# title centred over a whole block of columns heads every column).
# mdqa v67: table reader table-38 (compact period codes "1Q23", "Q1'23", "1H23", "FY23"; a quarterly
# report's quarter number from its table's codes; "for the quarter" asks three months and a column's length
# must be the field's; "the prior quarter" is not found, not the report's).
# mdqa v68: table reader table-39 (spans counted in weeks as fiscal quarters: 16, 28, 40 weeks; a compound
# number word is read whole; column dates printed close together head their own columns; a line item's
# percentage change from its "% Change" column or its "X % change" row; "% Change" over "Total | Operational"
# heads them; "First-Quarter" is a quarter).
# mdqa v107: table reader table-79 (an amount asked before a deduction is the row the deduction's row follows; a
# scale caption wrapped from a lead-in's last line; "Current tax expense" / "Current taxes" are the current tax
# line; a component row leaves the item's noun to its table; a bare "Total" closing the table its lead-in names;
# a lead-in sentence ending in a colon is no column header).
# mdqa v124: table reader table-96 (a segment's measure heading a run of columns).
# mdqa v123: table reader table-95 (a year after a column gap heads its column; a bare change row under its
# heading; "during the year" restricts nothing; a change line item's prior year).
# mdqa v122: table reader table-94 (a wrapped cell's whole-looking head joined past a centred YoY cell; a
# label closed by its bracketed unit leaves the next fragment to the row below).
# mdqa v121: table reader table-93 (amounts listed inside a label, "net of … non-cash …" cash flow lines,
# "Property, plant and equipment additions" as capital expenditures, a lender's revenues net of interest expense,
# an equity line's share counts and the two dates its label names).
# mdqa v120: table reader table-92 (enclosing block of a bare total, retirement plans as pension plans, total
# debt before the current portion is deducted, amounts printed to the dollar, store counts, maturities and
# remaining repurchase authorizations stated in sentences, a description's "(and …)" read as more of its name).
# mdqa v119: table reader table-91 (a footnote mark before an amount is no line reader's value).
# mdqa v118: table reader table-90 (an unlabeled total at cost above accumulated depreciation that nets to the
# row below; share counts under "except share … data" captions printed as they are; prose naming a statement is
# no statement title; the lease standard's cash-paid row; "inflows/(outflows)" signed by the direction asked; a
# total row's first cell that adds up the others).
# mdqa v117: table reader table-89 (a year's change from a roll-forward that adds up, in its total column; a
# roll-forward's balance where no row names the field, "Stock options outstanding" at a block's close).
# mdqa v116: table reader table-88 (a schedule's total from the "Total" row closing its future years, only when it
# adds them up; the subject's column of a schedule with one amount column per obligation; a lead-in sentence read
# from its start; a column's scale declared in its header's footnote).
# mdqa v115: table reader table-87 (a future fiscal year's amount from a maturity schedule: years down the rows
# or across the columns, from the year after the report's, under a lead-in naming the field's subject; "first
# fiscal year after the report" asks that year; glossary names of accrued compensation restrict nothing; a
# series inside a parenthesised alternative name counts as one word).
# mdqa v114: table reader table-86 (share counts printed outside a line's cells: in a balance sheet equity line's
# label, placed by their dates or by the column in their place, and in an equity statement's common stock "Shares"
# column; "Number of common shares outstanding" heading a roll-forward names the shares).
# mdqa v113: table reader table-85 (the cash-flow statement's effect of exchange rates on cash and its cash paid for
# businesses under their printed names; "(cash-flow statement)" places a line and names none; a sign convention,
# "(a decrease is negative)", asks no change; "businesses" and "losses" stem to their singular).
# mdqa v112: table reader table-84 (a flow asked "for the fiscal year" is not a balance sheet's line of a like name;
# a total closing its block, "Total Deferred" or a bare "Total" under "Deferred:", named by the heading and the
# lead-in; "Currently payable:" is the tax note's current part; a heading under a figures-only row is not its name).
# mdqa v111: table reader table-83 (a label raised off its figures' line is that row's; a header over runs of
# columns, "Pension | Other Benefits", holds the rows naming the rest; a roll-forward's bare "Ending balance" named
# by its block heading; a lead-in found past a spread column header, or in a paragraph presenting the table; a total
# row's last cell adding up the others under headers naming no period).
# mdqa v110: table reader table-82 (a figures-only row adding up its block is the block's total, "Total Current";
# a lead-in sentence names the measure before its verb).
# mdqa v109: table reader table-81 (a label naming its line item in part named by the heading above it that states
# the rest; a total row's qualifier stated by one column header, "Operating Leases" beside "Finance Leases"; a
# lead-in sentence ends the column headers above a table; a price column is not an option table's count).
# mdqa v108: table reader table-80 (a roll-forward's dated balance row, "Outstanding at December 31, 2022", named
# by its table's lead-in or block heading; its count cell by the column header; a scale word heading other columns
# only is none of the cell's; a period header above a paragraph heads another table).
# mdqa v106: table reader table-78 (a magnitude asked "as a positive amount"; a header line labelled by its scale
# caption holds no values; a numbered note heading is no row's tail; a note-placed field prefers the note's row; a
# table covering some plans only is held for review; a payments-due table's "Total" column; "Total current" and
# "Total deferred" under the measure they split).
# mdqa v105: table reader table-77 (dividends per share listed with their years, dividend spans and years; "declared"
# may go unsaid; an "attributable to" clause in parentheses; "(net of tax)" is no name; amounts paid out are negative
# where outflows are; counts keep out of money scales; a bare "Total" row is its block's; open-ended label lines wrap).
# mdqa v104: table reader table-76 (ordinal quarter columns beside the table's only year column are that year's).
# mdqa v103: table reader table-75 (a wrapped label's continuing fragment joined with a space; itemised interest
# expense and debt payment names; one segment's heading makes the table rows under it, on its page, that segment's).
# mdqa v102: table reader table-73 (an income statement's "Restructuring" line; equity award expense is stock-based compensation).
# mdqa v101: table reader table-72 (a stated sign convention reads two-sign rows as printed; "Other expense, net"
# names an income (expense) line; debt flows without "long-term"; a note's row when the named statement lacks it).
# mdqa v100: table reader table-71 (revenue parts are operating; operating adjustments named by their change;
# the deferred tax provision is the deferred income taxes).
# mdqa v99: table reader table-70 (rows closed by "Total current assets/liabilities" are current lines; lease obligations).
# mdqa v98: table reader table-69 (headings under a total row, the whole with the noncontrolling share, non-operating items).
# mdqa v97: table reader table-68 (dev7: section clauses, amortization, margin and noncurrent names, sentence subjects).
# mdqa v96: table reader table-67 (dev7: opening balance of the prior year, note references, "Less:" leads, NCI share).
# mdqa v95: table reader table-66 (a plain share count under a basic block heading is the basic count).
# mdqa v94: table reader table-65 (labels named with their table's lead-in; whole-percent prose rates yield to the table's).
# mdqa v93: table reader table-64 ("Equity attributable to noncontrolling interests" is that line).
# mdqa v92: table reader table-63 ("Short-term …" labels as the current line of a current section).
# mdqa v91: table reader table-62 ("(including …)" words in labels, "net of tax" tails, wrapped statement
# titles, the statement of comprehensive income named in a description).
# mdqa v90: table reader table-61 (multi-word inner alternative names in descriptions; glossary names of
# additional paid-in capital and the current portion of long-term debt; acquired intangible assets).
# mdqa v89: table reader table-60 (location clauses, "A / B" alternatives and statement names in descriptions;
# deferred-tax headings flush with their rows; undated dividend sentences for another year held for review).
# mdqa v88: table reader table-59 (quarters named by their end's month and day under a fiscal year's
# heading are dated within that fiscal year).
# mdqa v87: table reader table-58 (the income tax line under its other printed names, "Income taxes from
# continuing operations" among them).
# mdqa v86: table reader table-57 ("Income before provision for income taxes" is pre-tax income; a full-year
# title centred over the header line heads a row printing amounts only).
# mdqa v85: table reader table-56 ("Long-Term Debt Obligations" is the long-term debt line).
# mdqa v84: table reader table-55 ("Selling, marketing and administrative expenses" is SG&A; "15. Quarterly
# Financial Information" ends a segment note's scope).
# mdqa v83: table reader table-54 (a header centred over two dates heads both columns, where the numbers
# sit right of their dates; "Balance at beginning of year" read under its block's flush heading; numeric
# dates "3/25/2023"; a quarterly release's end date from its balance sheet's latest column).
# mdqa v82: table reader table-53 (quarters under a year heading; a stacked "First" / "Quarter" header; a
# share-count heading naming its purpose; a colon heading below a row is not its name; a gross amount above
# its accumulated depreciation is not the net; "Receivables, net", "Total capitalization and liabilities").
# mdqa v81: table reader table-52 (an annual report's bare year columns hold no quarter's figure).
# mdqa v80: table reader table-51 (a flush "Diluted" row read under its block's heading; the common
# shareholders' net income is not the company's where no noncontrolling interest's income is named).
# mdqa v79: table reader table-50 (a 10-Q's quarter counted from its year to date; its current quarter is
# not "the fourth quarter" or "the first quarter" asked of another quarter).
# mdqa v78: table reader table-49 (the basic block's per-share row is not diluted EPS; "PP&E, net" is
# read from the row that says net).
# mdqa v77: table reader table-48 (a fiscal year's name read from a list paired "respectively"; a
# table with no scale in a filing that captions its tables "(In millions)" is held for review).
# mdqa v76: table reader table-47 (a scale caption heads the table below it; a year ending in January
# is read by the name the filing gives it, a bare-year column held for review when it gives none;
# "non-cash capex" is not capex; an unsigned figure outside the statement a signed field names is held).
# mdqa v75: table reader table-46 (a period printed on several bases reads its restated / as-reported /
# GAAP cell; a part-time or seasonal count is not the workforce, a whole one not the full-time count).
# mdqa v74: table reader table-45 (a deduction printed in parentheses on a statement that adds down the
# column is the amount spent; one whose sign the sums do not settle is held; a quarterly report's quarter
# is the latest numbered quarter of its fiscal year in a trend table).
# mdqa v73: table reader table-44 (a roll-forward's balance rows dated without a year name the line item;
# "… – January 1" and "Beginning …" rows are opening balances; a whole cell never joins a year of the
# sentence printed under it).
# mdqa v72: table reader table-43 (the notes' opening caption is a standing scale; a sentence's "$1,556" with no
# scale word takes the standing scale in force on its page; "Sales to customers" is the revenue; "Net sales"
# above "Total revenues" is a part of the asked total revenue).
# mdqa v71: table reader table-42 ("Gross margin" in dollars read as gross profit, a firm's name in a role cut
# at the sentence before it, dividends of common and preferred stock, D&A of property and intangibles, a prose
# amount after a clause of what it includes, repurchases of common shares and of a class after a dash).
# mdqa v70: table reader table-41 (the cover's share count under the filer's name as owner, pre-tax income
# before equity in affiliates' income, "Common stock cash dividends paid", "net of portion capitalized",
# "Merchandise inventories").
# mdqa v69: table reader table-40 (prose counts under their nouns, plural labels, "Cash paid during the year
# for:" rows, weighted-average share counts under their statement headings, labels with dashes or curly quotes
# read as English, pre-tax income from continuing operations).
# mdqa-oracle-pages v2: the evidence pages are read with their filing's cover (the period the filing reports);
# v1 resolved the columns of a January year end without it (Best Buy's three years read as one).
# paper-workflow(-oracle-rows) v2: the code agent may write 1024 tokens (was 400) and is told `rows`
# exists (the 1.5B model re-typed the example records and was cut mid-string).
# bash-agent v2: an answer is final once a command's output has come back, even beside a command (v1 ran
# the command and waited: the 1.5B model repeated "command + answer" until the budget ended, q_122870ea).
SYSTEM_VERSIONS: dict[str, int] = {
    "bash-agent": 2,
    "mdqa-oracle-rows": 36,
    "mdqa": 124,
    "mdqa-oracle-pages": 3,
    "paper-workflow": 2,
    "paper-workflow-oracle-rows": 2,
}
# A CJK ideograph, CJK punctuation or a full-width form: each about one token
_CJK = re.compile(rf"[{CJK_RANGES}\u3000-\u303f\uff00-\uffef]")
_DIGIT = re.compile(r"\d")


class SystemError_(MdqaError):
    """Base of the benchmark systems' errors (the trailing underscore avoids the builtin name)."""


class StageError(SystemError_):
    """A stage of a system failed; `stage` names it (plan, retrieve, extract, normalize, code, answer)."""

    def __init__(self, stage: str, message: str) -> None:
        self.stage = stage
        super().__init__(f"{stage}: {message}")


class SystemUnavailableError(StageError):
    """A stage the system needs does not exist (yet) in this checkout; the result is not final."""


class UnknownSystemError(SystemError_, UnknownNameError):
    """No system of that name (a KeyError, printed unquoted, as every UnknownNameError)."""


class LLM(Protocol):
    """The part of LLMClient the systems use."""

    def complete(self, prompt: str, *, stage: str = ..., system: str | None = ..., **params: Any) -> str: ...

    def structured(self, prompt: Any, schema: Any, *, stage: str = ..., **params: Any) -> Any: ...


@dataclass(frozen=True)
class SystemConfig:
    """One column of the grid: a system and its knobs. `key()` feeds the results-store hash."""

    system: str
    k: float = 1.0
    metadata: bool = False  # flat-rag: the documents' metadata in the prompt
    noise: bool = False  # 0.5·|D| irrelevant documents added to the question's collection

    def key(self) -> dict[str, Any]:
        key = asdict(self)
        version = SYSTEM_VERSIONS.get(self.system, 1)
        if version > 1:  # only then, so that results of unchanged systems keep their keys
            key["v"] = version
        return key

    @property
    def label(self) -> str:
        k = f"{self.k:g}"
        knob = {"flat-rag": f"k={k}·|D|", "bash-agent": f"turns={k}", "mebench-rag": f"top{k}/doc"}
        parts = [self.system, knob.get(self.system, f"k={k}")]
        if self.metadata:
            parts.append("+metadata")
        if self.noise:
            parts.insert(0, "noise")
        return " ".join(parts)

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9.]+", "-", self.label.lower().replace("·|d|", "d")).strip("-")


@dataclass
class QuestionInput:
    """What a system may look at for one question."""

    question_id: str
    split: str
    question: str
    language: str
    documents: pl.DataFrame  # doc_id, symbol, year, doctype (the run's documents, noise included)
    chunks: Callable[[str], pl.DataFrame]  # doc_id → chunk_id, page, text, …
    collection: Any = None  # a Collection restricted to `documents` (for the mdqa pipeline)
    gold_source: str = "mudabench:simple"  # for the oracle reader only
    schema: dict[str, str] = field(default_factory=dict)  # gold fields {value_x: description}: oracle only
    pages: dict[str, list[int]] = field(
        default_factory=dict
    )  # evidence pages by doc_id (1-based): oracle only
    n_ctx: int = 8192
    max_tokens: int = 512

    @property
    def n_docs(self) -> int:
        return self.documents.height


@dataclass
class SystemOutput:
    """The answer, plus the per-document cells when the system has them (for cell/row/column accuracy)."""

    answer: str | None
    cells: pl.DataFrame | None = None  # doc_id, field, status, value_json (field names as the system chose)
    notes: dict[str, Any] = field(default_factory=dict)
    failures: list[dict[str, str]] = field(default_factory=list)  # {stage, error}
    fatal: bool = False  # the last failure cost the answer (the output is kept for its cells)

    def fail(self, stage: str, error: BaseException | str) -> None:
        self.failures.append({"stage": stage, "error": str(error)[:500]})


def empty_cells() -> pl.DataFrame:
    return pl.DataFrame(schema=CELL_COLUMNS)


def approx_tokens(text: str) -> int:
    """A conservative token count that needs no tokenizer (Qwen-like: a CJK character or digit is
    about one token, other text about 3.5 characters per token). Used to fit prompts into n_ctx
    identically on every backend, so cache keys do not depend on which tokenizer was at hand."""
    cjk = len(_CJK.findall(text))
    digits = len(_DIGIT.findall(text))
    rest = len(text) - cjk - digits
    return cjk + digits + math.ceil(rest / 3.5)


def fit_blocks(blocks: Sequence[str], budget_tokens: int) -> tuple[list[str], int]:
    """The longest prefix of `blocks` within the token budget, and how many blocks were dropped.

    A single block larger than the whole budget is cut (by characters) rather than dropped, so the
    best-ranked evidence always reaches the model."""
    kept: list[str] = []
    used = 0
    for i, block in enumerate(blocks):
        cost = approx_tokens(block) + 2
        if used + cost > budget_tokens:
            if not kept and budget_tokens > 0:
                ratio = budget_tokens / max(cost, 1)
                kept.append(block[: max(1, int(len(block) * ratio * 0.95))])
                return kept, len(blocks) - 1
            return kept, len(blocks) - i
        kept.append(block)
        used += cost
    return kept, 0


def document_pages(q: QuestionInput, doc_id: str) -> pl.DataFrame:
    """One row per page (page, text) of a document, from the collection's text chunks in order."""
    chunks = q.chunks(doc_id)
    if "kind" in chunks.columns:
        chunks = chunks.filter(pl.col("kind") == "text")
    if chunks.height == 0:
        return pl.DataFrame(schema={"page": pl.Int64, "text": pl.String})
    return chunks.group_by("page", maintain_order=True).agg(pl.col("text").str.join("\n")).sort("page")


def doc_label(row: dict[str, Any]) -> str:
    return f"{row.get('symbol')} {row.get('year')} {row.get('doctype')}"


def metadata_table(documents: pl.DataFrame) -> str:
    lines = ["doc_id | symbol | year | doctype"]
    for r in documents.iter_rows(named=True):
        lines.append(f"{r['doc_id']} | {r['symbol']} | {r['year']} | {r['doctype']}")
    return "\n".join(lines)
