"""The table reader: deterministic, cheap, and honest about its confidence.

For a numeric field it finds the table row whose label names the field (Chinese or English, synonyms
from a glossary and from the description), picks the column whose header names the period the field
asks for (`text.periods`: the document's current period unless the description names another), never
by position; applies the scale declared above the table or in the row label (元/千元/万元/亿元,
thousands/millions/billions, crore/lakh) and parses the printed number
(thousands separators, parentheses for negatives, full-width digits, numbers wrapped inside a cell).
Outside tables it reads the few facts that are safe without a model (see `textfacts` and `prose`) and
the votes of a shareholders' meeting (`votes`).

When the label is ambiguous, the period column unknown or candidates disagree, the result carries a
low confidence: the cascade then asks the LLM instead of trusting a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import polars as pl

from mdqa_kernel.plan.ir import FieldSpec
from mdqa_kernel.readers.base import (
    READERS,
    Choice,
    DocumentView,
    Evidence,
    FieldLike,
    ReadResult,
    Status,
    found,
    not_found,
)
from mdqa_kernel.readers.confidence import (
    ABSENT_PHRASE,
    ABSENT_TOPIC,
    ABSENT_UNREADABLE,
    CONFIDENT,
    COUNT_SCALE,
    KNOWN_SCALE,
    LOSS_UNSIGNED,
    NAMED_STATEMENT_ELSEWHERE,
    OCR_DOUBTFUL,
    OCR_TRUSTED_WORD,
    OTHER_SCOPE_FACTOR,
    RIVALS_FACTOR,
    ROUNDED_ONLY,
    STANDING_SCALE,
    UNDECLARED_SCALE,
)
from mdqa_kernel.readers.plausibility import asks_scaled_unit, checked, field_kind, reading_implausibility
from mdqa_kernel.readers.semantics import (
    asks_expense,
    asks_percent,
    deducted_expense,
    field_basis,
    field_scope,
    rebase,
    share_basis,
)
from mdqa_kernel.readers.table.arithmetic import Use, asks_debit, names_credit, use_in_column
from mdqa_kernel.readers.table.auditor import asks_auditor, auditor_signature
from mdqa_kernel.readers.table.candidates import (
    Candidate,
    column_dates,
    column_values,
    counts,
    key_values,
    label_before,
    statement_phrase,
    statements,
)
from mdqa_kernel.readers.table.columns import (
    cell_span,
    change_cell,
    column_verdicts,
    document_period,
    period_cell,
    row_fits,
    under_note,
    value_columns,
)
from mdqa_kernel.readers.table.dated import dated_reading
from mdqa_kernel.readers.table.derived import (
    group_count,
    group_members,
    largest_holding,
    membership,
    presupposed_fact,
)
from mdqa_kernel.readers.table.naming import field_label_set, row_score, specific
from mdqa_kernel.readers.table.people import people_count
from mdqa_kernel.readers.table.prose import ProseWindow, label_then_value, prose_windows
from mdqa_kernel.readers.table.prose_facts import dividend_per_share, firm_in_role, share_of
from mdqa_kernel.readers.table.scope import declared_above, line_index, line_scale, scope_at
from mdqa_kernel.readers.table.votes import vote_counts
from mdqa_kernel.text.fieldtypes import NUMERIC_TYPES, coerce
from mdqa_kernel.text.headers import column_headers, note_columns
from mdqa_kernel.text.labels import (
    LabelSet,
    is_topic,
    phrase_variants,
    sign_of_pair,
)
from mdqa_kernel.text.layout import Cell, Line, is_contents_page, lines_by_page
from mdqa_kernel.text.period_fit import asks_sequential_quarter
from mdqa_kernel.text.periods import Period, ReportPeriod, wanted_period
from mdqa_kernel.text.rows import Row, table_rows
from mdqa_kernel.text.statement_context import (
    asked_statement,
    change_base,
    names_loss,
    page_statement,
    section_heading,
    with_section,
)
from mdqa_kernel.text.values import (
    declared_scale,
    find_numbers,
    is_absent,
    parse_number,
    scale_factor,
    to_field_scale,
)

TABLE_READER_VERSION = "table-45"  # 4: disclosure topics under their printed names; 5: date lists;
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
# candidates(): how many readings a chooser is shown, and the rank of a cell in another period's
# column relative to its row's label score (below every reading of the current period).
MAX_CHOICES = 8
OTHER_PERIOD = 0.5
_DATE_LIST = re.compile(r"日期|\bdates\b", re.IGNORECASE)
_DIVIDEND = re.compile(r"股利|分红|派息|红利|dividend", re.IGNORECASE)
_COUNT_UNITS = ("persons", "people", "count", "shares", "votes", "人", "次", "股", "家", "warehouses")


@READERS.register("table")
class TableReader:
    """Deterministic reader; `min_label_score` is how well a row label must match to be considered."""

    name = "table"
    options = ("min_label_score",)  # the make_reader keywords it takes

    def __init__(
        self,
        min_label_score: float = 0.6,
        absent_confidence: float = ABSENT_PHRASE,
        topic_absent_confidence: float = ABSENT_TOPIC,
    ) -> None:
        self.min_label_score = min_label_score
        # A phrase missing from a fully readable document is evidence of "no", but wording varies:
        # by default that answer is not confident, so the cascade lets the LLM look too.
        self.absent_confidence = absent_confidence
        # A disclosure topic searched under all its printed names (labels.TOPIC_GROUPS) and found under
        # none is a "no" to trust: every topic reading agreed with gold on one question's 18 rendered
        # ESG reports (tests/test_readers_table.py), and 1,246 of 1,246 on the 40-question sample's
        # (a one-off check). Real reports word their sections more freely than the glossary knows.
        self.topic_absent_confidence = topic_absent_confidence

    def config(self) -> dict[str, Any]:
        return {
            "version": TABLE_READER_VERSION,
            "min_label_score": self.min_label_score,
            "absent_confidence": self.absent_confidence,
            "topic_absent_confidence": self.topic_absent_confidence,
        }

    def _absent_confidence(self, doc: DocumentView, phrase: str) -> float:
        if doc.status != "ok":
            return ABSENT_UNREADABLE
        return self.topic_absent_confidence if is_topic(phrase) else self.absent_confidence

    def _phrase_absent(self, doc: DocumentView, field: FieldLike, phrase: str) -> ReadResult:
        return found(
            doc.doc_id,
            field.name,
            self.name,
            False,
            confidence=self._absent_confidence(doc, phrase),
            evidence=Evidence(doc_id=doc.doc_id, snippet="", reader=self.name),
            message=f"statement {phrase!r} occurs nowhere in the document",
        )

    def _absent_with(
        self, doc: DocumentView, field: FieldLike, fact: str, question: str
    ) -> ReadResult | None:
        """Absent for sure when the fact the value presupposes is a sure "no" (no assurance, no
        assurance provider); None when that fact is not a sure "no"."""
        check = FieldSpec(name=f"{field.name}_presupposed", type="boolean", description=fact, question=fact)
        said = self.read(doc, check, question)
        if not (said.found and said.value is False and said.confidence >= CONFIDENT):
            return None
        return said.model_copy(
            update={
                "field": field.name,
                "status": Status.ABSENT,
                "value": None,
                "message": f"no {field.description}: the document's answer to {fact!r} is no ({said.message})",
            }
        )

    def read(self, doc: DocumentView, field: FieldLike, question: str) -> ReadResult:
        gathered = self._gather(doc, field, question)
        return gathered if isinstance(gathered, ReadResult) else self._best(doc, field, gathered)

    def candidates(self, doc: DocumentView, field: FieldLike, question: str) -> list[Choice]:
        """The readings `read` ranked, best first (the first is `read`'s answer), one per distinct
        value, at most MAX_CHOICES; for a table cell also the cells of the row's other period columns
        (ranked below, their period named), so that a chooser sees the prior-year figure for what it
        is. Empty where `read` answers without candidates (no text layer, a statement found nowhere)."""
        gathered = self._gather(doc, field, question)
        if isinstance(gathered, ReadResult):
            return []
        headers: dict[tuple[int, Any], tuple[str, str, str | None]] = {}
        if field.type in NUMERIC_TYPES:
            lines = _lines_by_page(doc)
            other = self._period_cells(doc, field, field_label_set(field), lines, headers)
            gathered = gathered + other
        typed: list[tuple[Candidate, Any, float | None]] = []
        for cand in gathered:
            try:
                value, applied = self._typed(field, cand)
            except ValueError:
                continue
            if value is None or (_is_percent(cand.raw) and field.type != "percent" and applied != 0.01):
                # a share printed beside an amount ("As a percent of revenue 13%") is not the amount;
                # only a ratio the reader read as one (82.84% as 0.8284) is offered for a number field
                continue
            typed.append((cand, value, applied))
        typed.sort(key=lambda t: (-t[0].score, t[0].page))  # as `_best` ranks them
        out: list[Choice] = []
        for cand, value, applied in typed:
            if any(_same(c.value, value) or _same_print(c, cand) for c in out):
                # one choice per value, and one per printed number: the same figure read again as prose
                # or on a summary page ("TOTAL REVENUES 5,897.8") without the scale its table declares
                # is the same reading, not a second one
                continue
            label, column, period = headers.get((cand.page, cand.bbox), ("", "", None))
            out.append(
                Choice(
                    value=value,
                    printed=cand.raw.strip(),
                    kind=cand.kind,
                    page=cand.page,
                    snippet=cand.snippet,
                    label=label,
                    column=column,
                    period=period,
                    bbox=cand.bbox,
                    char_span=cand.char_span,
                    scale=applied,
                    scale_word=cand.scale_word,
                    score=cand.score,
                )
            )
            if len(out) == MAX_CHOICES:
                break
        return out

    def _gather(self, doc: DocumentView, field: FieldLike, question: str) -> list[Candidate] | ReadResult:
        """The candidate readings of a cell; or the answer itself where it needs no ranking (no text
        layer, a statement found nowhere, an absence its presupposed fact settles, an unread type)."""
        if doc.words is None or doc.words.height == 0:
            return not_found(
                doc.doc_id, field.name, self.name, "document has no text layer (scanned or empty)"
            )
        labels = field_label_set(field)
        lines = _lines_by_page(doc)
        if field.type in NUMERIC_TYPES and asks_sequential_quarter(field.description):
            return not_found(
                doc.doc_id,
                field.name,
                self.name,
                "the field asks the quarter before the report's, which this reader does not place "
                "(it places periods by fiscal year); read it by hand or name the quarter's end date",
            )
        if field.type in NUMERIC_TYPES:
            candidates = self._numeric_candidates(doc, field, labels, lines)
        elif field.type == "list_text" and _DATE_LIST.search(field.description):
            candidates = column_dates(lines, labels)  # "股东大会召开日期": every meeting of the year
        elif field.type == "list_text" and (roster := group_members(lines, field.description)):
            candidates = roster  # "女性高管姓名": the roster rows marked 女
        elif field.type in ("text", "date", "list_text"):
            candidates = key_values(lines, labels)
            windows = _prose_windows(doc, lines)
            if field.type == "date":
                candidates += column_values(lines, labels, "date") + label_then_value(
                    lines, labels, "date", windows
                )
            elif field.type == "text":
                candidates += firm_in_role(windows, labels)
                if asks_auditor(field):
                    candidates += auditor_signature(lines)
            fact = presupposed_fact(field.description) if not candidates else None
            if fact is not None:
                return self._absent_with(doc, field, fact, question) or candidates
        elif field.type == "boolean":
            derived = membership(lines, field.description)
            if derived:
                return derived
            phrase = statement_phrase(field.description)
            if phrase is None:
                return not_found(
                    doc.doc_id, field.name, self.name, "no phrase to look for; needs the LLM reader"
                )
            candidates = statements(lines, phrase_variants(phrase))
            if not candidates:
                return self._phrase_absent(doc, field, phrase)
        else:
            return not_found(doc.doc_id, field.name, self.name, f"{field.type} fields need the LLM reader")
        return candidates

    def _period_cells(
        self,
        doc: DocumentView,
        field: FieldLike,
        labels: LabelSet,
        lines: dict[int, list[Line]],
        headers: dict[tuple[int, Any], tuple[str, str, str | None]],
    ) -> list[Candidate]:
        """The cells of the field's rows under a header naming another period than the one the field
        asks for, scored below the row's own reading; fills `headers` with (row label, column header,
        "asked" | "other" | None) for every cell of those rows, keyed by (page, bbox), to name the
        column of each table choice."""
        out: list[Candidate] = []
        report = document_period(doc)
        want = wanted_period(field.description, report)
        for _page, page_ls, row, score in self._named_rows(doc, field, labels, lines):
            texts = column_headers(page_ls, row.line.index, row.cells)
            own = row_fits(row, want, report)
            verdicts = column_verdicts(row, texts, want, report)
            for cell, header, verdict in zip(row.cells, texts, verdicts, strict=True):
                verdict = own if own is False or verdict is None else verdict
                period = None if verdict is None else ("asked" if verdict else "other")
                headers[(row.page, cell.bbox)] = (row.label, header, period)
                if verdict is not False or cell.value is None:
                    continue  # the asked period's cell is the row's own reading
                if cell.percent != asks_percent(field):
                    continue  # a share beside an amount (or an amount beside a share) is another fact
                scale, scale_word, _conf = self._scale(doc, field, row, page_ls, cell)
                sign = sign_of_pair(row.label or row.extended_label, field.description) or 1
                out.append(
                    Candidate(
                        "table",
                        row.page,
                        cell.text,
                        row.snippet,
                        round(score * OTHER_PERIOD, 4),
                        cell.bbox,
                        cell_span(cell),
                        scale=scale,
                        scale_word=scale_word,
                        number=None if sign == 1 else -cell.value,
                    )
                )
        return out

    def _named_rows(
        self, doc: DocumentView, field: FieldLike, labels: LabelSet, lines: dict[int, list[Line]]
    ) -> Iterator[tuple[int, list[Line], Row, float]]:
        """(page, its lines, row, score) of every table row whose label names the field well enough."""
        for page, page_ls in lines.items():
            rows = doc.memo(f"rows:{page}", lambda page_ls=page_ls: table_rows(page_ls))
            for row in rows:
                score = row_score(page_ls, row, labels, field)
                if score >= self.min_label_score:
                    yield page, page_ls, row, score

    # -- numeric fields -------------------------------------------------------------------------
    def _numeric_candidates(
        self, doc: DocumentView, field: FieldLike, labels: LabelSet, lines: dict[int, list[Line]]
    ) -> list[Candidate]:
        out: list[Candidate] = []
        per_share = field_basis(field) is not None
        windows = _prose_windows(doc, lines)
        if per_share and _DIVIDEND.search(field.description):
            out += dividend_per_share(windows)
        report = document_period(doc)
        period = (wanted_period(field.description, report), report)
        table = self._table_candidates(doc, field, labels, lines, period)
        table += self._change_candidates(doc, field, lines, period)
        out += table
        # A two-cell row ("Total assets   411,976") is also a key-value line, but only its table reading
        # knows the scale declared above it ("(In millions)").
        rows = {(c.page, round(c.bbox[1])) for c in table if c.bbox is not None}
        out += [
            specific(c, field.description)
            for c in key_values(lines, labels)
            if _number_of(c)
            and not (c.bbox is not None and c.scale is None and (c.page, round(c.bbox[1])) in rows)
        ]
        out += label_then_value(lines, labels, "integer" if field.type == "integer" else "number", windows)
        if field.type == "integer":
            out += counts(lines, field.description) + group_count(lines, field.description)
            out += vote_counts(lines, field.description)
        kind = field_kind(field)
        if field.type == "integer" or (kind is not None and kind.name == "people"):
            out += people_count(windows, field.description)  # "Employees" typed as a number, too
        if field.type == "percent":
            out += largest_holding(lines, field.description) + share_of(windows, field.description)
        dated: list[Candidate] = []
        for cand in out:
            if cand.kind in ("prose", "key_value"):
                line_scale(doc, cand, field, lines.get(cand.page, []))
                cand = dated_reading(doc, field, lines, cand, period)
                if cand is None:
                    continue  # another period's figure
            if cand.scope is None and cand.bbox is not None:
                # a key-value line or a sentence printed in a parent-only statement or a segment note
                cand.scope = scope_at(
                    doc, lines, cand.page, line_index(lines.get(cand.page, []), cand.bbox[1])
                )
            dated.append(cand)
        return dated

    def _table_candidates(
        self,
        doc: DocumentView,
        field: FieldLike,
        labels: LabelSet,
        lines: dict[int, list[Line]],
        period: tuple[Period, ReportPeriod],
        chooser: Callable[..., tuple[Cell, float] | None] = period_cell,
    ) -> list[Candidate]:
        out = []
        for page, page_ls, row, score in self._named_rows(doc, field, labels, lines):
            cand = self._pick_cell(doc, field, row, page_ls, score, period, chooser)
            if cand is not None:
                cand.scope = scope_at(doc, lines, page, row.line.index)
                out.append(cand)
        return out

    def _change_candidates(
        self,
        doc: DocumentView,
        field: FieldLike,
        lines: dict[int, list[Line]],
        period: tuple[Period, ReportPeriod],
    ) -> list[Candidate]:
        """A field asking a line item's change, read from the item's own row under a "% Change" column
        ("Reported Sales $23,706 $24,804 (4.4)%"): the row is named by the item, the cell by the column."""
        base = change_base(field.description) if period[0].change else None
        if base is None:
            return []
        item = _Described("", field.type, base, field.question, field.unit, field.scale)
        return self._table_candidates(doc, item, field_label_set(item), lines, period, chooser=change_cell)

    def _pick_cell(
        self,
        doc: DocumentView,
        field: FieldLike,
        row: Row,
        lines: list[Line],
        score: float,
        period: tuple[Period, ReportPeriod],
        chooser: Callable[..., tuple[Cell, float] | None] = period_cell,
    ) -> Candidate | None:
        percent = asks_percent(field)  # a percent field, or a number field whose unit is "%"
        cells = value_columns(percent, row)
        if not any(c.value is not None for c in cells):
            return None
        notes = note_columns(lines, row.line.index)
        # A cell under a "Note" column is a reference to the notes, never the value.
        cells = [c for c in cells if not under_note(c, notes)]
        if not cells:
            return None
        picked = chooser(cells, lines, row, *period)
        if picked is None:
            return None  # the header names only other periods: this table is not about the wanted one
        cell, col_conf = picked
        if cell.value is None:
            return None  # the period's cell is a dash ("—", "N/A"): no value, and not its neighbour's
        if not percent and cell.percent:
            return Candidate(
                "table",
                row.page,
                cell.printed,
                row.snippet,
                round(score * col_conf, 4),
                cell.bbox,
                cell_span(cell),
                scale=0.01,
                scale_word="%",
                number=cell.value,
            )
        scale, scale_word, scale_conf = self._scale(doc, field, row, lines, cell)
        if cell.value > 0 and names_loss(with_section(section_heading(lines, row.line.index), row.label),
                                         field.description):  # fmt: skip
            scale_conf *= LOSS_UNSIGNED
        label = row.label or row.extended_label
        sign = sign_of_pair(label, field.description)
        if sign is None and cell.value:
            scale_conf *= LOSS_UNSIGNED  # "Income tax (expense)/benefit" for a field naming neither side
        elif sign == 1 and cell.value:
            use = self._deduction_use(doc, field, row, lines, cell, label)
            if use is Use.ADDED:
                sign = -1  # "Provision for income taxes (117)" added down the column: an expense of 117
            elif use is None and cell.value < 0 and not (asks_expense(field) and deducted_expense(label)):
                scale_conf *= LOSS_UNSIGNED  # deducted or a benefit: neither the sums nor the label say
        return Candidate(
            "table",
            row.page,
            cell.printed,
            row.snippet,
            round(score * col_conf * scale_conf, 4),
            cell.bbox,
            cell_span(cell),
            scale=scale,
            scale_word=scale_word,
            number=cell.value * (sign or 1),
        )

    def _deduction_use(
        self, doc: DocumentView, field: FieldLike, row: Row, lines: list[Line], cell: Cell, label: str
    ) -> Use | bool | None:
        """How the statement uses a deduction's figure (readers/table/arithmetic.py); False when the
        field asks no deduction or the row is a credit line (an "(expense)/benefit" pair has its sign
        from `sign_of_pair`)."""
        if not asks_debit(field.description) or names_credit(label) or "(" in label:
            return False
        rows = doc.memo(f"rows:{row.page}", lambda: table_rows(lines))
        return use_in_column(rows, row, cell)

    def _scale(
        self, doc: DocumentView, field: FieldLike, row: Row, lines: list[Line], cell: Cell
    ) -> tuple[float, str | None, float]:
        """(printed scale, its word, confidence): from the cell ("1,234 crore"), the row label, else the
        nearest declaration above on the page (a caption "(in millions, except per share data)",
        "单位：万元", "₹ in crore", or the column header); a per-share row under an "except per share"
        caption is printed as it is."""
        if asks_percent(field) or field_basis(field) is not None:
            # "(In millions, except per share data)": per-share amounts are printed as they are.
            return 1.0, None, KNOWN_SCALE
        if cell.scale_word:
            return scale_factor(cell.scale_word), cell.scale_word, KNOWN_SCALE
        own = declared_scale(row.label) or declared_scale(row.extended_label)
        if own:
            return own[0], own[1], KNOWN_SCALE
        above = declared_above(lines, row.line.index, row.label)
        if above is not None:
            return above[0], above[1], KNOWN_SCALE
        if field.type == "integer" or (field.unit or "").lower() in _COUNT_UNITS:
            return 1.0, None, COUNT_SCALE
        standing = doc.standing_scale(row.page)
        if standing is not None:
            return standing[0], standing[1], STANDING_SCALE
        return 1.0, None, UNDECLARED_SCALE  # nothing declared: probably units, but say so

    # -- choosing ---------------------------------------------------------------------------------
    def _best(self, doc: DocumentView, field: FieldLike, candidates: list[Candidate]) -> ReadResult:
        typed: list[_Reading] = []
        for cand in candidates:
            try:
                value, applied = self._typed(field, cand)
            except ValueError:
                continue
            if value is not None:
                why = (
                    reading_implausibility(field, value, cand.raw, cand.snippet)
                    if field.type in NUMERIC_TYPES
                    else None
                )
                typed.append(_Reading(cand, value, applied, cand.score, why))
        if not typed:
            return not_found(doc.doc_id, field.name, self.name, "no row, line or statement names this field")
        typed, scope_note = _in_scope(field, typed)
        # only the group's statements define a consolidated field's line items
        statements = _statement_pages(doc) if field_scope(field) == "consolidated" else {}
        asked = asked_statement(field.description) if statements else None
        if asked is not None:
            # "… as printed in the cash flow statement": the same label elsewhere is another table's
            for t in typed:
                if statements.get(t.cand.page) != asked:
                    t.score = round(t.score * NAMED_STATEMENT_ELSEWHERE, 4)
        # A plausible reading goes before any implausible one, whatever their scores: a headcount read
        # from a row about shares must not win over the one read from the sentence about employees. At
        # equal scores a primary statement's row goes first: that is where its line items are defined.
        typed.sort(key=lambda t: (t.why is not None, -t.score, not _in_statement(t, statements), t.cand.page))
        chosen = typed[0]
        confidence = chosen.score
        notes = [scope_note] if scope_note and chosen.cand.scope else []
        same = [t for t in typed[1:] if t.why is None and _agree(field, t, chosen)]
        exact = min([chosen, *same], key=lambda t: _tolerance(field, t))
        if exact is not chosen:
            # "$60.9 billion" in prose and 60,915 (in millions) in a table are one fact: the exact figure.
            notes.append(f"{chosen.cand.kind} {chosen.cand.raw!r} rounds it")
            chosen = exact
        elif chosen.cand.kind == "prose" and asks_scaled_unit(field) and _tolerance(field, chosen) > 0.5:
            confidence = min(confidence, ROUNDED_ONLY)
            notes.append("printed rounded coarser than the field's unit; no exact figure found")
        # A note's or a summary's row with the same label does not put a primary statement's reading in
        # doubt; two statements' rows, or two rows of neither, that disagree do.
        rivals = [
            t
            for t in typed[1:]
            if t.why is None
            and t.score >= confidence - 0.05
            and t is not chosen
            and not _agree(field, t, chosen)
            and not (_in_statement(chosen, statements) and not _in_statement(t, statements))
        ]
        if rivals:
            # Two equally good readings disagree (the same label in two tables, two years...): do not guess.
            confidence = round(confidence * RIVALS_FACTOR, 4)
        best, value, applied = chosen.cand, chosen.value, chosen.applied
        message = f"{best.kind}: {best.raw!r}" + (
            f" ×{applied:g} ({best.scale_word})" if applied and applied != 1 else ""
        )
        printed = parse_number(best.raw)
        if best.number is not None and printed is not None and printed * best.number < 0:
            message += " (negated: the line prints the asked side in parentheses)"
        ocr_note = ""
        if (ocr_conf := _ocr_confidence(doc, best)) is not None:
            ocr_note = f" (read by OCR, word confidence {ocr_conf:g})"
            if ocr_conf < OCR_TRUSTED_WORD:
                confidence = min(confidence, OCR_DOUBTFUL)
        result = found(
            doc.doc_id,
            field.name,
            self.name,
            value,
            unit=field.unit,
            scale=applied,
            confidence=confidence,
            evidence=Evidence(
                doc_id=doc.doc_id,
                page=best.page,
                bbox=best.bbox,
                char_span=best.char_span,
                snippet=best.snippet,
                reader=self.name,
            ),
            message="; ".join([message + ocr_note, *notes]),
        )
        # A value no real document holds (999999999 employees), or one the words around it deny (a
        # percentage for an amount), is kept for review, never confident.
        return checked(field, result, best.raw if field.type in NUMERIC_TYPES else None)

    def _typed(self, field: FieldLike, cand: Candidate) -> tuple[Any, float | None]:
        if field.type == "boolean":
            return cand.boolean, None
        if field.type in ("text", "date", "list_text"):
            return coerce(cand.raw, field.type), None
        number = cand.number if cand.number is not None else _number_of(cand)
        if number is None:
            return None, None
        wanted = field_basis(field)
        if wanted is not None:
            # "每10股派发现金红利3元" is 3 per 10 shares: 0.30 for a field asking per share, 3 per 10 shares.
            number = rebase(number, cand.basis or _basis_before(cand), wanted)
        if number < 0 and asks_expense(field) and deducted_expense(label_before(cand)):
            number = -number
        scale = cand.scale or 1.0
        value = to_field_scale(number, scale, field.scale or 1.0)
        return coerce(value, field.type), scale


@dataclass
class _Reading:
    """A candidate typed for the field: its value, the scale applied, its score and, when the words
    around it deny it, why (readers/plausibility.py)."""

    cand: Candidate
    value: Any
    applied: float | None
    score: float
    why: str | None


@dataclass(frozen=True)
class _Described:
    """A plan field under another description (the line item whose change the field asks for). Not a
    FieldSpec: that requires a snake_case name and a question template, and the item has no name of its
    own (the field's name would name the change, not the item)."""

    name: str
    type: str
    description: str
    question: str
    unit: str | None
    scale: float


def _statement_pages(doc: DocumentView) -> dict[int, str | None]:
    """The primary statement each page prints ("income", "balance", "cash_flow") or None."""
    return doc.memo(
        "statement_pages", lambda: {p: page_statement(ls) for p, ls in _lines_by_page(doc).items()}
    )


def _in_statement(t: _Reading, statements: dict[int, str | None]) -> bool:
    """A table row of a consolidated primary statement."""
    return t.cand.kind == "table" and t.cand.scope is None and statements.get(t.cand.page) is not None


def _in_scope(field: FieldLike, typed: list[_Reading]) -> tuple[list[_Reading], str | None]:
    """The readings of the entity the field asks about: a parent-only statement's or a segment note's
    figure is dropped when a reading of the field's own scope exists, else kept at a lower score."""
    wanted = field_scope(field)
    own = [t for t in typed if t.cand.scope in (None, wanted)]
    if len(own) == len(typed):
        return typed, None
    if any(t.why is None for t in own):
        return own, None
    for t in typed:
        if t.cand.scope not in (None, wanted):
            t.score = round(t.score * OTHER_SCOPE_FACTOR, 4)
    others = sorted({t.cand.scope or "" for t in typed if t.cand.scope not in (None, wanted)})
    return typed, f"read from a {'/'.join(others)} statement, not the {wanted} one"


def _tolerance(field: FieldLike, t: _Reading) -> float:
    """Half a unit of the last digit printed, in the field's scale: how far the printed figure may be from
    the exact one it rounds ("60.9" billion: 0.05 billion; "60,915" million: 0.5 million)."""
    if not isinstance(t.value, int | float) or isinstance(t.value, bool):
        return 0.0
    m = re.search(r"\d[\d,]*(?:\.(\d+))?", t.cand.raw)
    if m is None or t.cand.number is not None:
        return 0.0  # a number the finder computed (a dividend in cents, "2.1 million"): take it as exact
    decimals = len(m.group(1) or "")
    return 0.5 * 10.0**-decimals * (t.applied or 1.0) / (field.scale or 1.0)


_ROUNDING = 0.01  # a rounded figure names the exact one it rounds when it is printed to within 1%


def _agree(field: FieldLike, a: _Reading, b: _Reading) -> bool:
    """Two readings of one fact: equal, or equal up to the rounding of the less precise."""
    if _same(a.value, b.value):
        return True
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a.value, b.value)):
        return False
    tol = max(_tolerance(field, a), _tolerance(field, b))
    precise = min(_tolerance(field, a), _tolerance(field, b))
    if tol > _ROUNDING * abs(float(a.value)):
        return False  # "$4 billion" is too round to name which of 3.6 or 4.4 billion it rounds
    return tol > precise and abs(float(a.value) - float(b.value)) <= tol + 1e-9 * abs(float(a.value))


def _basis_before(cand: Candidate) -> int | None:
    """The share basis named just before the printed value in its row or sentence ("每10股派息数（元）")."""
    at = cand.snippet.find(cand.raw)
    return share_basis(cand.snippet[:at] if at > 0 else cand.snippet)


def _number_of(cand: Candidate) -> float | None:
    if cand.number is not None:
        return cand.number
    value = parse_number(cand.raw)
    first = cand.raw.split()[:1]
    if value is None and first and is_absent(first[0]):
        return None  # a dash cell first ("—  9,876"): no value, and not the next column's number
    if value is None and cand.kind == "key_value" and len(find_numbers(cand.raw)) == 1:
        # exactly one number after the label ("社会捐赠额：1,768万元"); two numbers are a table row
        m = re.search(r"[(（\-−]?\d[\d,]*(?:\.\d+)?%?", cand.raw)
        if m:
            value = parse_number(m.group(0))
            scale = declared_scale(cand.raw[m.end() : m.end() + 8]) or _scale_word_after(cand.raw[m.end() :])
            if scale:
                cand.scale, cand.scale_word = scale
    return value


def _scale_word_after(tail: str) -> tuple[float, str] | None:
    from mdqa_kernel.readers.table.candidates import declared_scale_word

    return declared_scale_word(tail)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)
    return bool(a == b)


def _is_percent(printed: str) -> bool:
    return "%" in printed or "％" in printed


def _same_print(choice: Choice, cand: Candidate) -> bool:
    """Whether a candidate prints the same number as a choice ("5,897.8" and "$5,897.8")."""
    number = parse_number(cand.raw.strip().lstrip("$¥￥€£ "))
    shown = parse_number(choice.printed.lstrip("$¥￥€£ "))
    percent = _is_percent(cand.raw) == _is_percent(choice.printed)
    return percent and number is not None and shown is not None and _same(shown, number)


def _ocr_confidence(doc: DocumentView, cand: Candidate) -> float | None:
    """The lowest OCR confidence (0-100) of the words the candidate's value was read from, or None when
    they come from a text layer. A candidate without a character span is judged by its whole page."""
    words = doc.words
    if words is None or "source" not in words.columns:  # a parse from before OCR
        return None
    on_page = words.filter((pl.col("page") == cand.page) & (pl.col("source") == "ocr"))
    if on_page.height == 0:
        return None
    if cand.char_span is not None:
        start, end = cand.char_span
        on_page = on_page.filter((pl.col("char_end") > start) & (pl.col("char_start") < end))
        if on_page.height == 0:
            return None
    low = on_page["conf"].min()
    return float(low) if isinstance(low, int | float) else 0.0


def _lines_by_page(doc: DocumentView) -> dict[int, list[Line]]:
    """Visual lines of every page with text, built once per document and shared by all fields."""

    def build() -> dict[int, list[Line]]:
        assert doc.words is not None
        lines = lines_by_page(doc.words)
        n_pages = max(lines, default=0)
        return {p: ls for p, ls in lines.items() if not is_contents_page(ls, n_pages)}

    return doc.memo("lines", build)


def _prose_windows(doc: DocumentView, lines: dict[int, list[Line]]) -> list[ProseWindow]:
    """The document's prose windows, built once and shared by all fields."""
    return doc.memo("prose_windows", lambda: prose_windows(lines))
