"""Shared fixtures: paths to ../shared material and fresh workspaces."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REALDOCS = SHARED / "realdocs"


@pytest.fixture
def workspace(tmp_path: Path):
    from mdqa_kernel.store import Workspace

    return Workspace(tmp_path / "ws")


@pytest.fixture
def realdocs() -> Path:
    if not (REALDOCS / "pdfs").is_dir():
        pytest.skip("../shared/realdocs is not beside the project")
    return REALDOCS
