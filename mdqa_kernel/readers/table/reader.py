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
    COMMON_NOT_COMPANY,
    CONFIDENT,
    LOSS_UNSIGNED,
)
from mdqa_kernel.readers.plausibility import field_kind
from mdqa_kernel.readers.semantics import (
    asks_expense,
    asks_percent,
    asks_printed_sign,
    deducted_expense,
    field_basis,
    signed_by_sums,
)
from mdqa_kernel.readers.table.arithmetic import Use, use_in_column
from mdqa_kernel.readers.table.auditor import asks_auditor, auditor_signature
from mdqa_kernel.readers.table.candidates import (
    Candidate,
    column_dates,
    column_values,
    counts,
    key_values,
    statement_phrase,
    statements,
)
from mdqa_kernel.readers.table.choice import best_reading, number_of, typed_value
from mdqa_kernel.readers.table.columns import (
    cell_span,
    change_cell,
    column_verdicts,
    document_period,
    measure_cells,
    page_rows,
    period_cell,
    qualified_columns,
    row_fits,
    under_note,
    value_columns,
)
from mdqa_kernel.readers.table.continued import carried_headers, continuation
from mdqa_kernel.readers.table.dated import dated_reading, undated
from mdqa_kernel.readers.table.derived import (
    group_count,
    group_members,
    largest_holding,
    membership,
    presupposed_fact,
)
from mdqa_kernel.readers.table.naming import field_label_set, gross_unsaid, row_score, specific
from mdqa_kernel.readers.table.people import people_count
from mdqa_kernel.readers.table.prose import document_windows, label_then_value
from mdqa_kernel.readers.table.prose_facts import dividend_of_year, dividend_per_share, firm_in_role, share_of
from mdqa_kernel.readers.table.readings import same
from mdqa_kernel.readers.table.repurchases import remaining_authorization, remaining_in_prose
from mdqa_kernel.readers.table.rollforward import rollforward_readings
from mdqa_kernel.readers.table.schedule import schedule_amounts
from mdqa_kernel.readers.table.scope import cell_scale, line_index, line_scale, scope_at
from mdqa_kernel.readers.table.share_counts import share_counts
from mdqa_kernel.readers.table.site_counts import site_count
from mdqa_kernel.readers.table.subjects import sentence_subjects, subject_then_value
from mdqa_kernel.readers.table.version import TABLE_READER_VERSION
from mdqa_kernel.readers.table.votes import vote_counts
from mdqa_kernel.text.fieldtypes import NUMERIC_TYPES
from mdqa_kernel.text.headers import column_headers, note_columns
from mdqa_kernel.text.holders import (
    asks_whole_with_noncontrolling,
    names_common_holders,
    names_noncontrolling_income,
    names_owners_share,
)
from mdqa_kernel.text.labels import (
    LabelSet,
    is_topic,
    phrase_variants,
    sign_of_pair,
)
from mdqa_kernel.text.layout import Cell, Line, is_contents_page, lines_by_page
from mdqa_kernel.text.period_fit import asked_year, asks_sequential_quarter
from mdqa_kernel.text.periods import Period, ReportPeriod, wanted_period
from mdqa_kernel.text.row_context import section_heading
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.sections import with_section
from mdqa_kernel.text.statement_context import asks_company_amount, change_base, names_loss
from mdqa_kernel.text.statement_titles import page_statement
from mdqa_kernel.text.values import parse_number

# candidates(): how many readings a chooser is shown, and the rank of a cell in another period's
# column relative to its row's label score (below every reading of the current period).
MAX_CHOICES = 8
OTHER_PERIOD = 0.5
_DATE_LIST = re.compile(r"日期|\bdates\b", re.IGNORECASE)
_DIVIDEND = re.compile(r"股利|分红|派息|红利|dividend", re.IGNORECASE)


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
        if isinstance(gathered, ReadResult):
            return gathered
        return best_reading(doc, field, gathered, self.name, lambda: _statement_pages(doc))

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
                value, applied = typed_value(field, cand)
            except ValueError:
                continue
            if value is None or (_is_percent(cand.raw) and field.type != "percent" and applied != 0.01):
                # a share printed beside an amount ("As a percent of revenue 13%") is not the amount;
                # only a ratio the reader read as one (82.84% as 0.8284) is offered for a number field
                continue
            typed.append((cand, value, applied))
        typed.sort(key=lambda t: (-t[0].score, t[0].page))  # as `best_reading` ranks them
        out: list[Choice] = []
        for cand, value, applied in typed:
            if any(same(c.value, value) or _same_print(c, cand) for c in out):
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
            windows = document_windows(doc, lines)
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
                scale, scale_word, _conf = cell_scale(doc, field, row, page_ls, cell)
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
        company_amount = asks_company_amount(field.description)
        whole = asks_whole_with_noncontrolling(field.description)
        for page, page_ls in lines.items():
            rows = page_rows(doc, page, page_ls)
            for row in rows:
                score = row_score(page_ls, row, labels, field)
                # the whole is asked and the row's statement deducts a noncontrolling share: the owners'
                # share is not it (a filing naming one only elsewhere may print the owners' as its whole)
                if score and whole and names_owners_share(row.label) and _deducts_noncontrolling(page_ls):
                    score = 0.0
                # the common shareholders' net income is after preferred dividends: not the company's
                if (
                    score
                    and company_amount
                    and names_common_holders(row.label)
                    and not doc.noncontrolling_income()
                ):
                    score = round(score * COMMON_NOT_COMPANY, 4)
                if score >= self.min_label_score:
                    yield page, page_ls, row, score

    # -- numeric fields -------------------------------------------------------------------------
    def _numeric_candidates(
        self, doc: DocumentView, field: FieldLike, labels: LabelSet, lines: dict[int, list[Line]]
    ) -> list[Candidate]:
        out: list[Candidate] = []
        per_share = field_basis(field) is not None
        windows = document_windows(doc, lines)
        report = document_period(doc)
        period = (wanted_period(field.description, report), report)
        if per_share and _DIVIDEND.search(field.description):
            months, year = period[0].months, asked_year(*period)
            out += undated(dividend_per_share(windows, months, year), period)
            out += dividend_of_year(windows, year, months)
        table = self._table_candidates(doc, field, labels, lines, period)
        table += self._change_candidates(doc, field, lines, period)
        table += share_counts(doc, field.description, lines, *period)  # "1,221 shares outstanding at …"
        # "2024 | $ 5,250" in a schedule of debt maturities for the first fiscal year after the report; its total
        table += schedule_amounts(doc, field.description, lines, *period)
        # "Acquisitions | 25 28 — 3 56" between two goodwill balances that add up, in the report's year; a
        # roll-forward's balance ("Balance at December 31, 2023 | 13,630,882") only where no row names the field
        table += rollforward_readings(doc, field, lines, *period, balances=not table)
        # "Total | 1.8 | $ 174.04 | 1.8 | $ 8,500" under "Approximate Dollar Value of Shares that May Yet Be Purchased"
        table += remaining_authorization(doc, field, lines, *period)
        out += table
        # A two-cell row ("Total assets   411,976") is also a key-value line, but only its table reading
        # knows the scale declared above it ("(In millions)").
        rows = {(c.page, round(c.bbox[1])) for c in table if c.bbox is not None}
        out += [
            specific(c, field.description)
            for c in key_values(lines, labels)
            if number_of(c)
            and not (c.bbox is not None and c.scale is None and (c.page, round(c.bbox[1])) in rows)
        ]
        want = "integer" if field.type == "integer" else "number"
        subjects = doc.memo("sentence_subjects", lambda: sentence_subjects(windows))
        out += label_then_value(lines, labels, want, windows) + subject_then_value(
            subjects, field.description, want
        )
        out += remaining_in_prose(windows, field, period[0])  # "authorization for $5.7 billion … remained"
        if field.type == "integer":
            out += counts(lines, field.description) + group_count(lines, field.description)
            out += vote_counts(lines, field.description)
            out += site_count(windows, field)  # "We had 1,138 stores at the end of fiscal 2023"
        kind = field_kind(field)
        if field.type == "integer" or (kind is not None and kind.name == "people"):
            out += people_count(windows, field.description)  # "Employees" typed as a number, too
        if field.type == "percent":
            out += largest_holding(lines, field.description) + share_of(windows, field.description)
        dated: list[Candidate] = []
        for cand in out:
            if cand.kind in ("prose", "key_value"):
                cand = gross_unsaid(cand, field.description)
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
                cand.scope = scope_at(doc, lines, page, row.line.index, table_row=True)
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
        if row_fits(row, *period) is not None:
            cells = measure_cells(cells, lines, row, field)  # a roll-forward row's count beside its price
        if qualified := qualified_columns(lines, row, cells, field.description):
            cells = [cells[k] for k in qualified]  # the operating leases' total beside the finance leases'
        carry = continuation(doc, _lines_by_page(doc), row)
        carried = carried_headers(cells, carry.headers)
        if chooser is period_cell:
            picked = period_cell(cells, lines, row, *period, carried=carried)
        else:
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
        # a continued row under no header of its own page takes its table's scale on the page before
        source = (
            carry.source if carried and not any(column_headers(lines, row.line.index, row.cells)) else None
        )
        scale, scale_word, scale_conf = cell_scale(doc, field, row, lines, cell, source)
        if cell.value > 0 and names_loss(with_section(section_heading(lines, row.line.index), row.label),
                                         field.description):  # fmt: skip
            scale_conf *= LOSS_UNSIGNED
        label = row.label or row.extended_label
        sign = sign_of_pair(label, field.description)
        if sign is None and cell.value and not asks_printed_sign(field.description):
            # "Income tax (expense)/benefit" for a field naming neither side nor its sign convention: a field
            # stating "a loss in parentheses is negative" takes the row as printed
            scale_conf *= LOSS_UNSIGNED
        elif sign == 1 and cell.value and signed_by_sums(field.description, label):
            use = use_in_column(page_rows(doc, row.page, lines), row, cell)
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


def _is_percent(printed: str) -> bool:
    return "%" in printed or "％" in printed


def _same_print(choice: Choice, cand: Candidate) -> bool:
    """Whether a candidate prints the same number as a choice ("5,897.8" and "$5,897.8")."""
    number = parse_number(cand.raw.strip().lstrip("$¥￥€£ "))
    shown = parse_number(choice.printed.lstrip("$¥￥€£ "))
    percent = _is_percent(cand.raw) == _is_percent(choice.printed)
    return percent and number is not None and shown is not None and same(shown, number)


def _deducts_noncontrolling(page_ls: list[Line]) -> bool:
    """The page names income shared with a noncontrolling interest (its statement deducts their share)."""
    return names_noncontrolling_income(" ".join(line.text for line in page_ls))


def _lines_by_page(doc: DocumentView) -> dict[int, list[Line]]:
    """Visual lines of every page with text, built once per document and shared by all fields."""

    def build() -> dict[int, list[Line]]:
        assert doc.words is not None
        lines = lines_by_page(doc.words)
        n_pages = max(lines, default=0)
        return {p: ls for p, ls in lines.items() if not is_contents_page(ls, n_pages)}

    return doc.memo("lines", build)
