"""Chaos (small): 5 random kill -9 during `mdqa collection build` and `mdqa extract --reader table`,
each followed by a resume, lose and duplicate no cell; two concurrent extracts on one workspace give
the cells of one run. The large version is `mdqa reproduce chaos` (notebooks/benchmarks/chaos.ipynb)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.benchmarks.chaos import (
    ChaosError,
    chaos,
    compare,
    concurrent_extracts,
    group_members,
    start,
    wait_all,
    wait_group_gone,
)

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


def test_a_wait_that_times_out_kills_every_group_it_waited_on(tmp_path: Path) -> None:
    log = tmp_path / "log"
    # Each command leaves a helper in its group (`sleep &`), as the parser pool does.
    procs = [start(["sh", "-c", "sleep 60 & sleep 60"], log) for _ in range(2)]
    deadline = time.monotonic() + 10
    while any(len(group_members(p.pid)) < 3 for p in procs) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(len(group_members(p.pid)) == 3 for p in procs)  # sh and its two sleeps
    with pytest.raises(ChaosError, match="ran longer than"):
        wait_all(procs, 0.5, "two sleeps", log)
    assert [p.poll() for p in procs] == [-9, -9]
    assert [wait_group_gone(p.pid, 5)[0] for p in procs] == [[], []]
