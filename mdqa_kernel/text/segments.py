"""Fields about one segment of a company ("Revenue of the Intelligent Cloud segment", "Net revenue of the
Frito-Lay North America (FLNA) division") and the rows that hold them.

A segment table prints a measure as a block heading and the segments as its rows ("Revenues:" /
"Commercial Airplanes $25,867"), or a segment as the heading and its measures as rows ("Intelligent Cloud"
/ "Revenue $87,907"). A row holds the field when its label names the segment and its block's heading
names the measure, or the other way round; the same segment under another measure ("Operating income",
"Additions to property, plant and equipment") or another segment under the measure is another fact. The
measure may also head a run of columns ("Net Revenue | Operating Profit/(Loss)" over the years of each):
then the segment's row is read in that run only. English filings only.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from mdqa_kernel.text.statement_context import is_english, names, words

_ASK = re.compile(
    r"^(?P<measure>.+?)\s+(?:of|for|from)\s+(?:the\s+|its\s+)?(?P<member>.+?)\s+"
    r"(?:(?:reportable|reporting|operating|business|geographic)\s+)?(?:segment|division)s?\b",
    re.IGNORECASE,
)
# Words a measure's heading may add: "Revenue by reportable segment", "Segment revenues".
_HEADING_WORDS = frozenset({"segment", "reportable", "reporting", "division", "business", "geographic"})
_ABBREVIATION = re.compile(r"\(\s*([A-Z][A-Za-z&]{1,7})\s*\)")
SEGMENT_FIT = 0.9  # a segment row's label score: a name as printed, not the description's line item


@dataclass(frozen=True)
class SegmentAsk:
    """What a segment field asks: the measure ("Net revenue") and the segment's printed names."""

    measure: str
    members: tuple[str, ...]


@lru_cache(maxsize=1024)
def segment_ask(description: str) -> SegmentAsk | None:
    """The measure and segment an English description names, None when it names no segment."""
    desc = unicodedata.normalize("NFKC", description).strip()
    m = _ASK.match(desc)
    if m is None or not is_english(desc):
        return None
    member = m.group("member").strip()
    names_ = [_ABBREVIATION.sub("", member).strip()]
    names_ += _ABBREVIATION.findall(member)  # "(FLNA)": the name the tables print
    measure = m.group("measure").strip()
    if not words(measure) or not all(words(n) for n in names_):
        return None
    return SegmentAsk(measure, tuple(names_))


def _is_member(label: str, ask: SegmentAsk) -> bool:
    """The label is the segment's name, no more ("Intelligent Cloud", "FLNA", "PBNA (b)")."""
    have = set(words(label))
    return any(have == set(words(name)) for name in ask.members)


def measure_columns(label: str, spans: list[str], ask: SegmentAsk) -> tuple[int, ...]:
    """For a row naming the asked segment, the indices of its cells under the asked measure's run of columns
    ("Net Revenue | Operating Profit/(Loss)" over "2022 2021 2020 | 2022 2021 2020" and "FLNA"); () when the
    row names another segment, or no run, or every run, is the measure's."""
    if not (is_english(label) and _is_member(label, ask)):
        return ()
    named = [k for k, span in enumerate(spans) if span and names(span, ask.measure, _HEADING_WORDS)]
    others = [k for k, span in enumerate(spans) if span and k not in named]
    return tuple(named) if named and others else ()


def segment_fit(label: str, heading: str, ask: SegmentAsk) -> float:
    """SEGMENT_FIT when a row (its label, its block's heading) holds the asked segment's measure, 0 otherwise."""
    if not (is_english(label) and is_english(heading)):
        return 0.0
    if _is_member(label, ask) and names(heading, ask.measure, _HEADING_WORDS):
        return SEGMENT_FIT
    if _is_member(heading, ask) and names(label, ask.measure):
        return SEGMENT_FIT
    return 0.0
