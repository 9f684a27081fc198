"""The rows review widget in a real JupyterLab, driven through headless Chromium.

Opens tutorial 03, runs all cells, corrects a value in the grid, checks the answer beside the grid
changed and the correction is in the workspace store, restarts the kernel, re-runs, and checks the
correction survived. Element screenshots go to test-artifacts/browser/.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from mdqa_kernel.rows.corrections import Ledger
from mdqa_kernel.store import Workspace

from .conftest import REPO
from .jupyter_harness import CHROMIUM, browser_page, jupyterlab, open_notebook, restart_kernel, run_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ARTIFACTS = REPO / "test-artifacts" / "browser"


def _prepare(tmp_path: Path) -> Path:
    """Tutorial 03 with its parameters pointed at a fresh output folder; reader=table keeps it fast."""
    root = tmp_path / "lab"
    root.mkdir()
    nb = json.loads((REPO / "notebooks" / "03_extract_and_review.ipynb").read_text("utf-8"))
    for cell in nb["cells"]:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            cell["source"] = (
                f'out_dir = "{tmp_path / "out"}"\nreader = "table"\nllm_backend = "local"\nquestion_id = "q_5f548113107a56e1"\n'
            )
    (root / "03.ipynb").write_text(json.dumps(nb), "utf-8")
    return root


def test_review_edit_survives_restart(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run `make sysdeps` (make test does it)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root = _prepare(tmp_path)
    with jupyterlab(root, tmp_path) as server, browser_page() as page:
        open_notebook(page, server, "03.ipynb")
        run_all(page, artifacts=ARTIFACTS)
        grid = page.locator(".mdqa-review")
        grid.wait_for(timeout=60_000)
        page.wait_for_function("() => document.querySelector('.mdqa-answer').textContent.includes('601398')")
        grid.screenshot(path=str(ARTIFACTS / "01-grid.png"))

        # The top bank (601398) in the grid: click shows its evidence with the page crop.
        row = page.locator("tr:has(td:text-is('601398'))")
        cell = row.locator("td.mdqa-cell[data-field='capital_adequacy_ratio']")
        cell.click()
        page.wait_for_selector(".mdqa-evidence img.mdqa-crop", timeout=30_000)
        assert "page" in page.locator(".mdqa-ev-head").inner_text()
        page.locator(".mdqa-evidence").screenshot(path=str(ARTIFACTS / "02-evidence.png"))

        # Browser-side validation refuses a non-number before anything is sent.
        cell.dblclick()
        page.locator("input.mdqa-edit").fill("lots")
        page.locator("input.mdqa-edit").press("Enter")
        assert "enter a number" in page.locator(".mdqa-message").inner_text()
        page.locator("input.mdqa-edit").fill("1.00")
        t0 = time.perf_counter()
        page.locator("input.mdqa-edit").press("Enter")
        page.wait_for_function(
            "() => !document.querySelector('.mdqa-answer').textContent.includes('601398')", timeout=10_000
        )
        round_trip = time.perf_counter() - t0
        grid.screenshot(path=str(ARTIFACTS / "03-after-edit.png"))
        (ARTIFACTS / "edit-round-trip.txt").write_text(f"{round_trip:.3f} s browser → store → answer shown\n")
        print(f"edit round trip: {round_trip * 1000:.0f} ms")
        assert round_trip < 1.0, round_trip

        live = Ledger(Workspace(tmp_path / "out" / "workspace")).current()
        assert [v["value"] for k, v in live.items() if k[1] == "capital_adequacy_ratio"] == [1.0]

        restart_kernel(page)
        run_all(page, artifacts=ARTIFACTS)
        page.locator(".mdqa-review").wait_for(timeout=60_000)
        page.wait_for_function("() => document.querySelector('.mdqa-answer').textContent.length > 0")
        assert "601398" not in page.locator(".mdqa-answer").inner_text()
        survived = page.locator(
            "tr:has(td:text-is('601398')) td.mdqa-cell[data-field='capital_adequacy_ratio']"
        )
        assert "corrected" in survived.inner_text()
        page.locator(".mdqa-review").screenshot(path=str(ARTIFACTS / "04-after-restart.png"))
    shutil.rmtree(root, ignore_errors=True)
