"""Charts with altair, drawn offline: the answer's ranked values, statuses per field, accuracy per field.

altair's default renderer loads Vega from a CDN (blank offline) and its mimetype renderer is not drawn
by JupyterLab 4.6 (../shared/NOTES.md), so `use_offline_renderer()` switches to the offline jupyter
renderer, and `save()` writes PNG/SVG through vl-convert for reports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import altair as alt
import polars as pl

from mdqa_kernel.errors import MdqaError

STATUS_COLOURS = {
    "found": "#59a14f",
    "absent": "#9c9ede",
    "not_found": "#edc948",
    "needs_review": "#ff9d76",
    "error": "#e15759",
    "unsupported": "#f28e2b",
    "corrected": "#4e79a7",
    "verified": "#76b7b2",
    "pending": "#bab0ac",
}


class ChartError(MdqaError, ValueError):
    """The frame given to a chart lacks what the chart needs."""


def use_offline_renderer() -> None:
    """Render charts in the notebook without any network access."""
    try:
        alt.renderers.enable("jupyter", offline=True)
    except (ValueError, ImportError):  # outside a notebook (scripts, tests): keep the default
        alt.renderers.enable("default")


def _values(df: pl.DataFrame) -> list[dict[str, Any]]:
    # Hand altair plain records: no pandas in our stack.
    return df.to_dicts()


def answer_bars(
    frame: pl.DataFrame, *, label: str | None = None, value: str | None = None, title: str = ""
) -> alt.Chart:
    """Horizontal bars of the answer's ranked values (entity label → numeric value), in result order."""
    if frame.is_empty():
        raise ChartError("the result frame is empty: nothing to draw")
    label = label or next((c for c in ("symbol", "doc_id") if c in frame.columns), frame.columns[0])
    numeric = [c for c, t in frame.schema.items() if t.is_numeric() and c != label and c != "year"]
    value = value or (numeric[0] if numeric else None)
    if value is None or value not in frame.columns:
        raise ChartError(f"no numeric column to draw; columns are {frame.columns}; pass value=")
    data = frame.select(
        pl.col(label).cast(pl.Utf8).alias("label"), pl.col(value).cast(pl.Float64).alias("value")
    )
    order = data["label"].to_list()
    return (
        alt.Chart(alt.Data(values=_values(data)), title=title or f"{value} by {label}")
        .mark_bar(color="#4e79a7")
        .encode(
            y=alt.Y("label:N", sort=order, title=label),
            x=alt.X("value:Q", title=value),
            tooltip=["label:N", "value:Q"],
        )
        .properties(width=420, height=max(80, 22 * len(order)))
    )


def status_by_field(cells: pl.DataFrame, *, title: str = "Extraction status per field") -> alt.Chart:
    """Stacked bars: how many cells of each field were found / not found / corrected / ..."""
    missing = {"field", "status"} - set(cells.columns)
    if missing:
        raise ChartError(f"cells frame lacks {sorted(missing)}; pass ExtractionResult.cells")
    counts = cells.group_by("field", "status").len().sort("field", "status")
    domain = [s for s in STATUS_COLOURS if s in set(counts["status"].to_list())]
    return (
        alt.Chart(alt.Data(values=_values(counts)), title=title)
        .mark_bar()
        .encode(
            y=alt.Y("field:N", title=None),
            x=alt.X("len:Q", title="cells"),
            color=alt.Color(
                "status:N",
                scale=alt.Scale(domain=domain, range=[STATUS_COLOURS[s] for s in domain]),
            ),
            tooltip=["field:N", "status:N", "len:Q"],
        )
        .properties(width=420)
    )


def accuracy_by_field(
    per_field: pl.DataFrame,
    *,
    accuracy: str = "accuracy",
    group: str | None = None,
    title: str = "Cell accuracy per field",
) -> alt.Chart:
    """Bars of accuracy (0..1) per field, optionally coloured by reader/system (`group`)."""
    if "field" not in per_field.columns or accuracy not in per_field.columns:
        raise ChartError(f"need columns 'field' and {accuracy!r}; got {per_field.columns}")
    cols = ["field", accuracy] + ([group] if group else [])
    enc: dict[str, Any] = {
        "y": alt.Y("field:N", title=None),
        "x": alt.X(f"{accuracy}:Q", scale=alt.Scale(domain=[0, 1]), title="accuracy"),
        "tooltip": ["field:N", f"{accuracy}:Q"] + ([f"{group}:N"] if group else []),
    }
    if group:
        enc["color"] = alt.Color(f"{group}:N")
        enc["yOffset"] = alt.YOffset(f"{group}:N")
    return (
        alt.Chart(alt.Data(values=_values(per_field.select(cols))), title=title)
        .mark_bar()
        .encode(**enc)
        .properties(width=420)
    )


def save(chart: alt.Chart, path: str | Path) -> Path:
    """Write PNG or SVG (by suffix) offline through vl-convert."""
    path = Path(path)
    if path.suffix not in (".png", ".svg"):
        raise ChartError(f"save charts as .png or .svg, not {path.suffix!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    chart.save(str(path))
    return path
