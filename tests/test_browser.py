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


_QUEUE_CELL = """
import polars as pl
from reportlab.pdfgen import canvas
from mdqa_kernel.notebook.review import ReviewModel
from mdqa_kernel.notebook.widget import RowsReview
from mdqa_kernel.rows.corrections import Ledger

pdf = "statement.pdf"
c = canvas.Canvas(pdf)
c.setFont("Helvetica", 9)
c.drawString(72, 842 - 400, "Total revenue")
c.drawString(300, 842 - 400, "1,234.5")
c.save()
docs = pl.DataFrame({"doc_id": ["d1", "d2", "d3"], "entity": ["Alpha Corp", "Beta Corp", "Gamma Corp"],
                     "year": [2022, 2022, 2023], "doctype": ["10-K"] * 3, "path": [pdf] * 3})
cells = pl.DataFrame({
    "doc_id": ["d1", "d2", "d3"], "field": ["revenue"] * 3, "value": [1234.5, 20.0, None],
    "status": ["found", "found", "not_found"], "confidence": [0.95, 0.3, 0.0], "reader": ["table"] * 3,
    "page": [1, 1, None], "bbox": [[300.0, 392.0, 332.0, 402.0]] * 3, "snippet": ["Total revenue 1,234.5"] * 3,
}, schema_overrides={"value": pl.Object})
model = ReviewModel(cells, docs, [{"name": "revenue", "type": "number"}], Ledger("ws"))
RowsReview(model)
"""


def test_needs_review_queue(tmp_path: Path) -> None:
    """The "Needs review (N)" tab: riskiest cell first, shown by its document's label (id on hover),
    a readable crop with the value's box, and a correction takes the cell out of the queue."""
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run `make sysdeps` (make test does it)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root = tmp_path / "lab"
    root.mkdir()
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": _QUEUE_CELL,
                "outputs": [],
                "execution_count": None,
            }
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "queue.ipynb").write_text(json.dumps(nb), "utf-8")
    with jupyterlab(root, tmp_path) as server, browser_page() as page:
        open_notebook(page, server, "queue.ipynb")
        run_all(page, timeout_ms=120_000, artifacts=ARTIFACTS)
        tab = page.locator("button.mdqa-tab-queue")
        tab.wait_for(timeout=60_000)
        assert tab.inner_text() == "Needs review (2)"
        doc = page.locator("td.mdqa-doc[data-doc-id='d1']")
        assert doc.inner_text() == "Alpha Corp · 2022 · 10-K" and doc.get_attribute("title") == "d1"
        tab.click()
        page.wait_for_selector("tr.mdqa-qitem")
        items = page.locator("tr.mdqa-qitem")
        assert [items.nth(i).get_attribute("data-doc") for i in range(items.count())] == ["d2", "d3"]
        assert "low confidence 30%" in items.nth(0).inner_text()
        assert "Beta Corp · 2022 · 10-K" in items.nth(0).inner_text()
        items.nth(0).click()
        crop = page.locator(".mdqa-evidence img.mdqa-crop")
        crop.wait_for(timeout=30_000)
        page.wait_for_function(
            "() => document.querySelector('.mdqa-evidence img.mdqa-crop').naturalWidth > 0"
        )
        # shown at 1.25 pixels per point (rendered at 3): the row label and the value fit side by side
        size = "img => [img.clientWidth, img.naturalWidth, img.parentElement.scrollLeft]"
        shown, natural, scrolled = crop.evaluate(size)
        assert abs(shown - natural * 1.25 / 3) <= 1 and scrolled == 0, (shown, natural, scrolled)
        crop.click()  # doubled for small print, scrolled to the value
        shown, natural, scrolled = crop.evaluate(size)
        assert abs(shown - natural * 2.5 / 3) <= 1 and scrolled > 0, (shown, natural, scrolled)
        crop.click()
        page.locator(".mdqa-side").screenshot(path=str(ARTIFACTS / "05-queue-evidence.png"))
        items.nth(0).locator("td.mdqa-qvalue").dblclick()
        page.locator("input.mdqa-edit").fill("25")
        page.locator("input.mdqa-edit").press("Enter")
        # the tab's count and the queue's rows are redrawn one after the other: wait for both
        page.wait_for_function(
            "() => document.querySelector('button.mdqa-tab-queue').textContent === 'Needs review (1)'"
            " && document.querySelectorAll('tr.mdqa-qitem').length === 1",
            timeout=10_000,
        )
        assert [items.nth(i).get_attribute("data-doc") for i in range(items.count())] == ["d3"]
        page.wait_for_function("() => document.querySelector('.mdqa-message').textContent === ''")
        assert "corrected" in page.locator(".mdqa-ev-head").inner_text()
        page.locator(".mdqa-review").screenshot(path=str(ARTIFACTS / "06-queue-after-edit.png"))
    live = Ledger(Workspace(root / "ws")).current()
    assert live[("d2", "revenue")]["value"] == 25.0
