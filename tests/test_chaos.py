"""Chaos (small): 5 random kill -9 during `mdqa collection build` and `mdqa extract --reader table`,
each followed by a resume, lose and duplicate no cell; two concurrent extracts on one workspace give
the cells of one run. The large version is `mdqa reproduce chaos` (notebooks/benchmarks/chaos.ipynb)."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.benchmarks.chaos import chaos, compare, concurrent_extracts

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


def test_five_kills_during_build_and_extract_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    report = chaos(tmp_path, kills=5, docs=150, jobs=2, seed=30)
    assert report["kills"] == 5 and report["build_kills"] == 3 and report["extract_kills"] == 2
    assert report["cells"] == 600 and report["cells_tested"] == 600
    assert (report["lost"], report["duplicated"], report["changed"], report["extra"]) == (0, 0, 0, 0)
    assert report["orphans"] == 0, report["kill_log"]
    # Every killed run is marked interrupted (by the resume that opened the workspace next).
    assert report["runs"] == {"interrupted": 5, "done": 2}


def test_two_concurrent_extracts_give_the_cells_of_one_run(tmp_path: Path) -> None:
    report = concurrent_extracts(tmp_path, docs=40)
    assert report["cells"] == 160 and report["cells_tested"] == 160
    assert (report["lost"], report["duplicated"], report["changed"], report["extra"]) == (0, 0, 0, 0)
    assert report["runs"] == {"done": 3}  # the shared workspace's build and its two extracts


def test_compare_counts_lost_duplicated_changed_and_extra_cells() -> None:
    ref = pl.DataFrame(
        {
            "doc_id": ["a", "a", "b"],
            "field": ["x", "y", "x"],
            "status": ["found"] * 3,
            "result": ["1", "2", "3"],
        }
    )
    tested = pl.DataFrame(
        {
            "doc_id": ["a", "a", "a", "c"],
            "field": ["x", "x", "y", "x"],
            "status": ["found"] * 4,
            "result": ["1", "1", "9", "4"],
        }
    )
    assert compare(ref, tested) == {
        "cells": 3,
        "cells_tested": 4,
        "lost": 1,
        "extra": 1,
        "duplicated": 1,
        "changed": 1,
    }
