"""Facts stated in sentences, read without a model where the wording makes them safe.

- Label then value: "股权登记日为2022年6月7日", "控股装机容量达785万千瓦", also when the sentence wraps onto
  the next line, under the shortened labels prose uses ("is payable February 17, 2023" for a payable date,
  "comparable sales increased 12.6%" for its growth, "脱硫效率" for 燃煤电厂脱硫效率); a part ("其中…",
  "including…") counts for less than the total, a change ("revenues increased 4%") is not the level.
- English counts before their noun ("operates 847 warehouses"); counts of people in a sentence that says
  what they are ("we employed approximately 221,000 people", "15 persons were elected … directors").
- Dividends per share: "每10股派发现金红利3.00元（含税）" → 0.30; "a dividend of 90 cents per share" → 0.90.
- Chinese shares: "…占总装机容量的22.54%" for 可再生能源装机占总装机容量比例.
- A firm named beside the role a text field names ("Deloitte & Touche LLP, an independent registered public
  accounting firm"; "the appointment of KPMG LLP as the independent registered public accounting firm").

All finders read `ProseWindow`s: each line of a page, joined with the next one when both are prose (never
with a row of table cells). `prose_windows` builds them once per document.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from mdqa_kernel.readers.confidence import (
    PROSE_LINKED,
    PROSE_PART,
    PROSE_UNLINKED,
    PROSE_UNLINKED_EN_NUMBER,
    ROLE_OTHER_LABEL,
    ROLE_PRIMARY_LABEL,
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
from mdqa_kernel.text.labels import LabelSet, normalize_label
from mdqa_kernel.text.language import CJK, has_cjk
from mdqa_kernel.text.layout import Line

_DIVIDEND_10 = re.compile(
    r"每\s*(10|十)\s*股\s*派(?:发|送)?\s*(?:现金红利|现金股利|现金股息|红利|现金)?\s*(?:人民币)?\s*"
    r"(?P<v>\d+(?:\.\d+)?)\s*元"
)
_DIVIDEND_1 = re.compile(
    r"每\s*股\s*派(?:发|送)?\s*(?:现金红利|现金股利|现金股息|红利|现金)?\s*(?:人民币)?\s*(?P<v>\d+(?:\.\d+)?)\s*元"
)
# "quarterly dividends of $0.68 per share", "a dividend on Costco common stock of 90 cents per share"
_DIVIDEND_EN = re.compile(
    r"\bdividends?\b[^.;$\d]{0,40}?\b(?:of|was|were|is|are)\s+"
    r"(?:\$\s?(?P<usd>\d+(?:\.\d+)?)|(?P<cents>\d+(?:\.\d+)?)\s+cents)\s+per\s+(?:common\s+)?share",
    re.I,
)
_LINK = re.compile(
    r"^\s*(?:为|是|达|达到|约为|约|合计|共计|累计|共|of|was|were|is|are|totaled|totalled|:|：)", re.I
)
# A value inside "其中…" / "including …" is a part of the total the label names, not the total.
_SUB_ITEM = re.compile(r"其中|including|of which|among which", re.I)
_CLAUSE = re.compile(r"[，,。；;]")
_SENTENCE = re.compile(r"[。；;]")
# A full stop ends a sentence, not an abbreviation's ("Rs. 1,234 crore", "U.S. employees", "No. 5").
_SENTENCE_END = re.compile(
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
    compact: str  # label-normalised text, as `candidates.compact_text`
    before: str  # the line before, when it and this line are prose (a sentence may begin there)

    @cached_property
    def idx(self) -> list[int]:
        """For each compact character, its index in `text` (worked out for a window a label matches)."""
        return compact_map(self.text)[1]

    @property
    def first_len(self) -> int:
        """Where the line ends in `text`: a match starting later is read with the next window."""
        return len(self.lines[0].text)

    def used(self, end: int) -> list[Line]:
        """The lines a reading that ends at `end` in `text` spans."""
        return self.lines if end > self.first_len else self.lines[:1]


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
            out.append(ProseWindow(page, window, text, compact_text(text), before))
    return out


def joined_text(lines: list[Line]) -> str:
    cjk = any(has_cjk(line.text) for line in lines)
    return ("" if cjk else " ").join(line.text for line in lines)


def lines_bbox(lines: list[Line]) -> tuple[float, float, float, float]:
    boxes = [line_bbox(line) for line in lines]
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def lines_span(lines: list[Line]) -> tuple[int, int] | None:
    spans = [s for s in (line_span(line) for line in lines) if s]
    return (min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None


def _occurrences(w: ProseWindow, norm: str) -> Iterator[tuple[int, int]]:
    """(start, end) in `w.text` of each match of a normalised label that starts on the window's line."""
    pos = w.compact.find(norm)
    while pos >= 0:
        start, end = w.idx[pos], w.idx[pos + len(norm) - 1] + 1
        if start < w.first_len and (not norm.isascii() or _bounded(w.text, start, end)):
            yield start, end
        pos = w.compact.find(norm, pos + 1)


def _bounded(text: str, start: int, end: int) -> bool:
    """An English label matched as whole words ("record", not "recorded")."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalpha())


# -- label then value ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ProseLabel:
    norm: str  # label-normalised (see labels.normalize_label)
    base: float  # how much a match of this label is worth before the wording around it
    change: bool = False  # names a change: only a value right after a change verb counts


def _prose_labels(labels: LabelSet, want: str) -> list[_ProseLabel]:
    """The field's labels as prose words them: the names themselves, then shortened forms.

    - a date field's "Payable date" is written "is payable February 17, 2023" (the noun is dropped);
    - a change field's "comparable sales growth" is written "comparable sales increased 12.6%";
    - a Chinese name's modifiers are often left out ("燃煤电厂脱硫效率" → "脱硫效率"): its head, the
      suffixes of at least four characters, counts for less (longer suffixes are tried first)."""
    out: dict[str, _ProseLabel] = {}

    def add(norm: str, base: float, change: bool = False) -> None:
        if len(norm) >= 2 and norm not in out:
            out[norm] = _ProseLabel(norm, base, change)

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
            for start, end in _occurrences(w, label.norm):
                found = [_value_after(w.text, start, end, label, want)]
                if want != "date":
                    found.append(_count_before(w.text, start, label))
                for at, score, raw, scale, value_end in filter(None, found):
                    if at not in best or best[at].score < score:
                        best[at] = _prose_candidate(w, raw, scale, score, value_end)
        out.extend(best.values())
    return out


def _value_after(
    text: str, start: int, end: int, label: _ProseLabel, want: str
) -> tuple[int, float, str, tuple[float, str] | None, int] | None:
    """(value position, score, raw value, scale, value end) for the label at text[start:end], or None."""
    sentence = _SENTENCE_END.split(text[end:], maxsplit=1)[0]
    rest = sentence[: 60 if want == "date" else 40]
    verb = _CHANGE_VERB.match(rest)
    changed = bool(verb) and not _TO_LEVEL.match(rest[verb.end() :])  # "increased to 980" is a level
    if changed and not label.change and verb is not None:
        if not _OPENS_CLAUSE.match(_CLAUSE.split(text[:start])[-1]):
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
    clause = _CLAUSE.split(text[:start])[-1]
    if _SUB_ITEM.search(clause) or _SUB_ITEM.search(rest[:at]):
        score *= 0.7
    return end + at, round(score, 4), raw, scale, end + value_end


def _adjacent(gap: str, label: _ProseLabel) -> bool:
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
    rest: str, end: int, verb_end: int, label: _ProseLabel, want: str
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


def _bare_year(raw: str, before: str, scale: tuple[float, str] | None, label: _ProseLabel) -> bool:
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
    text: str, start: int, label: _ProseLabel
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
    if _SUB_ITEM.search(_CLAUSE.split(text[: m.start(1)])[-1]):
        score *= 0.7
    if _SHARE_OF_WHOLE.search(_SENTENCE_END.split(text[m.end(1) :], maxsplit=1)[0]):
        score = min(score, PROSE_PART)  # "50,000 employees, or 32% of our workforce, …": a part
    return m.start(1), round(score, 4), m.group(1), None, m.end(1)


def _prose_candidate(
    w: ProseWindow, raw: str, scale: tuple[float, str] | None, score: float, value_end: int
) -> Candidate:
    used = w.used(value_end)
    return Candidate(
        "prose",
        w.page,
        raw,
        joined_text(used),
        score,
        lines_bbox(used),
        lines_span(used),
        scale=scale[0] if scale else None,
        scale_word=scale[1] if scale else None,
    )


# -- dividends, shares, firms -----------------------------------------------------------------------


def dividend_per_share(windows: list[ProseWindow]) -> list[Candidate]:
    """'每10股派发现金红利X元' → X per 10 shares; '每股派发现金红利X元' → X per share; 'dividend of $X per
    share' → X, 'of N cents per share' → N/100. Each candidate carries the basis it is printed for: the
    reader states it per the shares the field asks for (readers/semantics.py)."""
    out = []
    for w in windows:
        line = w.lines[0]
        text = unicodedata.normalize("NFKC", line.text)
        for pattern, basis in ((_DIVIDEND_10, 10), (_DIVIDEND_1, 1)):
            m = pattern.search(text.replace(" ", ""))
            if m:
                out.append(_dividend(w.page, [line], m.group(0), float(m.group("v")), basis))
                break
        for m in _DIVIDEND_EN.finditer(unicodedata.normalize("NFKC", w.text)):
            if m.start() >= w.first_len:
                break  # starts on the next line: read with that line
            value = float(m.group("usd")) if m.group("usd") else float(m.group("cents")) / 100
            out.append(_dividend(w.page, w.used(m.end()), m.group(0), value, 1))
    return out


def _dividend(page: int, used: list[Line], raw: str, value: float, basis: int) -> Candidate:
    return Candidate(
        "dividend",
        page,
        raw,
        joined_text(used),
        0.95,
        lines_bbox(used),
        lines_span(used),
        number=round(value, 10),
        basis=basis,
    )


_SHARE_FIELD = re.compile(rf"^(?P<part>{CJK}{{2,}})占(?P<whole>{CJK}{{2,}}?)(?:的)?(?:比例|比重|百分比)?$")


def share_of(windows: list[ProseWindow], description: str) -> list[Candidate]:
    """A Chinese share stated in a sentence: the field "可再生能源装机占总装机容量比例" read from
    "可再生能源投产装机容量达到177万千瓦，占总装机容量的22.54%". The sentence must name the part too
    (its first two characters, before the "占") to be trusted."""
    m = _SHARE_FIELD.match(normalize_label(re.split(r"[(（]", description)[0]))
    if m is None:
        return []
    part, whole = m.group("part"), m.group("whole")
    gap = r"\s*"
    stated = re.compile(
        "占" + gap + gap.join(map(re.escape, whole)) + gap + r"(?:的)?\s*(?:比例|比重)?\s*"
        r"(?:为|达到|达|约为|约)?\s*(?P<v>\d+(?:\.\d+)?\s*%)"
    )
    out = []
    for w in windows:
        text = unicodedata.normalize("NFKC", w.text)
        for hit in stated.finditer(text):
            if hit.start() >= w.first_len:
                break  # starts on the next line: read with that line
            sentence = _SENTENCE.split(w.before + text[: hit.start()])[-1]
            named = part[:2] in normalize_label(sentence)
            used = w.used(hit.end())
            out.append(
                Candidate(
                    "prose",
                    w.page,
                    hit.group("v"),
                    joined_text(used),
                    0.85 if named else 0.5,
                    lines_bbox(used),
                    lines_span(used),
                )
            )
    return out


# A firm's name: capitalised words (and "&") ending in a legal form ("Deloitte & Touche LLP", "KPMG LLP").
_FIRM_BEFORE = re.compile(
    r"(?P<firm>(?:[A-Z][\w'.-]*|&)(?:\s+(?:[A-Z][\w'.-]*|&))*?\s+(?:LLP|L\.L\.P\.|LLC|Ltd\.?|Limited|Inc\.|& Co\.))"
    r"(?:\s*,\s*(?:an|the|our|its)|\s+as\s+(?:the|our|its))\s+(?:Company's\s+)?$"
)


def firm_in_role(windows: list[ProseWindow], labels: LabelSet) -> list[Candidate]:
    """A firm named beside the role a text field names: "Deloitte & Touche LLP, an independent registered
    public accounting firm", "the appointment of KPMG LLP as the independent registered public accounting
    firm" (English prose, where a 10-K names its auditor)."""
    out = []
    for w in windows:
        for label in labels.all:
            if not label.isascii():
                continue
            for start, _end in _occurrences(w, label):
                m = _FIRM_BEFORE.search(w.text[:start])
                if m:
                    score = ROLE_PRIMARY_LABEL if label in labels.primary else ROLE_OTHER_LABEL
                    out.append(
                        Candidate(
                            "role",
                            w.page,
                            m.group("firm"),
                            w.text,
                            score,
                            lines_bbox(w.lines),
                            lines_span(w.lines),
                        )
                    )
    return out


# -- counts of people --------------------------------------------------------------------------------

_COUNT = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?"
# "221,000 people", "2.3 million employees", "9,200 total full-time and part-time employees", "61,800 and
# 100,300 employees, respectively" (n2: the second period's count)
_PEOPLE = re.compile(
    rf"(?<![\w.,$])(?P<n>{_COUNT})(?:\s+(?P<m>million|thousand))?(?:\s+and\s+(?P<n2>{_COUNT}))?\s+"
    r"(?:(?:total|full-time|part-time|seasonal|permanent|temporary|regular)(?:\s*,\s*|\s+and\s+|\s+or\s+|\s+))*"
    r"(?P<noun>people|persons|individuals|employees|associates|workers|staff|team\s+members"
    r"|nominees|directors|members)\b",
    re.I,
)
# "Total workforce level at December 31, 2018 was approximately 153,000", "total workforce was approximately
# 156,000 and 142,000": the workforce named, then its count.
_WORKFORCE_WAS = re.compile(
    r"\b(?:total\s+)?(?:workforce|headcount)(?:\s+level)?\b[^.;:]{0,40}?\b(?:was|were|of|totaled|totalled)\s+"
    rf"(?:approximately\s+|about\s+|nearly\s+|over\s+)?(?P<n>{_COUNT})(?:\s+(?P<m>million|thousand))?"
    rf"(?:\s+and\s+(?P<n2>{_COUNT}))?(?![\d,.]*\d)(?!\s*%)",
    re.I,
)
# A bound, not a count: "employ fewer than 300 employees" (a loan's condition), "more than 10,000 employees".
_BOUND = re.compile(r"\b(?:fewer|less|more|greater)\s+than\s*$|\b(?:at\s+least|up\s+to|over)\s*$", re.I)
_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)
_COUNT_STOP = frozenset({"number", "total", "count", "the", "and", "with", "from", "that", "this", "were"})
# Words that say the people are a company's workforce (by their first five letters), and the nouns that
# say it by themselves: "approximately 221,000 employees", "2.1 million associates".
_WORKFORCE_STEMS = frozenset({"emplo", "staff", "headc", "workf", "perso", "worke", "assoc"})
_WORKFORCE_NOUNS = re.compile(r"employees|associates|workers|staff|team\s+members", re.I)
_EMPLOYMENT = re.compile(r"\bemploy|\bworkforce|\bheadcount|\bstaff", re.I)
_HAS_WORKFORCE = re.compile(
    r"\b(?:we|company|group|corporation)\)?\s+(?:had|has|have|employ|employs|employed)\b|\bemploy(?:s|ed|er)?\b"
    r"|\bworkforce\b|\bheadcount\b|\btotal\s+(?:number\s+of\s+)?employees",
    re.I,
)
# A part of the workforce ("of whom 1,200 in the U.S.", "including 30,000 contractors") is not its count.
_PART_WORDS = re.compile(
    r"\b(?:of whom|of which|including|includes|among them|approximately\s+\d[\d,.]*%)", re.I
)
# The sentence says the count is a share of the whole ("50,000 employees, which constitute 32% of our total
# workforce, were union represented"): a part.
_SHARE_OF_WHOLE = re.compile(
    r"\d[\d.]*\s*(?:%|percent)\s+of\s+(?:our|the|its)?\s*(?:total|entire|global|worldwide|overall)?\s*"
    r"(?:workforce|employees|headcount|staff|personnel)",
    re.I,
)


def people_count(windows: list[ProseWindow], description: str) -> list[Candidate]:
    """A count of people stated in a sentence that also says what they are: "Full-time employees" from
    "we employed approximately 221,000 people on a full-time basis" or "we had approximately 221,000
    employees", "Number of directors elected" from "The following 15 persons were elected to serve as
    directors"; "员工总数" from "公司在职员工总数为12,345人". Every word of an English description (by its
    first five letters: "employ…", "elect…") must be in the sentence; the workforce words ("employees",
    "staff", "headcount") are said by any of them, or by the counted noun itself ("associates")."""
    if not description.isascii():
        return chinese_staff_count(windows, description)
    core = re.split(r"[(（]|\b(?:at|as of|in|for)\s+(?:\d|fiscal|the)", description, maxsplit=1)[0]
    stems = {w[:5] for w in re.findall(r"[a-z]{4,}", core.lower()) if w not in _COUNT_STOP}
    workforce = bool(stems & _WORKFORCE_STEMS)
    stems -= _WORKFORCE_STEMS
    if not stems and not workforce:
        return []
    out = []
    for w in windows:
        matches = sorted(
            [*_PEOPLE.finditer(w.text), *_WORKFORCE_WAS.finditer(w.text)], key=lambda m: m.start("n")
        )
        for m in matches:
            if m.start("n") >= w.first_len:
                break  # starts on the next line: read with that line
            named = m.re is _WORKFORCE_WAS
            number = (float(m["n"].replace(",", "")), m.start("n"), m.end("n"), False)
            sentence = _sentence_around(w, m.start(), m.end())
            if m["n2"] and not _current_first(sentence):
                continue  # "… 2016 and 2017 had 100,300 and 61,800 employees, respectively": not this one
            said = {x[:5] for x in re.findall(r"[a-z]{4,}", sentence.lower())}
            noun = "workforce" if named else m["noun"]
            employed = named or bool(_WORKFORCE_NOUNS.fullmatch(noun)) or bool(_EMPLOYMENT.search(sentence))
            # "In 2024 employees …" and a heading's year before the next line ("Annual report 2023" /
            # "Employees …") are no counts; "we hired 2,100 people" says no workforce.
            heading_year = m.end("n") >= len(w.lines[0].text.rstrip()) and is_year(
                m["n"], (number[0], 0, len(m["n"]), False)
            )
            if not stems <= said or (workforce and not employed) or is_year(w.text, number) or heading_year:
                continue
            scale = {"million": 1e6, "thousand": 1e3}.get((m["m"] or "").lower(), 1.0)
            head = _SENTENCE_END.split(w.before + " " + w.text[: m.start("n")])[-1]
            # A workforce the company says it has ("we had approximately 221,000 employees", "we employ …",
            # "total workforce was …") is as safe as a table's count; employees merely mentioned ("a campus
            # occupied by 11,400 employees", "help recruit 250,000 people into the cybersecurity workforce")
            # may be others; a part is not the count, nor is a second count after the first ("5,477
            # full-time employees worldwide with 662 … outside the U.S.").
            says = (
                named
                or _HAS_WORKFORCE.search(head)
                or (_WORKFORCE_NOUNS.fullmatch(noun) and _HAS_WORKFORCE.search(sentence))
            )
            score = 0.85 if workforce and says and not _BOUND.search(head) else 0.7
            if (
                _PART_WORDS.search(head)
                or _SUB_ITEM.search(head)
                or _SHARE_OF_WHOLE.search(sentence)
                or (_PEOPLE.search(head) and not _RESPECTIVELY.search(sentence))
            ):
                score = PROSE_PART
            used = w.used(m.end())
            out.append(
                Candidate(
                    "prose",
                    w.page,
                    m["n"] + (f" {m['m']}" if m["m"] else ""),
                    joined_text(used),
                    score,
                    lines_bbox(used),
                    lines_span(used),
                    number=float(f"{number[0] * scale:.12g}"),
                )
            )
    return out


_ZH_WORKFORCE_FIELD = re.compile(r"员工|职工|雇员|从业人员|在职人员")
# "在职员工总数为12,345人", "公司共有员工12,345名", "拥有职工1.2万人", "员工人数达到12,345人".
_ZH_STAFF = re.compile(
    r"(?P<who>在职员工|员工|职工|雇员|从业人员)(?P<what>的?(?:总数|总人数|人数|数量)(?:合计|共计|总计)?)?"
    r"\s*(?:为|达到|达|约为|约|共计|共|合计|有)?\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<w>万)?\s*(?:名|人)"
)
_ZH_OTHER_PEOPLE = re.compile(
    r"(?:研发|技术|销售|生产|财务|行政|管理|退休|离退休|劳务派遣|新增|新招|招聘)[^，。；]{0,3}$"
)


def chinese_staff_count(windows: list[ProseWindow], description: str) -> list[Candidate]:
    """The workforce a Chinese sentence states ("截至报告期末，公司在职员工总数为12,345人") for a field
    that asks for the number of staff ("员工总数", "在职员工的数量合计"). A part (其中…, 研发人员…, 母公司…)
    counts for less."""
    if not _ZH_WORKFORCE_FIELD.search(description) or re.search(
        r"占比|比例|平均|人均|薪酬|费用", description
    ):
        return []
    out = []
    for w in windows:
        text = unicodedata.normalize("NFKC", w.text).replace(" ", "")
        first_len = len(unicodedata.normalize("NFKC", w.lines[0].text).replace(" ", ""))
        for m in _ZH_STAFF.finditer(text):
            if m.start() >= first_len:
                break  # starts on the next line: read with that line
            number = float(m["n"].replace(",", "")) * (1e4 if m["w"] else 1.0)
            head = _CLAUSE.split(w.before + text[: m.start()])[-1]
            score = 0.85 if m["what"] or "共有" in head[-4:] or "拥有" in head[-4:] else 0.7
            if _SUB_ITEM.search(head) or _ZH_OTHER_PEOPLE.search(head) or "母公司" in head:
                score = PROSE_PART
            used = w.lines if m.end() > first_len else w.lines[:1]
            out.append(
                Candidate(
                    "prose",
                    w.page,
                    m.group(0),
                    joined_text(used),
                    score,
                    lines_bbox(used),
                    lines_span(used),
                    number=float(f"{number:.12g}"),
                )
            )
    return out


def _current_first(sentence: str) -> bool:
    """In "As of December 31, 2017 and 2016, … 61,800 and 100,300 employees, respectively" the first count
    is the later year's: the years the sentence names come latest first (or it names none)."""
    years = [int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", sentence)]
    return len(years) < 2 or years[0] >= years[1]


def _sentence_around(w: ProseWindow, start: int, end: int) -> str:
    """The sentence of w.text[start:end], begun on the line before when it starts there."""
    head = _SENTENCE_END.split(w.before + " " + w.text[:start])[-1]
    tail = _SENTENCE_END.split(w.text[end:], maxsplit=1)[0]
    return head + w.text[start:end] + tail
