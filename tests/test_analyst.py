"""The statement planner (plan/analyst.py): formulas in words, the asked metric, the filing, and the
whole route on annual reports this test draws (ask() with the table reader, no model)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.ask import ask
from mdqa_kernel.collection import Collection
from mdqa_kernel.plan.analyst import (
    Bin,
    Mean,
    Num,
    Ref,
    UnknownTerm,
    parse_formula,
    read_statement_question,
    select_filings,
    statement_plan,
)
from mdqa_kernel.plan.planner import figure_plan
from mdqa_kernel.text.asks import asked_decimals, asked_scale, asks_percent
from tests.test_periods import COLS, draw, row, text

META = pl.DataFrame(
    {
        "doc_id": ["acme_2023_10k", "acme_2021_10k", "acme_2024q1_10q", "boreal_2023_10k"],
        "company": ["Acme Widgets", "Acme Widgets", "Acme Widgets", "Boreal Foods"],
        "doc_type": ["10k", "10k", "10q", "10k"],
        "year": [2023, 2021, 2024, 2023],
    }
)


# -- formulas in words -------------------------------------------------------------------------------


def test_a_formula_in_words_with_periods():
    node = parse_formula(
        "365 * (average accounts payable between FY2022 and FY2023) / (FY2023 COGS + change in inventory"
        " between FY2022 and FY2023)",
        2023,
    )
    payable = Mean((Ref("accounts_payable", 2022), Ref("accounts_payable", 2023)))
    change = Bin("-", Ref("inventories", 2023), Ref("inventories", 2022))
    assert node == Bin("/", Bin("*", Num(365.0), payable), Bin("+", Ref("cost_of_revenue", 2023), change))


def test_word_operators_asides_and_metrics_inside_formulas():
    assert parse_formula("total current assets divided by total current liabilities", 2020) == Bin(
        "/", Ref("total_current_assets", 2020), Ref("total_current_liabilities", 2020)
    )
    # an aside in brackets or "(from …)" qualifies a term, it is no grouping
    ebitda = parse_formula(
        "operating income + depreciation and amortization [from cash flow statement]", 2020
    )
    assert ebitda == Bin("+", Ref("operating_income", 2020), Ref("depreciation_and_amortization", 2020))
    # a metric of the vocabulary expands at the year it is used; "less" subtracts
    assert parse_formula("EBITDA less capex", 2019) == Bin("-", ebitda.__class__("+", Ref("operating_income", 2019),
                         Ref("depreciation_and_amortization", 2019)), Ref("capital_expenditures", 2019))  # fmt: skip
    # the question's own definition wins over the vocabulary's
    own = parse_formula("ROA", 2021, definitions={"roa": "net income / total assets"})
    assert own == Bin("/", Ref("net_income", 2021), Ref("total_assets", 2021))


@pytest.mark.parametrize(
    "formula", ["net income / widgets shipped", "(revenue / total assets", "revenue / / total assets"]
)
def test_an_unknown_term_or_broken_formula_is_refused(formula):
    with pytest.raises(UnknownTerm):
        parse_formula(formula, 2020)


def test_definitions_that_refer_to_each_other_are_refused():
    with pytest.raises(UnknownTerm, match="loop"):
        parse_formula("x", 2020, definitions={"x": "y + revenue", "y": "x - revenue"})


def test_what_the_question_asks_of_the_answer():
    assert asked_scale("What is X? Answer in USD billions.") == 1e9
    assert asked_scale("How much (in USD millions) did it pay?") == 1e6 and asked_scale("What is X?") == 1.0
    assert asked_decimals("Round your answer to two decimal places.") == 2
    assert asks_percent("Answer in units of percents") and not asks_percent("a ratio")


# -- the question ----------------------------------------------------------------------------------


def test_a_line_item_in_the_unit_asked():
    sq = read_statement_question("What is Acme Widgets's FY2023 capital expenditure (in USD billions)?", META)
    assert sq is not None
    assert (sq.company, sq.years, sq.formula, sq.scale) == (
        "Acme Widgets", [2023], Ref("capital_expenditures", 2023), 1e9
    )  # fmt: skip
    plan = statement_plan("What is Acme Widgets's FY2023 capital expenditure (in USD billions)?", META)
    assert plan is not None and plan.aggregation is not None
    # capex is printed as an outflow: its size, scaled from the fields' millions to billions
    assert plan.aggregation.steps[0].expr == "(abs(capital_expenditures_fy2023)) * 0.001"
    assert plan.aggregation.output.unit == "billion USD"


def test_named_ratios_margins_growth_and_averages():
    def formula(q: str):
        sq = read_statement_question(q, META)
        assert sq is not None, q
        return sq.formula, sq.percent

    assert formula("What is the FY2023 quick ratio for Acme Widgets?") == (
        Bin("/", Bin("-", Ref("total_current_assets", 2023), Ref("inventories", 2023)),
            Ref("total_current_liabilities", 2023)), False)  # fmt: skip
    assert formula("What is Boreal Foods's FY2023 operating income % margin?") == (
        Bin("/", Ref("operating_income", 2023), Ref("revenue", 2023)),
        True,
    )
    assert formula("What is the FY2022 - FY2023 net sales growth rate for Acme Widgets?") == (
        Bin("-", Bin("/", Ref("revenue", 2023), Ref("revenue", 2022)), Num(1.0)),
        True,
    )
    avg, pct = formula(
        "What is the FY2021 - FY2023 3 year average of capex as a % of revenue for Acme Widgets?"
    )
    assert pct and isinstance(avg, Mean) and len(avg.parts) == 3
    assert avg.parts[0] == Bin("/", Ref("capital_expenditures", 2021), Ref("revenue", 2021))
    # the tax a company pays on its pre-tax income, as a percentage
    assert formula("What is Acme Widgets's effective tax rate for FY2023?") == (
        Bin("/", Ref("income_tax_expense", 2023), Ref("income_before_income_taxes", 2023)),
        True,
    )
    assert formula("What is Boreal Foods's FY2023 restructuring costs?") == (
        Ref("restructuring_charges", 2023),
        False,
    )


def test_the_question_definition_names_the_metric():
    q = ("What is the FY2023 widget turnover (WT) for Acme Widgets? WT is defined as: FY2023 net sales / "
         "(average total assets between FY2022 and FY2023). Round your answer to two decimal places.")  # fmt: skip
    sq = read_statement_question(q, META)
    assert sq is not None and sq.decimals == 2
    assert sq.formula == Bin(
        "/", Ref("revenue", 2023), Mean((Ref("total_assets", 2022), Ref("total_assets", 2023)))
    )


@pytest.mark.parametrize(
    "question",
    [
        "What is the FY2023 capital expenditure for Zenith Motors?",  # not in the collection
        "Compare FY2023 revenue of Acme Widgets and Boreal Foods?",  # two companies
        "What is the FY2023 customer happiness index for Acme Widgets?",  # no such term
        "What is the capital expenditure for Acme Widgets?",  # no fiscal year
        "Is Acme Widgets's business subject to cyclicality?",  # not a statement question
        # "how many times" asks a ratio; "inventory" alone is an amount, and no instruction names the ratio
        "Roughly how many times did Acme Widgets sell its inventory in FY2023?",
    ],
)
def test_what_it_cannot_read_completely_is_left_to_the_llm_planner(question):
    assert statement_plan(question, META) is None


def test_the_filing_is_the_earliest_annual_report_covering_the_years():
    plan = statement_plan("What is the FY2022 inventory turnover ratio for Acme Widgets?", META)
    assert plan is not None
    filters = {f.column: f.equals for f in plan.filters}
    assert filters == {"company": "Acme Widgets", "year": 2023, "doc_type": "10k"}
    # a year column kept as text gets a text filter
    plan = statement_plan(
        "What is the FY2021 COGS for Acme Widgets?", META.with_columns(pl.col("year").cast(pl.String))
    )
    assert plan is not None and {f.column: f.equals for f in plan.filters}["year"] == "2021"
    # a later year than any report: nothing to read it from
    assert statement_plan("What is the FY2025 COGS for Acme Widgets?", META) is None


def test_filings_a_narrative_question_names():
    assert select_filings("Did Acme Widgets's cash fall in Q1 of FY2024?", META) == ["acme_2024q1_10q"]
    assert select_filings("Who are Boreal Foods's customers as of FY2023?", META) == ["boreal_2023_10k"]
    assert select_filings("Who are the customers of Zenith?", META) == []


def test_a_question_naming_no_company_takes_the_one_whose_filings_cover_its_years():
    """No company named: the years decide when one company's filings alone cover them all."""
    # only Acme's filings reach FY2024 (and cover FY2023): its quarterly filing, as for a named company
    assert select_filings("Did cash fall between FY 2023 and Q1 of FY2024?", META) == ["acme_2024q1_10q"]
    assert select_filings("Did cash fall in FY2021?", META) == ["acme_2021_10k"]
    # FY2023 alone is covered by both companies, no year at all by any: the caller searches everything
    assert select_filings("Who are the customers as of FY2023?", META) == []
    assert select_filings("Who are the customers?", META) == []
    # two companies named: neither is chosen by the years
    assert select_filings("Did Acme Widgets or Boreal Foods grow from FY2023 to FY2024?", META) == []


# -- the whole route on drawn annual reports --------------------------------------------------------

ACME = {  # 2023, 2022, 2021 (balance sheet: 2023, 2022), in millions
    "Net sales": ("12,400", "11,000", "10,000"),
    "Cost of products sold": ("7,440", "6,820", "6,300"),
    "Operating income": ("1,860", "1,540", "1,300"),
    "Net income": ("1,240", "990", "850"),
    "Depreciation and amortization": ("410", "380", "350"),
    "Capital spending": ("(620)", "(550)", "(500)"),
    "Inventories": ("1,500", "1,300"),
    "Total current assets": ("4,200", "3,900"),
    "Property and equipment, net": ("3,100", "2,900"),
    "Total assets": ("9,800", "9,000"),
    "Accounts payable": ("1,100", "1,000"),
    "Total current liabilities": ("2,800", "2,600"),
}


def annual_report(path: Path, name: str, scale: float) -> Path:
    def rows(labels: list[str], n: int) -> list:
        return [row(label, *(_scaled(v, scale) for v in ACME[label][:n])) for label in labels]

    years3, years2 = ("2023", "2022", "2021"), ("2023", "2022")
    return draw(
        path,
        [
            [text(f"{name} Inc."), text("ANNUAL REPORT ON FORM 10-K"), text("For the fiscal year ended December 31, 2023")],
            [text("CONSOLIDATED STATEMENTS OF OPERATIONS"), text("(In millions)"),
             [(420, "Year Ended December 31,", "c")], [(x, y, "r") for x, y in zip(COLS, years3, strict=True)],
             *rows(["Net sales", "Cost of products sold", "Operating income", "Net income"], 3)],
            [text("CONSOLIDATED BALANCE SHEETS"), text("(In millions)"),
             [(x, f"December 31, {y}", "r") for x, y in zip(COLS, years2, strict=False)],
             *rows(["Inventories", "Total current assets", "Property and equipment, net", "Total assets",
                    "Accounts payable", "Total current liabilities"], 2)],
            [text("CONSOLIDATED STATEMENTS OF CASH FLOWS"), text("(In millions)"),
             [(420, "Year Ended December 31,", "c")], [(x, y, "r") for x, y in zip(COLS, years3, strict=True)],
             text("Operating activities"), *rows(["Depreciation and amortization"], 3),
             text("Investing activities"), *rows(["Capital spending"], 3)],
        ],
    )  # fmt: skip


def _scaled(printed: str, scale: float) -> str:
    """The same figure for a second company (other numbers, same layout)."""
    negative = printed.startswith("(")
    value = round(float(printed.strip("()").replace(",", "")) * scale)
    return f"({value:,})" if negative else f"{value:,}"


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    root = tmp_path_factory.mktemp("annual")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    annual_report(pdfs / "acme_2023_10k.pdf", "Acme Widgets", 1.0)
    annual_report(pdfs / "boreal_2023_10k.pdf", "Boreal Foods", 2.0)
    meta = META.filter(pl.col("doc_id").is_in(["acme_2023_10k", "boreal_2023_10k"]))
    return Collection.build(pdfs, metadata=meta, workspace=root / "ws", name="annual", progress=False)


def answer(question: str, coll: Collection) -> tuple[str | None, dict]:
    plan = statement_plan(question, coll.documents)
    assert plan is not None, question
    result = ask(question, coll, plan=plan, reader="table")
    values = {r["field"]: r["value_json"] for r in result.extraction.cells.iter_rows(named=True)}
    return (result.answer.text if result.answer else None), values


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # inventory turnover: 7,440 / ((1,300 + 1,500) / 2) = 5.314…
        ("What is the FY2023 inventory turnover ratio for Acme Widgets? Inventory turnover ratio is defined as: "
         "(FY2023 COGS) / (average inventory between FY2022 and FY2023). Round your answer to two decimal places.",
         "5.31"),
        # the question's own words name no metric; its instruction does
        ("Roughly how many times did Acme Widgets sell its inventory in FY2023? Calculate inventory turnover "
         "ratio for FY2023; if inventory is not meaningful for the company then state that.", "5.31"),
        # capex printed "(620)" in millions, asked in billions
        ("What is the FY2023 capital expenditure amount (in USD billions) for Acme Widgets?", "0.62 billion USD"),
        # (1,860+410)/12,400, (1,540+380)/11,000, (1,300+350)/10,000 = 18.3 %, 17.5 %, 16.5 % → mean 17.4 %
        ("What is the FY2021 - FY2023 3 year average unadjusted EBITDA % margin for Acme Widgets? Define "
         "unadjusted EBITDA as unadjusted operating income + depreciation and amortization from the cash flow "
         "statement. Answer in units of percents and round to one decimal place.", "17.4%"),
        # 12,400 / 11,000 - 1
        ("What is the FY2022 - FY2023 total revenue growth rate for Acme Widgets? Round to one decimal place.",
         "12.7%"),
        # the other company's report: every figure doubled, the ratio the same, the amount doubled
        ("What is Boreal Foods's FY2023 working capital ratio? Round your answer to two decimal places.", "1.50"),
        ("How much (in USD millions) did Boreal Foods have in net PP&E at the end of FY2022?", "5800.00 million USD"),
        # a formula written inline in the asked clause: 1,860 + 410; (1,860 + 410) / 12,400
        ("What is Acme Widgets's FY2023 operating income plus depreciation and amortization (in USD millions)?",
         "2270.00 million USD"),
        ("What is (FY2023 operating income + depreciation and amortization) divided by total revenue for Acme "
         "Widgets? Round to two decimal places.", "0.18"),
    ],
)  # fmt: skip
def test_statement_questions_answered_from_the_report(collection, question, expected):
    text_, values = answer(question, collection)
    assert text_ is not None and expected in text_, (text_, values)


def test_one_figure_read_for_two_years_needs_review():
    from mdqa_kernel.benchmarks.systems.statements import same_figure_for_two_years

    values = [
        {"field": "property_plant_equipment_net_fy2018", "value": 253.0, "page": 69},
        {"field": "property_plant_equipment_net_fy2019", "value": 253.0, "page": 69},
        {"field": "revenue_fy2019", "value": 6489.0, "page": 30},
    ]
    assert same_figure_for_two_years(values) == [
        "property_plant_equipment_net_fy2018 and property_plant_equipment_net_fy2019 are both 253.0 (page 69)"
    ]
    values[0]["value"] = 282.0
    assert same_figure_for_two_years(values) == []


def test_reading_only_the_pages_given(collection):
    """The `pages` reader: the inner reader sees the listed pages only (here the balance sheet, page 3)."""
    question = "What is the FY2023 working capital ratio for Acme Widgets? Round to two decimal places."
    plan = statement_plan(question, collection.documents)
    balance = ask(
        question, collection, plan=plan, reader="pages", inner="table", pages={"acme_2023_10k": [3]}
    )
    assert balance.answer is not None and "1.50" in balance.answer.text
    income = ask(question, collection, plan=plan, reader="pages", inner="table", pages={"acme_2023_10k": [2]})
    cells = income.extraction.cells
    assert set(cells["status"]) == {"not_found"}  # the cached balance-sheet cells are not reused


def test_initials_name_a_long_company_and_a_misread_form_is_declined():
    meta = pl.DataFrame(
        {"doc_id": ["jj_2022_10k"], "company": ["Johnson & Johnson"], "doc_type": ["10k"], "year": [2022]}
    )
    assert read_statement_question("What is JnJ's FY2022 COGS?", meta) is not None
    assert read_statement_question("What is J&J's FY2022 COGS?", meta) is not None
    # "how many times … inventory" asks a turnover: the inventory level would answer something else
    assert statement_plan("Roughly how many times has JnJ sold its inventory in FY2022?", meta) is None


def test_a_question_for_reasons_is_not_a_figure():
    assert statement_plan("What drove gross margin change as of FY2023 for Acme Widgets?", META) is None
    assert statement_plan("Why did Acme Widgets's FY2023 net sales fall?", META) is None


def test_ask_plans_a_statement_question_without_the_model(collection):
    """`ask()` without a plan: the planner's first route is the statement planner, no model call; a
    question it cannot read goes on to the model (here a stand-in that records it was asked)."""
    from mdqa_kernel.plan.planner import Planner

    asked: list[object] = []

    def model(messages, schema):  # the model's planning steps: must not run for a statement question
        asked.append(messages)
        raise RuntimeError("the model was asked")

    question = "What is the FY2023 working capital ratio for Acme Widgets? Round to two decimal places."
    result = ask(question, collection, reader="table", llm="local-tiny", planner=Planner(model))
    assert asked == [] and result.planning is not None
    assert result.planning.trace.family_source == "statement planner"
    assert result.answer is not None and "1.50" in result.answer.text
    other = Planner(model).propose("Which company grew revenue the most?", metadata=collection.documents)
    assert other.plan is None and asked  # not a statement question: the model route ran
    off = Planner(model, statements=False).propose(question, metadata=collection.documents)
    assert off.plan is None and off.trace.family_source != "statement planner"


def test_no_mudabench_question_takes_the_statement_route():
    """MuDABench asks across documents; the statement route (first in the planner: statement figures,
    judgements, then which-of choices) must leave all its questions to the model planner, so Table 2's mdqa system plans
    as before."""
    import json

    from mdqa_kernel.benchmarks.mudabench import default_data_dir
    from mdqa_kernel.collection.metadata import mudabench_metadata

    for split in ("simple", "complex"):
        path = default_data_dir() / f"{split}.json"
        meta = mudabench_metadata(path)
        items = json.loads(path.read_text(encoding="utf-8"))
        questions = [it["question"] for it in (items.values() if isinstance(items, dict) else items)]
        assert len(questions) == 166
        assert [q for q in questions if figure_plan(q, meta) is not None] == [], split


def test_terms_joined_by_words_that_are_not_operators_are_declined():
    meta = pl.DataFrame(
        {"doc_id": ["a_2023_10k"], "company": ["Acme Widgets"], "doc_type": ["10k"], "year": [2023]}
    )
    listed = "What is Acme Widgets's FY2023 operating income and depreciation and amortization?"
    assert read_statement_question(listed, meta) is None  # two figures asked, not one formula
    unbalanced = "What is Acme Widgets's FY2023 (operating income + depreciation and amortization?"
    assert read_statement_question(unbalanced, meta) is None
