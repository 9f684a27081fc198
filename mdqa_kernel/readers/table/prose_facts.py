"""Facts prose states in set phrases, read without a model (the sentence finders of `prose`):

- dividends per share: "每10股派发现金红利3.00元（含税）" → 0.30; "a dividend of 90 cents per share" → 0.90;
- Chinese shares: "…占总装机容量的22.54%" for 可再生能源装机占总装机容量比例;
- a firm named beside the role a text field names ("Deloitte & Touche LLP, an independent registered public
  accounting firm"; "the appointment of KPMG LLP as the independent registered public accounting firm").
"""

from __future__ import annotations

import re
import unicodedata

from mdqa_kernel.readers.confidence import ROLE_OTHER_LABEL, ROLE_PRIMARY_LABEL
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.prose import (
    SENTENCE,
    SENTENCE_END,
    ProseWindow,
    lines_candidate,
    occurrences,
)
from mdqa_kernel.text.labels import LabelSet, normalize_label
from mdqa_kernel.text.language import CJK
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


# A list of per-share dividends paired with its years: "Dividends (per share — $1.48, $1.40 and $1.32 in
# 2017, 2016 and 2015, respectively)", "dividends declared per common share were $4.53, $4.25 and $4.02 for
# 2022, 2021 and 2020, respectively", "dividends of $2.04 and $2.00 per share in fiscal 2018 and 2017, respectively".
_AMOUNT = r"\$\s?\d+(?:\.\d+)?"
_AND = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
_LIST_YEAR = r"(?:fiscal\s+)?(?:19|20)\d\d"
_PAIRED_YEARS = (
    rf"[^.;$\d]{{0,12}}?\b(?:in|for)\s+(?:(?:the\s+)?(?:fiscal\s+)?years?\s+)?"
    rf"(?P<years>{_LIST_YEAR}(?:{_AND}{_LIST_YEAR})+)\s*,?\s*respectively"
)
_DIVIDEND_LISTS = (
    re.compile(
        rf"\bdividends?\b[^.;$\d]{{0,40}}?\bper\s+(?:common\s+)?share\b[^.;$\d]{{0,20}}?"
        rf"(?P<amounts>{_AMOUNT}(?:{_AND}{_AMOUNT})+){_PAIRED_YEARS}",
        re.I,
    ),
    re.compile(
        rf"\bdividends?\b[^.;$\d]{{0,40}}?\b(?:of|was|were|is|are)\s+"
        rf"(?P<amounts>{_AMOUNT}(?:{_AND}{_AMOUNT})+)\s+per\s+(?:common\s+)?share\b{_PAIRED_YEARS}",
        re.I,
    ),
)
# The period a dividend is paid for, as the words beside it state it ("a quarterly dividend of $1.15 per
# share", "a full year dividend of $1.56", "$0.25 per share each quarter"): its months. A field asking for
# the year's dividends per share is not answered by a quarter's, nor a quarterly one by the year's.
_FREQUENCY = (
    (re.compile(r"\bquarterly\b|\b(?:per|each|a|every)\s+quarter\b", re.I), 3),
    (re.compile(r"\bmonthly\b|\b(?:per|each|a|every)\s+month\b", re.I), 1),
    (re.compile(r"\bsemi-?annual(?:ly)?\b|\bhalf[- ]year(?:ly)?\b", re.I), 6),
    (re.compile(r"\bannual(?:ized|ly)?\b|\b(?:per|each|a|every|full)\s+year\b|\byearly\b", re.I), 12),
)
_FREQUENCY_BEFORE = 40  # characters before the dividend's words searched for its frequency
_FREQUENCY_AFTER = 25  # and after its "per share"


def stated_frequency(text: str, start: int, end: int) -> int | None:
    """Months of the period the dividend stated at text[start:end] is for: the frequency word nearest
    before it in its sentence, else one right after it; None when its sentence states none there."""
    opens = max((m.end() for m in SENTENCE_END.finditer(text, 0, start)), default=0)
    closes = next((m.start() for m in SENTENCE_END.finditer(text, end)), len(text))
    before = text[max(opens, start - _FREQUENCY_BEFORE) : end]
    after = text[end : min(closes, end + _FREQUENCY_AFTER)]
    for part, last in ((before, True), (after, False)):
        hits = [
            (m.end(), -m.start(), months) for pattern, months in _FREQUENCY for m in pattern.finditer(part)
        ]
        if hits:
            # the nearest to the amount; of two ending together the longer ("semi-annual", not "annual")
            return (max(hits) if last else min(hits, key=lambda h: (-h[1], h[0])))[2]
    return None


def _other_frequency(stated: int | None, months: int | None) -> bool:
    return stated is not None and months is not None and stated != months


# The year a dividend is named for, printed right before its words ("the fiscal 2021 annual dividend of
# $2.16 per share") or right after its amount ("… was $1.56 per share in 2018"): not the date it was declared
_YEAR_BEFORE = re.compile(
    r"\b(?:fiscal\s+(?:year\s+)?)?(?P<y>(?:19|20)\d\d)\s+"
    r"(?:(?:annual|annualized|quarterly|cash|regular|total|full[- ]year|common(?:\s+stock)?)\s+){0,3}$",
    re.I,
)
_YEAR_AFTER = re.compile(r"^\s*,?\s*(?:in|for)\s+(?:fiscal\s+(?:year\s+)?)?(?P<y>(?:19|20)\d\d)\b", re.I)


def _named_year(text: str, start: int, end: int) -> int | None:
    """The year a dividend stated at text[start:end] is named for (`_YEAR_BEFORE`, `_YEAR_AFTER`), or None."""
    m = _YEAR_BEFORE.search(text[:start]) or _YEAR_AFTER.match(text[end:])
    return int(m.group("y")) if m else None


def dividend_per_share(
    windows: list[ProseWindow], months: int | None = None, year: int | None = None
) -> list[Candidate]:
    """'每10股派发现金红利X元' → X per 10 shares; '每股派发现金红利X元' → X per share; 'dividend of $X per
    share' → X, 'of N cents per share' → N/100. Each candidate carries the basis it is printed for: the
    reader states it per the shares the field asks for (readers/semantics.py). An English dividend stated
    for another span than `months` (12 for a year's dividends) or named for another year than `year` is
    not read."""
    out = []
    for w in windows:
        line = w.lines[0]
        text = unicodedata.normalize("NFKC", line.text)
        for pattern, basis in ((_DIVIDEND_10, 10), (_DIVIDEND_1, 1)):
            m = pattern.search(text.replace(" ", ""))
            if m:
                out.append(_dividend(w.page, [line], m.group(0), float(m.group("v")), basis))
                break
        norm = w.nfkc
        for m in _DIVIDEND_EN.finditer(norm):
            if m.start() >= w.first_len:
                break  # starts on the next line: read with that line
            if _other_frequency(stated_frequency(norm, m.start(), m.end()), months):
                continue
            named = _named_year(norm, m.start(), m.end())
            if named is not None and year is not None and named != year:
                continue
            value = float(m.group("usd")) if m.group("usd") else float(m.group("cents")) / 100
            out.append(_dividend(w.page, w.used(m.end()), m.group(0), value, 1))
    return out


def dividend_of_year(
    windows: list[ProseWindow], year: int | None, months: int | None = None
) -> list[Candidate]:
    """The asked year's amount of a per-share dividend list paired "respectively" with its years (see
    `_DIVIDEND_LISTS`), in a sentence or in a row's label; none when the list does not name the year, its
    years and amounts do not pair up, or it states another frequency than `months`."""
    if year is None:
        return []
    out = []
    for w in windows:
        norm = w.nfkc
        for pattern in _DIVIDEND_LISTS:
            for m in pattern.finditer(norm):
                if m.start() >= w.first_len:
                    break  # starts on the next line: read with that line
                amounts = re.findall(_AMOUNT, m.group("amounts"))
                years = [int(y[-4:]) for y in re.findall(_LIST_YEAR, m.group("years"), re.I)]
                if len(amounts) != len(years) or len(set(years)) != len(years) or year not in years:
                    continue
                if _other_frequency(stated_frequency(norm, m.start(), m.end("amounts")), months):
                    continue
                printed = amounts[years.index(year)]
                value = float(printed.lstrip("$").strip())
                out.append(_dividend(w.page, w.used(m.end()), printed, value, 1))
    return out


def _dividend(page: int, used: list[Line], raw: str, value: float, basis: int) -> Candidate:
    return lines_candidate("dividend", page, raw, used, 0.95, number=round(value, 10), basis=basis)


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
        text = w.nfkc
        for hit in stated.finditer(text):
            if hit.start() >= w.first_len:
                break  # starts on the next line: read with that line
            sentence = SENTENCE.split(w.before + text[: hit.start()])[-1]
            named = part[:2] in normalize_label(sentence)
            used = w.used(hit.end())
            out.append(lines_candidate("prose", w.page, hit.group("v"), used, 0.85 if named else 0.5))
    return out


# A firm's name: capitalised words (and "&") ending in a legal form ("Deloitte & Touche LLP", "KPMG LLP").
_FIRM_BEFORE = re.compile(
    r"(?P<firm>(?:[A-Z][\w'.-]*|&)(?:\s+(?:[A-Z][\w'.-]*|&))*?\s+(?:LLP|L\.L\.P\.|LLC|Ltd\.?|Limited|Inc\.|& Co\.))"
    r"(?:\s*,\s*(?:an|the|our|its)|\s+as\s+(?:the|our|its))\s+(?:Company's\s+)?$"
)


def _after_last_sentence(firm: str) -> str:
    """The firm's name without a sentence that ends inside the match ("… Accounting Firm. KPMG LLP" →
    "KPMG LLP"); SENTENCE_END passes over initials ("J.H. Cohn LLP"), "Co." and "Inc.", and a full stop
    that ends the name ("Ltd.") ends no sentence before it."""
    ends = [m.end() for m in SENTENCE_END.finditer(firm) if m.end() < len(firm)]
    return firm[ends[-1] :].lstrip() if ends else firm


def firm_in_role(windows: list[ProseWindow], labels: LabelSet) -> list[Candidate]:
    """A firm named beside the role a text field names: "Deloitte & Touche LLP, an independent registered
    public accounting firm", "the appointment of KPMG LLP as the independent registered public accounting
    firm" (English prose, where a 10-K names its auditor)."""
    out = []
    for w in windows:
        for label in labels.all:
            if not label.isascii():
                continue
            for start, _end in occurrences(w, label):
                m = _FIRM_BEFORE.search(w.text[:start])
                if m:
                    score = ROLE_PRIMARY_LABEL if label in labels.primary else ROLE_OTHER_LABEL
                    name = _after_last_sentence(m.group("firm"))
                    # the window's text is its lines' joined text
                    out.append(lines_candidate("role", w.page, name, w.lines, score))
    return out
