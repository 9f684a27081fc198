"""An LLM judge for MuDABench final answers, with our own prompt, beside the deterministic judge.

The paper judges semantic equivalence with an LLM. Ours states the same rules the deterministic
judge applies (numbers equal when their integer digits and first decimal agree; every company and
value of the reference must be present; extra content is not penalised) and asks for a short reason
first, then the verdict, under a JSON schema. Any configured backend can judge; every run reports
how often the two judges agree.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from mdqa_kernel.errors import MdqaError

JUDGE_MAX_TOKENS = 160

PROMPT = """You grade an answer to an analytical question about company filings.

Question: {question}

Reference answer: {reference}

Candidate answer: {prediction}

Rules:
- The candidate is correct when it states every company (stock code or symbol) and every value the
  reference states, with the same meaning. Extra explanation or extra correct details are fine.
- Two numbers are equal when their integer digits and first decimal agree (12.34 equals 12.3);
  units may differ if the amounts are equal (1.5亿 = 150000000; 12% = 0.12).
- For a ranking, the order must match. A missing or wrong company or value makes it incorrect.
First give a one-sentence reason, then the verdict."""


class Verdict(BaseModel):
    reason: str = Field(description="one short sentence")
    correct: bool


class LLMJudgeError(MdqaError):
    """The LLM judge could not produce a verdict."""


def llm_judge(prediction: str | None, reference: str, question: str, llm: Any) -> tuple[bool, str]:
    """(correct, reason) from the LLM judge. An empty prediction is wrong without a call."""
    if not prediction or not prediction.strip():
        return False, "empty answer"
    prompt = PROMPT.format(question=question, reference=reference, prediction=prediction[:4000])
    try:
        verdict = llm.structured(prompt, Verdict, stage="judge", max_tokens=JUDGE_MAX_TOKENS)
    except Exception as exc:  # any backend failure: the caller records it, the grid goes on
        raise LLMJudgeError(f"{type(exc).__name__}: {exc}") from exc
    return bool(verdict.correct), verdict.reason
