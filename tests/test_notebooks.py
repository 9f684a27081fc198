"""Every tutorial notebook executes with papermill (offline, on the rendered example corpus).

The notebooks share one output folder per session, so the corpus is rendered and parsed once.
Notebooks that call the local LLM are marked llm (they run in CI too).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import papermill as pm
import pytest

from .conftest import REPO

NOTEBOOKS = REPO / "notebooks"


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("notebooks-out")


def _run(name: str, out_dir: Path, **params: object) -> dict:
    executed = out_dir / f"executed-{name}"
    pm.execute_notebook(
        str(NOTEBOOKS / name),
        str(executed),
        parameters={"out_dir": str(out_dir), **params},
        cwd=str(NOTEBOOKS),
        kernel_name="python3",
        progress_bar=False,
    )
    return json.loads(executed.read_text("utf-8"))


def _outputs(nb: dict) -> str:
    texts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(texts)


def test_tutorials_commit_without_outputs() -> None:
    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = json.loads(path.read_text("utf-8"))
        assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code"), path.name
        assert any("parameters" in c.get("metadata", {}).get("tags", []) for c in nb["cells"]), path.name


def test_every_notebook_is_valid_with_cell_ids() -> None:
    """nbformat 4.5 requires an id on every cell; a missing one is a warning today and an error later."""
    paths = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "benchmarks").glob("*.ipynb"))
    for path in paths:
        # Read the raw JSON: nbformat.read would quietly add the missing ids.
        raw = json.loads(path.read_text("utf-8"))
        missing = [i for i, cell in enumerate(raw["cells"]) if not cell.get("id")]
        assert not missing, f"{path.name}: cells {missing} have no id"
        nbformat.validate(nbformat.from_dict(raw))


@pytest.mark.slow
def test_01_collection(out_dir: Path) -> None:
    text = _outputs(_run("01_collection.ipynb", out_dir))
    assert "A股年报" in text and "0 parsed" in text


@pytest.mark.slow
def test_03_extract_and_review_table_reader(out_dir: Path) -> None:
    text = _outputs(_run("03_extract_and_review.ipynb", out_dir, reader="table"))
    assert "RowsReview" in text and "corrections exported" in text


@pytest.mark.slow
def test_04_aggregate_and_answer(out_dir: Path) -> None:
    text = _outputs(_run("04_aggregate_and_answer.ipynb", out_dir))
    assert "601398、002142、601166" in text and "judged correct: True" in text
    assert "True（5家：002142、002839、600908、601166、601398）" in text  # value counts name their companies


@pytest.mark.slow
@pytest.mark.llm
def test_02_plan_with_the_planner(out_dir: Path) -> None:
    text = _outputs(_run("02_plan.ipynb", out_dir, llm_backend="local"))
    assert "must be snake_case" in text and "total" in text.lower()


@pytest.mark.slow
@pytest.mark.llm
def test_00_quickstart_one_question(out_dir: Path) -> None:
    text = _outputs(_run("00_quickstart.ipynb", out_dir, n_questions=1, llm_backend="local"))
    assert "judged correct: 1/1" in text


@pytest.mark.slow
@pytest.mark.llm
def test_05_reproduce(out_dir: Path) -> None:
    text = _outputs(_run("05_reproduce_a_benchmark_table.ipynb", out_dir, llm_backend="local-tiny"))
    assert "mdqa-oracle-rows" in text
    # the records and the model's answers to commit (the oracle rows still plan and answer with the model)
    assert re.search(r"'results.jsonl': [1-9]", text) and re.search(r"'llm-cache.jsonl': [1-9]", text), text
