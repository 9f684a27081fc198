"""Counts of people stated in a sentence that says what they are, read without a model: "we employed
approximately 221,000 people", "15 persons were elected … directors", "公司在职员工总数为12,345人". A part
of the workforce, a share of it, or another year's count is not the count the field asks for.
"""

from __future__ import annotations

import re
import unicodedata

from mdqa_kernel.readers.confidence import PROSE_PART
from mdqa_kernel.readers.table.candidates import Candidate, is_year
from mdqa_kernel.readers.table.prose import (
    CLAUSE,
    SENTENCE_END,
    SHARE_OF_WHOLE,
    SUB_ITEM,
    ProseWindow,
    lines_candidate,
)
from mdqa_kernel.text.periods import RESPECTIVELY

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
    asked = _asked_kind(core)
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
            if not _same_workforce(_kinds(m), asked, w.text[m.end() :]):
                continue  # "30,000 part-time team members" is not the workforce, nor its full-time part
            scale = {"million": 1e6, "thousand": 1e3}.get((m["m"] or "").lower(), 1.0)
            head = SENTENCE_END.split(w.before + " " + w.text[: m.start("n")])[-1]
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
                or SUB_ITEM.search(head)
                or SHARE_OF_WHOLE.search(sentence)
                or (_PEOPLE.search(head) and not RESPECTIVELY.search(sentence))
            ):
                score = PROSE_PART
            raw = m["n"] + (f" {m['m']}" if m["m"] else "")
            count = float(f"{number[0] * scale:.12g}")
            out.append(lines_candidate("prose", w.page, raw, w.used(m.end()), score, number=count))
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
        text = w.nfkc.replace(" ", "")
        first_len = len(unicodedata.normalize("NFKC", w.lines[0].text).replace(" ", ""))
        for m in _ZH_STAFF.finditer(text):
            if m.start() >= first_len:
                break  # starts on the next line: read with that line
            number = float(m["n"].replace(",", "")) * (1e4 if m["w"] else 1.0)
            head = CLAUSE.split(w.before + text[: m.start()])[-1]
            score = 0.85 if m["what"] or "共有" in head[-4:] or "拥有" in head[-4:] else 0.7
            if SUB_ITEM.search(head) or _ZH_OTHER_PEOPLE.search(head) or "母公司" in head:
                score = PROSE_PART
            used = w.lines if m.end() > first_len else w.lines[:1]
            out.append(
                lines_candidate("prose", w.page, m.group(0), used, score, number=float(f"{number:.12g}"))
            )
    return out


_KIND = re.compile(r"\b(total|full[-\s]time|part[-\s]time|seasonal|temporary)\b", re.I)
_PART_KINDS = frozenset({"part-time", "seasonal", "temporary"})
# "44,000 associates, of whom approximately 10,000 were full-time": the count before is the whole workforce.
_FULL_TIME_AFTER = re.compile(
    r"^[^.;]{0,20}?\b(?:of\s+whom|of\s+which|including|among\s+them)\b[^.;]{0,40}?\d[^.;]{0,40}?\bfull[-\s]time\b",
    re.I,
)


def _kinds(m: re.Match[str]) -> set[str]:
    """The kinds of employment printed between a count and its noun ("13,600 full-time", "30,000
    part-time team members", "9,200 total full-time and part-time employees"); none for a workforce
    named before its count ("total workforce was 153,000")."""
    if "noun" not in m.re.groupindex:
        return set()
    start = max(m.end(g) for g in ("n", "m", "n2") if m[g])
    return _kind_words(m.string[start : m.start("noun")])


def _asked_kind(core: str) -> str | None:
    """ "full-time" or "part-time" when the field asks for that part of the workforce alone; None for
    the whole (or for both named together)."""
    kinds = _kind_words(core) & {"full-time", "part-time"}
    return next(iter(kinds)) if len(kinds) == 1 else None


def _kind_words(text: str) -> set[str]:
    """The kinds of employment a text names, spelled one way ("full time" is "full-time")."""
    return {re.sub(r"\s", "-", k.lower()) for k in _KIND.findall(text)}


def _same_workforce(kinds: set[str], asked: str | None, after: str) -> bool:
    """Whether a count of the kinds printed with it is the workforce the field asks for: a part-time,
    seasonal or temporary count alone is no whole workforce and no full-time count; a whole ("total
    full-time and part-time") is neither part; and a count followed by "of whom … full-time" is the
    whole, not the full-time part."""
    whole = "total" in kinds or {"full-time", "part-time"} <= kinds
    part_only = bool(kinds & _PART_KINDS) and "full-time" not in kinds and not whole
    if asked is None:
        return not part_only
    if asked == "full-time":
        return not (part_only or whole) and ("full-time" in kinds or not _FULL_TIME_AFTER.search(after))
    return "part-time" in kinds and not whole


def _current_first(sentence: str) -> bool:
    """In "As of December 31, 2017 and 2016, … 61,800 and 100,300 employees, respectively" the first count
    is the later year's: the years the sentence names come latest first (or it names none)."""
    years = [int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", sentence)]
    return len(years) < 2 or years[0] >= years[1]


def _sentence_around(w: ProseWindow, start: int, end: int) -> str:
    """The sentence of w.text[start:end], begun on the line before when it starts there."""
    head = SENTENCE_END.split(w.before + " " + w.text[:start])[-1]
    tail = SENTENCE_END.split(w.text[end:], maxsplit=1)[0]
    return head + w.text[start:end] + tail
