"""Which-of questions (plan/choice.py): what is read from the question, and the whole route on annual
reports the tests draw (ask() with the table reader, no model): the chosen figure and every figure."""

from __future__ import annotations

import polars as pl
import pytest

from mdqa_kernel.answer import render_answer
from mdqa_kernel.ask import ask
from mdqa_kernel.collection import Collection
from mdqa_kernel.plan.aggregation import Aggregation, Output
from mdqa_kernel.plan.choice import choice_plan, read_choice
from mdqa_kernel.plan.planner import figure_plan
from tests.test_analyst import META
from tests.test_periods import COLS, draw, row, text

CASH = ("Among operations, investing, and financing activities, which brought in the most (or lost the least) "
        "cash flow for {} in FY2023?")  # fmt: skip


def test_a_list_of_activities_resolves_with_its_shared_word_and_the_measure():
    c = read_choice(CASH.format("Acme Widgets"), META)
    assert c is not None and (c.company, c.year, c.pick) == ("Acme Widgets", 2023, "max")
    assert c.names == [
        "cash flow from operations",
        "cash flow from investing activities",
        "cash flow from financing activities",
    ]


@pytest.mark.parametrize(
    ("question", "pick", "names"),
    [
        ("Which was larger for Acme Widgets in FY2023, research and development or SG&A?", "max",
         ["research and development", "sg&a"]),
        ("Of operating, investing and financing activities, which used the most cash flow for Acme Widgets "
         "in FY2023?", "min", None),
        ("Which had the lowest figure for Boreal Foods in FY2023: capex or dividends paid?", "min", None),
    ],
)  # fmt: skip
def test_direction_and_names(question, pick, names):
    c = read_choice(question, META)
    assert c is not None and c.pick == pick, c
    if names is not None:
        assert c.names == names


@pytest.mark.parametrize(
    "question",
    [
        "Which segment of Acme Widgets grew the most in FY2023?",  # no list of figures
        "Among marketing, logistics and IT, which cost Acme Widgets the most in FY2023?",  # names nobody defines
        "Among revenue and net sales, which was larger for Acme Widgets in FY2023?",  # one line item twice
        "Among revenue and gross margin, which was larger for Acme Widgets in FY2023?",  # an amount against a margin
        "Among operations, investing, and financing activities, which brought in the most cash for Acme Widgets?",
        "Among operations and financing activities, which brought in the most cash flow for Zenith in FY2023?",
    ],
)
def test_what_it_cannot_read_completely_is_not_planned(question):
    assert choice_plan(question, META) is None


def test_the_answer_form_names_the_largest_or_smallest_and_a_missing_figure_leaves_it_unknown():
    frame = pl.DataFrame(
        {"a": [5.0], "b": [-2.0], "c": [None]}, schema={"a": pl.Float64, "b": pl.Float64, "c": pl.Float64}
    )
    labels = {"a": "operations", "b": "investing", "c": "financing"}
    most = Aggregation(output=Output(form="choice", also=["a", "b"], labels=labels, subject="Acme"))
    assert render_answer("Which?", most, frame, "en").text == "Operations. Acme: operations 5, investing -2."
    least = most.model_copy(update={"output": most.output.model_copy(update={"pick": "min"})})
    assert render_answer("Which?", least, frame, "en").values == ["investing"]
    unknown = Aggregation(output=Output(form="choice", also=["a", "b", "c"], labels=labels, subject="Acme"))
    answer = render_answer("Which?", unknown, frame, "en")
    assert answer.values == [None] and "not known" in answer.text


# -- the whole route on drawn annual reports ------------------------------------------------------------


def _cash_flow_report(path, name: str, operating: str, investing: str, financing: str) -> None:
    years = ("2023", "2022", "2021")
    draw(
        path,
        [
            [text(f"{name} Inc."), text("ANNUAL REPORT ON FORM 10-K"), text("For the fiscal year ended December 31, 2023")],
            [text("CONSOLIDATED STATEMENTS OF INCOME"), text("(In millions)"),
             [(420, "Year Ended December 31,", "c")], [(x, y, "r") for x, y in zip(COLS, years, strict=True)],
             row("Net sales", "9,000", "8,000", "7,000"), row("Income before income taxes", "1,000", "800", "700"),
             row("Provision for income taxes", "210", "200", "140"), row("Net income", "790", "600", "560")],
            [text("CONSOLIDATED STATEMENTS OF CASH FLOWS"), text("(In millions)"),
             [(420, "Year Ended December 31,", "c")], [(x, y, "r") for x, y in zip(COLS, years, strict=True)],
             text("Cash flows from operating activities:"), row("Net income", "900", "800", "700"),
             row("Net cash provided by operating activities", operating, "1,200", "1,100"),
             text("Cash flows from investing activities:"), row("Capital expenditures", "(700)", "(600)", "(500)"),
             row("Net cash used in investing activities", investing, "(650)", "(520)"),
             text("Cash flows from financing activities:"), row("Dividends paid", "(300)", "(280)", "(260)"),
             row("Net cash provided by (used in) financing activities", financing, "(400)", "(350)")],
        ],
    )  # fmt: skip


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    root = tmp_path_factory.mktemp("chosen")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    # Acme: operations bring in the most; Boreal raised debt, so financing brought in more than operations
    _cash_flow_report(pdfs / "acme_2023_10k.pdf", "Acme Widgets", "1,350", "(720)", "(450)")
    _cash_flow_report(pdfs / "boreal_2023_10k.pdf", "Boreal Foods", "210", "(1,640)", "2,300")
    meta = pl.DataFrame(
        {"doc_id": ["acme_2023_10k", "boreal_2023_10k"], "company": ["Acme Widgets", "Boreal Foods"],
         "doc_type": ["10k", "10k"], "year": [2023, 2023]}
    )  # fmt: skip
    return Collection.build(pdfs, metadata=meta, workspace=root / "ws", name="chosen", progress=False)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (CASH.format("Acme Widgets"),
         "Cash flow from operations. Acme Widgets's FY2023 figures (USD millions): cash flow from operations "
         "1,350, cash flow from investing activities -720, cash flow from financing activities -450."),
        (CASH.format("Boreal Foods"), "Cash flow from financing activities. "),
        ("Among operations, investing, and financing activities, which used the most cash for Boreal Foods in "
         "FY2023?", "Cash from investing activities. "),
    ],
)  # fmt: skip
def test_the_chosen_figure_with_every_figure(collection, question, expected):
    plan = choice_plan(question, collection.documents)
    assert plan is not None, question
    result = ask(question, collection, plan=plan, reader="table")
    assert result.answer is not None, result.error
    assert result.answer.text.startswith(expected), result.answer.text


def test_one_figure_compared_between_two_years(collection):
    """Effective tax rate: 210 / 1,000 = 21 % in FY2023 against 200 / 800 = 25 % in FY2022."""
    question = "How does Acme Widgets's effective tax rate in FY2023 compare to FY2022?"
    c = read_choice(question, collection.documents)
    assert c is not None and (c.names, c.years) == (["effective tax rate"], (2023, 2022))
    plan = choice_plan(question, collection.documents)
    assert plan is not None
    result = ask(question, collection, plan=plan, reader="table")
    assert result.answer is not None, result.error
    assert result.answer.text == (
        "FY2022. Acme Widgets's effective tax rate by fiscal year: FY2023 21.00%, FY2022 25.00%."
    )
    # a figure the vocabulary does not know, or one year twice, is not planned
    assert read_choice("How does Acme Widgets's brand value in FY2023 compare to FY2022?", META) is None
    assert read_choice("How does Acme Widgets's current ratio in FY2023 compare to FY2023?", META) is None


def test_ask_plans_a_choice_without_the_model(collection):
    from mdqa_kernel.plan.planner import Planner

    def model(messages, schema):
        raise RuntimeError("the model was asked")

    question = CASH.format("Acme Widgets")
    assert figure_plan(question, collection.documents) is not None
    result = ask(question, collection, reader="table", llm="local-tiny", planner=Planner(model))
    assert result.planning is not None and result.planning.trace.family_source == "choice planner"
    assert result.answer is not None and result.answer.text.startswith("Cash flow from operations."), (
        result.answer
    )
