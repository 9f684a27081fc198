"""Questions that ask for a change ("By how much did X increase its credit agreement on May 26, 2023?"),
answered from retrieved passages without letting the model do the arithmetic.

Asked for a change, a small model tends to answer with the new level ("by $4,200,000,000"). Here it only
chooses: it copies the amount before and the amount after from the passages, and the system checks that
each is an amount the passages print, then computes the change itself. A figure the passages do not
print, one figure given twice, or an answer that is not one amount leaves the question unanswered
("needs review"), never a guess. The answer carries both figures and the pages they were printed on.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from mdqa_kernel.benchmarks.systems import flat_rag
from mdqa_kernel.benchmarks.systems.base import LLM, QuestionInput, SystemConfig, SystemOutput
from mdqa_kernel.text.values import Number, numbers_in, scale_factor

ROUTE_CHANGE = "change-retrieval"

# "by how much did X increase", "by how much has the dividend been raised"
CHANGE_QUESTION = re.compile(
    r"\bby\s+how\s+much\s+(?:did|has|have|had|was|were|does|do|is|are|will)\b[^?]*?"
    r"\b(?:increas|decreas|ris(?:e|en|ing)\b|rose\b|grow|grew\b|fall|fell\b|declin|rais|reduc|cut\b|expand"
    r"|chang|improv|drop|shr[iu]nk|lower|boost)",
    re.IGNORECASE,
)

INSTRUCTION = (
    "The question asks for a change. Do not compute it. From the passages above, copy the amount before "
    "the change and the amount after it, each exactly as printed (with its currency sign and any scale word, "
    'e.g. "$3.8 billion"). Write "none" for an amount the passages do not print.'
)


class ChangeOut(BaseModel):
    before: str
    after: str


@dataclass(frozen=True)
class Amount:
    printed: str
    value: float  # in plain units (a scale word applied)
    currency: str = ""  # the sign printed with it ("$")


def asks_change(question: str) -> bool:
    """The question asks by how much something changed (an amount, not its new level)."""
    return CHANGE_QUESTION.search(question) is not None


def _plain(n: Number) -> float:
    """A printed number in plain units: "$3.8 billion" → 3.8e9."""
    return n.value * (scale_factor(n.scale_word) if n.scale_word else 1.0)


def amount(printed: str) -> Amount | None:
    """The one amount a short text prints ("$3,800,000,000", "$3.8 billion"), or None."""
    found = [n for n in numbers_in(printed) if not n.percent and n.points is None]
    return Amount(printed.strip(), _plain(found[0]), found[0].currency or "") if len(found) == 1 else None


def printed_amounts(text: str) -> dict[float, str]:
    """Every amount a passage prints, in plain units, with the currency sign printed before it ("" if none)."""
    out: dict[float, str] = {}
    for n in numbers_in(text):
        value = _plain(n)
        out[value] = out.get(value) or n.currency or ""
    return out


def run(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    """One retrieval over the question's documents (flat-RAG's, at least five passages), the model's two
    figures, the change computed."""
    config = flat_rag.with_min_chunks(config, q.n_docs)
    hits, kept, dropped = flat_rag.retrieve(config, q, lambda passages: _prompt(q.question, passages))
    rows = list(hits.iter_rows(named=True))
    out = SystemOutput(answer=None)
    chosen = llm.structured(_prompt(q.question, kept), ChangeOut, stage="answer")
    pages: dict[Any, str] = {}
    for r in rows[: len(kept)]:
        pages[r["page"]] = pages.get(r["page"], "") + "\n" + r["text"]
    out.notes = {"route": ROUTE_CHANGE, "chunks_in_prompt": len(kept), "chunks_truncated": dropped,
                 "before": chosen.before, "after": chosen.after}  # fmt: skip
    verdict = _checked(chosen, pages)
    if isinstance(verdict, str):
        out.fail("answer", f"needs review: {verdict}")
        out.fatal = True
        return out
    out.answer = describe_change(*verdict)
    return out


def _prompt(question: str, passages: list[str]) -> str:
    return "Passages:\n\n" + "\n\n".join(passages) + f"\n\nQuestion: {question}\n{INSTRUCTION}"


def _checked(chosen: ChangeOut, pages: dict[Any, str]) -> tuple[Amount, Amount, list[Any], str] | str:
    """Both figures as amounts the passages print (the pages, the currency printed with them), or why not."""
    figures: list[tuple[Amount, Any, str]] = []
    for name, text in (("before", chosen.before), ("after", chosen.after)):
        a = amount(text)
        if a is None:
            return f"the model's {name} figure {text!r} is not one amount"
        at = [(page, currency) for page, body in pages.items() for value, currency in printed_amounts(body).items()
              if math.isclose(a.value, value, rel_tol=1e-9)]  # fmt: skip
        if not at:
            return f"the model's {name} figure {text!r} is printed in none of the passages"
        figures.append((a, *at[0]))
    (before, p1, c1), (after, p2, c2) = figures
    if math.isclose(before.value, after.value, rel_tol=1e-9):
        return f"the model gave one figure, {before.printed!r}, for both before and after"
    return before, after, sorted({p1, p2}), c1 or c2


def describe_change(before: Amount, after: Amount, pages: list[Any], currency: str = "") -> str:
    """ "An increase of $400,000,000: from $3,800,000,000 to $4,200,000,000 (p.2)." — with the currency the
    passages print, also where the model copied a figure without it."""
    currency = currency or before.currency or after.currency
    change = after.value - before.value
    size = f"{abs(change):,.0f}" if float(change).is_integer() else f"{abs(change):,.2f}"
    kind = "An increase" if change > 0 else "A decrease"
    where = ", ".join(f"p.{p}" for p in pages)

    def shown(a: Amount) -> str:
        return a.printed if not currency or a.printed.startswith(currency) else f"{currency}{a.printed}"

    return f"{kind} of {currency}{size}: from {shown(before)} to {shown(after)} ({where})."
