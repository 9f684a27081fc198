"""The table reader's version, part of every cache key and result record: bumped whenever a reading
can change. The comment under it is the history, one entry per version."""

TABLE_READER_VERSION = "table-96"  # 4: disclosure topics under their printed names; 5: date lists;
# 6: analysts' ratio names as synonyms, a topic's 信息 is the topic, an English slug counts only when it
# names the description's line item; 7: "第三方审验机构" names the assurance provider, absent for sure
# when the report's third-party assurance is a sure "no"; 8: "是否采用/遵循…" names its statement too
# 9: a group's names ("女性高管姓名") from the roster rows that carry the group's cell; 10: sentences read
# across line breaks, with shortened labels (a date's noun, a change's suffix, a Chinese name's head),
# parts ("其中", "including") and changes ("increased 4%") told from totals, English counts before their
# noun, English dividends per share and Chinese shares ("占总装机容量的22.54%"); 11: a firm named beside
# the role a text field names ("Deloitte & Touche LLP, an independent registered public accounting firm");
# 12: the votes of a meeting's results (nominee rows, proposals' tally lines), counts of people in a
# sentence that says who they are, and the thing an event happened to ("Auditor ratified" → auditor);
# 13: a table of contents gives no values (its numbers are pages); a number after an English label and a
# conjunction ("… comments and operated 14 data centers") belongs to the next clause; 14: an implausible
# value for its kind (readers/plausibility.py: 999,999,999 employees) needs review instead of being confident
# 15 (numbers): one number grammar (Indian grouping, a malformed grouping is no number, the mangled rupee
# "`"/"H", points apart from percentages, a scale word in the cell); numbers inside a label are never its
# value (Scope 1, CO2, Note 12, a date, a footnote mark); a dash cell holds its column as "no value"; a
# cell under a "Note" column is a reference;
# 15 (periods): a column is chosen by the period its stacked header names (text/periods.py: years, fiscal
# year-end dates, three/six/nine months ended, FY 2024-25, Current/Previous Financial Year, 本期/上期/本报告期/
# 年初至报告期末) against the report's period (metadata, the cover's "For the fiscal year ended …") and the
# period the description asks for (prior year, 上年同期, 年初, fiscal 2021, three vs six months), never by
# position; scales "(Millions)", "₹ in crore", "Rs. in Lakhs"; a per-share row under "except per share";
# 15 (ocr): a value read by OCR from a page without a text layer says so, and needs review below
# CONFIDENT when tesseract scored any of its words under OCR_TRUSTED_WORD;
# 15 (semantics): a per-share amount stated per the shares the field asks for (每10股 X元 is X per 10 shares,
# X/10 per share); a reading implausible for the words around it (a headcount from a row about shares, an
# amount printed as a percentage or after "increased by") yields to a plausible one or needs review; a
# parent-only statement's or a segment note's figure yields to the consolidated one (else it is less sure);
# a rounded prose figure ("$60.9 billion") yields to the exact figure it rounds; the level after a change
# ("increased 18% to $60.9 billion"); workforce counts in English and Chinese prose; the auditor from the
# audit report's signature block; crore and lakh after a number;
# 15 (statements): English rows read in their statement context (text/statement_context.py) — no amount
# from a per-share block, no balance from a "changes in …" block, "Diluted" under its "Earnings per share:"
# heading; the description's line item without qualifiers and its "(net sales)" alternative name it; a
# component ("Transaction-based revenue") is not the total; "attributable to the company" is preferred
# when asked, a noncontrolling share never taken;
# 16: the parts of 15 (built apart on branches) together; 17: with the statements part; 18: dates a quarter
# apart heading columns are quarters, not the year (text/period_fit.column_periods); an amount kept in
# millions is not a few dollars (readers/plausibility._tiny_amount); 19: column headers read together —
# month-day headers under a spanning year ("2015" over "Dec. 26  Sep. 26 …"), end months a quarter apart
# are quarters (with or without a year), "Total" beside quarters is the year, a column that lost its own
# label ("Q1") is not known, a quarter's column never holds the year; a header centred left of
# right-aligned numbers; a sentence above a table is not its header; 20: a description's "in the fiscal year
# of the report" and "to shareholders" qualify its line item, they do not name it; a number a line reader
# takes from a row-shaped line is under the scale declared above it, like the table's rows; 21: a primary
# statement's page (its title: "Consolidated Statements of Cash Flows", "合并利润表") defines its line
# items — a note's row with the same label is no rival, a field naming its statement takes that
# statement's row; "property, plant and equipment" is "property and equipment"; 22: the statement
# precedence of 21 only for fields about the consolidated group (a parent-only field keeps its figure);
# 23: an earnings release's headline names its quarter ("Second-Quarter 2023 Results"), so its year-to-date
# fields are not read from the quarter's columns; "year to date (e.g. six months)" asks for the year to
# date; the year to date of a fourth quarter is the year; span words over a pair of columns; in sentences, a
# comparison's base, a label that modifies another noun, a bare year and a number that only follows its
# label or is a share of the workforce are not the label's value (or held under the review floor);
# 24: "(net) operating revenues" name the top line (text/statement_context._HARMLESS_BESIDE); 25: a share
# basis in parentheses names its row ("Net earnings per share (Diluted)"); 26: the printed names of a
# statement line that differ by more than a word ("Net cash from operations", "Additions to property and
# equipment", "Capital spending", "Cost of products sold", "Dividends"; text/statement_context); a loss
# line names its income line ("Loss from operations", "Net loss per share"); a positive figure on it is held;
# a note titled after a statement is no statement; "2019 Quarters" heads quarters; a block of adjusted
# (non-GAAP) figures does not rival the statement's row; a segment's measure is the segment's row under the
# measure's heading, or the measure's row under the segment's (text/segments.py); in English prose only a
# qualifier of the amount stands between a link ("was", ":") and its value; 27: a workforce count with
# modifiers before its noun ("9,200 total full-time and part-time employees"), named before its count ("total
# workforce was approximately 156,000"), the first of two periods' "respectively", and at 0.85 only where the
# sentence says the company employs them before the count (not "help recruit 250,000 people"), never a
# second count that breaks the first down or a bound ("fewer than 300 employees"); 28: in English prose a
# 19xx/20xx number without a currency sign, scale word or separator is a year wherever it stands ("our 2019
# Multi-Year Productivity Plan", "2022 restructuring charges"), never an amount or a count; 29: a sign note
# inside a description's name ("Income (loss) before income taxes", "Net cash provided by (used in) …") and a
# series opening it ("Selling, general and administrative …", "Property, plant and equipment, net") no longer
# cut the name short ("Income", "Net cash provided by", "Selling", "Property" named other rows and sentences);
# 30: a line named by both its signs, one in parentheses ("Income tax (expense)/benefit", "(Provision)
# benefit for income taxes") is the debit side's line, and its value reads for the side the field asks
# (the parenthesised side is printed negative: the provision's (31) is 31); for a field naming neither
# side it is read at half confidence; 31: a description with a loss note inside its name ("Income (loss) before income
# taxes") also names the loss side's line ("Loss before income taxes"), which is then no restricted component;
# 32: a table that declares no scale takes the filing's standing one ("Unless otherwise noted, tabular dollars
# are in millions", on that page or before it) at STANDING_SCALE, instead of units at UNDECLARED_SCALE;
# 33: a row whose label names its period ("2022 restructuring charges", "Liability as of December 31, 2021")
# is read by it (readers/table/columns.py), its total cell when its cells add up; a programme-to-date
# ("Plan to Date", "Inception to date") column holds no one period's value; 34: another name in a
# description's parentheses ("Income (earnings) before …") is part of the name; the glossary's names of
# common US GAAP line items; a "net of accumulated …" clause and its amounts qualify a label; an expense
# printed deducted ("Interest expense (160)") is the amount spent; a page number is no row's value; a
# period over a pair of sub-columns ("Shares | Amount") does not say which cell is the field's; "two
# years before" names the third year; a period the description rules out ("(not the prior fiscal year
# end)") is not the one it asks; 35: a line reader's number has a period (readers/table/dated.py): a
# line shaped like a table row is read in the asked period's column, an English sentence's number in the
# period its clause names (none named: the report's own); a deferred-tax table's rows and a refused
# block's rows are no line item's amount, read by any reader; 36: one quarter of an annual report's year
# ("the fourth quarter") only from a column or a sentence naming it (quarterly-data notes: "4th 3rd 2nd
# 1st" under a year spanning them, "Q1 … Q4 Total", quarter-end dates), an opening row ("… at beginning
# of year") holds the year before its column's, a change row holds no balance, a "respectively" sentence
# pairs its years and amounts, a rounded prose figure with no exact one beside it and an amount read as a
# fraction of the field's unit are held for review, a field name's period suffix names no line item;
# 37: a description's "one year earlier" / "year-ago" / "three years before" names a period back from the
# report's, and "the end of the prior fiscal year" its closing balance (a 10-Q's year-end column, not
# the year-ago quarter's end); a period title printed once, centred over a whole block of columns and
# over one of its cells ("SECOND QUARTER" above "2023 | % | 2022 | % | change"), heads every column
# 38: compact period codes ("1Q23", "1H23", "FY23"), a 10-Q's quarter number from its table's codes, a
# column's length in months must be the field's, "the prior quarter" is not found;
# 39: spans in weeks are fiscal quarters (16, 28, 40 weeks), a compound number word is read whole ("thirty-
# six weeks" is not six), a year followed by a month or a year starts the next column's header; a field
# asking a line item's percentage change reads the item's "% Change" column or its "X % change" row; a
# change title over sub-columns naming no period heads them; "First-Quarter" is a quarter
# 40: prose counts under their nouns ("101,778 shareholders of record", "7,429,763,722 shares of common stock
# outstanding" for a "Number of …" field), a label in the plural ("Advertising expenses were …"), a part named
# after "including" is its own; "Cash paid during the year for:" over "Interest"; the weighted-average share
# count under its statement headings ("Average shares outstanding", "Shares used in per share calculation"),
# also inside a per-share block; an English label with dashes or curly quotes is English; pre-tax income "from
# continuing operations", "before income tax expense", "Loss before income tax"
# 41: the cover's share count with the filer named as owner ("shares of the registrant's / PepsiCo, Inc. common
# stock"), its participle before "of" ("shares outstanding of the Registrant's Common Stock") and "as of DATE"
# before the verb; pre-tax income "before income taxes and equity in income of affiliates"; "Common stock cash
# dividends paid"; "Interest expense, net of portion capitalized"; "Merchandise inventories"
# 42: "Gross margin" in dollars is the gross profit; a firm's name in a role stops at the sentence before it
# ("… Accounting Firm. KPMG LLP, an independent …" names KPMG LLP); "Dividends — common and preferred";
# "Depreciation and amortization of property and intangibles"; a prose amount after ", including …,"; "Common
# shares repurchased", "Share repurchases - common" (a stock class after a dash)
# 43: the notes' opening caption ("Notes to the Consolidated Financial Statements … (Dollars in millions, except
# per share data)") is a standing scale; a sentence's "$1,556" with no scale word takes the standing scale
# ("Depreciation expense was $1,556, …"); "Sales to customers" is the revenue; for a description asking a total
# ("Total revenue (net sales)") a row of a block closed by a "Total …" row that names the field is a part
# 44: a roll-forward's balance rows dated without a year ("Unrecognized tax benefits – December 31", "…, end of
# the period", "Ending …") name the line item; "… – January 1" (the day after the fiscal year's end) and
# "Beginning …" are opening rows; a whole cell never takes a year of the sentence under it as a wrapped tail
# 45: a deduction's sign from the statement's arithmetic: a provision, cost or expense printed in parentheses
# on a statement that adds down the column (above + figure = below) is the amount spent; one the sums do not
# settle is held (readers/table/arithmetic.py); a quarterly report's quarter is the latest numbered quarter of its
# fiscal year in a trend table ("2Q22 1Q22 4Q21 3Q21 2Q21" is a second quarter's)
# 46: of one period's cells that differ, the one its sub-header names as the figure reported ("As
# Restated", "As Reported", "GAAP"), never "As Previously Reported", an adjustment or "Non-GAAP"; a count
# of part-time, seasonal or temporary staff is not the workforce, a whole one not its full-time part.
# 47: a scale caption ("(In thousands)") heads the table below it, never the tail of the label of the row
# above; a year ending in January is read by the name the filing gives it ("Fiscal 2022 ended January 28,
# 2023"), and a column headed by a bare year is held for review when the filing never says; "non-cash" before
# a label in a sentence names another measure; a figure printed without a sign outside the statement a field
# names, for a field asking that statement's sign, is held for review.
# 48: a year ending in January is also named by a list paired "respectively" ("Fiscal 2022 and 2021 ended
# January 28, 2023 and January 29, 2022, respectively"); a table that declares no scale, in a filing that
# heads its other tables with one ("(In millions)"), is held for review instead of read in units.
# 49: a row under a heading of one share basis ("Earnings per common share—basic"), outdented or not, is not
# the other basis's figure; a label without "net" ranks below one with it for a field asking ", net".
# 50: a quarterly report whose metadata and cover name only its end date counts its quarter from the year to
# date it prints ("Six Months Ended June 30": the second); another quarter of its year ("the fourth
# quarter" of a second quarter's 10-Q) is then found only in a column ending on that quarter's end.
# 51: a row naming only its share basis ("Diluted") flush with the line opening its block ("Earnings Per
# Common Share") is read under that line; "Net income attributable to common shareholders" ranks below
# the plain "Net income" for the company's net income in a filing naming no noncontrolling interest's income.
# 52: a flow column naming no span in an annual report ("2023" under the statement's title) is the year: it
# holds no figure for a field asking the quarter's three months.
# 53: a quarterly-data header stacked over two lines ("First" over "Quarter") keeps its last line; quarter
# columns naming no year take the year heading their block of rows ("Fiscal 2023"); a share-count heading
# naming what the count is for ("Average common shares outstanding for earnings per common share:") names
# the count; "Receivables, net" is the accounts receivable, "Total capitalization and liabilities" the total
# liabilities and equity; a capitalised line ending in a colon below a row ("Basic earnings per share:") is
# never that row's own name; a row above "Less: accumulated depreciation" (or an allowance) is the gross
# amount, never a field asking the net one.
# 54: a header centred over the headers of two columns or more on the line below it ("Six Months Ended" over
# two dates) heads each of them, even where the numbers sit right of their dates; a row naming only its
# balance's date ("Balance at beginning of year") flush with the line opening its block ("CASH AND CASH
# EQUIVALENTS") is read under that line; numeric dates ("3/25/2023", "31/03/2025" when one part is over 12)
# are dates; a quarterly report with no end date takes it from a balance sheet's latest column, the earlier
# one being the prior fiscal year's close.
# 55: "Selling, marketing and administrative expenses" and "Selling and administrative expenses" are SG&A; a
# note numbered without the word "Note" ("15. Quarterly Financial Information (Unaudited)") ends a segment
# note's scope.
# 56: "Long-Term Debt Obligations" is the long-term debt line ("obligations" restricts nothing beside "debt").
# 57: "Income before provision for income taxes" is the pre-tax income line ("provision" restricts nothing
# beside "before"); a period title alone on its line, centred over the whole header line below it ("TWELVE
# MONTHS" over "2022 | 2021 | Percent"), heads every column of a row that prints some of them only, and a
# header centred right of a row's last cell is still its column's.
# 58: the income tax line under its other printed names ("Income tax expense", "Income tax provision",
# "Provision for taxes on income", "Income taxes from continuing operations") names the provision for
# income taxes, whichever of them the description uses.
# 59: quarter columns named by their end's month and day only ("Quarter Ended September 30 … June 30") under
# a fiscal year's heading ("Fiscal Year 2016") are dated within that fiscal year as the report's own year
# closes ("September 30" of a fiscal 2016 closing June 30 is September 30, 2015).
# 60: a description's location clause ("Noncontrolling interests within equity", "… within current
# liabilities") is not part of the line's name, and its "current" may be printed in the label; each of a
# description's "A / B / C" alternatives is a head of its own; a parenthesised statement name ("(balance
# sheet)") is no alternative name; a deferred-tax table's heading set flush with its rows refuses its rows
# as it does outdented; an undated dividend sentence scores lower for a field asking another year.
# 61: up to three words in parentheses inside a description's name ("Current portion (current maturities) of
# long-term debt") are another name of as many words before them; glossary names of additional paid-in
# capital ("Capital surplus", "Capital in excess of par value") and of the current portion of long-term
# debt ("Current maturities of …", "Long-term debt due within one year"); "Acquired / Identifiable
# intangible assets, net" are the intangible assets.
# 62: what a description says its line includes ("(including restricted cash …)") may be printed in the
# label; a "net of tax" tail names no other line; a statement title wrapped onto two lines is still the
# page's title; a description naming the statement of comprehensive income names its statement.
# 63: a label opening with "Short-term" is the current line where the description places its line in a
# current section ("Short-term unearned revenue" within current liabilities), unless it also says "current".
# 64: a label of equity alone attributed to holders ("Equity attributable to noncontrolling interests") names
# those holders' line (the noncontrolling interests in equity).
# 65: a label leaving some of its line item's words to its table's lead-in sentence ("Effective rate" under
# "… federal statutory rate and our effective rate were as follows:") names the line, below CONFIDENT; a rate
# printed to the whole percent in prose names the exact rate of the table it rounds.
# 66: a share count's label naming no basis under a block heading of the basic basis alone ("Weighted average
# shares of common stock outstanding" under "Basic Earnings Per Common Share:") is the basic count, below CONFIDENT.
# 67: the beginning of the prior fiscal year is the closing balance two years before the report's; a closing
# note reference ("(Note 1)") no longer hides a balance's date; a deducted expense of a later column is the
# amount spent ("Interest expense (160) (177)"); "Less:"/"Add:" leads name nothing; for the noncontrolling
# interests' share a row not naming them names nothing; a lead-in names a label of two or more of the head's words.
# 68: a description's "in the … section of the … statement" places its line, it is no part of its name; an
# amortization line is named without "expense" or "finite-lived", "intangibles" are intangible assets; a ratio
# named by its parts ("gross profit as a percentage of revenue") is a head, "as a % of" its printed form; a
# sentence whose subject names the line item in its own word order is read (`subjects`); a line running on
# over a row's figures is no wrapped label; a lead-in cannot supply the head's noun; "long-term" and "non-current"
# are one section word, which a noncurrent line's label may print ("Long-term operating lease liabilities").
# table-69: a capitalised line under a row whose sentence-case label is complete, flush with it, heads the rows
# below and is no part of that row's name ("Total liabilities" over "Stockholders' equity"); the whole with the
# noncontrolling interests' share is named by "before allocation to noncontrolling interests" and, where the
# statement deducts that share, never read from the owners' line; a non-operating item is not read from under a
# "Revenue" heading (`text/holders.py` split from `statement_context`).
# 70: a balance-sheet row in the block "Total current assets/liabilities" closes is read as the current line
# ("Prepaid expenses and other assets"); a lease's "obligations" are its lease liability.
# 71: a non-operating item is not read from rows a revenue total ("Total net revenue") closes; "Change in X" among
# the operating adjustments a description places its line in is the adjustment X; "Deferred income tax
# provision/(benefit)" is the deferred income taxes.
# 72: a field stating its sign convention reads "Other income (expense), net" as printed; "Other expense, net"
# names an "Other income (expense)" line; a note's row for a field naming its statement, where the statement
# prints none of its rows, is below CONFIDENT.
# 73: an income statement's "Restructuring" line is the restructuring charges ("recognised" restricts nothing);
# "Share-based plans expense", "Equity award compensation expense" are the stock-based compensation expense.
# 74: a label's fragment that continues the one before it (lower-case start, open end) joins it with a space;
# a lower-case row label takes the label-only line just over it; "Long-term debt payments, including current
# portion" is the repayments of debt; "Interest expense from debt and amortization of debt discount and deferred
# financing costs" is the interest expense.
# 75: one segment's heading in a discussion of results ("Walmart U.S. Segment") makes the table rows under it,
# on its page, that segment's; prose on the page stays the company's.
# 76: quarter columns that name no year beside a full year's column, the table's only year ("Quarter 1st … 4th |
# 12-Month 2017"), are that year's quarters.
# 77: per-share dividends listed with their years ("$1.48, $1.40 and $1.32 in 2017, 2016 and 2015, respectively"),
# in a sentence or a row's label, are read by year; a dividend stated for another span ("a quarterly dividend")
# or named for another year ("the fiscal 2021 annual dividend") is not the asked one; "declared" and "paid" may
# be left unsaid by a label or a description, only the other stage names another line. An "attributable to" clause
# in a description's parentheses asks the company's share, and a wrapped fragment ending "… ATTRIBUTABLE TO" names
# the holders on the row below; "(net of tax)" is a basis, never another name of the line; an amount paid out by
# nature is negative where the description says outflows are ("(an outflow is negative)"; "(an outflow in
# parentheses is negative)" is read as printed); a count in a "$ in millions" table is not scaled; a bare
# "Total" row reads under its block's heading; a label-only line ending open continues on the row below;
# a sentence is not the line of a statement the description names when that statement is printed.
# 78: a field asking "as a positive amount" is read as a magnitude; a header line labelled only by the scale
# caption holds no values; a numbered heading ("6. Debt") is never the tail of the row above; a field placed in a
# note ("the income tax note's total") prefers the note's row to a statement's like-named line; a table whose
# lead-in restricts it to some items ("For these plans, …") is held for review; the "Total" column of a
# payments-due table (every other column a later period) is the amount at the report's end when it adds them up;
# "Total current" / "Total deferred" read under the measure they split ("Income tax expense (benefit):" / "Current:").
# 79: an amount asked before a deduction ("… at cost before accumulated depreciation", "… before the valuation
# allowance") is the row the deduction's row follows (a bare "Total, at cost" there when the table's lead-in or
# net row names the item); a row stating the deduction made is refused; one printing no gross basis is held.
# A scale caption wrapped from a lead-in's last line ("… (in" / "thousands):") scales the table; "Current tax
# expense", "Total current tax provision", "Current taxes" are the current tax line, and "Total current" reads
# under a lead-in naming the measure; a component row ("Finished goods") leaves the item's noun to its block's
# total, heading or lead-in ("Total inventories"); a bare "Total" closing the table its lead-in names is that total;
# a lead-in sentence ending in a colon is never a column header.
# 80: a roll-forward's dated balance row that names only the item's state ("Outstanding at December 31, 2022")
# is named by its table's lead-in or block heading when they state the item's other words, two or more ("… stock
# option activity …:", "Stock options:"); of a dated row's cells, the one whose column header names what the
# field counts beside a price, a term or a value; a scale word heading other columns only ("Aggregate Intrinsic
# Value (in millions)") is none of the cell's; a period header above a paragraph heads another table; a dated
# row label ends no basis header.
# 81: a label naming its line item in part ("Operating cash flows from operating leases") is named by the heading
# or lead-in above it when they state the words it leaves out ("Cash paid for amounts included in the measurement
# of lease liabilities:"); a participle's modifier leaves the head noun before it ("cash flows paid for …"); a
# total row naming all but the item's qualifier reads the one column whose header states it ("Operating Leases"
# beside "Finance Leases"); a maturity table's year-labelled rows do not end its column headers; a lead-in
# sentence with a verb ending in a colon ("… were (in millions):") ends the headers above a table; a column
# header naming a price, value, term or rate is not an option table's count.
# 82: a figures-only row closing the rows its block's heading opens ("| 408 | 455 | 438" under "Current:" /
# "Federal" / "State" / "Foreign") is "Total <heading>" when each figure adds up its column (within rounding); a
# lead-in sentence names the measure it states before its verb, less a parenthesised caption ("The components of
# income tax expense were as follows ($ in millions):", "Income tax expense was comprised of the following …:").
# 83: a label-only line overlapping a figures-only line by over a quarter of its height is one line (a label set a
# few points off its figures' baseline by a raised footnote mark), unless the figures sit midway on a wrapped label;
# a header line over runs of columns above the period header ("Pension Benefits | Other Benefits" over "2017 2016
# 2017 2016") heads each run, wherever in it it is set, and the columns whose header states the words a row leaves
# out hold its value ("Benefit obligation at end of year" in the pension columns); a roll-forward's bare balance
# row ("Ending balance", "Beginning balance at fair value") is named by its block heading ("Change in benefit
# obligation") and is never refused as a change; "benefit obligation" is the projected one, "pension" the pension
# plans; a column header spread over a table is no prose ending the search for its lead-in; a paragraph presenting
# the table ("The following table summarizes …") is its lead-in whatever it ends with; a total row under headers
# naming no period gives the cell adding up the others.
# 84: a field asking a flow ("… expense for the fiscal year", "… during the year") and naming no date it stands
# at keeps half its score for a reading on a balance sheet's page (a liability of a like name at the year's end);
# a total closing its block ("Total Deferred", a bare "Total" under "Deferred:") is named by the heading's words
# with the lead-in's ("The provision for income taxes consisted of the following:"); a heading under a row of
# figures only opens the next block, never that row's name.
# 85: a statement named with a hyphen ("(cash-flow statement)") places the line, it names no other line item;
# the effect of exchange rates on cash and the cash paid for businesses ("Acquisitions, net of cash acquired") are
# one line each under their printed names; a sign convention ("(a decrease is negative)") asks no change;
# "businesses", "losses" stem to their singular.
# 86: counts of shares by status printed outside a line's cells, for a field asking the shares outstanding
# (issued, authorized): in an equity line's label ("1,221 shares outstanding at December 28, 2019", "outstanding
# 7,432 and 7,464", "Issued and outstanding — 311,108,000 and …, respectively"), placed by their dates or by the
# column in their place, and in an equity statement's common stock "Shares" column on the closing balance row; a
# caption exempting share amounts leaves them unscaled; "Number of common shares outstanding" names the shares.
# 87: a future fiscal year's amount from a maturity schedule (readers/table/schedule.py: years down the rows or
# across the columns, running from the year after the report's, under a lead-in naming the field's subject);
# "first (second …) fiscal year after the report", "next fiscal year" ask that year; a label that is word for word a
# glossary name of the field restricts nothing (accrued compensation's names added); a series inside a
# description's parenthesised alternative name counts as one word ("(purchases of property, plant and equipment)").
# 88: a schedule's total ("Total undiscounted future operating lease payments") from the "Total" row closing a
# run of the years after the report's, only when it is the sum of the years and "Thereafter"; a schedule with
# one amount column per obligation is read in the column whose header names the field's subject ("Operating
# Leases" beside "Finance Leases"); a schedule's lead-in sentence is read from its start on an earlier line; a
# column's scale declared in the footnote its header's mark points to ("Options (a)" … "(a) In thousands.").
# 89: a year's change from a roll-forward ("Acquisitions" between two goodwill balances) in its total column,
# only when every column adds up from the opening to the closing balance, the block's year (its closing date,
# or a year printed alone above it) is the asked one, one change row names the change and the lead-in or the
# balances name the rest of the line item; a heading in capitals is no part of the lead-in sentence under it.
# 90: a row printing figures only that the next row's accumulated depreciation turns into the net row below (in
# every column, to the printed rounding) is the table's total at cost, for an amount asked before that deduction;
# a count of shares under a caption exempting share amounts ("in thousands, except share and per share data") is
# printed as it is, in any table; a line of prose naming a statement ("(c) Not recorded on our balance sheet.",
# "… in our consolidated balance sheet (in millions):") is no statement's title; "Cash paid for amounts included
# in the measurement of lease liabilities" names the cash paid for them; a flow named by both directions
# ("inflows/(outflows)") is the flow, signed by the direction asked; a "Total" row under headers naming no period
# whose first cell adds up the others is read from that cell.
# 91: a footnote mark before an amount ("Total contractual obligations (1) $183,376") is no line reader's value.
# 92: a bare "Total" at the margin closes the outer block ("Current:"), not an indented sub-block ("United States");
# "Retirement Plans" columns are the pension plans'; "Total long-term debt" above "Less: current portion" is the
# total debt (and never the debt asked without its current portion); "…, less current portion" is non-current;
# one row may stand between a gross amount and its deduction when the row after it is the net ("Deferred tax
# assets / Deferred tax liabilities / Valuation allowance / Net …"); an amount printed to the dollar
# ("$2,238,000,000") is in units; "We had 1,138 stores at the end of fiscal 2023" (site_counts); a sentence
# listing each year's maturity; a sentence saying what remains of a repurchase authorization; a description's
# "(and supplies)" extends the name before it ("Raw materials and supplies inventories"), it is no name alone.
# 93: a list of amounts the label goes on after ("net of $48, $92 and $14 of non-cash") is the label's; "net of …
# non-cash …" is how a cash flow is counted, not another line item; "Property, plant and equipment additions" is
# the outflow for fixed assets; "Total revenues net of interest expense" is a lender's net revenue; an equity
# line's share count ("…, 428,676,471 shares at December 31, 2019 and …") does not name it, and a label naming
# "December 31, 2019 and 2018" names both columns' dates, no period of its own.
# 94: a wrapped cell whose head looks whole ("2,352,826") joins its tail (",955.66") past a line with nothing in
# its column (a centred YoY cell); a label fragment under a row whose label ends with its unit ("营业收入（元）")
# starts the next row's label.
# 95: a year after a column gap heads its column even where it would complete the date before it ("Year Ended
# December 31,   2017   2016"); a row naming only a change ("Net increase (decrease) during the year") is read
# under the heading it is flush with; "during the year" closing a label restricts nothing; a line item that is a
# change within its period ("Net increase in cash … for the prior fiscal year") asks the prior year.
# 96: a segment's measure heading a run of columns ("Net Revenue | Operating Profit/(Loss)" over the years of
# each): the segment's row ("FLNA") is read in that run only.
