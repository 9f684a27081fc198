"""Deterministic facts outside tables, read only where it is safe.

- Key-value lines: "会计师事务所：XXX", "Auditor: XXX", "股权登记日：2022年6月7日", "社会捐赠额：1,768万元".
- Transposed tables and date columns; counts ("共召开…2次临时股东大会" for 临时股东大会次数).
- Booleans as the presence of a statement, only when the description gives the phrase to look for
  ("是否披露职工权益保护" → "职工权益保护", or a quoted phrase); a negation just before it means False.

Facts stated in sentences (label then value, dividends, shares, firms in a role) are in `prose`.
Each finder returns `Candidate`s; the table reader picks the best one and applies scales.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from mdqa_kernel.text.labels import LabelSet, label_score, normalize_label
from mdqa_kernel.text.layout import Line
from mdqa_kernel.text.values import declared_scale, find_dates, is_absent, is_number_shaped, numbers_in
from mdqa_kernel.text.words import FACT_VERBS

_KV_SEP = re.compile(r"[:：]")
# English prose names years by the words before them ("fiscal year 2022", "June 30, 2023", "in 2021").
_YEAR_BEFORE = re.compile(
    r"(?:\byears?|\bfiscal|\bFY|\bin|\bsince|\band|\bor|\bfor|\bof|\bfrom|\bthrough|\bduring|\bbetween"
    r"|\bended|\bending|\buntil|\d,)\s*$",
    re.I,
)
# A year is followed by a sentence's punctuation ("Code of 1986, as amended"); an amount by its unit.
_YEAR_AFTER = ("年", "", ",", ";", ")", ".", ":")
_NEGATION = ("未", "没有", "尚未", "无", "not", "never")
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
    basis: int | None = None  # shares a per-share amount is printed for ("每10股" → 10), when known
    scope: str | None = None  # the statement it was read from: "parent", "segment" (readers/semantics.py)


# The figures of the columns before a candidate's ("Interest expense (160) " for the prior year's "(177)"):
# their parentheses are no part of the label's words
_FIGURES_AT_END = re.compile(r"(?:\s+(?:[$€£¥]\s*)?\(?-?\d[\d,]*(?:\.\d+)?\)?%?|\s+[—–-])+\s*$")


def label_before(cand: Candidate) -> str:
    """The text of the candidate's line before its printed number (a table row's label, without the
    figures printed before it in other columns), or ""."""
    at = cand.snippet.find(cand.raw.strip()) if cand.raw.strip() else -1
    return _FIGURES_AT_END.sub(" ", cand.snippet[:at]) if at > 0 else ""


_NOT_ASCII_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def compact_text(text: str) -> str:
    """The label-normalised form of a text (`compact_map` without the index, which most lines of a
    document never need: only a line where a label matches is mapped back)."""
    if text.isascii():  # NFKC leaves ASCII alone: one substitution in C, not a loop per character
        return _NOT_ASCII_ALNUM.sub("", text).lower()
    _learn(text)
    return text.translate(_COMPACT)


def compact_map(text: str) -> tuple[str, list[int]]:
    """The label-normalised form of a text plus, for each of its characters, the source index."""
    if text.isascii():  # NFKC leaves ASCII alone: the per-character normalisation is not needed
        idx = [i for i, c in enumerate(text) if c.isalnum()]
        return "".join(text[i] for i in idx).lower(), idx
    _learn(text)
    out: list[str] = []
    idx: list[int] = []
    for i, ch in enumerate(text):
        part = _COMPACT[ord(ch)]
        if part:
            out.append(part)
            idx.extend([i] * len(part))
    return "".join(out), idx


# What each character becomes in the label-normalised form, one character at a time: its NFKC form
# lower-cased, letters and digits only ("Ａ" → "a", "½" → "12", "’" → ""). A str.translate table,
# filled in as characters are met, so each character is normalised once, not once per line.
_COMPACT: dict[int, str] = {}


def _learn(text: str) -> None:
    for ch in set(text):
        if ord(ch) not in _COMPACT:
            _COMPACT[ord(ch)] = "".join(c for c in unicodedata.normalize("NFKC", ch).lower() if c.isalnum())


def line_bbox(line: Line) -> tuple[float, float, float, float]:
    return (min(w.x0 for w in line.words), line.top, max(w.x1 for w in line.words), line.bottom)


def line_span(line: Line) -> tuple[int, int] | None:
    starts = [w.char_start for w in line.words if w.char_start >= 0]
    ends = [w.char_end for w in line.words if w.char_end >= 0]
    return (min(starts), max(ends)) if starts and ends else None


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
            if line.one_group:  # one cell: no label and value apart
                continue
            groups = line.gap_groups
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


def value_at(text: str, want: str) -> tuple[str, tuple[float, str] | None, int, int] | None:
    """(raw value, scale word after it, start, end) of the first value in a text."""
    if want == "date":
        dates = find_dates(text)
        return (dates[0][0].isoformat(), None, dates[0][1], dates[0][2]) if dates else None
    # A day or year inside a date ("as on March 31, 2025") and a change in points ("120 bps") are
    # never the value; neither is what follows a dash cell ("—  9,876": the next column's number).
    dates = [(a, b) for _day, a, b in find_dates(text)]
    numbers = [
        n
        for n in numbers_in(text)
        if not n.points
        and not any(a <= n.start < b for a, b in dates)
        and not is_year(text, (n.value, n.start, n.end, n.percent))
        and not (want == "integer" and n.percent)
    ]
    if not numbers or _after_dash_cell(text, numbers[0].start):
        return None
    start, end = numbers[0].start, numbers[0].end
    if _NOTE_MARK.fullmatch(text[start:end].strip()) and _MONEY_NEXT.match(text, end):
        return None  # "Total contractual obligations (1) $183,376 $75,462 …": a footnote mark, then a row's figures
    return text[start:end], declared_scale_word(text[end : end + 10]), start, end


# A footnote mark after a label ("(1)"), known as one by the amount that follows it ("(1) $183,376")
_NOTE_MARK = re.compile(r"\(\d{1,2}\)")
_MONEY_NEXT = re.compile(r"\s*[$€£¥₹]\s*\d")


def _after_dash_cell(text: str, start: int) -> bool:
    """The number follows a dash in a run of table cells ("—  9,876"), not a dash in a sentence."""
    before = text[:start].split()
    after = text[start:].split()
    return (
        bool(before)
        and is_absent(before[-1])
        and all(is_absent(w) or is_number_shaped(w) or w in "$`₹" for w in after)
    )


def _first_value(text: str, want: str) -> tuple[str, tuple[float, str] | None] | None:
    found = value_at(text, want)
    return (found[0], found[1]) if found else None


def is_year(text: str, number: tuple[float, int, int, bool]) -> bool:
    value, start, end, pct = number
    if pct or not (1900 <= value <= 2100 and text[start:end].strip().isdigit()):
        return False
    before = text[max(0, start - 12) : start]
    if before.rstrip()[-1:] in ("$", "¥", "€", "£", "₹"):
        return False  # "$2017": an amount, however short
    after = text[end : end + 2].lstrip()[:1]  # "2016 年" as printed with a space, too
    return after in _YEAR_AFTER or bool(_YEAR_BEFORE.search(before))


# Scale words printed right after a number. An English word must end there ("millions" and "lakhs" do,
# "mnemonic" does not).
_SCALE_AFTER = (
    ("亿", 1e8),
    ("万", 1e4),
    ("千万", 1e7),
    ("百万", 1e6),
    ("billion", 1e9),
    ("million", 1e6),
    ("thousand", 1e3),
    ("crore", 1e7),  # Indian filings: 1 crore = 10 million, 1 lakh = 100,000
    ("lakh", 1e5),
    ("bn", 1e9),
    ("mn", 1e6),
)


def declared_scale_word(tail: str) -> tuple[float, str] | None:
    """A scale word right after a number: '785 万千瓦' → (1e4, '万'); '1,768万元' → (1e4, '万元')."""
    t = unicodedata.normalize("NFKC", tail).strip().lower()
    for word, factor in _SCALE_AFTER:
        if t.startswith(word) and (not word.isascii() or not t[len(word) :].lstrip("s")[:1].isalpha()):
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
            compact = compact_text(line.text)
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
