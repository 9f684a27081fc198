"""`mdqa demo` (what `make demo` runs): the quickstart notebook end to end, offline, with the local model."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mdqa_kernel.cli.main import main


@pytest.mark.slow
@pytest.mark.llm
def test_demo_answers_and_writes_notebook_and_html(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--out", str(out), "--questions", "1"])
    assert result.exit_code == 0, result.output
    assert "not the original filings" in result.output
    assert "judged correct: 1/1" in result.output
    assert (out / "quickstart.ipynb").stat().st_size > 10_000
    assert "<html" in (out / "quickstart.html").read_text("utf-8")[:2000].lower()
