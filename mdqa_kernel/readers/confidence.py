"""The confidence levels of the deterministic readers, named beside the cascade's threshold.

A reader scores each answer in [0, 1]. The cascade (readers/cascade.py) keeps the table reader's
answer when its confidence is at least CONFIDENT and otherwise lets the LLM read the cell too. Each
level below was chosen for its side of that line, so they live here together: a level equal to
CONFIDENT is trusted only when nothing else about the reading is doubtful (a candidate's score is the
product of its label match, its column and its scale), one above is trusted alone, one below always
asks the LLM. Changing any of them changes which cells the LLM reads, and the table reader's task keys
(its config holds the absent levels).
"""

from __future__ import annotations

CONFIDENT = 0.8  # the cascade's default threshold
# A found value under REVIEW_BELOW leaves the extraction as "needs_review", never as found: the reader
# itself gives it no better than even odds (an implausible value, another period's column chosen, two
# readings that disagree, an unscaled sentence). It keeps its value and evidence for the review queue but
# stays out of answers: a wrong number an analyst trusts is worse than a blank cell. The deterministic
# levels below it are IMPLAUSIBLE, RIVALS_FACTOR × a reading, CHOSEN_OTHER_PERIOD (readers/llm.py).
REVIEW_BELOW = 0.5

# The scale of a table number (readers/table/reader.py: score × column × scale).
KNOWN_SCALE = 1.0  # declared by the row or a line above ("in millions", "单位：万元"), or none applies (%)
COUNT_SCALE = 0.95  # a count under no declaration: counts are printed as they are
STANDING_SCALE = 0.95  # the filing's own "unless otherwise noted, tabular dollars are in millions"
UNDECLARED_SCALE = 0.8  # nothing declared: probably units; at CONFIDENT only on a perfect label and column
# Nothing declared for a table of a filing that heads its other tables "(In millions)" or "单位：万元": its
# caption was probably lost to the text layer (an image, a running header), and which scale it was is unknown.
UNDECLARED_AMONG_SCALED = 0.45
# An amount printed to the dollar ("$2,238,000,000"): at any declared scale it would be a thousand billion or more.
PRINTED_IN_UNITS = 0.95

# "No" because something was not found (readers/table/reader.py).
ABSENT_PHRASE = 0.5  # a statement phrase found nowhere in a readable document: wording varies
ABSENT_TOPIC = 0.85  # a disclosure topic found under none of its printed names: a "no" to trust
ABSENT_UNREADABLE = 0.2  # the document did not parse cleanly: its missing text proves nothing

# A positive figure on a loss line read for an income field ("Operating loss 170,453" for operating income
# (loss)): the size of a loss or a year with income; the sign is a person's call (under REVIEW_BELOW).
LOSS_UNSIGNED = 0.5

# A row in a block of adjusted (non-GAAP) figures ("Adjusted earnings … Net earnings per share (Diluted)")
# for a field that does not ask for one: ranked below the statement's row of the same label.
ADJUSTED_BLOCK = 0.5
# A row of a block whose closing "Total …" row is the asked total ("Net sales" above "Total revenues" for
# "Total revenue (net sales)"): a part, ranked below the total row, so the two no longer stand as rivals.
PART_OF_ASKED_TOTAL = 0.55
# A label without "net" for a field asking the net figure ("Property, plant and equipment, net"): the gross
# row above "Accumulated depreciation" prints the same name; ranked below a row that says net, so the two are
# no rivals, and still read where the filing prints no other.
NET_UNSAID = 0.9
# A row naming a line item asked before a deduction ("… at cost before accumulated depreciation") that neither
# prints its gross basis nor stands above the deduction's row: as likely the net amount; held for review.
GROSS_UNSAID = 0.45
# A row of a table whose lead-in restricts it to some of the items ("Certain of our pension plans have projected
# benefit obligations in excess of plan assets. For these plans, …"): the subset's figure, not the whole's;
# held under REVIEW_BELOW unless the description asks for that subset.
SUBSET_TABLE = 0.45
# A row whose label leaves some of the line item's words to its table's lead-in sentence ("Effective rate"
# under "… the U.S. federal statutory rate and our effective rate were as follows:"): below CONFIDENT on its
# own, and the exact figure behind the same fact's rounded prose reading ("34%") when both are read.
LEAD_IN_NAMED = 0.85

# "Net income attributable to common shareholders" in a filing that names no income of a noncontrolling
# interest: the figure after preferred dividends, not the company's net income; ranked below the plain "Net
# income" row, and still read where the filing prints no other.
COMMON_NOT_COMPANY = 0.8

# Disagreement: two equally good readings of one cell that differ are scaled down below CONFIDENT.
RIVALS_FACTOR = 0.5

# A group counted from its listed members (readers/table/derived.py), checked against a printed total.
LISTED_UNCHECKED = 0.8  # no total printed: the list alone, at CONFIDENT
LISTED_AGREES = 0.95  # the printed total equals the number of members listed
LISTED_DISAGREES = 0.5  # they differ: the LLM looks too

# A value after a label in a sentence: linked by a verb of being ("Total revenue was $44.5 billion",
# "营业收入为…"), or only following it. Chinese sets a value right after its label ("完成上网电量240.37亿千瓦时")
# and a date follows its event ("payable February 17, 2023"): unlinked, below CONFIDENT. An English number
# that only follows its label ("net sales for Abiomed products exceeds $3.7 billion", "included in net
# earnings, net of tax of ($3)") is as often another noun's: held for review (under REVIEW_BELOW).
PROSE_LINKED = 0.85
PROSE_UNLINKED = 0.6
PROSE_UNLINKED_EN_NUMBER = 0.45
# A count of people the sentence calls a part ("of whom", "including", "which constitute 32% of our total
# workforce"): not the whole, held for review.
PROSE_PART = 0.45

# A firm named beside the role a text field names (readers/table/prose.py: the auditor in a 10-K).
ROLE_PRIMARY_LABEL = 0.85  # beside the field's primary label
ROLE_OTHER_LABEL = 0.8  # beside one of its other labels, at CONFIDENT
# The firm that signs the audit report (readers/table/auditor.py): as sure as the role named beside it (a
# tie goes to the earlier page, where a 10-K names its auditor first).
SIGNED_REPORT = 0.85  # "/s/ Ernst & Young LLP" on a page of the audit report (or the page after)
SIGNED_ZH = 0.85  # "…会计师事务所（特殊普通合伙）" on the page its 中国注册会计师 sign
FIRM_UNDER_REPORT = 0.8  # the firm's name alone on a line of the audit report
SIGNED_ELSEWHERE = 0.75  # "/s/ Firm LLP" on a page that does not say it is the audit report
FORMER_FACTOR = 0.6  # the report says its firm "served as the Company's auditor from 2008 to 2018"

# A value no real document could hold (readers/plausibility.py: 999999999 employees, a 5000% share):
# kept for a reviewer with the reason, always below CONFIDENT so the cascade never trusts it alone.
IMPLAUSIBLE = 0.3
# A sentence's figure rounded coarser than the field's unit ("$3.8 billion" for a field in millions) that no
# exact figure agrees with: the exact one is not known, so the reading is kept for review.
ROUNDED_ONLY = 0.45

# A value read from a page without a text layer (parsing/ocr.py): OCR misreads digits (8/3, 1/7) at
# confidences in the 70s and 80s, so a cell any of whose words tesseract scored under OCR_TRUSTED_WORD
# (0-100) is kept for review at OCR_DOUBTFUL, below CONFIDENT.
OCR_TRUSTED_WORD = 90.0
OCR_DOUBTFUL = 0.5

# A field asking a flow ("Deferred income tax expense for the fiscal year") read on a balance sheet's page
# ("Deferred income taxes 433", a liability at the year's end): a balance of a like name, not the flow. Its
# reading keeps this share of its score: below any flow reading's, and alone it is held for review (0.9 x 0.5
# is below CONFIDENT). Not the other way round: a five-year summary's page is titled by its income statement
# data and prints the balance sheet's data below it.
BALANCE_FOR_FLOW = 0.5

# A field that names its statement ("… as printed in the cash flow statement"): a reading from another page
# (a note, the management discussion) keeps this share of its score, so the statement's row wins.
NAMED_STATEMENT_ELSEWHERE = 0.9
# ... and where the document prints that statement but none of its rows read the field: the note's row may be
# another table's line of the same name (a hedging note's "Other income (expense), net"), so it is kept for
# review (1.0 x 0.9 x 0.85 is below CONFIDENT).
NO_STATEMENT_ROW = 0.85
# ... a sentence is not the statement's line at all ("deferred income tax assets of $12,301 million" before
# the valuation allowance and netting, for the balance sheet's 63): held for review (0.85 x 0.9 x 0.55 is
# below REVIEW_BELOW).
NO_STATEMENT_ROW_SENTENCE = 0.55
# ... and one printed without a sign for a field that asks the statement's sign ("an outflow in parentheses
# is negative"): the statement may print it in parentheses, so its sign is not known.
UNSIGNED_ELSEWHERE = 0.5

# A figure from a parent-company-only statement or a segment note for a field about the consolidated group
# (readers/semantics.py), when no consolidated reading exists: it may be the figure asked for, or not.
OTHER_SCOPE_FACTOR = 0.7
