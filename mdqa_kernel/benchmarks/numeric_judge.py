"""A deterministic judge for answers that are numbers (FinanceBench-style analyst questions; no LLM).

`judge(question, reference, candidate)` returns a `Verdict`: `correct`, `incorrect`, or
`not_numeric` (this judge gives no verdict; an LLM judge must decide), with a reason.

Rules (the README's "numeric judge" section repeats them):
- Yes/no: when the reference begins with "yes" or "no", only the candidate's leading yes/no is
  judged (equal: correct; the other word: incorrect; no leading yes/no: not_numeric).
- Numeric reference: the question asks for neither a name nor an explanation (it contains no
  "which" and does not begin with who/whom/where/why/"what drove"/"what caused"), and the first
  sentence of the reference holds exactly one quantity. Otherwise: not_numeric.
- Quantities: "$1577.00", "$1.58 billion", "1,577 million", "USD 1577 millions", "$4.6bn",
  "(12.3)" and "$(389)" (negatives; a parenthesis around a scaled figure, "($1.8 bn)", is an aside),
  "-$473 million", "24.26%", "1 percentage point", "2.7 times". Years (1900-2099
  written without separators or decimals), fiscal periods (FY2022, Q2), page/note numbers, days of
  a month ("May 26") and numbers the question itself contains (also names such as "3M"; not the digits
  of a period it names, "FY2023Q1") are not quantities.
- Scale: a number with no scale word takes the unit the question asks for ("in USD millions",
  "in USD billions", "in USD thousands"); both sides are then compared in plain units. A candidate
  number with no scale word may also be plain units ("$381,603,000" answering "in USD millions").
- Percent vs ratio: a percentage and a plain number are compared only when the question asks for a
  percentage or a ratio in words ("%", "percent", "percentage", "ratio"). Then a candidate
  percentage is read by its value (24.26% = 0.2426, so "24.26%" does not equal a plain reference of
  24.26), and a plain candidate answering a percentage reference may be the fraction (0.2426) or the
  percent figure without its sign (24.26). Without those words a percentage never equals a plain
  number.
- Tolerance: |candidate - reference| <= max(1% of |reference|, half a unit of the rounding the
  question asks for ("round ... to two decimal places": 0.005 in the reference's unit), half a unit
  of the reference's last written digit ("36%": 0.5 points; "$20 billion": $0.5 billion)). Exactly half
  a unit counts as a match, as the human labels do ("36.5%" for "36%" was marked correct twice; a
  strict bound agreed with them on 2 answers fewer, session 32). Signs must agree: "(1,577)" is not
  "1577".
- The candidate is correct when any of its quantities matches the reference (extra content, such as
  the inputs of a calculation, is not penalised); a candidate with no quantity is incorrect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mdqa_kernel.text.asks import SCALE_WORDS, asked_decimals, asked_scale

VerdictKind = Literal["correct", "incorrect", "not_numeric"]
RELATIVE_TOLERANCE = 0.01

# A number with an optional sign, currency and scale or unit. Short scale letters (m, b, k) must be
# attached to the digits ("$4.6b") so that "2 by ..." is not read as billions.
_QUANTITY = re.compile(
    r"""(?<![\w.\-])
    (?P<open>\()?\s*
    (?P<sign>[-−])?\s*
    (?:US\$|USD\s*|\$)?\s*
    (?P<sign2>[-−])?
    (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    (?:
        (?P<attached>bn|mn|mm|[mbk])(?![\w])
      | \s*(?P<word>thousands?|millions?|billions?|trillions?|bn|mn)\b
    )?
    (?P<close>\))?
    (?:\s*(?P<pct>%|percent(?:age)?\s+points?|percentage\s+points?|percent|pp\b))?
    """,
    re.I | re.X,
)
_PERIOD_BEFORE = re.compile(r"(?:\bFY|\bQ|\bpage|\bpages|\bnote|\bitem|\bpart|\bH)\s*'?$", re.I)
_MONTH_BEFORE = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*$", re.I)
_PERIOD_AFTER = re.compile(r"^\s*(?:Q[1-4]\b|-\s*[KQ]\b)", re.I)
_YES_NO = re.compile(r"^[\W_]*(yes|no)\b", re.I)
# Questions whose answer is a name or an explanation, even when the reference quotes a number.
_NAME_QUESTION = re.compile(r"^\W*(?:who|whom|where|why|what\s+(?:drove|caused))\b|\bwhich\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ASKS_PERCENT_OR_RATIO = re.compile(r"%|\bpercent(?:age|s)?\b|\bratio\b", re.I)
# A period the question names ("FY2023Q1", "Q2", "1H22"): its digits are no number the question states.
_PERIOD_TOKEN = re.compile(
    r"\bFY\s*'?\d{2,4}(?:\s*Q[1-4])?\b|(?:\b|(?<=\d))Q[1-4]\b|\b[1-4][QH]\b|\bH[12]\b", re.I
)


@dataclass(frozen=True)
class Quantity:
    """A number as written, in plain units (scale applied); `percent` when written with %."""

    value: float
    percent: bool
    text: str
    step: float = 1.0  # a unit of the last written digit, in plain units ("$0.40" billion: 1e7)
    unscaled: float | None = None  # the value as written when the scale came from the question


@dataclass(frozen=True)
class Verdict:
    verdict: VerdictKind
    reason: str


def _is_excluded(text: str, m: re.Match[str], question: str, question_numbers: set[str]) -> bool:
    """Years, fiscal periods, page numbers, days of a month and the question's own numbers."""
    num, before, after = m.group("num"), text[: m.start("num")], text[m.end("num") :]
    bare = not (m.group("pct") or m.group("attached") or m.group("word") or "$" in m.group(0))
    if bare and re.fullmatch(r"(?:19|20)\d{2}", num):
        return True
    if _PERIOD_BEFORE.search(before) or _PERIOD_AFTER.match(after):
        return True
    if bare and _MONTH_BEFORE.search(before) and re.fullmatch(r"\d{1,2}", num):
        return True
    if m.group("attached") and re.search(rf"(?<!\w){re.escape(num + m.group('attached'))}(?!\w)", question):
        return True  # a name the question uses, such as the company "3M"
    return bare and num.replace(",", "") in question_numbers


def quantities(text: str, question: str = "") -> list[Quantity]:
    """Every quantity written in `text`, in plain units; numbers without a scale word take the
    question's asked unit ("in USD millions")."""
    stated = _PERIOD_TOKEN.sub(" ", question)
    question_numbers = {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", stated)}
    default_scale = asked_scale(question)
    found: list[Quantity] = []
    for m in _QUANTITY.finditer(text):
        if _is_excluded(text, m, question, question_numbers):
            continue
        num = m.group("num").replace(",", "")
        scale_word = (m.group("attached") or m.group("word") or "").lower()
        # Accounting parentheses "(1,577)", "$(389)", "(0.9)%" mark a negative; "($1.8 bn)" is an aside.
        parens = bool(m.group("open") and m.group("close")) and not scale_word
        sign = -1.0 if (m.group("sign") or m.group("sign2") or parens) else 1.0
        percent = m.group("pct") is not None
        scale = 1.0 if percent else SCALE_WORDS.get(scale_word, default_scale)
        value = sign * float(num)
        decimals = len(num.split(".")[1]) if "." in num else 0
        from_question = not percent and not scale_word and scale != 1.0
        found.append(
            Quantity(
                value * scale,
                percent,
                m.group(0).strip(),
                step=10.0**-decimals * scale,
                unscaled=value if from_question else None,
            )
        )
    return found


def tolerance(reference: Quantity, question: str) -> float:
    """max(1% of the reference, half a unit of the asked rounding, half a unit of the reference's
    last written digit), in the reference's plain units."""
    rel = RELATIVE_TOLERANCE * abs(reference.value)
    written = 0.5 * reference.step
    decimals = asked_decimals(question)
    if decimals is None:
        return max(rel, written)
    unit = 1.0 if reference.percent else asked_scale(question)
    return max(rel, written, 0.5 * 10.0 ** (-decimals) * unit)


def _readings(ref: Quantity, cand: Quantity, question: str) -> list[float]:
    """The candidate's values in the reference's kind; none when percent and plain may not meet.
    A plain number answering a percentage question may be a fraction (0.2426) or the percent
    figure without its sign (24.26), so both readings are tried."""
    if ref.percent == cand.percent:
        # "$381,603,000" answering "in USD millions" may be plain dollars, not millions.
        return [cand.value] if cand.unscaled is None else [cand.value, cand.unscaled]
    if not _ASKS_PERCENT_OR_RATIO.search(question):
        return []
    return [cand.value * 100, cand.value] if ref.percent else [cand.value / 100]


def _yes_no(reference: str, candidate: str) -> Verdict | None:
    ref = _YES_NO.match(reference)
    if not ref:
        return None
    cand = _YES_NO.match(candidate)
    if not cand:
        return Verdict(
            "not_numeric", f"reference begins with {ref.group(1)!r}; the candidate has no leading yes/no"
        )
    same = ref.group(1).lower() == cand.group(1).lower()
    return Verdict(
        "correct" if same else "incorrect",
        f"leading {cand.group(1).lower()!r} vs reference {ref.group(1).lower()!r}",
    )


def reference_quantity(question: str, reference: str) -> Quantity | None:
    """The reference's single quantity, None when the reference is not a number (see module doc)."""
    if _NAME_QUESTION.search(question):
        return None
    first = _SENTENCE_END.split(reference.strip(), maxsplit=1)[0]
    found = quantities(first, question)
    return found[0] if len(found) == 1 else None


def judge(question: str, reference: str, candidate: str) -> Verdict:
    """Judge `candidate` against `reference` for `question` (see the module docstring for the rules)."""
    yes_no = _yes_no(reference, candidate)
    if yes_no is not None:
        return yes_no
    ref = reference_quantity(question, reference)
    if ref is None:
        return Verdict("not_numeric", "the reference is not a single number")
    cands = quantities(candidate, question)
    if not cands:
        return Verdict("incorrect", f"no number in the answer (reference {ref.text})")
    tol = tolerance(ref, question)
    closest: tuple[float, Quantity] | None = None
    for cand in cands:
        for value in _readings(ref, cand, question):
            gap = abs(value - ref.value)
            if gap <= tol:
                return Verdict("correct", f"{cand.text} matches {ref.text} (|diff| {gap:.4g} <= {tol:.4g})")
            if closest is None or gap < closest[0]:
                closest = (gap, cand)
    if closest is None:
        kind = "a percentage" if ref.percent else "a plain number"
        return Verdict(
            "incorrect",
            f"reference {ref.text} is {kind}; the answer's numbers are the other kind and the question "
            "does not ask for a percentage or ratio",
        )
    gap, cand = closest
    return Verdict("incorrect", f"closest {cand.text} differs from {ref.text} by {gap:.4g} > {tol:.4g}")
