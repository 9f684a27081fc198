"""Judgement questions (plan/judgement.py): what is read from the question, and the whole route on
annual reports the tests draw (ask() with the table reader, no model): the verdict and its figures."""

from __future__ import annotations

import polars as pl
import pytest

from mdqa_kernel.ask import ask
from mdqa_kernel.collection import Collection
from mdqa_kernel.plan.judgement import HIGH_GROWTH, judgement_plan, read_judgement
from tests.test_analyst import META, annual_report
from tests.test_periods import COLS, draw, row, text


def test_a_trend_as_an_adjective_or_a_verb():
    j = read_judgement(
        "Does Acme Widgets have an improving gross margin profile as of FY2023? If gross margin is not a "
        "useful metric for a company like this, then state that and explain why.",
        META,
    )
    assert j is not None and (j.kind, j.metric, j.years, j.rising) == (
        "trend",
        "gross margin",
        [2022, 2023],
        True,
    )
    j = read_judgement("Did Acme Widgets's operating margin decline in FY2023 compared to FY2022?", META)
    assert j is not None and (j.kind, j.metric, j.years, j.rising) == (
        "trend",
        "operating margin",
        [2022, 2023],
        False,
    )
    j = read_judgement("Has Boreal Foods's net income been growing over FY2021 to FY2023?", META)
    assert j is not None and (j.metric, j.years, j.rising) == ("net income", [2021, 2023], True)


def test_consistency_needs_its_tolerance_and_takes_the_latest_report():
    j = read_judgement(
        "Are Acme Widgets's gross margins historically consistent (not fluctuating more than roughly 2% each year)?",
        META,
    )
    assert j is not None and (j.kind, j.metric, j.tolerance) == ("steady", "gross margins", 0.02)
    assert j.years == [2021, 2022, 2023]  # the latest annual report of Acme in META is FY2023
    # "consistent" without a stated tolerance would need a threshold nobody asked for: not planned
    assert read_judgement("Are Acme Widgets's gross margins historically consistent?", META) is None


def test_a_threshold_the_question_states():
    j = read_judgement("Did Acme Widgets's operating margin exceed 10% in FY2023?", META)
    assert j is not None and (j.kind, j.metric, j.years, j.op, j.bound) == (
        "threshold",
        "operating margin",
        [2023],
        ">",
        0.1,
    )
    j = read_judgement("Is Acme Widgets's FY2023 current ratio at least 1.2?", META)
    assert j is not None and (j.metric, j.op, j.bound) == ("current ratio", ">=", 1.2)


def test_high_growth_is_the_stated_definition():
    j = read_judgement("Are Acme Widgets's FY2023 financials that of a high growth company?", META)
    assert j is not None and (j.kind, j.years) == ("high_growth", [2022, 2023])
    assert HIGH_GROWTH == 0.20


@pytest.mark.parametrize(
    "question",
    [
        "What drove gross margin change as of FY2023 for Acme Widgets?",  # reasons, not a verdict
        "Does Acme Widgets have an improving brand perception as of FY2023?",  # no metric the vocabulary knows
        "Does Zenith Corp have an improving gross margin profile as of FY2023?",  # no company of the collection
        "Has Acme Widgets reported any materially important ongoing legal battles from FY2023?",
        "Does Acme Widgets have a risky operating margin as of FY2023?",  # "risky" is no direction
        # a sum of money needs its currency and scale; a margin's bound must say it is a percentage
        "Was Acme Widgets's FY2023 revenue above 10,000?",
        "Is Acme Widgets's FY2023 operating margin above 10?",
    ],
)
def test_what_it_cannot_read_completely_is_not_planned(question):
    assert judgement_plan(question, META) is None


# -- the whole route on drawn annual reports ------------------------------------------------------------


def _growth_report(path, name: str) -> None:
    """A report whose sales grew 36 % (15,000 against 11,000) while its gross margin fell 4 points."""
    years = ("2023", "2022", "2021")
    draw(
        path,
        [
            [text(f"{name} Inc."), text("ANNUAL REPORT ON FORM 10-K"), text("For the fiscal year ended December 31, 2023")],
            [text("CONSOLIDATED STATEMENTS OF OPERATIONS"), text("(In millions)"),
             [(420, "Year Ended December 31,", "c")], [(x, y, "r") for x, y in zip(COLS, years, strict=True)],
             row("Net sales", "15,000", "11,000", "10,000"), row("Cost of sales", "9,000", "6,160", "5,600"),
             row("Gross profit", "6,000", "4,840", "4,400"), row("Net income", "1,500", "1,100", "1,000")],
        ],
    )  # fmt: skip


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    root = tmp_path_factory.mktemp("judged")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    annual_report(pdfs / "acme_2023_10k.pdf", "Acme Widgets", 1.0)
    _growth_report(pdfs / "cirrus_2023_10k.pdf", "Cirrus Labs")
    meta = pl.concat(
        [
            META.filter(pl.col("doc_id") == "acme_2023_10k"),
            pl.DataFrame(
                {
                    "doc_id": ["cirrus_2023_10k"],
                    "company": ["Cirrus Labs"],
                    "doc_type": ["10k"],
                    "year": [2023],
                }
            ),
        ]
    )
    return Collection.build(pdfs, metadata=meta, workspace=root / "ws", name="judged", progress=False)


def verdict(question: str, coll: Collection) -> str:
    plan = judgement_plan(question, coll.documents)
    assert plan is not None, question
    result = ask(question, coll, plan=plan, reader="table")
    assert result.answer is not None, result.error
    return result.answer.text


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # Acme's operating margin: 1,300/10,000 = 13.0 %, 1,540/11,000 = 14.0 %, 1,860/12,400 = 15.0 %
        ("Does Acme Widgets have an improving operating margin profile as of FY2023?",
         "Yes. Acme Widgets's operating margin, FY2022–FY2023 (rising asked): operating margin FY2022 14.00%, "
         "operating margin FY2023 15.00%."),
        ("Did Acme Widgets's operating margin decline in FY2023 compared to FY2022?", "No. "),
        # one point a year: within 2 points, not within half a point
        ("Are Acme Widgets's operating margins historically consistent (not fluctuating more than roughly 2% "
         "each year)?", "Yes. "),
        ("Are Acme Widgets's operating margins historically consistent (not fluctuating more than 0.5% each "
         "year)?", "No. "),
        # an amount's tolerance is a relative change: net income 850 → 990 → 1,240 (+16 %, +25 %)
        ("Has Acme Widgets's net income been stable (not varying more than 30% each year)?", "Yes. "),
        ("Has Acme Widgets's net income been stable (not varying more than 20% each year)?", "No. "),
        # 12,400 / 11,000 − 1 = 12.7 %; 15,000 / 11,000 − 1 = 36.4 %
        ("Are Acme Widgets's FY2023 financials that of a high growth company?", "No. "),
        ("Are Cirrus Labs's FY2023 financials that of a high growth company?", "revenue growth FY2023 over FY2022 36.36%"),
        # a threshold the question states: current ratio 4,200 / 2,800 = 1.5; operating margin 15.0 %
        ("Is Acme Widgets's FY2023 current ratio above 1.4?",
         "Yes. Acme Widgets's current ratio in FY2023 (> 1.4 asked): current ratio FY2023 1.50."),
        ("Was Acme Widgets's current ratio below 1.4 as of FY2023?", "No. "),
        ("Did Acme Widgets's operating margin exceed 20% in FY2023?", "No. "),
        # Cirrus's gross margin: 44.0 % in FY2022, 40.0 % in FY2023
        ("Does Cirrus Labs have an improving gross margin profile as of FY2023? If gross margin is not a useful "
         "metric for a company like this, then state that and explain why.", "No. "),
    ],
)  # fmt: skip
def test_verdicts_with_the_figures_that_decide_them(collection, question, expected):
    answer = verdict(question, collection)
    assert expected in answer, answer
    assert answer.startswith(("Yes. ", "No. "))


def test_a_missing_figure_leaves_the_verdict_unknown(collection):
    """Acme prints no gross profit: the margin cannot be computed, and the answer never says "no"."""
    question = "Does Acme Widgets have an improving gross margin profile as of FY2023?"
    plan = judgement_plan(question, collection.documents)
    assert plan is not None
    result = ask(question, collection, plan=plan, reader="table")
    text_ = result.answer.text if result.answer else ""
    assert not text_.lower().startswith(("no", "yes")) and "not known" in text_, text_


def test_ask_plans_a_judgement_without_the_model(collection):
    """`ask()` without a plan: the planner's first route reads the judgement; the model is never asked."""
    from mdqa_kernel.plan.planner import Planner

    asked: list[object] = []

    def model(messages, schema):
        asked.append(messages)
        raise RuntimeError("the model was asked")

    question = "Does Acme Widgets have an improving operating margin profile as of FY2023?"
    result = ask(question, collection, reader="table", llm="local-tiny", planner=Planner(model))
    assert asked == [] and result.planning is not None
    assert result.planning.trace.family_source == "judgement planner"
    assert result.answer is not None and result.answer.text.startswith("Yes. "), result.answer


def test_a_gross_margin_without_a_gross_profit_line_is_derived(collection):
    """Acme prints cost of products sold and no gross-profit line: read again with gross profit derived
    (revenue less cost of revenue), the margin is 38.0 % (11,000 − 6,820) in FY2022 and 40.0 % in FY2023."""
    from mdqa_kernel.benchmarks.systems.statements import unread_items
    from mdqa_kernel.plan.analyst import derivable, statement_plan

    question = "Does Acme Widgets have an improving gross margin profile as of FY2023?"
    first = ask(question, collection, plan=judgement_plan(question, collection.documents), reader="table")
    values = first.extraction.cells.select("field", "status", "confidence").to_dicts()
    missing = unread_items([{**v, "value": None if v["status"] != "found" else 1.0} for v in values])
    assert missing == {"gross_profit"} and derivable(missing) == {"gross_profit"}
    plan = judgement_plan(question, collection.documents, derivable(missing))
    assert plan is not None and {f.name for f in plan.fields} == {
        "revenue_fy2022", "cost_of_revenue_fy2022", "revenue_fy2023", "cost_of_revenue_fy2023"}  # fmt: skip
    answer = ask(question, collection, plan=plan, reader="table").answer
    assert answer is not None
    assert answer.text == ("Yes. Acme Widgets's gross margin, FY2022–FY2023 (rising asked): gross margin FY2022 "
                           "38.00%, gross margin FY2023 40.00%."), answer.text  # fmt: skip
    # the figure itself, planned the same way, is an amount: 12,400 − 7,440
    figure = statement_plan("What is Acme Widgets's FY2023 gross profit in USD millions?", collection.documents,
                            derivable({"gross_profit"}))  # fmt: skip
    result = ask("Acme gross profit", collection, plan=figure, reader="table")
    assert (
        result.answer is not None
        and result.answer.text == "Acme Widgets's FY2023 gross profit is 4960.00 million USD."
    )


def test_only_items_with_a_derivation_are_derived():
    from mdqa_kernel.benchmarks.systems.statements import unread_items
    from mdqa_kernel.plan.analyst import derivable

    values = [
        {"field": "gross_profit_fy2022", "value": None, "confidence": 0.5},
        {"field": "revenue_fy2022", "value": 11000.0, "confidence": 0.95},
        {"field": "inventory_fy2022", "value": 1300.0, "confidence": 0.3},  # read, but below the threshold
    ]
    assert unread_items(values) == {"gross_profit", "inventory"}
    assert derivable(unread_items(values)) == {"gross_profit"}  # inventory has no formula to fall back on


def test_cost_of_revenue_is_derived_from_gross_profit(collection):
    """The other way round: a statement that prints gross profit but no cost line (Cirrus prints both:
    the plan is what is checked here) reads revenue and gross profit for the cost of goods sold."""
    from mdqa_kernel.plan.analyst import derivable, statement_plan

    question = "What is Cirrus Labs's FY2023 cost of goods sold in USD millions?"
    plan = statement_plan(question, collection.documents, derivable({"cost_of_revenue"}))
    assert plan is not None and [f.name for f in plan.fields] == ["revenue_fy2023", "gross_profit_fy2023"]
    result = ask(question, collection, plan=plan, reader="table")
    assert result.answer is not None and "9000.00 million USD" in result.answer.text, result.answer
