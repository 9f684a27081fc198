"""Choosing a field's answer among the table reader's candidates: each candidate typed to the field
(`typed_value`: share basis, sign of a deducted expense, scale), checked for plausibility, ranked (a
plausible reading first; at equal scores a primary statement's row), the exact figure kept where agreeing
readings round it, and the confidence lowered where equally good readings disagree or OCR doubts the
words the value was read from (`best_reading`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import polars as pl

from mdqa_kernel.readers.base import DocumentView, Evidence, FieldLike, ReadResult, found, not_found
from mdqa_kernel.readers.confidence import (
    BALANCE_FOR_FLOW,
    NAMED_STATEMENT_ELSEWHERE,
    NO_STATEMENT_ROW,
    NO_STATEMENT_ROW_SENTENCE,
    OCR_DOUBTFUL,
    OCR_TRUSTED_WORD,
    RIVALS_FACTOR,
    ROUNDED_ONLY,
    UNSIGNED_ELSEWHERE,
)
from mdqa_kernel.readers.plausibility import asks_scaled_unit, checked, reading_implausibility
from mdqa_kernel.readers.semantics import (
    asks_expense,
    asks_flow,
    asks_magnitude,
    asks_paid_out,
    asks_printed_sign,
    deducted_expense,
    field_basis,
    field_scope,
    rebase,
    share_basis,
)
from mdqa_kernel.readers.table.candidates import Candidate, declared_scale_word, label_before
from mdqa_kernel.readers.table.readings import Reading, agree, in_scope, in_statement, tolerance
from mdqa_kernel.text.fieldtypes import NUMERIC_TYPES, coerce
from mdqa_kernel.text.statement_titles import asked_statement, asks_note
from mdqa_kernel.text.values import declared_scale, find_numbers, is_absent, parse_number, to_field_scale


def _balances_for_flow(
    field: FieldLike, typed: list[Reading], statement_pages: Callable[[], dict[int, str | None]]
) -> None:
    """For a field asking a flow ("… expense for the fiscal year"), lower the readings on a balance sheet's page:
    a line of a like name there ("Deferred income taxes", a liability at the year's end) stood at a date."""
    if not asks_flow(field.description):
        return
    pages = statement_pages()
    for t in typed:
        if pages.get(t.cand.page) == "balance":
            t.score = round(t.score * BALANCE_FOR_FLOW, 4)


def best_reading(
    doc: DocumentView,
    field: FieldLike,
    candidates: list[Candidate],
    reader: str,
    statement_pages: Callable[[], dict[int, str | None]],
) -> ReadResult:
    """The field's answer from its candidates: each typed and checked for plausibility, a plausible reading
    before an implausible one, the exact figure of agreeing readings, the confidence lowered where equally
    good readings disagree or OCR doubts the printed value. `statement_pages` (page → the primary statement
    it prints) is asked only for a field of the group's consolidated statements."""
    typed: list[Reading] = []
    for cand in candidates:
        try:
            value, applied = typed_value(field, cand)
        except ValueError:
            continue
        if value is not None:
            why = (
                reading_implausibility(field, value, cand.raw, cand.snippet)
                if field.type in NUMERIC_TYPES
                else None
            )
            typed.append(Reading(cand, value, applied, cand.score, why))
    if not typed:
        return not_found(doc.doc_id, field.name, reader, "no row, line or statement names this field")
    typed, scope_note = in_scope(field, typed)
    # only the group's statements define a consolidated field's line items
    statements = statement_pages() if field_scope(field) == "consolidated" else {}
    asked = asked_statement(field.description) if statements else None
    if asked is not None:
        # "… as printed in the cash flow statement": the same label elsewhere is another table's
        signed = asks_printed_sign(field.description)
        elsewhere = [t for t in typed if statements.get(t.cand.page) != asked]
        # the statement is printed but none of its rows reads the field: a note's row of the same name is
        # not trusted alone
        unread = len(elsewhere) == len(typed) and asked in statements.values()
        for t in elsewhere:
            factor = NAMED_STATEMENT_ELSEWHERE
            if unread:
                factor *= NO_STATEMENT_ROW_SENTENCE if t.cand.kind == "prose" else NO_STATEMENT_ROW
            t.score = round(t.score * factor, 4)
            if signed and (parse_number(t.cand.raw) or 0.0) >= 0:
                # "Total capital expenditures $649" in the discussion, "(649)" in the statement
                t.score = round(t.score * UNSIGNED_ELSEWHERE, 4)
    elif statements and asks_note(field.description):
        # "(the income tax note's total of … deferred taxes)": a statement's line of a like name ("Deferred
        # income taxes" among the cash-flow adjustments) is another measure where the note prints the figure
        for t in typed:
            if statements.get(t.cand.page) is not None:
                t.score = round(t.score * NAMED_STATEMENT_ELSEWHERE, 4)
    _balances_for_flow(field, typed, statement_pages)
    # A plausible reading goes before any implausible one, whatever their scores: a headcount read
    # from a row about shares must not win over the one read from the sentence about employees. At
    # equal scores a primary statement's row goes first: that is where its line items are defined.
    typed.sort(key=lambda t: (t.why is not None, -t.score, not in_statement(t, statements), t.cand.page))
    chosen = typed[0]
    confidence = chosen.score
    notes = [scope_note] if scope_note and chosen.cand.scope else []
    agreeing = [t for t in typed[1:] if t.why is None and agree(field, t, chosen)]
    exact = min([chosen, *agreeing], key=lambda t: tolerance(field, t))
    if exact is not chosen:
        # "$60.9 billion" in prose and 60,915 (in millions) in a table are one fact: the exact figure.
        notes.append(f"{chosen.cand.kind} {chosen.cand.raw!r} rounds it")
        chosen = exact
    elif chosen.cand.kind == "prose" and asks_scaled_unit(field) and tolerance(field, chosen) > 0.5:
        confidence = min(confidence, ROUNDED_ONLY)
        notes.append("printed rounded coarser than the field's unit; no exact figure found")
    # A note's or a summary's row with the same label does not put a primary statement's reading in
    # doubt (the chosen value is the statement's when a statement's row agrees with it: "Net revenues" of
    # the selected financial data above the statement's "Total net revenues"); two statements' rows, or two
    # rows of neither, that disagree do.
    stated = any(in_statement(t, statements) for t in [chosen, *agreeing])
    rivals = [
        t
        for t in typed[1:]
        if t.why is None
        and t.score >= confidence - 0.05
        and t is not chosen
        and not agree(field, t, chosen)
        and not (stated and not in_statement(t, statements))
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
        reader,
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
            reader=reader,
        ),
        message="; ".join([message + ocr_note, *notes]),
    )
    # A value no real document holds (999999999 employees), or one the words around it deny (a
    # percentage for an amount), is kept for review, never confident.
    return checked(field, result, best.raw if field.type in NUMERIC_TYPES else None)


def typed_value(field: FieldLike, cand: Candidate) -> tuple[Any, float | None]:
    """A candidate's value in the field's type and scale, and the scale applied; (None, None) where it
    prints no number."""
    if field.type == "boolean":
        return cand.boolean, None
    if field.type in ("text", "date", "list_text"):
        return coerce(cand.raw, field.type), None
    number = cand.number if cand.number is not None else number_of(cand)
    if number is None:
        return None, None
    wanted = field_basis(field)
    if wanted is not None:
        # "每10股派发现金红利3元" is 3 per 10 shares: 0.30 for a field asking per share, 3 per 10 shares.
        number = rebase(number, cand.basis or _basis_before(cand), wanted)
    spent = number < 0 and asks_expense(field) and deducted_expense(label_before(cand))
    if spent or (number > 0 and asks_paid_out(field)):
        number = -number
    if asks_magnitude(field):
        number = abs(number)
    scale = cand.scale or 1.0
    value = to_field_scale(number, scale, field.scale or 1.0)
    return coerce(value, field.type), scale


def _basis_before(cand: Candidate) -> int | None:
    """The share basis named just before the printed value in its row or sentence ("每10股派息数（元）")."""
    at = cand.snippet.find(cand.raw)
    return share_basis(cand.snippet[:at] if at > 0 else cand.snippet)


def number_of(cand: Candidate) -> float | None:
    """The number a candidate prints: its parsed number, or the one number of a "label: value" line with
    the scale word after it."""
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
            scale = declared_scale(cand.raw[m.end() : m.end() + 8]) or declared_scale_word(
                cand.raw[m.end() :]
            )
            if scale:
                cand.scale, cand.scale_word = scale
    return value


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
