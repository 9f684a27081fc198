"""Counts of the field's own counted unit that a sentence says the company has, read without a model: "We had
1,138 stores at the end of fiscal 2023", "we operated 847 warehouses as of September 1, 2024". The unit is the
field's ("stores", "warehouses", "restaurants"); the sentence must say the company holds them (had, has,
operated, owned) right before the count, so stores opened, closed or remodeled are no count, nor is a bound
("we have more than 300 stores"); a count in a clause that makes it a part ("…, including the 40 stores we
operated in Canada") counts for less.
"""

from __future__ import annotations

import re

from mdqa_kernel.readers.base import FieldLike
from mdqa_kernel.readers.confidence import PROSE_PART
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.prose import SENTENCE_END, SUB_ITEM, ProseWindow, lines_candidate

# Units that other readers count (people, shares, votes) or that are no noun of things held
_NOT_SITES = frozenset(
    {"shares", "votes", "persons", "people", "employees", "count", "times", "days", "years"}
)
_HOLDS = (
    r"\b(?:we|company|it|group|corporation)\b[^.;:]{0,40}?\b(?:had|has|have|operated|operates|operate|owned"
    r"|owns|own|ran|runs)\s+(?:a\s+total\s+of\s+|approximately\s+|about\s+|nearly\s+)?"
)
_COUNT = r"(?P<n>\d{1,3}(?:,\d{3})+|\d+)"
# the count is dated at a period's end: "at the end of fiscal 2023", "as of January 28, 2023"
_AT_END = re.compile(
    r"^[^.;]{0,40}?\b(?:at\s+the\s+end\s+of|as\s+of|at)\s+(?:fiscal\s+|year[\s-]end\s+)?", re.I
)
_PART = re.compile(r"\b(?:including|of\s+which|of\s+whom|in\s+addition\s+to)\b", re.I)
HELD_COUNT = 0.85  # the company says it has them, dated at a period's end
UNDATED_COUNT = 0.7  # the company says it has them; the sentence gives no date


def _unit_noun(field: FieldLike) -> str | None:
    """The plural noun the field counts in ("stores"), or None for a field counting no such thing."""
    unit = (field.unit or "").strip().lower()
    if field.type != "integer" or not re.fullmatch(r"[a-z]+(?:[\s-][a-z]+)?s", unit) or unit in _NOT_SITES:
        return None
    return unit


def site_count(windows: list[ProseWindow], field: FieldLike) -> list[Candidate]:
    """Each "we had N <unit>" sentence's count, as a prose candidate the period check then dates."""
    noun = _unit_noun(field)
    if noun is None:
        return []
    held = re.compile(
        _HOLDS + _COUNT + r"\s+(?:[a-z-]+\s+){0,2}?" + re.escape(noun).replace(r"\ ", r"\s+") + r"\b", re.I
    )
    out = []
    for w in windows:
        for m in held.finditer(w.text):
            if m.start("n") >= w.first_len:
                break  # starts on the next line: read with that line
            head = w.text[: m.start("n")]
            sentence = SENTENCE_END.split(w.text[m.end() :], maxsplit=1)[0]
            score = HELD_COUNT if _AT_END.match(sentence) else UNDATED_COUNT
            clause = SENTENCE_END.split(w.before + " " + head)[-1]
            if _PART.search(clause) or SUB_ITEM.search(clause):
                score = PROSE_PART
            count = float(m["n"].replace(",", ""))
            out.append(lines_candidate("prose", w.page, m["n"], w.used(m.end()), score, number=count))
    return out
