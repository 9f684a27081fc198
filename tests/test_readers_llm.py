"""The LLM reader against the real local model (marked llm; one thread, a few cells, short prompts).

Evidence that the reader works must come from a real model: a fake client is used only in
test_extract.py for orchestration. Here the default local model (Qwen2.5-Coder-1.5B; the 0.5B one
paraphrases its quotes, which the reader then rightly marks unsupported) reads two cells from a
drawn annual report: a number with the prior-year trap beside it, and a count in prose.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import Status, view_from_parse
from tests._extract_fixtures import table_pdf

pytestmark = pytest.mark.llm
pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (make install-local)")


def fld(name: str, description: str, type: str = "number", scale: float = 1.0):
    return SimpleNamespace(
        name=name, type=type, description=description, question=description, unit=None, scale=scale
    )


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    from mdqa_kernel.llm import LLMConfig, ModelNotInstalledError
    from mdqa_kernel.llm.weights import MODELS, ensure_model
    from mdqa_kernel.readers import make_reader

    try:
        ensure_model(MODELS["qwen2.5-coder-1.5b-instruct-q4_k_m"])
    except ModelNotInstalledError as e:
        pytest.skip(str(e))
    ws = tmp_path_factory.mktemp("ws")
    config = LLMConfig(backend="local", n_threads=1, n_ctx=2048, max_tokens=96)
    return make_reader("llm", llm_config=config, workspace=str(ws), k=3)


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    path = table_pdf(
        tmp_path_factory.mktemp("pdf") / "report.pdf",
        [
            [
                ("Sample Corp annual report 2022",),
                ("(in thousands)",),
                ("", "2022", "2021"),
                ("Total revenues", "939,499", "801,200"),
                ("Net income", "28,455", "30,101"),
            ],
            [("At the end of 2022 the company employed 1,250 people, of whom 7 were executives.",)],
        ],
    )
    return view_from_parse(
        parse_pdf(path), "report", {"year": 2022, "symbol": "SMPL", "doctype": "annual report"}
    )


def test_llm_reads_the_current_year_number_with_a_supported_quote(reader, doc):
    result = reader.read(doc, fld("net_income", "Net income for fiscal year 2022"), "")
    assert result.status == Status.FOUND, result.message
    assert result.supported is True and result.evidence.page == 1
    assert result.value == pytest.approx(28_455_000)  # the page's "(in thousands)" applied, not 30,101


def test_llm_reads_a_prose_count(reader, doc):
    result = reader.read(doc, fld("employees", "Number of employees at the end of 2022", type="integer"), "")
    assert result.status == Status.FOUND and result.value == 1250
    assert result.evidence.page == 2


def test_second_read_is_a_cache_hit(reader, doc):
    import time

    t0 = time.perf_counter()
    reader.read(doc, fld("net_income", "Net income for fiscal year 2022"), "")
    assert time.perf_counter() - t0 < 1.0  # answered from the workspace cache, no generation
