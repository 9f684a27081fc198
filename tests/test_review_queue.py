"""The needs-review queue: the risk score, its order, document labels, the evidence crop, the widget tab."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import polars as pl
import pytest
from PIL import Image

from mdqa_kernel.notebook.review import (
    ReviewError,
    ReviewModel,
    crop_window,
    document_labels,
    page_crop,
    render_page_crop,
)
from mdqa_kernel.notebook.widget import RowsReview
from mdqa_kernel.readers.confidence import CONFIDENT, IMPLAUSIBLE
from mdqa_kernel.rows.corrections import Ledger
from mdqa_kernel.rows.risk import disagreements, review_queue, risk_scores, value_key
from mdqa_kernel.store import Workspace

FIELDS = [{"name": "revenue", "type": "number"}, {"name": "employees", "type": "integer"}]


def _cells(rows: list[tuple[str, str, object, str, float | None, str | None]]) -> pl.DataFrame:
    """doc_id, field, value, status, confidence, message per row (reader 'table')."""
    return pl.DataFrame(
        {
            "doc_id": [r[0] for r in rows],
            "field": [r[1] for r in rows],
            "value": [r[2] for r in rows],
            "status": [r[3] for r in rows],
            "confidence": [r[4] for r in rows],
            "message": [r[5] for r in rows],
            "reader": ["table"] * len(rows),
            "page": [1] * len(rows),
        },
        schema_overrides={"value": pl.Object},
    )


def _risk(frame: pl.DataFrame, doc_id: str, field: str) -> float:
    return float(frame.filter((pl.col("doc_id") == doc_id) & (pl.col("field") == field))["risk"][0])


# -- the score ------------------------------------------------------------------------------------
def test_risk_score_by_reason() -> None:
    implausible = (
        "implausible, needs review: 999,999,999 is beyond 10,000,000, more than a count of people can be"
    )
    cells = _cells(
        [
            ("sure", "revenue", 10.0, "found", 0.95, None),
            ("edge", "revenue", 11.0, "found", CONFIDENT, None),  # at the threshold: trusted
            ("low", "revenue", 12.0, "found", 0.4, None),
            ("zero", "revenue", 13.0, "found", None, None),  # no confidence: as 0
            ("blank", "revenue", None, "not_found", 0.0, None),
            ("crazy", "employees", 999_999_999, "found", IMPLAUSIBLE, implausible),
            ("broken", "revenue", None, "error", None, "timeout"),
            ("fixed", "revenue", 1.0, "corrected", 0.1, None),
            ("seen", "revenue", 1.0, "verified", 0.1, None),
            ("sureno", "employees", None, "absent", 0.85, None),
        ]
    )
    s = risk_scores(cells)
    assert s.height == cells.height and s["doc_id"].to_list() == cells["doc_id"].to_list()
    assert _risk(s, "sure", "revenue") == 0.0 and _risk(s, "edge", "revenue") == 0.0
    assert _risk(s, "sureno", "employees") == 0.0
    # low confidence: 0.5 just below the threshold, up to 0.9 at confidence 0
    assert _risk(s, "low", "revenue") == pytest.approx(0.5 + 0.4 * (CONFIDENT - 0.4) / CONFIDENT)
    assert _risk(s, "zero", "revenue") == pytest.approx(0.9)
    assert _risk(s, "blank", "revenue") == pytest.approx(0.4)
    assert _risk(s, "broken", "revenue") == pytest.approx(0.6)
    # implausible and low confidence together: noisy-or of 0.95 and the low-confidence weight
    low = 0.5 + 0.4 * (CONFIDENT - IMPLAUSIBLE) / CONFIDENT
    assert _risk(s, "crazy", "employees") == pytest.approx(1 - 0.05 * (1 - low), abs=1e-4)
    assert _risk(s, "fixed", "revenue") == 0.0 and _risk(s, "seen", "revenue") == 0.0
    reasons = dict(zip(s["doc_id"], s["reasons"], strict=True))
    assert reasons["low"] == "low confidence 40%"
    assert reasons["crazy"] == "implausible; low confidence 30%"
    assert reasons["blank"] == "not found" and reasons["sure"] == "" and reasons["fixed"] == ""
    assert s["risk"].is_between(0.0, 1.0).all()


def test_readers_that_disagree() -> None:
    cells = _cells(
        [
            ("a", "revenue", 100.0, "found", 0.95, None),
            ("b", "revenue", 200.0, "found", 0.95, None),
            ("c", "revenue", 300.0, "found", 0.95, None),
        ]
    )
    # the LLM read the same cells: it agrees on a (100 = 100.0), differs on b, did not find c
    llm = _cells(
        [
            ("a", "revenue", 100, "found", 0.9, None),
            ("b", "revenue", 250.0, "found", 0.9, None),
            ("c", "revenue", None, "not_found", 0.0, None),
        ]
    )
    s = risk_scores(cells, readings=llm)
    assert [_risk(s, d, "revenue") for d in ("a", "b", "c")] == [0.0, 0.8, 0.0]
    assert s.filter(pl.col("doc_id") == "b")["reasons"][0] == "readers disagree"
    # several readers' cells in one frame: one row per reading, the flag on each
    both = risk_scores(pl.concat([cells, llm]))
    assert both.filter(pl.col("doc_id") == "b")["risk"].to_list() == [0.8, 0.8]
    d = disagreements(pl.concat([cells, llm])).sort("doc_id")
    assert d.select("doc_id", "n_readings", "n_values", "disagree").rows() == [
        ("a", 2, 1, False),
        ("b", 2, 2, True),
        ("c", 1, 1, False),
    ]
    assert value_key("100") == value_key("100.0") and value_key('" KPMG  LLP"') == value_key('"kpmg llp"')


def test_queue_order_is_risk_then_document() -> None:
    cells = _cells(
        [
            ("d1", "revenue", 1.0, "found", 0.95, None),  # not in the queue
            ("d2", "revenue", None, "not_found", 0.0, None),  # 0.4
            ("d3", "revenue", 3.0, "found", 0.6, None),  # 0.6
            ("d0", "revenue", None, "not_found", 0.0, None),  # 0.4, before d2 on ties
            ("d4", "revenue", 4.0, "found", 0.1, None),  # 0.85
            ("d5", "revenue", 5.0, "corrected", 0.1, None),  # reviewed: out
        ]
    )
    q = review_queue(risk_scores(cells))
    assert q["doc_id"].to_list() == ["d4", "d3", "d0", "d2"]
    assert q["risk"].to_list() == sorted(q["risk"].to_list(), reverse=True)


# -- labels ---------------------------------------------------------------------------------------
def test_document_labels_from_metadata() -> None:
    docs = pl.DataFrame(
        {
            "doc_id": ["x1", "x2", "x3", "x4", "x5"],
            "entity": ["Acme Corp", "Acme Corp", "", None, "Beta plc"],
            "year": [2022, 2023, 2021, None, 2022],
            "doctype": ["10-K", "10-K", "annual_report", None, "10-K"],
        }
    )
    labels = dict(document_labels(docs).iter_rows())
    assert labels == {
        "x1": "Acme Corp · 2022 · 10-K",
        "x2": "Acme Corp · 2023 · 10-K",
        "x3": "2021 · annual_report",  # a blank entity is skipped
        "x4": "x4",  # nothing known: the id
        "x5": "Beta plc · 2022 · 10-K",
    }
    # Other collections' names for the same roles; a shared label gets the id appended.
    fb = pl.DataFrame({"doc_id": ["a", "b"], "company": ["Co", "Co"], "doc_type": ["10k", "10k"]})
    assert dict(document_labels(fb).iter_rows()) == {"a": "Co · 10k (a)", "b": "Co · 10k (b)"}
    assert dict(document_labels(pl.DataFrame({"doc_id": ["z"]})).iter_rows()) == {"z": "z"}
    with pytest.raises(ReviewError, match="doc_id"):
        document_labels(pl.DataFrame({"entity": ["a"]}))


# -- the model and the widget --------------------------------------------------------------------
def _model_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    cells = _cells(
        [
            ("d1", "revenue", 10.0, "found", 0.95, None),
            ("d1", "employees", 120, "found", 0.9, None),
            ("d2", "revenue", 20.0, "found", 0.5, None),
            ("d2", "employees", None, "not_found", 0.0, "no row, line or statement names this field"),
            ("d3", "revenue", 30.0, "found", 0.2, None),
            ("d3", "employees", 900, "found", 0.9, None),
        ]
    )
    docs = pl.DataFrame(
        {"doc_id": ["d1", "d2", "d3"], "entity": ["Alpha", "Beta", "Gamma"], "year": [2022] * 3}
    )
    return cells, docs


def test_model_queue_and_corrections_leave_it(workspace: Workspace) -> None:
    cells, docs = _model_frames()
    model = ReviewModel(cells, docs, FIELDS, Ledger(workspace))
    q = model.queue()
    assert [(i["doc_id"], i["field"]) for i in q["items"]] == [
        ("d3", "revenue"),
        ("d2", "revenue"),
        ("d2", "employees"),
    ]
    assert q["total"] == 3 == model.queue_size()
    first = q["items"][0]
    assert first["label"] == "Gamma · 2022" and first["reasons"] == "low confidence 20%"
    assert first["value"] == 30.0 and first["risk"] == pytest.approx(0.5 + 0.4 * 0.6 / CONFIDENT)
    assert model.queue(field="employees")["total"] == 1
    assert model.queue(1, 2)["items"][0]["field"] == "employees"
    with pytest.raises(ReviewError, match="unknown field"):
        model.queue(field="bogus")
    # rows carry the label; the id stays
    row = model.view(0, 10)["rows"][1]
    assert (row["doc_id"], row["label"]) == ("d2", "Beta · 2022")
    ev = model.evidence("d3", "revenue", with_image=False)
    assert ev["label"] == "Gamma · 2022" and ev["reasons"] == "low confidence 20%"

    model.edit("d3", "revenue", "31")
    assert model.evidence("d3", "revenue", with_image=False)["reasons"] == ""
    model.verify("d2", "employees")
    assert [(i["doc_id"], i["field"]) for i in model.queue()["items"]] == [("d2", "revenue")]
    model.undo("d3", "revenue")  # back in, with the risk it had
    assert model.queue()["items"][0]["doc_id"] == "d3"
    # a restarted kernel sees the verification: that cell stays out
    again = ReviewModel(cells, docs, FIELDS, Ledger(Workspace(workspace.path)))
    assert again.queue_size() == 2
    assert "risk" not in again.effective_cells().columns


def test_model_queue_with_other_readers(workspace: Workspace) -> None:
    cells, docs = _model_frames()
    llm = _cells([("d1", "employees", 210, "found", 0.9, None)])
    model = ReviewModel(cells, docs, FIELDS, Ledger(workspace), readings=llm)
    top = model.queue()["items"][0]
    assert (top["doc_id"], top["field"], top["reasons"]) == ("d1", "employees", "readers disagree")


def test_widget_queue_tab(workspace: Workspace) -> None:
    cells, docs = _model_frames()
    w = RowsReview.from_frames(cells, docs, FIELDS, workspace, page_size=2)
    assert w.queue_total == 3 and len(w.queue_items) == 2 and w.tab == "rows"
    assert w.rows[0]["label"] == "Alpha · 2022"
    w.tab = "queue"
    w.queue_page = 1
    assert [i["field"] for i in w.queue_items] == ["employees"]
    w._on_message(w, {"type": "edit", "doc_id": "d2", "field": "employees", "value": "75"}, None)
    assert w.message == "" and w.queue_total == 2
    assert w.queue_page == 0 and len(w.queue_items) == 2  # the emptied page moved back
    assert w.evidence["status"] == "corrected" and w.evidence["label"] == "Beta · 2022"
    w._on_message(w, {"type": "verify", "doc_id": "d3", "field": "revenue"}, None)
    assert [(i["doc_id"], i["field"]) for i in w.queue_items] == [("d2", "revenue")]
    w.filter_field = "employees"
    assert w.queue_total == 0 and w.queue_items == []


# -- the evidence crop ----------------------------------------------------------------------------
def test_crop_window() -> None:
    page = (612.0, 792.0)
    assert crop_window(page, None) == (0.0, 0.0, 612.0, 792.0)
    # the page's width (the row label), a margin above and below (the column head)
    assert crop_window(page, (300.0, 400.0, 340.0, 412.0)) == (0.0, 328.0, 612.0, 484.0)
    assert crop_window(page, (10.0, 20.0, 50.0, 30.0), margin=36.0) == (0.0, 0.0, 612.0, 66.0)
    assert crop_window(page, (20.0, 750.0, 590.0, 770.0)) == (0.0, 678.0, 612.0, 792.0)


def _decode(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


def _statement(tmp_path: Path) -> Path:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    path = tmp_path / "doc.pdf"
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont("Helvetica", 9)
    c.drawString(72, 792 - 400, "Total revenue")
    c.drawString(300, 792 - 400, "1,234.5")
    c.save()
    return path


def test_evidence_crop_is_large_and_marks_the_value(tmp_path: Path) -> None:
    path = _statement(tmp_path)
    bbox = [300.0, 392.0, 332.0, 402.0]
    crop = page_crop(path, 1, bbox)
    img = _decode(crop.url)
    # 10 + 2·72 points down at 3 pixels per point; across, the text from the row label (x = 72) to the
    # value's right (332) and 12 points either side: the page's blank margins are trimmed
    assert img.size == (crop.width, crop.height) and crop.height == 462 and crop.scale == 3.0
    assert abs(crop.width - (332 + 12 - (72 - 12)) * 3) <= 6, crop.width
    x0, y0, x1, y1 = crop.box
    assert (y0, y1) == (216 - 4, 246 + 4) and abs((x1 - x0) - (96 + 8)) <= 1
    assert abs(x0 - (300 - 60) * 3 + 4) <= 6, x0
    # the value's box is tinted (white under it turns pale yellow) and outlined in orange, there only
    tinted = [
        (x, y)
        for x in range(0, img.width, 2)
        for y in range(0, img.height, 2)
        if img.getpixel((x, y)) == (255, 240, 185)
    ]
    assert len(tinted) > 300
    assert all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in tinted)
    assert all(img.getpixel((x, y0 + 1)) == (230, 120, 0) for x in range(x0 + 5, x1 - 5))
    # the value and its row label are both in the crop: dark glyph pixels in the box and far left of it
    dark = [(x, y) for x in range(0, img.width, 2) for y in range(y0, y1) if sum(img.getpixel((x, y))) < 300]
    assert any(x0 <= x <= x1 for x, _ in dark) and any(x < 60 for x, _ in dark)
    assert render_page_crop(path, 1, None).startswith("data:image/png;base64,")
    assert page_crop(path, 1, None).box is None


def test_evidence_carries_the_crop_box(workspace: Workspace, tmp_path: Path) -> None:
    cells, docs = _model_frames()
    path = _statement(tmp_path)
    cells = cells.with_columns(pl.lit([300.0, 392.0, 332.0, 402.0]).alias("bbox"))
    model = ReviewModel(cells, docs.with_columns(path=pl.lit(str(path))), FIELDS, Ledger(workspace))
    ev = model.evidence("d3", "revenue")
    assert ev["image"].startswith("data:image/png") and ev["image_box"][1:4:2] == [212, 250]
    assert ev["image_scale"] == 3.0


def test_review_cell_passes_other_readings(workspace: Workspace) -> None:
    """mq.review(result, readings=...): another extraction's cells raise the cells they disagree on."""
    from dataclasses import dataclass

    from mdqa_kernel.notebook.cells import review
    from mdqa_kernel.plan.ir import FieldSpec, Plan

    @dataclass
    class Extraction:  # what review() reads of an ExtractionResult
        plan: Plan
        docs: dict[str, dict[str, object]]
        cells: pl.DataFrame
        workspace: Workspace

    cells, docs = _model_frames()
    plan = Plan(
        question="q",
        fields=[
            FieldSpec(name=f["name"], type=f["type"], description=f["name"], question=f["name"])
            for f in FIELDS
        ],
    )
    result = Extraction(plan, {r["doc_id"]: r for r in docs.iter_rows(named=True)}, cells, workspace)
    llm = _cells([("d1", "revenue", 11.0, "found", 0.9, None)])
    w = review(result, readings=llm)
    flagged = [
        (i["doc_id"], i["field"], i["risk"]) for i in w.queue_items if i["reasons"] == "readers disagree"
    ]
    assert flagged == [("d1", "revenue", 0.8)] and w.queue_total == 4
    assert review(result).queue_total == 3
