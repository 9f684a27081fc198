"""Shared fixtures: paths to ../shared material and fresh workspaces."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REALDOCS = SHARED / "realdocs"

# Under pytest-xdist (`make test` runs two workers on two cores) two model tests can run at once: more
# llama.cpp threads than free cores collapses its speed, so each worker's model runs on one thread.
# Subprocesses (papermill kernels, the installed demo) inherit it.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("MDQA_LLM_THREADS", "1")


@pytest.fixture
def workspace(tmp_path: Path):
    from mdqa_kernel.store import Workspace

    return Workspace(tmp_path / "ws")


@pytest.fixture
def realdocs() -> Path:
    if not (REALDOCS / "pdfs").is_dir():
        pytest.skip("../shared/realdocs is not beside the project")
    return REALDOCS


CAR_2021 = "q_5f548113107a56e1"  # 2021 top-3 capital adequacy ratio (A股年报, 7 documents)
US_ASSETS_2021 = "q_1c78a52e3db50bd6"  # 2021 top-3 US filers by total assets (5 documents)


@pytest.fixture(scope="session")
def rendered_small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two MuDABench questions rendered once per test session (rendered from annotated values)."""
    from mdqa_kernel.benchmarks.render import render_mudabench

    out = tmp_path_factory.mktemp("rendered")
    render_mudabench("simple", [CAR_2021, US_ASSETS_2021], out)
    return out
