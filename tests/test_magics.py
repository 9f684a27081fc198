"""The cell magics in a real IPython shell, on rendered MuDABench filings, with papermill-style $vars."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from mdqa_kernel.benchmarks import mudabench
from mdqa_kernel.benchmarks.judge import judge
from mdqa_kernel.rows.corrections import Ledger

from .conftest import CAR_2021, REPO


@pytest.fixture
def shell(tmp_path: Path, rendered_small: Path) -> InteractiveShell:
    sh = InteractiveShell.instance()
    sh.run_line_magic("load_ext", "mdqa_kernel")
    sh.user_ns.update(
        pdfs=str(rendered_small / "pdfs"), meta=str(rendered_small / "metadata.csv"), ws=str(tmp_path / "ws")
    )
    return sh


def test_collection_plan_extract_aggregate(shell: InteractiveShell) -> None:
    shell.run_cell_magic(
        "collection",
        "banks",
        f"pdf_dir: $pdfs\nmetadata: $meta\nworkspace: $ws\nwhere: {{question_ids: '{CAR_2021}'}}\n",
    )
    assert len(shell.user_ns["banks"]) == 7
    shell.run_cell_magic(
        "plan", "car", (REPO / "examples/plans/capital_adequacy_top3.yaml").read_text("utf-8")
    )
    shell.run_line_magic("extract", "rows --plan car --collection banks --reader table")
    rows = shell.user_ns["rows"].rows
    assert rows.height == 7 and rows["capital_adequacy_ratio"].null_count() == 0
    shell.run_line_magic("aggregate", "ans --rows rows")
    answer = shell.user_ns["ans"].text
    split = mudabench.load_split("simple")
    assert judge(
        answer, split.reference_answer(CAR_2021), question=split.questions.row(0, named=True)["question"]
    ).correct

    # A correction in the ledger changes the next aggregate: the overlay is applied when rows are read.
    top = shell.user_ns["ans"].frame["symbol"][0]
    doc = rows.filter(rows["symbol"] == top)["doc_id"][0]
    Ledger.for_extraction(shell.user_ns["rows"]).edit(doc, "capital_adequacy_ratio", 1.0)
    shell.run_line_magic("aggregate", "ans2 --rows rows")
    assert top not in shell.user_ns["ans2"].frame["symbol"].to_list()


def test_errors_are_one_line_usage_errors(shell: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="not defined in the notebook"):
        shell.run_cell_magic("collection", "x", "pdf_dir: $nope\n")
    with pytest.raises(UsageError, match="fields"):
        shell.run_cell_magic("plan", "bad", "question: q\nfields:\n  - name: BadName\n    type: number\n")
    with pytest.raises(UsageError, match="no plan named"):
        shell.run_line_magic("extract", "r --plan missing --collection nothing")
    with pytest.raises(UsageError, match="required"):
        shell.run_line_magic("extract", "r")


@pytest.mark.parametrize("name", ["collection", "plan", "extract", "aggregate"])
def test_each_magic_says_its_usage(name: str) -> None:
    """`%%extract?` shows the docstring: it must be the function's first statement."""
    sh = InteractiveShell.instance()
    sh.run_line_magic("load_ext", "mdqa_kernel")
    for magic in (sh.find_cell_magic(name), sh.find_line_magic(name)):
        doc = magic.__doc__ or ""
        assert f"Usage:  %%{name} NAME" in doc and "bind" in doc.splitlines()[0]
