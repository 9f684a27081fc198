"""Review risk: which extracted cells a person should look at first.

A cell's risk is in [0, 1] and combines what the readers themselves say about it, never anything about
a document or a company:

- a reading no real document could hold (readers/plausibility.py flagged it "implausible");
- readers that disagree: two or more found readings of the same (document, field) whose values differ
  (the cells of several readers, or of several runs, given together);
- low confidence: a found (or absent) answer below the cascade's threshold (readers/confidence.py),
  the lower the riskier;
- a value held for review (status needs_review: the reader rated it under REVIEW_BELOW), a reader
  error, an unsupported answer, and a value not found.

Each reason is a weight in [0, 1] and they combine as a noisy-or (1 − Π(1 − wᵢ)), so a cell with two
reasons ranks above one with either alone and the score never leaves [0, 1]. A wrong number is worse
than a blank, so a doubtful value outranks a not-found cell. A cell a person has corrected or verified
has risk 0: it leaves the queue.
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from mdqa_kernel.readers.confidence import CONFIDENT

REVIEWED = ("corrected", "verified")  # a person has looked: nothing left to review

# The weight of each reason (see the module docstring for the order they give).
W_IMPLAUSIBLE = 0.95  # no real document holds this value
W_DISAGREE = 0.8  # two readers found different values
W_ERROR = 0.6  # the reader failed: the cell is unread
W_UNSUPPORTED = 0.6  # an answer without evidence in the text
W_LOW_CONFIDENCE_MIN = 0.5  # just below the threshold ...
W_LOW_CONFIDENCE_MAX = 0.9  # ... up to confidence 0
W_NOT_FOUND = 0.4  # a blank: maybe the document holds it after all
W_NEEDS_REVIEW = 0.9  # a value the reader held back (confidence under REVIEW_BELOW): a person decides

IMPLAUSIBLE_MARK = "implausible"  # readers/plausibility.checked writes "implausible, needs review: ..."
RISK_COLUMNS = ("risk", "reasons")


def value_key(value_json: str | None) -> str | None:
    """A comparison key of a JSON value, so that 100 and 100.0, or "KPMG " and "kpmg", are one reading."""
    if value_json is None:
        return None
    try:
        value = json.loads(value_json)
    except (TypeError, ValueError):
        value = value_json
    return _key(value)


def _key(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return f"{float(value):.6g}"
    if isinstance(value, list):
        return json.dumps(sorted(k or "" for k in (_key(v) for v in value)), ensure_ascii=False)
    return " ".join(str(value).split()).casefold()


def _json_values(cells: pl.DataFrame) -> pl.Series:
    """The cells' values as JSON text: value_json when the frame has it, else the value column."""
    if "value_json" in cells.columns:
        return cells["value_json"].cast(pl.Utf8)
    values = cells["value"].to_list() if "value" in cells.columns else [None] * cells.height
    return pl.Series([json.dumps(v, ensure_ascii=False, default=str) for v in values], dtype=pl.Utf8)


def disagreements(readings: pl.DataFrame) -> pl.DataFrame:
    """doc_id, field, readings (found ones), values (distinct found values) and disagree (more than one
    distinct value) per (document, field) of a long frame that may hold several readers' cells."""
    if readings.is_empty():
        return pl.DataFrame(
            schema={"doc_id": pl.Utf8, "field": pl.Utf8, "n_readings": pl.UInt32, "n_values": pl.UInt32}
        ).with_columns(disagree=pl.lit(False))
    found = readings.select(
        pl.col("doc_id").cast(pl.Utf8), pl.col("field").cast(pl.Utf8), pl.col("status").cast(pl.Utf8)
    ).with_columns(_json_values(readings).alias("_json"))
    found = found.filter((pl.col("status") == "found") & pl.col("_json").is_not_null())
    # Values are compared (in Python) only where a cell has several readings: usually none has.
    several = pl.len().over("doc_id", "field") > 1
    single = found.filter(~several).with_columns(pl.col("_json").alias("_key"))
    multi = found.filter(several)
    multi = multi.with_columns(
        pl.Series("_key", [value_key(v) for v in multi["_json"].to_list()], dtype=pl.Utf8)
    )
    return (
        pl.concat([single, multi])
        .filter(pl.col("_key").is_not_null() & (pl.col("_key") != "null"))
        .group_by("doc_id", "field")
        .agg(pl.len().alias("n_readings"), pl.col("_key").n_unique().cast(pl.UInt32).alias("n_values"))
        .with_columns(disagree=pl.col("n_values") > 1)
    )


def risk_expr(threshold: float = CONFIDENT) -> pl.Expr:
    """The risk of each row from its columns status (the reader's), confidence, implausible and disagree
    (booleans); 0 for a cell a person reviewed (status corrected or verified)."""
    status = pl.col("status")
    conf = pl.col("confidence").fill_null(0.0).clip(0.0, 1.0)
    answered = status.is_in(["found", "absent"])
    low = answered & (conf < threshold)
    depth = ((threshold - conf) / threshold) if threshold > 0 else pl.lit(0.0)
    weights = [
        pl.when(pl.col("implausible")).then(W_IMPLAUSIBLE).otherwise(0.0),
        pl.when(pl.col("disagree")).then(W_DISAGREE).otherwise(0.0),
        pl.when(status == "error").then(W_ERROR).otherwise(0.0),
        pl.when(status == "unsupported").then(W_UNSUPPORTED).otherwise(0.0),
        pl.when(status == "not_found").then(W_NOT_FOUND).otherwise(0.0),
        pl.when(status == "needs_review").then(W_NEEDS_REVIEW).otherwise(0.0),
        pl.when(low)
        .then(W_LOW_CONFIDENCE_MIN + (W_LOW_CONFIDENCE_MAX - W_LOW_CONFIDENCE_MIN) * depth)
        .otherwise(0.0),
    ]
    keep = pl.lit(1.0)
    for w in weights:
        keep = keep * (1.0 - w)
    return pl.when(status.is_in(REVIEWED)).then(0.0).otherwise(1.0 - keep).round(4).alias("risk")


def reasons_expr(threshold: float = CONFIDENT) -> pl.Expr:
    """Why a row is risky, as short words joined by "; " (empty when it is not)."""
    status = pl.col("status")
    conf = pl.col("confidence").fill_null(0.0)
    parts = [
        pl.when(pl.col("implausible")).then(pl.lit("implausible")),
        pl.when(pl.col("disagree")).then(pl.lit("readers disagree")),
        pl.when(status.is_in(["found", "absent"]) & (conf < threshold)).then(
            pl.format("low confidence {}%", (conf * 100).round(0).cast(pl.Int64))
        ),
        pl.when(status.is_in(["error", "unsupported", "not_found", "needs_review"])).then(
            status.str.replace("_", " ")
        ),
    ]
    joined = pl.concat_str(parts, separator="; ", ignore_nulls=True).fill_null("")
    return pl.when(status.is_in(REVIEWED)).then(pl.lit("")).otherwise(joined).alias("reasons")


def risk_scores(
    cells: pl.DataFrame,
    *,
    readings: pl.DataFrame | None = None,
    threshold: float = CONFIDENT,
    status_column: str = "status",
) -> pl.DataFrame:
    """`cells` with `risk` (0..1) and `reasons` added, row for row.

    cells: doc_id, field, status, and where known confidence, message, value_json (or value).
    readings: other readers' cells of the same documents and fields (same columns); disagreement is
    counted over cells and readings together. status_column: the status to score (the review model
    scores the reader's status, `extracted_status`, and drops reviewed cells itself).
    """
    if cells.is_empty():
        return cells.with_columns(
            pl.lit(None, dtype=pl.Float64).alias("risk"), pl.lit(None, dtype=pl.Utf8).alias("reasons")
        )
    pool = cells if readings is None else pl.concat([_reading_columns(cells), _reading_columns(readings)])
    disagree = disagreements(_reading_columns(pool)).select("doc_id", "field", "disagree")
    message = pl.col("message") if "message" in cells.columns else pl.lit(None, dtype=pl.Utf8)
    conf = pl.col("confidence") if "confidence" in cells.columns else pl.lit(None, dtype=pl.Float64)
    work = cells.with_row_index("_row").select(
        "_row",
        pl.col("doc_id").cast(pl.Utf8),
        pl.col("field").cast(pl.Utf8),
        pl.col(status_column).cast(pl.Utf8).alias("status"),
        conf.cast(pl.Float64).alias("confidence"),
        message.cast(pl.Utf8)
        .str.contains(IMPLAUSIBLE_MARK, literal=True)
        .fill_null(False)
        .alias("implausible"),
    )
    work = work.join(disagree, on=["doc_id", "field"], how="left").with_columns(
        pl.col("disagree").fill_null(False)
    )
    scored = work.sort("_row").select(risk_expr(threshold), reasons_expr(threshold))
    return cells.drop(RISK_COLUMNS, strict=False).with_columns(scored)


def _reading_columns(frame: pl.DataFrame) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "doc_id": frame["doc_id"].cast(pl.Utf8),
            "field": frame["field"].cast(pl.Utf8),
            "status": frame["status"].cast(pl.Utf8),
            "value_json": _json_values(frame),
        }
    )


def review_queue(scored: pl.DataFrame, *, status_column: str = "status") -> pl.DataFrame:
    """The cells still needing review (risk > 0, not corrected nor verified), highest risk first
    (ties by document and field, so the order is stable)."""
    return scored.filter((pl.col("risk") > 0) & ~pl.col(status_column).is_in(REVIEWED)).sort(
        ["risk", "doc_id", "field"], descending=[True, False, False]
    )


__all__ = [
    "REVIEWED",
    "disagreements",
    "reasons_expr",
    "review_queue",
    "risk_expr",
    "risk_scores",
    "value_key",
]
