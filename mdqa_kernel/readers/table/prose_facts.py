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
        text = unicodedata.normalize("NFKC", w.text)
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
