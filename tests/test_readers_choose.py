"""The cascade's LLM chooses among the table reader's candidates; it does not write a value.

The table reader (real, on PDFs generated here) lists its ranked candidates; the cascade shows them to
the LLM, numbered, and returns the chosen candidate's own value and evidence. The orchestration is
checked with a scripted client (choice, "none", a number out of range, a free answer whose number is
printed nowhere); one test, marked llm, asks the local 1.5B model to choose between the current-year
and the prior-year cell of a line item.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import Choice, DocumentView, Status, view_from_parse
from mdqa_kernel.readers.cascade import CascadeReader
from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.llm import LLMReader, choice_options
from mdqa_kernel.readers.table.reader import TableReader
from tests._extract_fixtures import table_pdf


def fld(name: str, description: str, type: str = "number") -> Any:
    return SimpleNamespace(
        name=name, type=type, description=description, question=description, unit=None, scale=1.0
    )


NET_INCOME = fld("net_income", "Net income for fiscal year 2022")


class ScriptedClient:
    """Answers every structured call with `answer` as given (unvalidated, as a lax server might) and
    records the prompts."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    def structured(self, prompt: str, schema: Any, stage: str = "default") -> dict[str, Any]:
        self.prompts.append(prompt)
        return dict(self.answer)


def _view(path: Path) -> DocumentView:
    return view_from_parse(parse_pdf(path), "report", {"year": 2022, "symbol": "SMPL", "doctype": "10-K"})


@pytest.fixture(scope="module")
def rivals(tmp_path_factory: pytest.TempPathFactory) -> DocumentView:
    """Net income printed in two tables of equal standing (as reported and as adjusted), so the table
    reader is not sure which one is meant and the cascade asks the LLM. (A parent-only statement would
    not do: the table reader drops its figure when a consolidated one exists, readers/semantics.py.)"""
    head = [("(in thousands)",), ("", "2022", "2021")]
    path = table_pdf(
        tmp_path_factory.mktemp("pdf") / "rivals.pdf",
        [
            [("Statement of income, as reported",), *head, ("Net income", "28,455", "30,101")],
            [("Statement of income, as adjusted",), *head, ("Net income", "12,000", "11,000")],
        ],
    )
    return _view(path)


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> DocumentView:
    """One income statement: the table reader is sure of the current-year cell."""
    path = table_pdf(
        tmp_path_factory.mktemp("pdf") / "single.pdf",
        [
            [
                ("Sample Corp annual report 2022",),
                ("(in thousands)",),
                ("", "2022", "2021"),
                ("Total revenues", "939,499", "801,200"),
                ("Net income", "28,455", "30,101"),
            ]
        ],
    )
    return _view(path)


def test_the_table_reader_lists_its_ranked_candidates_with_their_columns(rivals: DocumentView) -> None:
    reader = TableReader()
    choices = reader.candidates(rivals, NET_INCOME, "")
    assert [c.value for c in choices] == [28_455_000, 12_000_000, 30_101_000, 11_000_000]
    assert choices[0].value == reader.read(rivals, NET_INCOME, "").value  # the first is read()'s answer
    first, prior = choices[0], choices[2]
    assert (first.page, first.printed, first.label, first.column, first.period) == (
        1,
        "28,455",
        "Net income",
        "2022",
        "asked",
    )
    assert (prior.column, prior.period, prior.scale) == ("2021", "other", 1000.0)
    assert first.bbox is not None and "28,455" in first.snippet
    assert first.score > prior.score
    # plain data: a worker can send them, the store can keep them
    assert pickle.loads(pickle.dumps(choices)) == choices
    assert Choice.model_validate_json(first.model_dump_json()) == first


def test_the_chosen_candidate_is_returned_with_its_own_value_and_evidence(rivals: DocumentView) -> None:
    client = ScriptedClient({"choice": "12,000 (#2)"})
    result = CascadeReader(TableReader(), LLMReader(client=client)).read(rivals, NET_INCOME, "")
    assert len(client.prompts) == 1
    assert result.status == Status.FOUND and result.value == 12_000_000 and result.reader == "llm"
    assert result.evidence is not None and result.evidence.page == 2 and result.evidence.reader == "table"
    assert result.evidence.bbox is not None and "12,000" in result.evidence.snippet
    assert result.confidence < CONFIDENT and result.llm_calls == 1  # a choice is not a second reading
    assert result.trail[1].startswith("llm(choice of 4):found")
    prompt = client.prompts[0]
    assert "1. 28,455 (thousands): row Net income, column 2022 (the period asked for), page 1\n" in prompt
    assert "3. 30,101 (thousands): row Net income, column 2021 (another period), page 1\n" in prompt
    assert "fiscal year 2022 unless it names another" in prompt and "answer none" in prompt


def test_choosing_the_first_readers_own_reading_does_not_make_it_confident(rivals: DocumentView) -> None:
    result = CascadeReader(TableReader(), LLMReader(client=ScriptedClient({"choice": "28,455 (#1)"}))).read(
        rivals, NET_INCOME, ""
    )
    assert result.value == 28_455_000 and result.confidence < CONFIDENT


def test_none_of_the_candidates_is_not_found(rivals: DocumentView) -> None:
    choices = TableReader().candidates(rivals, NET_INCOME, "")
    result = LLMReader(client=ScriptedClient({"choice": "none"})).choose(rivals, NET_INCOME, "", choices)
    assert result.status == Status.NOT_FOUND and result.value is None and "none of 4" in result.message
    # in the cascade the table reader's own reading stays below the threshold: a reviewer looks
    cascade = CascadeReader(TableReader(), LLMReader(client=ScriptedClient({"choice": "none"})))
    kept = cascade.read(rivals, NET_INCOME, "")
    assert kept.confidence < CONFIDENT and kept.trail[1] == "llm(choice of 4):not_found:0.50"


def test_a_choice_out_of_range_is_not_found_with_a_message(rivals: DocumentView) -> None:
    choices = TableReader().candidates(rivals, NET_INCOME, "")
    assert choice_options(choices) == ("28,455 (#1)", "12,000 (#2)", "30,101 (#3)", "11,000 (#4)", "none")
    for answer in ("9", "0", "28,455", "12,001", "30,101 (#7)", ""):
        result = LLMReader(client=ScriptedClient({"choice": answer})).choose(rivals, NET_INCOME, "", choices)
        assert result.status == Status.NOT_FOUND and result.value is None, answer
        assert f"model chose {answer!r}, not one of 4 candidates" in result.message


def test_a_prior_period_choice_needs_review(rivals: DocumentView) -> None:
    choices = TableReader().candidates(rivals, NET_INCOME, "")
    result = LLMReader(client=ScriptedClient({"choice": "30,101 (#3)"})).choose(
        rivals, NET_INCOME, "", choices
    )
    assert result.value == 30_101_000 and result.confidence < CONFIDENT and "'2021'" in result.message


def test_the_llm_is_not_asked_where_the_table_reader_is_confident(single: DocumentView) -> None:
    client = ScriptedClient({"choice": "2"})
    result = CascadeReader(TableReader(), LLMReader(client=client)).read(single, NET_INCOME, "")
    assert client.prompts == [] and result.reader == "table" and result.value == 28_455_000
    assert result.confidence >= CONFIDENT


def test_a_free_answer_whose_number_is_printed_nowhere_is_not_found(single: DocumentView) -> None:
    """No row names dividends, so there is nothing to choose from: the model answers freely, quoting a
    line that is there, with a number that is not (its own arithmetic)."""
    dividends = fld("dividends", "Dividends paid in fiscal year 2022")
    assert TableReader().candidates(single, dividends, "") == []
    guess = {"status": "found", "value": 910354.0, "page": 1, "quote": "Net income 28,455"}
    client = ScriptedClient(guess)
    result = CascadeReader(TableReader(), LLMReader(client=client, k=3)).read(single, dividends, "")
    assert len(client.prompts) == 1 and "Candidates:" not in client.prompts[0]
    assert result.status == Status.NOT_FOUND and result.value is None
    assert "910354.0 is not printed in the retrieved text" in result.message
    # the same answer with a printed number (here before the page's "in thousands") is an answer
    printed = ScriptedClient({**guess, "value": 28455000.0})
    found = LLMReader(client=printed, k=3).read(single, dividends, "")
    assert found.status == Status.FOUND and found.value == 28_455_000 and found.supported is True


@pytest.mark.llm
def test_the_local_model_chooses_the_current_year_cell(single: DocumentView, tmp_path: Path) -> None:
    """The real 1.5B model, shown the current-year and the prior-year cell of one row (in either order,
    so that leaning to the first candidate cannot pass), picks the current year's."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (make install-local)")
    from mdqa_kernel.llm import LLMConfig, ModelNotInstalledError
    from mdqa_kernel.llm.weights import MODELS, ensure_model

    try:
        ensure_model(MODELS["qwen2.5-coder-1.5b-instruct-q4_k_m"])
    except ModelNotInstalledError as e:
        pytest.skip(str(e))
    config = LLMConfig(backend="local", n_threads=1, n_ctx=2048, max_tokens=16)
    reader = LLMReader(llm_config=config, workspace=str(tmp_path / "ws"))
    choices = [c for c in TableReader().candidates(single, NET_INCOME, "") if c.label == "Net income"]
    assert sorted(c.value for c in choices) == [28_455_000, 30_101_000]
    for shown in (choices, choices[::-1]):
        result = reader.choose(single, NET_INCOME, "", shown, "table")
        assert result.status == Status.FOUND and result.value == 28_455_000, result.message
        assert result.evidence is not None and result.evidence.page == 1


def test_a_share_printed_beside_an_amount_is_no_candidate_for_the_amount(tmp_path: Path) -> None:
    """Seen on a 10-K: "As a percent of revenue 13%" was offered for total revenue, and the 1.5B model
    took it. A percentage is a candidate only for a percent field (or read by a table as a ratio)."""
    path = table_pdf(
        tmp_path / "share.pdf",
        [
            [
                ("(in millions)",),
                ("", "2022", "2021"),
                ("Total revenue", "211,915", "198,270"),
                ("Research and development as a percent of revenue was 13% in 2022.",),
                ("Total revenue grew 7% in 2022.",),
            ]
        ],
    )
    view = _view(path)
    revenue = fld("total_revenue", "Total revenue for fiscal year 2022")
    choices = TableReader().candidates(view, revenue, "")
    assert choices[0].value == 211_915_000_000
    assert not any(c.printed.endswith("%") for c in choices), choices
    share = fld("revenue_growth", "Total revenue growth in 2022", type="percent")
    assert 7.0 in [c.value for c in TableReader().candidates(view, share, "")]


def test_a_prior_year_field_is_offered_the_prior_year_cell_as_the_asked_one(rivals: DocumentView) -> None:
    """The period labels follow the period the field asks for, not the report's: for a prior-year
    field the 2021 cells are the asked ones and rank first."""
    prior_field = fld("net_income_prior_year", "Net income for the prior fiscal year")
    choices = TableReader().candidates(rivals, prior_field, "")
    table = [c for c in choices if c.kind == "table"]
    assert [(c.value, c.column, c.period) for c in table[:2]] == [
        (30_101_000, "2021", "asked"),
        (11_000_000, "2021", "asked"),
    ]
    assert choices[0].value == 30_101_000  # the prior-year cell ranks first
    client = ScriptedClient({"choice": "none"})
    CascadeReader(TableReader(), LLMReader(client=client)).read(rivals, prior_field, "")
    assert all("not the prior year" not in p for p in client.prompts)
