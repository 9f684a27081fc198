"""English sentences whose subject names the field's line item in words of its own order: "Intangible
assets amortization expense was $978 million, …" for "Amortization of intangible assets expense". The
subject is the sentence up to its verb of being; it names the line item when its words cover the
description's head and add only harmless ones (`statement_context.head_cover`), so "The amortization
expense … included in Cost of products sold was $4.3 billion" (a part) names nothing. The value is read
after the verb as `prose.value_after` reads it after a label; the period of the sentence is judged later
(`dated.dated_reading`), as for every sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.prose import (
    SENTENCE_END,
    ProseLabel,
    ProseWindow,
    prose_candidate,
    value_after,
)
from mdqa_kernel.text.labels import normalize_label
from mdqa_kernel.text.statement_context import head_cover, is_english

_VERB = re.compile(r"\s+(?:was|were|totaled|totalled|amounted\s+to)\s", re.I)
# "… for the years ended December 31, 2018 and 2017 was $272": the sentence's period, not the subject's name
_PERIOD_PHRASE = re.compile(
    r"\s+(?:for|in|during)\s+(?:the\s+)?(?:(?:fiscal|calendar)\s+)?(?:years?|quarters?|periods?|months|fiscal"
    r"|(?:19|20)\d\d)\b.*$",
    re.I,
)
_LEADING = re.compile(r"^\W*(?:(?:the|our|its)\s+)*", re.I)
MAX_SUBJECT_WORDS = 10  # a longer stretch before the verb is more than a line item's name


@dataclass(frozen=True)
class Subject:
    """A sentence's subject before its verb of being, in a prose window."""

    window: ProseWindow
    start: int  # where the subject starts in the window's text (on its first line)
    text: str  # the subject without a leading determiner or a trailing period phrase
    verb_at: int  # where the verb's whitespace starts


def sentence_subjects(windows: list[ProseWindow]) -> list[Subject]:
    """Every sentence subject of a document's prose windows, once: each field only judges them."""
    out = []
    for w in windows:
        for verb in _VERB.finditer(w.text):
            found = _subject(w, verb.start())
            # a subject starting on the next line is read with that line's window
            if found is not None and found[0] < w.first_len:
                out.append(Subject(w, found[0], found[1], verb.start()))
    return out


def subject_then_value(subjects: list[Subject], description: str, want: str) -> list[Candidate]:
    """Readings of sentences whose subject names the description's line item (want: 'number' or 'integer'),
    worth what a row label naming it so is (`head_cover`)."""
    if not is_english(description):
        return []
    out = []
    for subject in subjects:
        fit = head_cover(subject.text, description)
        if not fit:
            continue
        w = subject.window
        label = ProseLabel(normalize_label(subject.text), fit)
        found = value_after(w.text, subject.start, subject.verb_at, label, want)
        if found is not None:
            _at, score, raw, scale, _end = found
            # the whole window: a list paired "respectively" with its years may end on the next line
            out.append(prose_candidate(w, raw, scale, score, len(w.text)))
    return out


def _subject(w: ProseWindow, verb_at: int) -> tuple[int, str] | None:
    """(start, text) of the sentence's subject before the verb at `verb_at`: from the sentence's start,
    without a leading determiner or a trailing period phrase; None when the sentence began on an earlier
    line (its subject is not all here) or runs longer than a name."""
    before = w.text[:verb_at]
    ends = list(SENTENCE_END.finditer(before))
    if ends:
        start = ends[-1].end()
    elif _begins_sentence(w.text, w.before):
        start = 0
    else:
        return None
    text = _PERIOD_PHRASE.sub("", before[start:]).strip().rstrip(",")
    lead = _LEADING.match(text)
    text = text[lead.end() :] if lead else text
    if not text or len(text.split()) > MAX_SUBJECT_WORDS:
        return None
    return start, text


def _begins_sentence(text: str, before: str) -> bool:
    """A window's text opens a sentence: no prose line precedes it, the line before ends one, or that line
    is a heading ("NOTE 9 — GOODWILL AND INTANGIBLE ASSETS") and this one starts with a capital."""
    last = before.rstrip()
    if not last or SENTENCE_END.search(last[-1] + " "):
        return True
    return text[:1].isupper() and not last.split()[-1][:1].islower()
