"""Charts render offline to real PNG and SVG files through vl-convert."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.notebook import charts


def test_answer_bars_png_and_svg(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {"symbol": ["601398", "002142", "601166"], "capital_adequacy_ratio": [18.02, 15.44, 14.39]}
    )
    chart = charts.answer_bars(frame)
    png = charts.save(chart, tmp_path / "answer.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 2000
    svg = charts.save(chart, tmp_path / "answer.svg").read_text("utf-8")
    assert "<svg" in svg and "601398" in svg


def test_status_and_accuracy_charts(tmp_path: Path) -> None:
    cells = pl.DataFrame(
        {"field": ["a", "a", "b", "b"], "status": ["found", "corrected", "found", "not_found"]}
    )
    assert "found" in charts.save(charts.status_by_field(cells), tmp_path / "s.svg").read_text("utf-8")
    acc = pl.DataFrame(
        {
            "field": ["a", "b", "a", "b"],
            "accuracy": [1.0, 0.5, 0.9, 0.7],
            "reader": ["table", "table", "llm", "llm"],
        }
    )
    assert (
        charts.save(charts.accuracy_by_field(acc, group="reader"), tmp_path / "a.png").stat().st_size > 1000
    )


def test_chart_errors_say_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(charts.ChartError, match="empty"):
        charts.answer_bars(pl.DataFrame({"symbol": []}, schema={"symbol": pl.Utf8}))
    with pytest.raises(charts.ChartError, match="lacks"):
        charts.status_by_field(pl.DataFrame({"field": ["a"]}))
    with pytest.raises(charts.ChartError, match=r"\.png or \.svg"):
        charts.save(charts.answer_bars(pl.DataFrame({"symbol": ["a"], "v": [1.0]})), tmp_path / "x.pdf")
