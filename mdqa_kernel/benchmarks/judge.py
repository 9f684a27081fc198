"""A deterministic judge for MuDABench-style final answers (no LLM).

MuDABench's paper judge treats two numbers as equal when their integer digits and first decimal
agree, and does not penalise extra content. This judge makes that precise:
- numbers: every number of the reference (except years, tickers, dates and numbers the question
  itself contains, such as "第3名" or weights) must appear in the prediction, compared after unit
  normalisation (%, 万, 亿, thousand/million/billion) by integer part and first decimal (truncated);
- identifiers: A-share codes (6 digits) and US tickers as sets; the same set is required, and the
  same order when the question asks for a ranking of the companies (not of dates or months);
- dates (YYYY-MM-DD) and names (quoted text, firms ending in 事务所) must appear, compared
  after text normalisation (full-width forms, punctuation, case).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal, InvalidOperation

from mdqa_kernel.text.language import CJK
from mdqa_kernel.text.normalize import comparison_key, default_entity

_CODE = re.compile(r"(?<![\d.])\d{6}(?![\d.])")
_US_TICKER = re.compile(r"(?<![A-Za-z])[A-Z][A-Z.]{0,5}(?![A-Za-z])")
_BRACKETED = re.compile(r"\[([A-Z][A-Z.]{0,5})\]")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# "-$3,655,000.00": a currency sign may stand between the minus and the digits (q_bd8c7b95)
_NUM = re.compile(
    r"(?<![A-Za-z0-9_.])(-)?[$¥￥]?(\d+(?:,\d{3})*(?:\.\d+)?)\s*(%|亿元|万元|亿|万|千元|元|billion|million|thousand)?",
    re.I,
)
_QUOTED = re.compile(r"[“\"「『]([^”\"」』]+)[”\"」』]")
# A firm is recognised by its legal form, so that phrases like "更换了会计事务所" are not names.
_FIRM = re.compile(rf"{CJK}+事务所[（(][^）)]*合伙[）)]")
_YEAR_RANGE = re.compile(r"(?<![\d.])(?:19|20)\d{2}(?:\s*[-–~至到]\s*(?:19|20)\d{2})?(?!\d)")
RANKING_WORDS = (
    "最高",
    "最多",
    "最大",
    "前三",
    "最快",
    "最早",
    "最优",
    "最低",
    "top",
    "highest",
    "largest",
    "most",
    "rank",
)
# Upper-case words that are not tickers when they appear in an answer.
NOT_TICKERS = frozenset({"A", "I", "US", "USA", "ESG", "GRI", "CEO", "CFO", "USD", "CNY", "RMB", "EPS", "ROE", "ROA",
                         "AND", "OR", "THE", "NA", "N", "NONE", "OK", "YES", "NO", "Q", "FY", "SEC"})  # fmt: skip
SCALES = {"%": Decimal("0.01"), "万": Decimal(10**4), "万元": Decimal(10**4), "亿": Decimal(10**8),
          "亿元": Decimal(10**8), "千元": Decimal(1000), "thousand": Decimal(1000), "million": Decimal(10**6),
          "billion": Decimal(10**9)}  # fmt: skip


@dataclass
class JudgeResult:
    correct: bool
    reason: str
    checks: dict[str, bool] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.correct


@dataclass(frozen=True)
class Number:
    text: str
    value: Decimal
    unit: str

    @property
    def canonical(self) -> Decimal:
        return self.value * SCALES.get(self.unit.lower() if self.unit else "", Decimal(1))


def extract_codes(text: str) -> list[str]:
    return _CODE.findall(text)


def extract_tickers(text: str) -> list[str]:
    bracketed = _BRACKETED.findall(text)
    if bracketed:
        return bracketed
    tickers = [t.rstrip(".") for t in _US_TICKER.findall(text)]  # "…, CMCO." ends a sentence
    return [t for t in tickers if t and t not in NOT_TICKERS]


def extract_numbers(text: str, *, exclude: set[str] | None = None) -> list[Number]:
    """Numbers with their unit, leaving out years/year ranges, codes, dates and `exclude` texts."""
    cleaned = _DATE.sub(" ", text)
    cleaned = _YEAR_RANGE.sub(" ", cleaned)
    cleaned = _CODE.sub(" ", cleaned)
    cleaned = re.sub(
        r"第\s*\d+\s*(?:名|档|大|位)|(?i:top)\s*\d+|前\s*\d+", " ", cleaned
    )  # restating the question
    out = []
    for m in _NUM.finditer(cleaned):
        raw = (m.group(1) or "") + m.group(2).replace(",", "")
        if exclude and raw in exclude:
            continue
        try:
            out.append(Number(m.group(0).strip(), Decimal(raw), (m.group(3) or "").lower()))
        except InvalidOperation:
            continue
    return out


def _trunc1(x: Decimal) -> Decimal:
    return x.quantize(Decimal("0.1"), rounding=ROUND_DOWN)


def numbers_match(ref: Number, pred: Number) -> bool:
    """Integer digits and first decimal agree, as printed or after converting to the reference's unit."""
    if _trunc1(ref.value) == _trunc1(pred.value) and (ref.unit == pred.unit or not ref.unit or not pred.unit):
        return True
    scale = SCALES.get(ref.unit, Decimal(1))
    return _trunc1(pred.canonical / scale) == _trunc1(ref.value)


def _names(text: str) -> list[str]:
    names = [q for q in _QUOTED.findall(text)]
    # drop the sentence before it, and a "从"/"由" of "从X更换为Y" (X is the firm, not "从X")
    names += [re.sub(r"^[从由]", "", re.split(r"[是为的：:]", f)[-1]) for f in _FIRM.findall(text)]
    parts = []
    for n in names:  # "现场投票、网络投票" is a set of items
        parts += [p for p in re.split(r"[、,，;；]", n) if p.strip()]
    return parts


# "哪个日期进行股权登记的公司最多", "哪个月份召开股东大会的公司最多": the ranking is of dates or months; the
# companies under each are a distribution, listed in any order (the references list them by date).
_RANKS_TIMES = re.compile(
    r"哪(?:个|一个|一)?(?:日期|月份|月|天|季度)|分布|which (?:date|month|day)|distribution"
)


def is_ranking(question: str | None) -> bool:
    """The question ranks companies, so the order of the codes or tickers in the answer matters."""
    q = (question or "").lower()
    return any(w in q for w in RANKING_WORDS) and "含并列" not in q and not _RANKS_TIMES.search(q)


def judge(
    prediction: str, reference: str, *, question: str | None = None, ordered: bool | None = None
) -> JudgeResult:
    """Is `prediction` correct against `reference`? See the module docstring for the rules."""
    checks: dict[str, bool] = {}
    reasons: list[str] = []
    ordered = is_ranking(question) if ordered is None else ordered

    for kind, extract in (("codes", extract_codes), ("tickers", extract_tickers)):
        ref_ids = extract(reference)
        if not ref_ids:
            continue
        got = extract(prediction)
        same = set(ref_ids) == set(got)
        if same and ordered:
            same = [g for g in _dedupe(got) if g in ref_ids] == _dedupe(ref_ids)
        checks[kind] = same
        if not same:
            reasons.append(f"{kind}: expected {ref_ids}, got {got}")

    exclude = {m.replace(",", "") for m in re.findall(r"\d+(?:\.\d+)?", question or "")}
    ref_nums = extract_numbers(reference, exclude=exclude)
    if ref_nums:
        pred_nums = extract_numbers(prediction)
        missing = [r.text for r in ref_nums if not any(numbers_match(r, p) for p in pred_nums)]
        checks["numbers"] = not missing
        if missing:
            reasons.append(f"numbers missing: {missing}")

    ref_dates = _DATE.findall(reference)
    if ref_dates:
        missing_dates = [d for d in ref_dates if d not in prediction]
        checks["dates"] = not missing_dates
        if missing_dates:
            reasons.append(f"dates missing: {missing_dates}")

    names = _names(reference)
    if names:
        text_norm = comparison_key(prediction) or ""
        missing_names = [n for n in names if (default_entity(n) or "") not in text_norm]
        checks["names"] = not missing_names
        if missing_names:
            reasons.append(f"names missing: {missing_names}")

    if not checks:  # nothing structured to compare: fall back to normalised containment
        ok = (comparison_key(reference) or "") in (comparison_key(prediction) or "")
        return JudgeResult(ok, "text containment" if ok else "no structured content matched", {"text": ok})
    ok = all(checks.values())
    return JudgeResult(ok, "ok" if ok else "; ".join(reasons), checks)


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    return [i for i in items if not (i in seen or seen.add(i))]


__all__ = ["JudgeResult", "Number", "extract_codes", "extract_numbers", "extract_tickers", "is_ranking", "judge",
           "numbers_match"]  # fmt: skip
