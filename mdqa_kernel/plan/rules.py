"""Deterministic reading of a question: the facts a planner should not leave to a small model.

Years, k ("前三", "top 3"), direction ("最低", "earliest"), ties ("含并列"), thresholds ("超过7天",
"two weeks"), multipliers ("两倍", "twice"), the document types a question names, and the domain
hints it triggers. The keyword lists live in `plan/hints.yaml` (data, not code); this module only
matches them. The planner uses these facts to fill what the model left out and to overrule the
model where the question states a value explicitly, and records which parts came from where.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.formula import formula_in, match_field, weights_in  # noqa: F401 (re-exported)
from mdqa_kernel.text.language import CJK, CJK_RANGES, detect_language
from mdqa_kernel.text.numerals import COUNT_CHARS, cn_number
from mdqa_kernel.text.yamlsafe import YamlLoadError, load_yaml, read_document

HINTS_FILE = Path(__file__).with_name("hints.yaml")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_EN_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twice": 2, "double": 2, "triple": 3,
}  # fmt: skip
_NUM = rf"(\d{{1,3}}(?:\.\d+)?(?!\d)|[{COUNT_CHARS}])"
# "前三", "三家公司", "第3名", "前三档": k is the number after 前, before a counter word, or in 第N名,
# tried in that order ("第一大股东…前三" is k=3, not 1).
_K_ZH = (re.compile(rf"前{_NUM}"), re.compile(rf"{_NUM}(?:家|档|位)"), re.compile(rf"第{_NUM}名"))
_K_EN = re.compile(
    r"\b(?:top|first|bottom|last)[\s-]+(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b"
    # "three companies", and "the three most profitable"
    r"|\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:companies|firms|banks|stocks|issuers|filers|tickers|most)\b",
    re.I,
)
# "得分最高的全部公司（含并列）": every company at the top value, a k of 1 with its ties
_ALL_AT_TOP = re.compile(
    r"(?:最高|最低|最多|最少|最大|最小|最早|最晚)的(?:全部|所有)"
    r"|\ball (?:the )?(?:companies|firms|banks|stocks|tickers) (?:tied )?(?:with|at|sharing) the (?:highest|lowest|largest|smallest|top)\b",
    re.I,
)
_THRESHOLD = re.compile(
    rf"(?:超过|高于|大于|多于|低于|少于|不低于|不少于|more than|greater than|over|above|exceeding|at least|less than|below|under)\s*{_NUM}(?:\.\d+)?",
    re.I,
)
_TIMES_ZH = re.compile(rf"{_NUM}(?:倍|个标准差)")
_TIMES_EN = re.compile(
    r"\b(\d+(?:\.\d+)?|one|two|three|four|five|twice|double|triple)\s*(?:times|standard deviations?|sigma|σ)?\b",
    re.I,
)


class HintsError(MdqaError, ValueError):
    """The planner hints file is missing or malformed."""


@dataclass(frozen=True)
class DomainHint:
    id: str
    when: tuple[str, ...]
    note: str
    effects: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hints:
    families: dict[str, str]
    examples: list[dict[str, str]]
    domain_hints: list[DomainHint]
    doctype_aliases: dict[str, list[str]]
    words: dict[str, Any]
    family_cues: dict[str, list[str]] = field(default_factory=dict)

    def word_list(self, key: str) -> list[str]:
        return list(self.words.get(key, []))


@cache
def load_hints(path: str | None = None) -> Hints:
    """Parse the hints YAML (default: the one shipped beside this module)."""
    p = Path(path) if path else HINTS_FILE
    try:
        data = load_yaml(read_document(p), str(p), what="planner hints")
    except (OSError, YamlLoadError) as e:
        raise HintsError(f"cannot read planner hints {p}: {e}") from None
    try:
        hints = [
            DomainHint(h["id"], tuple(h["when"]), " ".join(h["note"].split()), dict(h.get("effects") or {}))
            for h in data.get("domain_hints", [])
        ]
        return Hints(
            families=dict(data["families"]),
            examples=list(data.get("examples", [])),
            domain_hints=hints,
            doctype_aliases={k: list(v) for k, v in (data.get("doctype_aliases") or {}).items()},
            words=dict(data.get("words") or {}),
            family_cues={k: [str(c) for c in v] for k, v in (data.get("family_cues") or {}).items()},
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise HintsError(f"planner hints {p} are malformed: {e!r}") from None


def contains_any(text: str, words: Iterable[str]) -> bool:
    """Any word is a substring (case-insensitive); a word starting with "re:" is a regular expression."""
    low = text.lower()
    for w in words:
        if w.startswith("re:"):
            if re.search(w[3:], text, re.I):
                return True
        elif w.lower() in low:
            return True
    return False


def cue_families(question: str, hints: Hints) -> list[str]:
    """Families whose cue phrases occur in the question, most specific first (the YAML's order); a
    list asked with its share of the companies ("…股票代码和采用比例") is a threshold filter."""
    share = asks_share(question)
    return [
        fam
        for fam, cues in hints.family_cues.items()
        if contains_any(question, cues) or (share and fam == "threshold_filter")
    ]


def flags_named(question: str, fields: Sequence[tuple[str, str]], hints: Hints) -> list[str]:
    """Yes/no fields the question names by their core term ("债权人" for "是否披露债权人权益保护")."""
    text = re.sub(r"\s+", "", question).lower()
    out = []
    for name, desc in fields:
        core = re.sub(r"\s+", "", desc).lower()
        for word in sorted(hints.word_list("flag_stopwords"), key=len, reverse=True):
            core = core.replace(word.replace(" ", "").lower(), "")
        core = core.strip("。.，,、:：")
        if len(core) >= 2 and core in text:
            out.append(name)
    return out


def language_of(question: str) -> str:
    return detect_language(question)


def _to_int(token: str | None) -> int | None:
    if not token:
        return None
    if token.replace(".", "", 1).isdigit():
        return int(float(token))
    number = cn_number(token)
    return int(number) if number is not None else _EN_NUMBERS.get(token.lower())


def years_in(question: str, known: Sequence[int] | None = None) -> list[int]:
    """Years named in the question, in order of first mention (only those the collection has, if known)."""
    out: list[int] = []
    for m in _YEAR.finditer(question):
        y = int(m.group(1))
        if (not known or y in known) and y not in out:
            out.append(y)
    return out


def k_in(question: str) -> int | None:
    """The k of a ranking when the question states it ("前三", "三家", "top 3", "three companies")."""
    for pattern in _K_ZH:
        m = pattern.search(question)
        if m:
            return _to_int(m.group(1))
    m = _K_EN.search(question)
    if m:
        return _to_int(m.group(1) or m.group(2))
    return None


def all_at_top(question: str) -> bool:
    """The question wants every company tied at the top (or bottom) value, however many there are."""
    return _ALL_AT_TOP.search(question) is not None


def _implied_k(question: str, hints: Hints) -> int | None:
    """k of a ranking the question implies by number: "which companies" -> 3, "which company" -> 1."""
    if contains_any(question, hints.word_list("singular")):
        return 1
    if contains_any(question, hints.word_list("plural")):
        return int(hints.words.get("plural_default_k", 3))
    return None


_MEASURE_EN = re.compile(
    r"(?:ranked by|ranking by|sorted by|by|highest|largest|lowest|smallest|most|fewest|greatest)\s+(?:the\s+)?"
    r"([a-z][a-z' -]{2,60}?)(?:\s+(?:in|for|from|between|of|during)\b|\s*[?.,]|$)",
    re.I,
)
_MEASURE_ZH = re.compile(
    rf"(?:\d{{4}}年(?:的|度)?|中)({CJK}{{2,20}}?)(?:最高|最低|最多|最少|最大|最小|最早|最晚|前[三五十\d])"
)


def measure_in(question: str) -> str | None:
    """The value a ranking question ranks by ("ranked by total assets" -> "total assets"), or None."""
    m = _MEASURE_ZH.search(question) or _MEASURE_EN.search(question)
    if not m:
        return None
    phrase = m.group(1).strip()
    for lead in ("你的知识库中", "你知识库中", "知识库中", "公司", "的"):
        phrase = phrase.removeprefix(lead)
    for tail in ("增长率", " growth rate", " growth"):  # growth is computed from the value itself
        phrase = phrase.removesuffix(tail)
    return phrase.strip() or None


# "办公地址在深圳的公司", "注册地位于北京的": a text value tested for the place it names.
_LOCATED = re.compile(
    r"(?P<field>(?:办公|注册|经营|通讯|联系)?(?:地址|所在地|注册地|住所|总部))(?:位于|在)"
    rf"(?P<place>{CJK}{{2,8}}?)(?:市|省)?的"
)


def located_in(question: str) -> tuple[str, str] | None:
    """(the value's name, the place): '办公地址在深圳的公司' -> ('办公地址', '深圳'); None otherwise."""
    m = _LOCATED.search(question)
    return (m.group("field"), m.group("place")) if m else None


# "…的公司股票代码和审验机构名称": besides its code, each company listed comes with one named value.
_SHOWN = re.compile(
    r"(?:股票代码|证券代码|代码)(?:和|及|以及|与)(?:其|对应的)?(?:具体的?)?"
    rf"(?P<what>[{CJK_RANGES}A-Za-z]{{2,12}}?)"
    r"(?:分别)?(?:是什么|是哪些|有哪些|是多少|是)?[。？?]?$"
)


# "…的公司股票代码和采用比例是多少": the share of the companies that meet the condition, not a value of each
_SHARE = re.compile(r"^(?:采用|参照|披露|审验|所占|占)?(?:比例|占比|比重)$")


def _beside_codes(question: str) -> str | None:
    """What the question asks for besides the codes ("审验机构名称", "采用比例"), or None."""
    m = _SHOWN.search(question.strip())
    return m.group("what") if m else None


def shown_in(question: str) -> str | None:
    """The value a list of companies shows beside each code ("…的公司股票代码和审验机构名称" ->
    "审验机构名称"); None when the question asks only for the codes or for their share."""
    what = _beside_codes(question)
    return what if what is not None and not _SHARE.match(what) else None


def asks_share(question: str) -> bool:
    """The question asks what share of the companies meet its condition ("…的公司股票代码和采用比例")."""
    what = _beside_codes(question)
    return what is not None and _SHARE.match(what) is not None


# "the stock symbols and exact debt-to-assets ratios for the top three companies …", "the exact net profit
# amounts and stock symbols for the three most profitable companies": the value listed beside each symbol
_SHOWN_EN = (
    re.compile(
        r"\b(?:stock\s+)?(?:symbols|tickers)\s+and\s+(?:the\s+|their\s+)?(?:exact|precise|specific|corresponding)?"
        r"\s*(?P<what>[a-z][a-z -]{2,60}?)\s+(?:for|of)\s+the\b",
        re.I,
    ),
    re.compile(
        r"\b(?:exact|precise|specific)\s+(?P<what>[a-z][a-z -]{2,60}?)\s+and\s+(?:their\s+|the\s+)?"
        r"(?:stock\s+)?(?:symbols|tickers)\s+(?:for|of)\s+the\b",
        re.I,
    ),
)


def listed_beside_symbols(question: str) -> str | None:
    """The value an English ranking lists beside each symbol ("…symbols and exact other business revenue
    percentages for the top three companies…" -> "other business revenue percentages"), or None."""
    for pattern in _SHOWN_EN:
        m = pattern.search(question)
        if m:
            return m.group("what").strip()
    return None


# "具体由哪家会计事务所换到哪家", "从哪里换到了哪里": a change shown with its old and new value.
_FROM_TO = re.compile(
    r"(?:由|从)哪.{0,12}?换(?:到|成|为)了?哪|\bfrom (?:which|what)\b.{0,40}?\bto (?:which|what)\b", re.I
)


def asks_from_to(question: str) -> bool:
    """The question asks what a changed value was before and after ("由哪家…换到哪家")."""
    return _FROM_TO.search(question) is not None


def threshold_in(question: str, hints: Hints) -> float | None:
    """A comparison value ("超过7天" -> 7, "两周" -> 14, "more than 500" -> 500)."""
    for phrase, value in (hints.words.get("half_month") or {}).items():
        if phrase.lower() in question.lower():
            return float(value)
    m = _THRESHOLD.search(question)
    if m:
        whole = re.search(r"\d+(?:\.\d+)?", m.group(0))
        if whole:
            return float(whole.group(0))
        n = _to_int(m.group(1))
        return float(n) if n is not None else None
    return None


def threshold_is_percent(question: str) -> bool:
    """The comparison value is written as a percent ("增长超过50%"): 0.5 on a ratio such as a growth."""
    m = _THRESHOLD.search(question)
    if not m:
        return False
    rest = question[m.end() :].lstrip()
    return rest[:1] in ("%", "％") or rest.lower().startswith("percent")


def multiplier_in(question: str) -> float | None:
    """How many times the mean / standard deviations ("两倍" -> 2, "twice" -> 2, "3 standard deviations")."""
    m = _TIMES_ZH.search(question)
    if m:
        n = _to_int(m.group(1))
        return float(n) if n is not None else None
    for m in _TIMES_EN.finditer(question):
        word = m.group(1).lower()
        tail = m.group(0)[len(m.group(1)) :].strip()
        if word in ("twice", "double", "triple") or tail:
            return float(_EN_NUMBERS.get(word) or word)
    return None


def doctypes_in(question: str, doctypes: Sequence[str], hints: Hints) -> list[str]:
    """Document types of the collection the question names, through the alias table or the name itself."""
    low = question.lower()
    found: list[str] = []
    for dtype in doctypes:
        aliases = [dtype, *hints.doctype_aliases.get(dtype, [])]
        if any(a.lower() in low for a in aliases if a):
            found.append(dtype)
    # An alias shared by several types ("annual report") says nothing when a more specific one matched.
    if len(found) > 1:
        specific = [d for d in found if any(a.lower() in low for a in hints.doctype_aliases.get(d, [])[:1])]
        found = specific or found
    return found


def matching_hints(question: str, hints: Hints) -> list[DomainHint]:
    return [h for h in hints.domain_hints if contains_any(question, h.when)]


@dataclass
class QuestionFacts:
    """Everything the rules read from one question (None: the question does not say)."""

    question: str
    language: str
    years: list[int]
    doctypes: list[str]
    k: int | None
    direction: str | None  # "highest" | "lowest"
    dense: bool
    ties: bool
    wants_value: bool
    threshold: float | None
    multiplier: float | None
    stat: str | None  # "range" | "std" when the question names one
    between_years: bool
    later: bool  # a date moved later (vs earlier)
    combine: str | None  # "any" | "all"
    growth_words: bool  # "增长", "grew": a condition on growth between the years
    hints: list[DomainHint]
    located: tuple[str, str] | None = None  # "办公地址在深圳": (the value's name, the place)
    shown: str | None = None  # "股票代码和审验机构名称": a value each listed company is shown with
    from_to: bool = False  # "由哪家…换到哪家": a change is shown with its old and new value
    share: bool = False  # "股票代码和采用比例": the list says which share of the companies it holds

    def effect(self, key: str) -> Any:
        """The first matching hint's value for an effect key (None when no hint sets it)."""
        for h in self.hints:
            if key in h.effects:
                return h.effects[key]
        return None


def read_question(
    question: str,
    *,
    years: Sequence[int] | None = None,
    doctypes: Sequence[str] = (),
    hints: Hints | None = None,
) -> QuestionFacts:
    """Apply every rule to a question, given the collection's known years and document types."""
    h = hints or load_hints()
    direction = "lowest" if contains_any(question, h.word_list("lowest")) else None
    if direction is None and contains_any(question, h.word_list("highest")):
        direction = "highest"
    stat = "std" if contains_any(question, h.word_list("std")) else None
    if stat is None and contains_any(question, h.word_list("range")):
        stat = "range"
    combine = "any" if contains_any(question, h.word_list("any")) else None
    if combine is None and contains_any(question, h.word_list("all")):
        combine = "all"
    ys = years_in(question, years)
    at_top = all_at_top(question)
    return QuestionFacts(
        question=question,
        language=language_of(question),
        years=ys,
        doctypes=doctypes_in(question, doctypes, h),
        k=k_in(question) or (1 if at_top else None) or _implied_k(question, h),
        direction=direction,
        dense=contains_any(question, h.word_list("dense")),
        ties=at_top or contains_any(question, h.word_list("ties")),
        wants_value=contains_any(question, h.word_list("wants_value")),
        threshold=threshold_in(question, h),
        multiplier=multiplier_in(question),
        stat=stat,
        between_years=len(ys) >= 2 and contains_any(question, h.word_list("between_years_change")),
        later=contains_any(question, h.word_list("later")),
        combine=combine,
        growth_words=contains_any(question, h.word_list("growth_on")),
        hints=matching_hints(question, h),
        located=located_in(question),
        shown=shown_in(question),
        from_to=asks_from_to(question),
        share=asks_share(question),
    )
