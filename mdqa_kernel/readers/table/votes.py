"""Votes cast at a shareholders' meeting, read from the results an 8-K (Item 5.07) prints.

A meeting's results are a list of numbered proposals, each with its tally:

    (1) The following 15 persons were elected to serve as directors of PepsiCo:
    Nominee For Against Abstain Broker Non-Votes
    Ramon L. Laguarta 943,626,804 69,085,058 7,436,027 172,969,325
    (2) The shareholders ratified the appointment of KPMG LLP as the independent registered public …
    For 1,125,448,378
    Against 65,112,424

A field "Votes FOR Ramon L. Laguarta as director" is read from the nominee's row, in the column the header
names; "Votes FOR auditor ratification" from the "For" line of the proposal whose words match the field's
(by their first five letters, or by a glossary name: "auditor" is printed "accounting firm").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdqa_kernel.readers.table.candidates import Candidate, line_bbox, line_span
from mdqa_kernel.text.labels import english_synonyms, normalize_label
from mdqa_kernel.text.layout import Line

_CHOICE = r"for|against|abstain(?:ed)?|withheld|broker\s+non-votes"  # as a tally line names it
_FIELD = re.compile(
    rf"^\s*(?:number\s+of\s+)?votes?\s+(?:cast\s+)?(?P<choice>{_CHOICE}|abstaining)\s+(?P<subject>.+?)\s*$",
    re.I,
)
_PROPOSAL = re.compile(
    r"^\s*(?:\(\d{1,2}\)|\d{1,2}\.\s|proposal\s+(?:no\.\s*)?\d{1,2}\b|item\s+\d{1,2}\b)", re.I
)
_NUMBER = r"\d{1,3}(?:,\d{3})+|\d+"
_TALLY = re.compile(rf"^\s*(?P<choice>{_CHOICE})\s*:?\s+(?P<n>{_NUMBER})\s*$", re.I)
_ROW_NUMBER = re.compile(rf"(?<![\w.])(?:{_NUMBER})(?![\w.])")
_STOP = frozenset({"votes", "vote", "shareholder", "shareholders", "proposal", "approval", "the", "with"})


@dataclass
class _Proposal:
    page: int
    text: str  # the proposal's own words, before its tally
    lines: list[Line]  # its tally lines and rows


def _choice(word: str) -> str:
    w = word.lower()
    return "abstain" if w.startswith("abstain") else re.sub(r"\s+", " ", w)


def vote_counts(lines_by_page: dict[int, list[Line]], description: str) -> list[Candidate]:
    """The votes a field names ("Votes FOR advisory executive compensation"), from every proposal whose
    tally has that choice and whose words (or nominee row) match the field's subject."""
    m = _FIELD.match(description)
    if m is None:
        return []
    choice, subject = _choice(m["choice"]), m["subject"]
    out = []
    for proposal in _proposals(lines_by_page):
        out += _nominee_votes(proposal, choice, subject)
        overlap = _overlap(subject, proposal.text)
        if overlap < 0.5:
            continue
        for line in proposal.lines:
            t = _TALLY.match(line.text)
            if t and _choice(t["choice"]) == choice:
                out.append(
                    _candidate(line, t["n"], f"{proposal.text} … {line.text}", round(0.85 * overlap, 4))
                )
    return out


def _proposals(lines_by_page: dict[int, list[Line]]) -> list[_Proposal]:
    """Numbered proposals, each with its words (up to its first tally line or table header) and lines."""
    out: list[_Proposal] = []
    for page, lines in lines_by_page.items():
        current: _Proposal | None = None
        for line in lines:
            if _PROPOSAL.match(line.text):
                current = _Proposal(page, line.text, [])
                out.append(current)
            elif current is not None:
                if not current.lines and not _TALLY.match(line.text) and not _header(line.text):
                    current.text += " " + line.text  # the proposal's sentence wraps
                else:
                    current.lines.append(line)
    return out


def _header(text: str) -> list[str]:
    """The choices a tally table's header names, in order ("Nominee For Against Abstain Broker Non-Votes");
    empty for any other line."""
    if re.search(r"\d", text):
        return []
    found = re.findall(r"\b(For|Against|Abstain(?:ed)?|Withheld|Broker\s+Non-Votes)\b", text)
    return [_choice(f) for f in found] if len(found) >= 2 and found[0] in ("For", "Against") else []


def _nominee_votes(proposal: _Proposal, choice: str, subject: str) -> list[Candidate]:
    """A nominee's row under a header naming the choices: the cell in the choice's column, when the
    subject names the nominee ("Ramon L. Laguarta as director")."""
    out = []
    columns: list[str] = []
    wanted = normalize_label(subject)
    for line in proposal.lines:
        if header := _header(line.text):
            columns = header
            continue
        if choice not in columns:
            continue
        numbers = list(_ROW_NUMBER.finditer(line.text))
        if len(numbers) != len(columns):
            continue
        name = normalize_label(line.text[: numbers[0].start()])
        if len(name) >= 4 and name in wanted:
            out.append(_candidate(line, numbers[columns.index(choice)].group(0), line.text, 0.9))
    return out


def _overlap(subject: str, text: str) -> float:
    """Share of the subject's words the proposal's text has: by their first five letters, or (for a word
    the glossary knows) under any of its English names ("auditor" as "accounting firm")."""
    words = [w for w in re.findall(r"[a-z]{4,}", subject.lower()) if w not in _STOP]
    if not words:
        return 0.0
    stems = {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower())}
    compact = normalize_label(text)
    hit = sum(1 for w in words if w[:5] in stems or any(n in compact for n in english_synonyms(w)))
    return hit / len(words)


def _candidate(line: Line, raw: str, snippet: str, score: float) -> Candidate:
    return Candidate("votes", line.page, raw, snippet, score, line_bbox(line), line_span(line))
