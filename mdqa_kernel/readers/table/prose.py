"""Facts stated in sentences, read without a model where the wording makes them safe: label then value.

- Label then value: "股权登记日为2022年6月7日", "控股装机容量达785万千瓦", also when the sentence wraps onto
  the next line, under the shortened labels prose uses ("is payable February 17, 2023" for a payable date,
  "comparable sales increased 12.6%" for its growth, "脱硫效率" for 燃煤电厂脱硫效率); a part ("其中…",
  "including…") counts for less than the total, a change ("revenues increased 4%") is not the level.
- English counts before their noun ("operates 847 warehouses").

All finders read `ProseWindow`s: each line of a page, joined with the next one when both are prose (never
with a row of table cells). `prose_windows` builds them once per document. Dividends, shares and firms
stated in prose are `prose_facts`; counts of people, `people`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from mdqa_kernel.readers.base import DocumentView
from mdqa_kernel.readers.confidence import (
    PROSE_LINKED,
    PROSE_PART,
    PROSE_UNLINKED,
    PROSE_UNLINKED_EN_NUMBER,
)
from mdqa_kernel.readers.table.candidates import (
    Candidate,
    compact_map,
    compact_text,
    declared_scale_word,
    is_year,
    line_bbox,
    line_span,
    value_at,
)
from mdqa_kernel.text.labels import LabelSet
from mdqa_kernel.text.language import CJK, has_cjk
from mdqa_kernel.text.layout import Line
from mdqa_kernel.text.values import find_dates, scale_factor

_LINK = re.compile(
    r"^\s*(?:为|是|达|达到|约为|约|合计|共计|累计|共|of|was|were|is|are|totaled|totalled|:|：)", re.I
)
# A value inside "其中…" / "including …" is a part of the total the label names, not the total.
SUB_ITEM = re.compile(r"其中|including|of which|among which", re.I)
CLAUSE = re.compile(r"[，,。；;]")
SENTENCE = re.compile(r"[。；;]")
# A full stop ends a sentence, not an abbreviation's ("Rs. 1,234 crore", "U.S. employees", "No. 5").
SENTENCE_END = re.compile(
    r"[。；;]|(?<!\bRs)(?<!\bNo)(?<!\bInc)(?<!\bCo)(?<!\bapprox)(?<![A-Z]\.[A-Z])\.(?:\s|$)"
)
# A field that names a change ("Global comparable sales growth") is read after a change verb; a level
# ("Revenues") is not: "Revenues increased 4%" states the change, not the revenues.
_CHANGE_SUFFIXES = ("growthrate", "growth", "change", "增长率", "增幅", "变动率", "变化率")
_CHANGE_VERB = re.compile(
    r"^\s*(?:同比)?(?:增长|增加|下降|减少|上升|提高|increased|decreased|grew|rose|fell|declined|was up|was down)",
    re.I,
)
# An English conjunction between a label and a number not linked to it starts another clause.
_NEXT_CLAUSE = re.compile(r"\b(?:and|or|but|while|whereas)\b", re.I)
# The base a figure is compared with ("… for fiscal 2018 compared to $4,781 million for fiscal 2017",
# "up from $3.1 billion", "versus 2.1%") is another period's value, not the label's.
_COMPARED = re.compile(
    r"\b(?:compared\s+(?:to|with)|as\s+compared|versus|vs\.?|against|from)\s*[$¥€£₹]?\s*$|相比|较上年", re.I
)
# An English verb of being after a noun that follows the label: the label modifies the subject ("Net
# income tax (refunds)/payments were ($1,317)" is about tax payments, not net income). A phrase that
# qualifies the label itself by its period or basis ("Capital expenditures in fiscal 2024 were …") leaves the
# verb the label's; a place or a part ("revenues in the United States were …") does not.
_LATE_LINK = re.compile(r"\b(?:was|were|is|are|totaled|totalled|amounted\s+to)\b", re.I)
_QUALIFIES = re.compile(
    r"^\s*(?:[(\[]|(?:attributable|reported)\b|(?:in|for|during|of)\s+(?:the\s+)?(?:fiscal|financial|full|"
    r"first|second|third|fourth|three|six|nine|twelve|year|quarter|period|(?:19|20)\d\d)\b)",
    re.I,
)
_TO_LEVEL = re.compile(r"^\s*(?:至|到|to\b)", re.I)
# Words that may stand between an English link and its value ("was approximately $44.5 billion", "were
# more than 9,200"); any other words there make the number another noun's ("Employees: A Pre-Retirement
# Spouse's 409A Pension", "was primarily driven by 12% higher volumes").
_BEFORE_VALUE = frozenset(
    {"approximately", "about", "around", "nearly", "almost", "roughly", "some", "over", "more", "less", "than",
     "just", "under", "up", "to", "a", "an", "total", "of", "us", "usd", "rs", "inr", "eur", "gbp", "cny", "rmb", "net"}
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z][A-Za-z'’.-]*")
_CJK_ONLY = re.compile(rf"^{CJK}+$")
# An English count is printed before its noun: "operates 847 warehouses".
_NUMBER_BEFORE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)\s+$")


@dataclass(frozen=True)
class ProseWindow:
    """A line of a page, joined with the next line when both are prose: a sentence may wrap."""

    page: int
    lines: list[Line]  # the line, and the next one if joined
    text: str
    compact: str  # label-normalised text without the filer's possessive (`without_owner`)
    before: str  # the line before, when it and this line are prose (a sentence may begin there)

    @cached_property
    def nfkc(self) -> str:
        """`text` in NFKC (full-width digits and signs as ASCII): the form the prose patterns read, once for
        every reader of the window."""
        return unicodedata.normalize("NFKC", self.text)

    @cached_property
    def idx(self) -> list[int]:
        """For each compact character, its index in `text` (worked out for a window a label matches)."""
        return compact_map(without_owner(self.text))[1]

    @property
    def first_len(self) -> int:
        """Where the line ends in `text`: a match starting later is read with the next window."""
        return len(self.lines[0].text)

    def used(self, end: int) -> list[Line]:
        """The lines a reading that ends at `end` in `text` spans."""
        return self.lines if end > self.first_len else self.lines[:1]


def document_windows(doc: DocumentView, lines_by_page: dict[int, list[Line]]) -> list[ProseWindow]:
    """The document's prose windows (`prose_windows` of all its lines), built once and shared by all fields
    and readers."""
    return doc.memo("prose_windows", lambda: prose_windows(lines_by_page))


def prose_windows(lines_by_page: dict[int, list[Line]]) -> list[ProseWindow]:
    """Every line's window, once per document: all fields search the same ones."""
    out = []
    for page, lines in lines_by_page.items():
        prose = [line.one_group for line in lines]
        for i, line in enumerate(lines):
            joined = i + 1 < len(lines) and prose[i] and prose[i + 1]
            window = [line, lines[i + 1]] if joined else [line]
            text = joined_text(window)
            before = lines[i - 1].text if i > 0 and prose[i - 1] and prose[i] else ""
            out.append(ProseWindow(page, window, text, compact_text(without_owner(text)), before))
    return out


# The filer named as the owner inside a line item's name ("shares of the registrant's common stock
# outstanding", "shares of our common stock"): the field's name never carries it.
_STOCK_AHEAD = r"(?=(?:class\s+\w\s+)?(?:common|ordinary|capital)\s+(?:stock|shares)\b)"
_OWNER = re.compile(
    rf"\b(?:the\s+)?(?:registrant|company|corporation|issuer)['’]s\s+|\bour\s+{_STOCK_AHEAD}"
    # the filer's legal name before its stock: "shares of PepsiCo, Inc. Common Stock outstanding"
    rf"|\b(?-i:(?:[A-Z][\w&.-]*\s+){{0,3}}[A-Z][\w&.-]*,?\s+(?:Inc\.|Incorporated|Corporation|Corp\.|Company|"
    rf"Co\.|plc|Ltd\.|N\.V\.|S\.A\.))\s+{_STOCK_AHEAD}",
    re.I,
)


def without_owner(text: str) -> str:
    """The text with the filer's possessive blanked out, each character kept in its place, so a match in
    the compact form maps back to the same positions in the printed text."""
    low = text.lower()
    if "'" not in low and "’" not in low and "stock" not in low and "shares" not in low:
        return text  # most lines: no possessive and no stock named
    return _OWNER.sub(lambda m: " " * len(m.group(0)), text)


def joined_text(lines: list[Line]) -> str:
    cjk = any(has_cjk(line.text) for line in lines)
    return ("" if cjk else " ").join(line.text for line in lines)


def _lines_bbox(lines: list[Line]) -> tuple[float, float, float, float]:
    boxes = [line_bbox(line) for line in lines]
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _lines_span(lines: list[Line]) -> tuple[int, int] | None:
    spans = [s for s in (line_span(line) for line in lines) if s]
    return (min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None


# An amount of money a sentence states, with its scale word: "$5.7 billion", "$294 million", "$2,238"
MONEY = re.compile(r"\$\s?(?P<n>\d[\d,]*(?:\.\d+)?)(?:\s+(?P<w>thousand|million|billion))?", re.I)


def money_candidate(kind: str, page: int, hit: re.Match[str], used: list[Line], score: float) -> Candidate:
    """A `MONEY` match in prose lines as a candidate: its number, and the scale its word gives."""
    word = (hit["w"] or "").lower() or None
    return lines_candidate(
        kind,
        page,
        hit.group(0),
        used,
        score,
        scale=scale_factor(word) if word else None,
        scale_word=word,
        number=float(hit["n"].replace(",", "")),
    )


def lines_candidate(
    kind: str, page: int, raw: str, used: list[Line], score: float, **extra: Any
) -> Candidate:
    """A reading from prose lines: their joined text is the snippet, their box and span the evidence."""
    return Candidate(kind, page, raw, joined_text(used), score, _lines_bbox(used), _lines_span(used), **extra)


def occurrences(w: ProseWindow, norm: str) -> Iterator[tuple[int, int]]:
    """(start, end) in `w.text` of each match of a normalised label that starts on the window's line; an
    English label also in the plural ("Advertising expenses were …" for "advertising expense")."""
    pos = w.compact.find(norm)
    while pos >= 0:
        start, end = w.idx[pos], w.idx[pos + len(norm) - 1] + 1
        if start < w.first_len:
            if not norm.isascii() or _bounded(w.text, start, end):
                yield start, end
            elif w.text[end : end + 1] == "s" and _bounded(w.text, start, end + 1):
                yield start, end + 1
        pos = w.compact.find(norm, pos + 1)


def _bounded(text: str, start: int, end: int) -> bool:
    """An English label matched as whole words ("record", not "recorded")."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalpha())


# -- label then value ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProseLabel:
    norm: str  # label-normalised (see labels.normalize_label)
    base: float  # how much a match of this label is worth before the wording around it
    change: bool = False  # names a change: only a value right after a change verb counts


def _prose_labels(labels: LabelSet, want: str) -> list[ProseLabel]:
    """The field's labels as prose words them: the names themselves, then shortened forms.

    - a date field's "Payable date" is written "is payable February 17, 2023" (the noun is dropped);
    - a change field's "comparable sales growth" is written "comparable sales increased 12.6%";
    - a Chinese name's modifiers are often left out ("燃煤电厂脱硫效率" → "脱硫效率"): its head, the
      suffixes of at least four characters, counts for less (longer suffixes are tried first)."""
    out: dict[str, ProseLabel] = {}

    def add(norm: str, base: float, change: bool = False) -> None:
        if len(norm) >= 2 and norm not in out:
            out[norm] = ProseLabel(norm, base, change)

    for cand in labels.all:
        add(cand, 1.0 if cand in labels.primary else 0.95)
    for cand in labels.all:
        base = 0.95 if cand in labels.primary else 0.9
        if want == "date" and cand.endswith("date") and len(cand) >= 8:
            add(cand[: -len("date")], base)
        for suffix in _CHANGE_SUFFIXES:
            if cand.endswith(suffix) and len(cand) - len(suffix) >= 4:
                add(cand[: -len(suffix)], base, change=True)
                break
        if _CJK_ONLY.match(cand) and len(cand) >= 6:
            for k in range(1, len(cand) - 3):
                add(cand[k:], base * 0.85)
    return list(out.values())


def label_then_value(
    lines_by_page: dict[int, list[Line]],
    labels: LabelSet,
    want: str,
    windows: list[ProseWindow] | None = None,
) -> list[Candidate]:
    """Prose 'LABEL 为/达/was VALUE' (want: 'number', 'integer' or 'date'): the first value after a label,
    in the same sentence. A value that is a part ("其中…", "including…") or a change of what the label
    names ("increased 4%") counts for less or not at all. `windows`: `prose_windows(lines_by_page)`, when
    the caller keeps them for several fields."""
    out = []
    prose_labels = _prose_labels(labels, want)
    for w in prose_windows(lines_by_page) if windows is None else windows:
        best: dict[int, Candidate] = {}
        for label in prose_labels:
            for start, end in occurrences(w, label.norm):
                if _other_measure(w.text[max(0, start - 24) : start], label.norm):
                    continue  # "non-cash capital expenditures of $92 million" are not capital expenditures
                found = [value_after(w.text, start, end, label, want)]
                if want != "date":
                    found.append(_count_before(w.text, start, label))
                    found.append(_amount_there_was(w.text, start, label))
                for at, score, raw, scale, value_end in filter(None, found):
                    if at not in best or best[at].score < score:
                        best[at] = prose_candidate(w, raw, scale, score, value_end)
        out.extend(best.values())
    return out


def value_after(
    text: str, start: int, end: int, label: ProseLabel, want: str
) -> tuple[int, float, str, tuple[float, str] | None, int] | None:
    """(value position, score, raw value, scale, value end) for the label at text[start:end], or None."""
    end = _past_as_of(text, end)
    included = _INCLUDED.match(text, end)
    if included is not None:
        end = included.end()  # "Depreciation expense, including that of leased assets, totaled …"
    sentence = SENTENCE_END.split(text[end:], maxsplit=1)[0]
    rest = sentence[: 60 if want == "date" else 40]
    verb = _CHANGE_VERB.match(rest)
    changed = bool(verb) and not _TO_LEVEL.match(rest[verb.end() :])  # "increased to 980" is a level
    if changed and not label.change and verb is not None:
        if not _OPENS_CLAUSE.match(CLAUSE.split(text[:start])[-1]):
            return None  # "Microsoft Cloud revenue increased 22% to …" is another line item's level
        return _level_after_change(sentence[:80], end, verb.end(), label, want)
    if changed != label.change:
        return None
    found = value_at(rest, want)
    if found is None:
        return None
    raw, scale, at, value_end = found
    if want != "date":
        # the scale word may lie past the window the value was looked for in ("$4,781 million")
        scale = declared_scale_word(sentence[value_end : value_end + 10])
        if _bare_year(raw, rest[:at], scale, label):
            return None  # "charges related to our 2019 Multi-Year Productivity Plan": the plan's year
    late = None if has_cjk(label.norm) else _LATE_LINK.search(rest[:at])
    qualified = late is not None and bool(_QUALIFIES.match(rest))  # "Capex in fiscal 2024 were …"
    link = _LINK.match(rest)
    linked = label.change or bool(link and _adjacent(rest[link.end() : at], label)) or qualified
    if not linked and _NEXT_CLAUSE.search(rest[:at]):
        return None  # "8 staff comments and operated 14 data centers": the 14 is another clause's
    if _COMPARED.search(rest[:at]):
        return None  # the figure it is compared with: another period's
    if late is not None and not linked:
        return None  # the label qualifies another noun, the subject of the verb
    unlinked = PROSE_UNLINKED if has_cjk(label.norm) or want == "date" else PROSE_UNLINKED_EN_NUMBER
    score = label.base * (PROSE_LINKED if linked else unlinked)
    clause = CLAUSE.split(text[:start])[-1]
    # "…, including advertising expenses of $3.5 billion": the label names the part, the value is its own
    named_part = bool(_NAMES_PART.search(clause))
    if (SUB_ITEM.search(clause) and not named_part) or SUB_ITEM.search(rest[:at]):
        score *= 0.7
    return end + at, round(score, 4), raw, scale, end + value_end


# A label is still about its value past the date it is stated at ("… outstanding as of January 19, 2024
# was …").
_AS_OF = re.compile(r"\s*,?\s*as\s+(?:of|at)\s+", re.I)


def _past_as_of(text: str, end: int) -> int:
    """Where the label's "as of DATE" ends, or `end` when none follows it."""
    dated = _AS_OF.match(text, end)
    if dated is not None:
        dates = find_dates(text[dated.end() : dated.end() + 30])
        if dates and dates[0][1] == 0:
            end = len(text) - len(text[dated.end() + dates[0][2] :].lstrip(" ,"))  # past ", " after the date
    return end


# "non-cash", "noncash", "non-GAAP", "non-current" before a label make another measure of it.
_OTHER_MEASURE = re.compile(r"\bnon-?(?!e\b)[a-z]+\s+$", re.I)
_OTHER_MEASURE_LABEL = re.compile(r"\bnon-?[a-z]", re.I)


def _other_measure(before: str, label: str) -> bool:
    """Whether the words just before a label's occurrence make it another measure than the label's."""
    return bool(_OTHER_MEASURE.search(before)) and not _OTHER_MEASURE_LABEL.search(label)


# A clause set off by commas that says what the amount includes: the amount is still the label's whole
# ("excluding …" would name another measure, so it is not passed over).
_INCLUDED = re.compile(r",\s*including\s+(?:[^,;.]|\.\d){1,80}?,\s*", re.I)
_NAMES_PART = re.compile(r"\b(?:including|of\s+which)\s+(?:the\s+|our\s+|its\s+)?$", re.I)


def _adjacent(gap: str, label: ProseLabel) -> bool:
    """Nothing but a qualifier of the amount stands between an English link and the value."""
    if has_cjk(label.norm):
        return True
    return all(w.lower().rstrip(".") in _BEFORE_VALUE for w in _WORD.findall(gap))


# What may stand before a label that opens its clause: nothing, a bullet, a determiner, the company, the
# period ("Total revenue increased …", "报告期内，公司营业收入同比增长…"), never another modifier.
_OPENS_CLAUSE = re.compile(
    r"^[\s•·\-–—*]*(?:(?:our|the|its|total|consolidated|net|company|group|in\s+fiscal\s+(?:year\s+)?\d{4}"
    r"|公司|本公司|集团|本集团|全年|本年度|报告期内|本报告期|全年实现|实现)\s*)*$",
    re.I,
)
# After a change, the level it reached: "increased 18% to $60.9 billion", "同比增长12.5%至123.45亿元".
_LEVEL_AFTER = re.compile(r"(?:至|到|达到|\bto\b|\breaching\b)\s*", re.I)


def _level_after_change(
    rest: str, end: int, verb_end: int, label: ProseLabel, want: str
) -> tuple[int, float, str, tuple[float, str] | None, int] | None:
    """The level a level label reaches after its change ("Revenue increased 18% to $60.9 billion"): the
    value after "to"/"至" in the same clause; None when the clause states only the change."""
    clause = re.split(r"[，。；;]|,(?!\d{3})", rest[verb_end:], maxsplit=1)[0]  # "60,915" is one number
    m = _LEVEL_AFTER.search(clause)
    if m is None:
        return None
    found = value_at(clause[m.end() :], want) if want != "date" else None
    if found is None:
        return None
    raw, scale, at, value_end = found
    offset = verb_end + m.end()
    return end + offset + at, round(label.base * 0.75, 4), raw, scale, end + offset + value_end


_BARE_YEAR = re.compile(r"(?:19|20)\d\d")


def _bare_year(raw: str, before: str, scale: tuple[float, str] | None, label: ProseLabel) -> bool:
    """A 19xx/20xx number in English prose without a currency sign, a scale word or a thousands
    separator is a year: English prints a count or an amount of thousands with its separator ("2,019
    stores", "$2,019 million"); Chinese prints figures without one, so its labels are left out."""
    return (
        bool(_BARE_YEAR.fullmatch(raw.strip()))
        and scale is None
        and label.norm.isascii()
        and not re.search(r"[$€£¥₹]\s*$", before)
    )


def _count_before(
    text: str, start: int, label: ProseLabel
) -> tuple[int, float, str, tuple[float, str] | None, int] | None:
    """An English count before its noun ("operates 847 warehouses"), the label being that noun."""
    if label.change or not label.norm.isascii():
        return None
    m = _NUMBER_BEFORE.search(text[:start])
    if m is None or is_year(text, (float(m.group(1).replace(",", "")), m.start(1), m.end(1), False)):
        return None
    if _bare_year(m.group(1), "", None, label):
        return None  # "2022 restructuring charges": the charges' year, not their count
    score = label.base * 0.6
    if SUB_ITEM.search(CLAUSE.split(text[: m.start(1)])[-1]):
        score *= 0.7
    if SHARE_OF_WHOLE.search(SENTENCE_END.split(text[m.end(1) :], maxsplit=1)[0]):
        score = min(score, PROSE_PART)  # "50,000 employees, or 32% of our workforce, …": a part
    return m.start(1), round(score, 4), m.group(1), None, m.end(1)


# "As of December 25, 2021, there was $372 million of total unrecognized compensation cost …": an amount stated
# as what there was of the label's item, the item's whole
_THERE_WAS = re.compile(
    r"\bthere\s+(?:was|were|is|are)\s+(?:approximately\s+|about\s+)?(?P<v>[$€£¥]\s?\d[\d,]*(?:\.\d+)?)"
    r"(?:\s+(?P<s>thousand|million|billion))?\s+of\s+(?:total\s+)?$",
    re.I,
)


def _amount_there_was(
    text: str, start: int, label: ProseLabel
) -> tuple[int, float, str, tuple[float, str] | None, int] | None:
    """An English amount before the label's item in "there was $X million of (total) ITEM"."""
    if label.change or not label.norm.isascii():
        return None
    m = _THERE_WAS.search(text[max(0, start - 80) : start])
    if m is None:
        return None
    offset = max(0, start - 80)
    scale = declared_scale_word(m.group("s") or "")
    return (
        offset + m.start("v"),
        round(label.base * PROSE_LINKED, 4),
        m.group("v"),
        scale,
        offset + m.end("v"),
    )


def prose_candidate(
    w: ProseWindow, raw: str, scale: tuple[float, str] | None, score: float, value_end: int
) -> Candidate:
    return lines_candidate(
        "prose",
        w.page,
        raw,
        w.used(value_end),
        score,
        scale=scale[0] if scale else None,
        scale_word=scale[1] if scale else None,
    )


# The sentence says the count is a share of the whole ("50,000 employees, which constitute 32% of our total
# workforce, were union represented"): a part.
SHARE_OF_WHOLE = re.compile(
    r"\d[\d.]*\s*(?:%|percent)\s+of\s+(?:our|the|its)?\s*(?:total|entire|global|worldwide|overall)?\s*"
    r"(?:workforce|employees|headcount|staff|personnel)",
    re.I,
)
