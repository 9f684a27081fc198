"""Deterministic facts outside tables, read only where it is safe.

- Dividends per share: "每10股派发现金红利3.00元（含税）" → 0.30; "a dividend of 90 cents per share" → 0.90.
- Key-value lines: "会计师事务所：XXX", "Auditor: XXX", "股权登记日：2022年6月7日", "社会捐赠额：1,768万元".
- Label-then-value prose: "股权登记日为2022年6月7日", "控股装机容量达785万千瓦", also when the sentence wraps
  onto the next line, under the shortened labels prose uses ("is payable February 17, 2023" for a payable
  date, "comparable sales increased 12.6%" for its growth, "脱硫效率" for 燃煤电厂脱硫效率); a part ("其中…",
  "including…") counts for less than the total, a change ("revenues increased 4%") is not the level.
- English counts before their noun ("operates 847 warehouses") and Chinese shares ("…占总装机容量的22.54%").
- A firm named beside the role a text field names ("Deloitte & Touche LLP, an independent registered public
  accounting firm"; "the appointment of KPMG LLP as the independent registered public accounting firm").
- Booleans as the presence of a statement, only when the description gives the phrase to look for
  ("是否披露职工权益保护" → "职工权益保护", or a quoted phrase); a negation just before it means False.

Each finder returns `Candidate`s; the table reader picks the best one and applies scales.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from mdqa_kernel.readers.labels import LabelSet, label_score, normalize_label
from mdqa_kernel.readers.layout import Line
from mdqa_kernel.readers.values import declared_scale, find_dates, find_numbers

_KV_SEP = re.compile(r"[:：]")
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
_NEGATION = ("未", "没有", "尚未", "无", "not", "never")
# The verbs a yes/no fact is stated with ("是否采用GRI标准", "经第三方机构审验的公司"): one list for the
# reader and the planner, so a fact the planner writes is one the reader can look for. Longer first.
FACT_VERBS = r"使用或参照|披露|公开|经过|经|参照|遵循|采用|使用"
_WHETHER = re.compile(rf"是否(?:{FACT_VERBS})(?:了)?(?P<p>[^。？?，,]+)")
_QUOTED = re.compile(r"[“\"「『]([^”\"」』]+)[”\"」』]")


@dataclass
class Candidate:
    """A value found on a page before typing and scaling."""

    kind: str  # table | dividend | key_value | prose | statement
    page: int
    raw: str  # the printed value text
    snippet: str
    score: float  # 0..1, how sure the finder is
    bbox: tuple[float, float, float, float] | None = None
    char_span: tuple[int, int] | None = None
    scale: float | None = None  # a scale printed with the value ("万元"), if any
    scale_word: str | None = None
    number: float | None = None
    boolean: bool | None = None


def _compact_map(text: str) -> tuple[str, list[int]]:
    """The label-normalised form of a text plus, for each of its characters, the source index."""
    out: list[str] = []
    idx: list[int] = []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch).lower():
            if c.isalnum():
                out.append(c)
                idx.append(i)
    return "".join(out), idx


def line_bbox(line: Line) -> tuple[float, float, float, float]:
    return (min(w.x0 for w in line.words), line.top, max(w.x1 for w in line.words), line.bottom)


def line_span(line: Line) -> tuple[int, int] | None:
    starts = [w.char_start for w in line.words if w.char_start >= 0]
    ends = [w.char_end for w in line.words if w.char_end >= 0]
    return (min(starts), max(ends)) if starts and ends else None


def dividend_per_share(lines_by_page: dict[int, list[Line]]) -> list[Candidate]:
    """'每10股派发现金红利X元' → X/10 per share; '每股派发现金红利X元' → X; 'dividend of $X per share' → X,
    'of N cents per share' → N/100 (the sentence may wrap onto the next line)."""
    out = []
    for page, lines in lines_by_page.items():
        for i, line in enumerate(lines):
            text = unicodedata.normalize("NFKC", line.text)
            for pattern, divisor in ((_DIVIDEND_10, 10.0), (_DIVIDEND_1, 1.0)):
                m = pattern.search(text.replace(" ", ""))
                if m:
                    value = float(m.group("v")) / divisor
                    out.append(_dividend(page, [line], m.group(0), value))
                    break
            window = _window(lines, i)
            joined = unicodedata.normalize("NFKC", _joined(window))
            for m in _DIVIDEND_EN.finditer(joined):
                if m.start() >= len(line.text):
                    break  # starts on the next line: read with that line
                value = float(m.group("usd")) if m.group("usd") else float(m.group("cents")) / 100
                used = window if m.end() > len(line.text) else window[:1]
                out.append(_dividend(page, used, m.group(0), value))
    return out


def _dividend(page: int, used: list[Line], raw: str, value: float) -> Candidate:
    return Candidate(
        "dividend",
        page,
        raw,
        _joined(used),
        0.95,
        _lines_bbox(used),
        _lines_span(used),
        number=round(value, 10),
    )


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


def key_values(lines_by_page: dict[int, list[Line]], labels: LabelSet) -> list[Candidate]:
    """'LABEL：VALUE' or 'LABEL    VALUE' (a two-column line) whose label names the field; the label
    may sit inside a sentence ('…鉴证报告。审验机构：XXX。')."""
    out = []
    for page, lines in lines_by_page.items():
        for line in lines:
            text = line.text
            m = _KV_SEP.search(text)
            if m and m.start() > 0:
                head = re.split(r"[。；;，,]", text[: m.start()])[-1]
                score = label_score(head, labels)
                value = re.split(r"[。；;]", text[m.end() :])[0].strip()
                if score >= 0.85 and value:
                    out.append(
                        Candidate("key_value", page, value, text, score, line_bbox(line), line_span(line))
                    )
                    continue
            groups = _gap_groups(line)
            if len(groups) >= 2:
                score = label_score(groups[0], labels)
                value = " ".join(groups[1:]).strip().rstrip("。;；")
                if score >= 0.85 and value:
                    out.append(
                        Candidate(
                            "key_value", page, value, text, score * 0.95, line_bbox(line), line_span(line)
                        )
                    )
    return out


def _gap_groups(line: Line) -> list[str]:
    """The words of a line grouped by wide horizontal gaps (the cells of a two-column table)."""
    groups: list[list[str]] = []
    last_x1: float | None = None
    for w in line.words:
        char_w = (w.x1 - w.x0) / max(len(w.text), 1)
        if last_x1 is None or w.x0 - last_x1 > 3 * max(char_w, 3.0):
            groups.append([w.text])
        else:
            groups[-1].append(w.text)
        last_x1 = w.x1
    cjk = any("\u4e00" <= ch <= "\u9fff" for w in line.words for ch in w.text)
    return ["".join(g) if cjk else " ".join(g) for g in groups]


def column_values(lines_by_page: dict[int, list[Line]], labels: LabelSet, want: str) -> list[Candidate]:
    """Transposed tables: a header cell naming the field, the value in the line(s) below it."""
    out = []
    for page, lines in lines_by_page.items():
        for i, line in enumerate(lines):
            for w in line.words:
                if label_score(w.text, labels) < 0.9:
                    continue
                for below in lines[i + 1 : i + 4]:
                    cell = [x for x in below.words if x.x0 - 4 <= w.x1 and w.x0 - 4 <= x.x1]
                    found = _first_value(" ".join(x.text for x in cell), want) if cell else None
                    if found:
                        out.append(
                            Candidate(
                                "column",
                                page,
                                found[0],
                                f"{w.text} … {below.text}",
                                0.9,
                                line_bbox(below),
                                line_span(below),
                            )
                        )
                        break
    return out


_DATE_HEADER = re.compile(r"日期|时间|\bdate\b", re.IGNORECASE)


def column_dates(lines_by_page: dict[int, list[Line]], labels: LabelSet) -> list[Candidate]:
    """Every date in a table column whose header ends the field's label ("召开日期" under "股东大会召开
    日期"), one candidate per column: the list of a year's meetings, read top to bottom."""
    out = []
    for page, lines in lines_by_page.items():
        for i, line in enumerate(lines):
            for w in line.words:
                head = normalize_label(w.text)
                if (
                    len(head) < 4
                    or not _DATE_HEADER.search(head)
                    or not any(p.endswith(head) for p in labels.primary)
                ):
                    continue
                days, rows = [], []
                for below in lines[i + 1 :]:
                    cell = " ".join(x.text for x in below.words if x.x0 - 4 <= w.x1 and w.x0 - 4 <= x.x1)
                    found = find_dates(cell) if cell else []
                    if not found:
                        break  # the table ended
                    days.append(found[0][0].isoformat())
                    rows.append(below)
                if days:
                    out.append(
                        Candidate(
                            "column_list",
                            page,
                            "、".join(days),
                            f"{w.text} … {rows[-1].text}",
                            0.9,
                            line_bbox(line),
                            line_span(line),
                        )
                    )
    return out


_COUNT_NOUN = re.compile(r"^(?P<noun>.+?)(?:次数|人数|家数|个数|数量)$")


def counts(lines_by_page: dict[int, list[Line]], description: str) -> list[Candidate]:
    """'共召开…2次临时股东大会' for a field '临时股东大会次数': a number + measure word + the noun."""
    core = re.split(r"[(（。]", unicodedata.normalize("NFKC", description))[0].strip()
    m = _COUNT_NOUN.match(core)
    if not m:
        return []
    noun = re.escape(m.group("noun").strip())
    pattern = re.compile(r"(?<![\d.])(\d+)\s*[次名人家位个]\s*" + noun)
    out = []
    for page, lines in lines_by_page.items():
        for line in lines:
            hit = pattern.search(line.text.replace(" ", ""))
            if hit:
                out.append(
                    Candidate(
                        "count",
                        page,
                        hit.group(1),
                        line.text,
                        0.9,
                        line_bbox(line),
                        line_span(line),
                        number=float(hit.group(1)),
                    )
                )
    return out


# A value inside "其中…" / "including …" is a part of the total the label names, not the total.
_SUB_ITEM = re.compile(r"其中|including|of which|among which", re.I)
_CLAUSE = re.compile(r"[，,。；;]")
_SENTENCE_END = re.compile(r"[。；;]|\.(?:\s|$)")
# A field that names a change ("Global comparable sales growth") is read after a change verb; a level
# ("Revenues") is not: "Revenues increased 4%" states the change, not the revenues.
_CHANGE_SUFFIXES = ("growthrate", "growth", "change", "增长率", "增幅", "变动率", "变化率")
_CHANGE_VERB = re.compile(
    r"^\s*(?:同比)?(?:增长|增加|下降|减少|上升|提高|increased|decreased|grew|rose|fell|declined|was up|was down)",
    re.I,
)
_TO_LEVEL = re.compile(r"^\s*(?:至|到|to\b)", re.I)
_CJK_ONLY = re.compile(r"^[\u4e00-\u9fff]+$")
# English prose names years by the words before them ("fiscal year 2022", "June 30, 2023", "in 2021").
_YEAR_BEFORE = re.compile(r"(?:\byears?|\bfiscal|\bFY|\bin|\bsince|\band|\d,)\s*$", re.I)
# An English count is printed before its noun: "operates 847 warehouses".
_NUMBER_BEFORE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)\s+$")


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


def _is_prose(line: Line) -> bool:
    return len(_gap_groups(line)) <= 1


def _window(lines: list[Line], i: int) -> list[Line]:
    """Line i, and the next line when both are prose: a sentence's label or value may wrap."""
    if i + 1 < len(lines) and _is_prose(lines[i]) and _is_prose(lines[i + 1]):
        return [lines[i], lines[i + 1]]
    return [lines[i]]


def _joined(window: list[Line]) -> str:
    cjk = any("\u4e00" <= ch <= "\u9fff" for line in window for ch in line.text)
    return ("" if cjk else " ").join(line.text for line in window)


def _bounded(text: str, start: int, end: int) -> bool:
    """An English label matched as whole words ("record", not "recorded")."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalpha())


@dataclass(frozen=True)
class ProseWindow:
    """Line `lines[0]` of a page, joined with the next line when both are prose (see `_window`)."""

    page: int
    lines: list[Line]
    text: str
    compact: str  # label-normalised text, as `_compact_map`
    idx: list[int]  # for each compact character, its index in `text`


def prose_windows(lines_by_page: dict[int, list[Line]]) -> list[ProseWindow]:
    """Every line's window, once per document: all numeric and date fields search the same ones."""
    out = []
    for page, lines in lines_by_page.items():
        for i in range(len(lines)):
            window = _window(lines, i)
            text = _joined(window)
            compact, idx = _compact_map(text)
            out.append(ProseWindow(page, window, text, compact, idx))
    return out


def label_then_value(
    lines_by_page: dict[int, list[Line]],
    labels: LabelSet,
    want: str,
    windows: list[ProseWindow] | None = None,
) -> list[Candidate]:
    """Prose 'LABEL 为/达/was VALUE' (want: 'number', 'integer' or 'date'): the first value after a label,
    in the same sentence, where the sentence may wrap onto the next line. A value that is a part ("其中…",
    "including…") or a change of what the label names ("increased 4%") counts for less or not at all.
    `windows`: `prose_windows(lines_by_page)` when the caller keeps them for several fields."""
    out = []
    prose_labels = _prose_labels(labels, want)
    for w in prose_windows(lines_by_page) if windows is None else windows:
        first_len = len(w.lines[0].text)  # matches start in the first line; the next window has the rest
        best: dict[int, Candidate] = {}
        for label in prose_labels:
            pos = w.compact.find(label.norm)
            while pos >= 0:
                found = [_prose_value(w.text, w.idx, pos, label, want, first_len)]
                if want != "date":
                    found.append(_count_before(w.text, w.idx, pos, label, first_len))
                for at, score, raw, scale, end in filter(None, found):
                    if at not in best or best[at].score < score:
                        best[at] = _prose_candidate(w.page, w.lines, raw, scale, score, end)
                pos = w.compact.find(label.norm, pos + 1)
        out.extend(best.values())
    return out


_SHARE_FIELD = re.compile(
    r"^(?P<part>[\u4e00-\u9fff]{2,})占(?P<whole>[\u4e00-\u9fff]{2,}?)(?:的)?(?:比例|比重|百分比)?$"
)


def share_of(lines_by_page: dict[int, list[Line]], description: str) -> list[Candidate]:
    """A Chinese share stated in a sentence: the field "可再生能源装机占总装机容量比例" read from
    "可再生能源投产装机容量达到177万千瓦，占总装机容量的22.54%". The sentence must name the part too
    (its first two characters, before the "占") to be trusted; it may wrap onto the next line."""
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
    for page, lines in lines_by_page.items():
        for i, line in enumerate(lines):
            window = _window(lines, i)
            text = unicodedata.normalize("NFKC", _joined(window))
            for hit in stated.finditer(text):
                if hit.start() >= len(line.text):
                    break  # starts on the next line: read with that line
                # the sentence may have begun on the line before
                before = lines[i - 1].text if i > 0 and _is_prose(lines[i - 1]) and _is_prose(line) else ""
                sentence = re.split(r"[。；;]", before + text[: hit.start()])[-1]
                named = part[:2] in normalize_label(sentence)
                used = window if hit.end() > len(line.text) else window[:1]
                out.append(
                    Candidate(
                        "prose",
                        page,
                        hit.group("v"),
                        _joined(used),
                        0.85 if named else 0.5,
                        _lines_bbox(used),
                        _lines_span(used),
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
        first_len = len(w.lines[0].text)
        for label in labels.all:
            if not label.isascii():
                continue
            pos = w.compact.find(label)
            while pos >= 0:
                start, end = w.idx[pos], w.idx[pos + len(label) - 1] + 1
                m = _FIRM_BEFORE.search(w.text[:start]) if start < first_len else None
                if m and _bounded(w.text, start, end):
                    score = 0.85 if label in labels.primary else 0.8
                    out.append(
                        Candidate(
                            "role",
                            w.page,
                            m.group("firm"),
                            w.text,
                            score,
                            _lines_bbox(w.lines),
                            _lines_span(w.lines),
                        )
                    )
                pos = w.compact.find(label, pos + 1)
    return out


def _prose_value(
    text: str, idx: list[int], pos: int, label: _ProseLabel, want: str, first_len: int
) -> tuple[int, float, str, tuple[float, str] | None, int] | None:
    """(value position, score, raw value, scale, value end) for one label match, or None."""
    start, end = idx[pos], idx[pos + len(label.norm) - 1] + 1
    if start >= first_len or (label.norm.isascii() and not _bounded(text, start, end)):
        return None
    rest = _SENTENCE_END.split(text[end:], maxsplit=1)[0][: 60 if want == "date" else 40]
    verb = _CHANGE_VERB.match(rest)
    changed = bool(verb) and not _TO_LEVEL.match(rest[verb.end() :])  # "increased to 980" is a level
    if changed != label.change:
        return None
    found = _value_at(rest, want)
    if found is None:
        return None
    raw, scale, at, value_end = found
    linked = label.change or bool(_LINK.match(rest))
    score = label.base * (0.85 if linked else 0.6)
    clause = _CLAUSE.split(text[:start])[-1]
    if _SUB_ITEM.search(clause) or _SUB_ITEM.search(rest[:at]):
        score *= 0.7
    return end + at, round(score, 4), raw, scale, end + value_end


def _count_before(
    text: str, idx: list[int], pos: int, label: _ProseLabel, first_len: int
) -> tuple[int, float, str, tuple[float, str] | None, int] | None:
    """An English count before its noun ("operates 847 warehouses"), the label being that noun."""
    start, end = idx[pos], idx[pos + len(label.norm) - 1] + 1
    if label.change or not label.norm.isascii() or start >= first_len or not _bounded(text, start, end):
        return None
    m = _NUMBER_BEFORE.search(text[:start])
    if m is None or _is_year(text, (float(m.group(1).replace(",", "")), m.start(1), m.end(1), False)):
        return None
    score = label.base * 0.6
    if _SUB_ITEM.search(_CLAUSE.split(text[: m.start(1)])[-1]):
        score *= 0.7
    return m.start(1), round(score, 4), m.group(1), None, m.end(1)


def _prose_candidate(
    page: int,
    window: list[Line],
    raw: str,
    scale: tuple[float, str] | None,
    score: float,
    value_end: int,
) -> Candidate:
    used = window if value_end > len(window[0].text) else window[:1]
    return Candidate(
        "prose",
        page,
        raw,
        _joined(used),
        score,
        _lines_bbox(used),
        _lines_span(used),
        scale=scale[0] if scale else None,
        scale_word=scale[1] if scale else None,
    )


def _value_at(text: str, want: str) -> tuple[str, tuple[float, str] | None, int, int] | None:
    """(raw value, scale word after it, start, end) of the first value in a text."""
    if want == "date":
        dates = find_dates(text)
        return (dates[0][0].isoformat(), None, dates[0][1], dates[0][2]) if dates else None
    numbers = [n for n in find_numbers(text) if not _is_year(text, n) and not (want == "integer" and n[3])]
    if not numbers:
        return None
    _value, start, end, _pct = numbers[0]
    return text[start:end], declared_scale_word(text[end : end + 10]), start, end


def _first_value(text: str, want: str) -> tuple[str, tuple[float, str] | None] | None:
    found = _value_at(text, want)
    return (found[0], found[1]) if found else None


def _is_year(text: str, number: tuple[float, int, int, bool]) -> bool:
    value, start, end, pct = number
    if pct or not (1900 <= value <= 2100 and text[start:end].strip().isdigit()):
        return False
    after = text[end : end + 2].lstrip()[:1]  # "2016 年" as printed with a space, too
    return after in ("年", "") or bool(_YEAR_BEFORE.search(text[max(0, start - 12) : start]))


def declared_scale_word(tail: str) -> tuple[float, str] | None:
    """A scale word right after a number: '785 万千瓦' → (1e4, '万'); '1,768万元' → (1e4, '万元')."""
    t = unicodedata.normalize("NFKC", tail).strip().lower()
    for word, factor in (
        ("亿", 1e8),
        ("万", 1e4),
        ("千万", 1e7),
        ("billion", 1e9),
        ("million", 1e6),
        ("thousand", 1e3),
    ):
        if t.startswith(word):
            return factor, word
    found = declared_scale(t)
    return found if found and t.startswith(found[1]) else None


def statement_phrase(description: str) -> str | None:
    """The phrase whose presence answers a yes/no field, when the description names one."""
    quoted = _QUOTED.findall(description)
    if quoted:
        return quoted[0]
    m = _WHETHER.search(unicodedata.normalize("NFKC", description))
    return m.group("p").strip().rstrip("。.") if m else None


def topic_cover(phrase: str, text: str) -> float:
    """The share of the phrase's character pairs that the text contains (after label normalisation)."""
    want = _bigrams(normalize_label(phrase))
    return len(want & _bigrams(normalize_label(text))) / len(want) if want else 0.0


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)} if len(text) > 1 else {text}


def statements(
    lines_by_page: dict[int, list[Line]], phrases: Sequence[str], min_cover: float = 0.75
) -> list[Candidate]:
    """Lines that state any of the phrases (a topic under each of its printed names), each matched
    exactly or nearly (≥75% of its character bigrams, so '客户权益保护' matches '客户及消费者权益保护').
    A negation just before the phrase ('未披露…') makes that line say False."""
    out = [c for phrase in phrases for c in _stating(lines_by_page, phrase, min_cover)]
    # One affirmative statement is enough: a negated mention elsewhere ("未发生重大安全生产事故") is not a denial.
    if any(c.boolean for c in out):
        out = [c for c in out if c.boolean]
    return out


def _stating(lines_by_page: dict[int, list[Line]], phrase: str, min_cover: float) -> list[Candidate]:
    target = normalize_label(phrase)
    out: list[Candidate] = []
    if not target:
        return out
    want = _bigrams(target)
    for page, lines in lines_by_page.items():
        for line in lines:
            compact, _idx = _compact_map(line.text)
            pos = compact.find(target)
            if pos < 0:
                cover = len(want & _bigrams(compact)) / len(want)
                if cover < min_cover:
                    continue
                first = min((compact.find(b) for b in want if b in compact), default=0)
                pos, score = first, 0.85 * cover
            else:
                score = 0.9
            before = compact[max(0, pos - 4) : pos]
            negated = any(neg in before for neg in _NEGATION)
            out.append(
                Candidate(
                    "statement",
                    page,
                    phrase,
                    line.text,
                    score,
                    line_bbox(line),
                    line_span(line),
                    boolean=not negated,
                )
            )
    return out
