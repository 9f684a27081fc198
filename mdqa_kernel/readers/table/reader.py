"""The table reader: deterministic, cheap, and honest about its confidence.

For a numeric field it finds the table row whose label names the field (Chinese or English, synonyms
from a glossary and from the description), picks the column of the document's fiscal year from the
header (2022 / 2022年度 / 本期 vs 上期 / Current year), applies the scale declared above the table
or in the row label (元/千元/万元/亿元, thousands/millions/billions) and parses the printed number
(thousands separators, parentheses for negatives, full-width digits, numbers wrapped inside a cell).
Outside tables it reads the few facts that are safe without a model (see `textfacts` and `prose`) and
the votes of a shareholders' meeting (`votes`).

When the label is ambiguous, the period column unknown or candidates disagree, the result carries a
low confidence: the cascade then asks the LLM instead of trusting a guess.
"""

from __future__ import annotations

import re
from typing import Any

from mdqa_kernel.plan.ir import FieldSpec
from mdqa_kernel.readers.base import (
    READERS,
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
    RIVALS_FACTOR,
    UNDECLARED_SCALE,
)
from mdqa_kernel.readers.plausibility import checked
from mdqa_kernel.readers.table.candidates import (
    Candidate,
    column_dates,
    column_values,
    counts,
    key_values,
    statement_phrase,
    statements,
)
from mdqa_kernel.readers.table.derived import (
    group_count,
    group_members,
    largest_holding,
    membership,
    presupposed_fact,
)
from mdqa_kernel.readers.table.prose import (
    ProseWindow,
    dividend_per_share,
    firm_in_role,
    label_then_value,
    people_count,
    prose_windows,
    share_of,
)
from mdqa_kernel.readers.table.votes import vote_counts
from mdqa_kernel.text.fieldtypes import NUMERIC_TYPES, coerce
from mdqa_kernel.text.labels import (
    LabelSet,
    field_labels,
    is_topic,
    label_score,
    normalize_label,
    phrase_variants,
)
from mdqa_kernel.text.layout import (
    CURRENT_WORDS,
    Line,
    Row,
    header_marks,
    is_contents_page,
    nearest_mark,
    page_lines,
    table_rows,
)
from mdqa_kernel.text.statement_context import (
    description_heads,
    head_cover,
    is_english,
    section_heading,
    section_refuses,
    specificity,
    with_section,
    without_attributable,
)
from mdqa_kernel.text.values import (
    declared_scale,
    find_numbers,
    parse_number,
    to_field_scale,
)

TABLE_READER_VERSION = "table-15"  # 4: disclosure topics under their printed names; 5: date lists;
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
# 15 (statements): English rows read in their statement context (text/statement_context.py) — no amount
# from a per-share block, no balance from a "changes in …" block, "Diluted" under its "Earnings per share:"
# heading; the description's line item without qualifiers and its "(net sales)" alternative name it; a
# component ("Transaction-based revenue") is not the total; "attributable to the company" is preferred
# when asked, a noncontrolling share never taken
_DATE_LIST = re.compile(r"日期|\bdates\b", re.IGNORECASE)
_PER_SHARE = re.compile(r"每股|per\s+share|/\s*share|每\s*10\s*股|\beps\b", re.IGNORECASE)
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
        if doc.words is None or doc.words.height == 0:
            return not_found(
                doc.doc_id, field.name, self.name, "document has no text layer (scanned or empty)"
            )
        labels = field_labels(field.name, field.description)
        if is_english(field.description):
            # the line item without its qualifiers and its alternative name ("(net sales)") name it too
            heads = [normalize_label(h) for h in description_heads(field.description)]
            extra = tuple(h for h in heads if len(h) >= 2 and h not in labels.all)
            labels = LabelSet(labels.primary + extra, labels.synonyms)
        lines = _lines_by_page(doc)
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
            fact = presupposed_fact(field.description) if not candidates else None
            if fact is not None:
                return self._absent_with(doc, field, fact, question) or self._best(doc, field, candidates)
        elif field.type == "boolean":
            derived = membership(lines, field.description)
            if derived:
                return self._best(doc, field, derived)
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
        return self._best(doc, field, candidates)

    # -- numeric fields -------------------------------------------------------------------------
    def _numeric_candidates(
        self, doc: DocumentView, field: FieldLike, labels: LabelSet, lines: dict[int, list[Line]]
    ) -> list[Candidate]:
        out: list[Candidate] = []
        per_share = bool(_PER_SHARE.search(field.description))
        windows = _prose_windows(doc, lines)
        if per_share and _DIVIDEND.search(field.description):
            out += dividend_per_share(windows)
        out += self._table_candidates(doc, field, labels, lines)
        out += [_specific(c, field.description) for c in key_values(lines, labels) if _number_of(c)]
        out += label_then_value(lines, labels, "integer" if field.type == "integer" else "number", windows)
        if field.type == "integer":
            out += counts(lines, field.description) + group_count(lines, field.description)
            out += people_count(windows, field.description) + vote_counts(lines, field.description)
        if field.type == "percent":
            out += largest_holding(lines, field.description) + share_of(windows, field.description)
        return out

    def _table_candidates(
        self, doc: DocumentView, field: FieldLike, labels: LabelSet, lines: dict[int, list[Line]]
    ) -> list[Candidate]:
        out = []
        preferred = tuple(w for w in CURRENT_WORDS if w in field.description)
        per_share = bool(_PER_SHARE.search(f"{field.description} {field.unit or ''}"))
        for page, page_ls in lines.items():
            rows = doc.memo(f"rows:{page}", lambda page_ls=page_ls: table_rows(page_ls))
            for row in rows:
                texts = [row.label, row.extended_label, *row.variants]
                if is_english(row.label or row.extended_label) and is_english(field.description):
                    # English statements: the row's section and how specific its label is count too
                    section = section_heading(page_ls, row.line.index)
                    if section_refuses(section, field.description, per_share):
                        continue
                    if section:
                        texts.append(with_section(section, row.label))
                    score = max(_english_fit(v, labels, field.description, row.label) for v in texts)
                else:
                    score = max(label_score(v, labels) for v in texts)
                if score < self.min_label_score:
                    continue
                cand = self._pick_cell(doc, field, row, page_ls, score, preferred)
                if cand is not None:
                    out.append(cand)
        return out

    def _pick_cell(
        self,
        doc: DocumentView,
        field: FieldLike,
        row: Row,
        lines: list[Line],
        score: float,
        preferred: tuple[str, ...],
    ) -> Candidate | None:
        label_has_pct = "%" in row.label or "％" in row.label
        if field.type == "percent":
            cells = [c for c in row.cells if c.percent] or ([c for c in row.cells] if label_has_pct else [])
        else:
            # A ratio field printed as a percentage ("Gross margin 82.84%") reads as 0.8284.
            cells = [c for c in row.cells if not c.percent] or [c for c in row.cells if c.percent]
        cells = [c for c in cells if c.value is not None]
        if not cells:
            return None
        marks = header_marks(lines, row.line.index, doc.year, preferred)
        current = [m for m in marks if m.period == "current"]
        if current:
            chosen = [c for c in cells if nearest_mark(c, marks) in current]
            col_conf = 1.0 if len(chosen) == 1 else 0.6
            cell = chosen[0] if chosen else None
            if cell is None:
                return None
        elif marks:
            return None  # the header names only other periods: this table is not about this year
        else:
            cell = cells[0]
            col_conf = 0.9 if len(cells) == 1 else 0.3
        if field.type != "percent" and cell.percent:
            return Candidate(
                "table",
                row.page,
                cell.text,
                row.snippet,
                round(score * col_conf, 4),
                cell.bbox,
                _cell_span(cell),
                scale=0.01,
                scale_word="%",
            )
        scale, scale_word, scale_conf = self._scale(doc, field, row, lines)
        return Candidate(
            "table",
            row.page,
            cell.text,
            row.snippet,
            round(score * col_conf * scale_conf, 4),
            cell.bbox,
            _cell_span(cell),
            scale=scale,
            scale_word=scale_word,
        )

    def _scale(
        self, doc: DocumentView, field: FieldLike, row: Row, lines: list[Line]
    ) -> tuple[float, str | None, float]:
        """(printed scale, its word, confidence): from the row label, else the nearest declaration above."""
        if field.type == "percent" or _PER_SHARE.search(f"{field.description} {field.unit or ''}"):
            # "(In millions, except per share data)": per-share amounts are printed as they are.
            return 1.0, None, KNOWN_SCALE
        own = declared_scale(row.label) or declared_scale(row.extended_label)
        if own:
            return own[0], own[1], KNOWN_SCALE
        for j in range(row.line.index - 1, -1, -1):
            found = declared_scale(lines[j].text)
            if found:
                return found[0], found[1], KNOWN_SCALE
        if field.type == "integer" or (field.unit or "").lower() in _COUNT_UNITS:
            return 1.0, None, COUNT_SCALE
        return 1.0, None, UNDECLARED_SCALE  # nothing declared: probably units, but say so

    # -- choosing ---------------------------------------------------------------------------------
    def _best(self, doc: DocumentView, field: FieldLike, candidates: list[Candidate]) -> ReadResult:
        typed: list[tuple[Candidate, Any, float | None]] = []
        for cand in candidates:
            try:
                value, applied = self._typed(field, cand)
            except ValueError:
                continue
            if value is not None:
                typed.append((cand, value, applied))
        if not typed:
            return not_found(doc.doc_id, field.name, self.name, "no row, line or statement names this field")
        typed.sort(key=lambda t: (-t[0].score, t[0].page))
        best, value, applied = typed[0]
        confidence = best.score
        rivals = [t for t in typed[1:] if t[0].score >= best.score - 0.05 and not _same(t[1], value)]
        if rivals:
            # Two equally good readings disagree (the same label in two tables, two years...): do not guess.
            confidence = round(confidence * RIVALS_FACTOR, 4)
        # A value no real document holds (999999999 employees) is kept for review, never confident.
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
            message=f"{best.kind}: {best.raw!r}"
            + (f" ×{applied:g} ({best.scale_word})" if applied and applied != 1 else ""),
        )
        return checked(field, result)

    def _typed(self, field: FieldLike, cand: Candidate) -> tuple[Any, float | None]:
        if field.type == "boolean":
            return cand.boolean, None
        if field.type in ("text", "date", "list_text"):
            return coerce(cand.raw, field.type), None
        number = cand.number if cand.number is not None else _number_of(cand)
        if number is None:
            return None, None
        scale = cand.scale or 1.0
        value = to_field_scale(number, scale, field.scale or 1.0)
        return coerce(value, field.type), scale


def _english_fit(text: str, labels: LabelSet, description: str, own_label: str) -> float:
    """An English row label's score: the string match, the label without its "attributable to …"
    clause, or its words covering the description's head — times how specific it is (a component or
    a noncontrolling share scores lower or zero; see text/statement_context.py)."""
    if not is_english(text):
        return label_score(text, labels)
    base = max(
        label_score(text, labels),
        label_score(without_attributable(text), labels),
        head_cover(text, description),
    )
    return round(base * specificity(text, description, own_label), 4)


def _specific(cand: Candidate, description: str) -> Candidate:
    """A "label: value" line judged like a table row's label: how specific it is for the description
    (so "Net income $ 20,234" does not outrank "Net income attributable to X" in the statements)."""
    at = cand.snippet.find(cand.raw.strip()) if cand.raw.strip() else -1
    label = cand.snippet[:at] if at > 0 else ""
    if is_english(label) and is_english(description):
        cand.score = round(cand.score * specificity(label, description), 4)
    return cand


def _number_of(cand: Candidate) -> float | None:
    if cand.number is not None:
        return cand.number
    value = parse_number(cand.raw)
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


def _cell_span(cell: Any) -> tuple[int, int] | None:
    starts = [w.char_start for w in cell.words if w.char_start >= 0]
    ends = [w.char_end for w in cell.words if w.char_end >= 0]
    return (min(starts), max(ends)) if starts and ends else None


def _lines_by_page(doc: DocumentView) -> dict[int, list[Line]]:
    """Visual lines of every page with text, built once per document and shared by all fields."""

    def build() -> dict[int, list[Line]]:
        assert doc.words is not None
        pages = doc.words["page"].unique().sort().to_list()
        lines = {p: page_lines(doc.words, p) for p in pages}
        n_pages = max(pages, default=0)
        return {p: ls for p, ls in lines.items() if not is_contents_page(ls, n_pages)}

    return doc.memo("lines", build)


def _prose_windows(doc: DocumentView, lines: dict[int, list[Line]]) -> list[ProseWindow]:
    """The document's prose windows, built once and shared by all fields."""
    return doc.memo("prose_windows", lambda: prose_windows(lines))
