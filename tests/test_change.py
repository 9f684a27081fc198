"""Change questions ("By how much did X increase …?"): the model copies two figures, the system checks
them against the passages and subtracts. The pure parts run on text of our own; the route's orchestration
with a scripted model (what a model would answer is not the point here: the checks around it are)."""

from __future__ import annotations

import polars as pl
import pytest

from mdqa_kernel.benchmarks.systems.base import QuestionInput, SystemConfig
from mdqa_kernel.benchmarks.systems.change import (
    ChangeOut,
    amount,
    asks_change,
    describe_change,
    run,
)

PASSAGES = [
    "Effective June 1, 2024, Acme terminated the $2,500,000,000 revolving credit agreement dated June 2, 2023.",
    "On June 1, 2024, Acme entered into a new $2,750,000,000 revolving credit agreement, which it may increase "
    "to up to $3,000,000,000 with the lenders' consent.",
]


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("By how much did Acme increase its revolving credit agreement on June 1, 2024?", True),
        ("By how much has Acme's quarterly dividend been raised in FY2024?", True),
        ("By how much did revenue decline in 2023?", True),
        ("How much may Acme borrow under its revolving credit agreement?", False),  # a level
        ("What is Acme's FY2024 revenue growth?", False),
    ],
)
def test_change_questions(question, asks):
    assert asks_change(question) is asks


def test_an_amount_is_one_printed_figure():
    assert amount("$2.5 billion").value == 2.5e9
    assert amount("2,750,000,000").value == 2.75e9
    assert amount("none") is None and amount("$2.5 billion and $2.75 billion") is None


def _question(text: str) -> QuestionInput:
    docs = pl.DataFrame({"doc_id": ["acme_8k"], "company": ["Acme"], "year": [2024], "doc_type": ["8k"]})

    def chunks(doc_id: str) -> pl.DataFrame:
        return pl.DataFrame(
            {"chunk_id": ["c1", "c2"], "page": [2, 3], "text": PASSAGES, "kind": ["text"] * 2}
        )

    return QuestionInput("q", "test", text, "en", docs, chunks, n_ctx=4096, max_tokens=256)


class Chooser:
    """A scripted model: returns the figures it was given, records the prompt."""

    def __init__(self, before: str, after: str) -> None:
        self.out, self.prompts = ChangeOut(before=before, after=after), []

    def structured(self, prompt, schema, **_):
        self.prompts.append(prompt)
        return self.out


QUESTION = "By how much did Acme increase its revolving credit agreement on June 1, 2024?"


def test_the_system_subtracts_the_two_figures_it_finds_printed():
    llm = Chooser("2,500,000,000", "$2,750,000,000")
    out = run(SystemConfig("mdqa"), _question(QUESTION), llm)
    assert out.answer == "An increase of $250,000,000: from $2,500,000,000 to $2,750,000,000 (p.2, p.3)."
    assert "Do not compute it" in llm.prompts[0] and PASSAGES[1] in llm.prompts[0]


@pytest.mark.parametrize(
    ("before", "after", "why"),
    [
        ("$2,500,000,000", "$2,700,000,000", "printed in none of the passages"),  # a figure it wrote itself
        ("$2,750,000,000", "2,750,000,000", "for both before and after"),
        ("none", "$2,750,000,000", "is not one amount"),
    ],
)
def test_a_figure_the_passages_do_not_print_leaves_it_for_review(before, after, why):
    out = run(SystemConfig("mdqa"), _question(QUESTION), Chooser(before, after))
    assert out.answer is None and out.fatal and why in out.failures[0]["error"]
    assert out.failures[0]["error"].startswith("needs review")


def test_a_decrease_is_said_as_one():
    text = describe_change(amount("$3.0 billion"), amount("$2.75 billion"), [4])
    assert text == "A decrease of $250,000,000: from $3.0 billion to $2.75 billion (p.4)."
