"""Cell accuracy: extracted cells against gold rows, per field and overall, plus evidence accuracy.

Numbers follow the MuDABench judge: two values agree when their integer digits and first decimal
agree (truncated) once both are in the same unit (cells and gold are both in the field's scale).
Fractions below 1 (ratios such as 0.5886) are compared in percent points (58.8), where the rule
was meant to apply. Text is compared after normalisation (NFKC, case, punctuation; legal-form
suffixes dropped as a second chance), dates as dates (a gold "07-20" compares month and day),
booleans exactly, lists as sets (text written as an enumeration, "现场投票、网络投票", is read as its
items). A gold null is matched by a cell that is not_found or absent.

Evidence accuracy: among found cells whose true page is known (a render manifest, realdocs gold),
the share whose evidence page is that page.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.readers.oracle import base_value, gold_records
from mdqa_kernel.text.normalize import comparison_key, default_entity
from mdqa_kernel.text.values import parse_date, parse_number

GOLD_SCHEMA = {"doc_id": pl.String, "field": pl.String, "gold": pl.String, "page": pl.Int64}
_MMDD = re.compile(r"^(\d{1,2})-(\d{1,2})$")
_LIST_SEPARATORS = re.compile(r"\s*(?:[、,，;；/]|\band\b|和|及)\s*")


def _trunc1(x: float) -> Decimal | None:
    try:
        return Decimal(repr(float(x))).quantize(Decimal("0.1"), rounding=ROUND_DOWN)
    except (InvalidOperation, ValueError):
        return None


def numbers_agree(pred: float, gold: float) -> bool:
    """Integer digits and first decimal agree (fractions below 1 compared in percent points, and a
    gold fraction matches the same ratio read in percent points: 0.2311 and a printed 23.11%)."""
    if abs(gold) < 1 and not float(gold).is_integer():
        gold = gold * 100
        if abs(pred) < 1.5:
            pred = pred * 100
    return _trunc1(pred) == _trunc1(gold) or round(pred, 1) == round(gold, 1)


def _text_equal(pred: str, gold: str) -> bool:
    a, b = comparison_key(pred), comparison_key(gold)
    return a == b or (a is not None and default_entity(pred) == default_entity(gold))


def _list_key(items: list[Any]) -> list[str]:
    texts = [x if isinstance(x, str) else json.dumps(x, ensure_ascii=False, sort_keys=True) for x in items]
    return sorted(comparison_key(t) or "" for t in texts)


def values_agree(pred: Any, gold: Any) -> bool:
    """Does an extracted value match a gold value (both typed as JSON)?"""
    if isinstance(gold, bool) or isinstance(pred, bool):
        return isinstance(pred, bool) and isinstance(gold, bool) and pred == gold
    if isinstance(gold, (int, float)):
        number = (
            pred if isinstance(pred, (int, float)) else parse_number(str(pred)) if pred is not None else None
        )
        return number is not None and numbers_agree(float(number), float(gold))
    if isinstance(gold, list):
        if isinstance(pred, str):
            # A free-text system writes a list as "现场投票、网络投票" or "A and B": same items, same set
            # (the whole string as one item too, for an item that itself contains "和").
            items = [p for p in _LIST_SEPARATORS.split(pred) if p.strip()]
            return any(_list_key(c) == _list_key(gold) for c in ([pred], items))
        if not isinstance(pred, list):
            return False
        return _list_key(pred) == _list_key(gold)
    if isinstance(gold, str):
        if pred is None:
            return False
        mmdd = _MMDD.match(gold.strip())
        if mmdd:
            day = parse_date(pred)
            if day is not None:
                return (day.month, day.day) == (int(mmdd.group(1)), int(mmdd.group(2)))
            return _text_equal(str(pred), gold)
        gold_day = (
            parse_date(gold)
            if re.match(r"^\d{4}-\d{2}-\d{2}$", gold.strip()) or re.search(r"\d{4}", gold)
            else None
        )
        if gold_day is not None and re.search(r"\d", gold) and len(gold) < 30:
            pred_day = parse_date(pred)
            if pred_day is not None:
                return pred_day == gold_day
        return _text_equal(str(pred), gold)
    return pred == gold


def cell_correct(status: str | None, value_json: str | None, gold_json: str | None) -> bool:
    gold = json.loads(gold_json) if gold_json is not None else None
    if gold is None:
        return status in ("not_found", "absent") or value_json in (None, "null")
    if status != "found" or value_json is None:
        return False
    return values_agree(json.loads(value_json), gold)


def cell_accuracy(cells: pl.DataFrame, gold: pl.DataFrame) -> pl.DataFrame:
    """Per field and overall ('ALL'): n, correct, accuracy, found, evidence_n/correct/accuracy.

    `cells`: ExtractionResult.cells (doc_id, field, status, value_json, page). `gold`: doc_id, field,
    gold (JSON of the value), page (true page or null). Only cells with a gold row are scored;
    gold rows without a cell count as wrong.
    """
    joined = gold.join(
        cells.select("doc_id", "field", "status", "value_json", pl.col("page").alias("cell_page")),
        on=["doc_id", "field"],
        how="left",
    )
    correct = [cell_correct(s, v, g) for s, v, g in joined.select("status", "value_json", "gold").iter_rows()]
    joined = joined.with_columns(
        correct=pl.Series(correct, dtype=pl.Boolean),
        found=pl.col("status") == "found",
        ev_known=(pl.col("status") == "found") & pl.col("page").is_not_null(),
    ).with_columns(ev_ok=pl.col("ev_known") & (pl.col("cell_page") == pl.col("page")).fill_null(False))
    aggs = [
        pl.len().alias("n"),
        pl.col("correct").sum().alias("correct"),
        pl.col("found").fill_null(False).sum().alias("found"),
        pl.col("ev_known").fill_null(False).sum().alias("evidence_n"),
        pl.col("ev_ok").fill_null(False).sum().alias("evidence_correct"),
    ]
    per_field = joined.group_by("field").agg(aggs).sort("field")
    overall = joined.select(aggs).with_columns(field=pl.lit("ALL")).select(per_field.columns)
    out = pl.concat([per_field, overall.cast(per_field.schema)])
    return out.with_columns(
        accuracy=(pl.col("correct") / pl.col("n")).round(4),
        evidence_accuracy=(pl.col("evidence_correct") / pl.col("evidence_n")).round(4),
    )


def scored_cells(cells: pl.DataFrame, gold: pl.DataFrame) -> pl.DataFrame:
    """Gold joined with cells and a `correct` column: for looking at the misses."""
    joined = gold.join(cells, on=["doc_id", "field"], how="left", suffix="_cell")
    correct = [cell_correct(s, v, g) for s, v, g in joined.select("status", "value_json", "gold").iter_rows()]
    return joined.with_columns(correct=pl.Series(correct, dtype=pl.Boolean))


# -- gold sources ----------------------------------------------------------------------------------


def wilson(correct: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sensible also near 0 and 1 and for small n)."""
    if n == 0:
        return 0.0, 1.0
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def cascade_estimate(
    table: pl.DataFrame, cascade_sample: pl.DataFrame, threshold: float = 0.8
) -> dict[str, Any]:
    """The cascade's cell accuracy on a whole corpus from the table reader on every cell and the cascade
    on a sample of documents (when the LLM cannot afford every routed cell).

    `table`, `cascade_sample`: `scored_cells` frames. The cascade keeps every answer the table reader is
    confident in (found, confidence >= threshold), so those cells are counted exactly; the accuracy of
    the cells it routes to the LLM is estimated from the routed cells of the sample, with a 95% Wilson
    interval carried through to the overall figure."""
    routed_expr = ~((pl.col("status") == "found") & (pl.col("confidence").fill_null(0) >= threshold))
    t = table.with_columns(routed=routed_expr.fill_null(True))
    n = t.height
    confident_correct = int(t.filter(~pl.col("routed"))["correct"].sum())
    routed_n = int(t["routed"].sum())
    sample = cascade_sample.join(t.select("doc_id", "field", "routed"), on=["doc_id", "field"], how="inner")
    sample_routed = sample.filter(pl.col("routed"))
    m, k = sample_routed.height, int(sample_routed["correct"].sum())
    p = k / m if m else float("nan")
    lo, hi = wilson(k, m)

    def overall(rate: float) -> float:
        return round((confident_correct + rate * routed_n) / n, 4) if n else float("nan")

    return {
        "cells": n,
        "confident_cells": n - routed_n,
        "confident_correct": confident_correct,
        "routed_cells": routed_n,
        "sample_routed_cells": m,
        "sample_routed_correct": k,
        "routed_accuracy": round(p, 4) if m else None,
        "estimate": overall(p) if m else None,
        "estimate_low": overall(lo) if m else None,
        "estimate_high": overall(hi) if m else None,
    }


def _json(value: Any) -> str:
    if isinstance(value, dt.date):
        value = value.isoformat()
    return json.dumps(value, ensure_ascii=False)


def mudabench_gold(
    split: str = "simple", doc_ids: list[str] | None = None, manifests: str | Path | None = None
) -> pl.DataFrame:
    """Gold cells of MuDABench documents (doc_id, field, gold JSON, page from render manifests)."""
    from mdqa_kernel.benchmarks.mudabench import all_document_records

    pages = manifest_pages(manifests) if manifests else {}
    rows = []
    for doc_id, rec in all_document_records(split).items():
        if doc_ids is not None and doc_id not in doc_ids:
            continue
        for field, value in rec.values.items():
            rows.append((doc_id, field, _json(value), pages.get((doc_id, field))))
    return pl.DataFrame(rows, schema=GOLD_SCHEMA, orient="row")


def realdocs_gold(path: str | Path) -> pl.DataFrame:
    """Gold cells of a realdocs gold.jsonl: values in base units (numbers), dates and text as printed."""
    rows = []
    for rec in gold_records(path):
        value = base_value(rec)
        if rec.get("unit") == "percent":
            value = rec.get("value")
        if rec.get("unit") == "date":
            day = parse_date(rec.get("value_text"))
            value = day.isoformat() if day else rec.get("value_text")
        rows.append((rec["doc"], rec["field"], _json(value), rec.get("page")))
    return pl.DataFrame(rows, schema=GOLD_SCHEMA, orient="row")


def manifest_pages(folder: str | Path) -> dict[tuple[str, str], int]:
    """{(doc_id, field): page} of printed facts in render manifests (OUT/manifests/*.json or OUT)."""
    root = Path(folder)
    if (root / "manifests").is_dir():
        root = root / "manifests"
    out: dict[tuple[str, str], int] = {}
    for file in root.glob("*.json"):
        data = json.loads(file.read_text(encoding="utf-8"))
        for fact in data.get("facts", []):
            if fact.get("status") == "printed" and fact.get("page"):
                out[(data["doc_id"], fact["field"])] = int(fact["page"])
    return out


def load_gold(
    source: str, manifests: str | Path | None = None, doc_ids: list[str] | None = None
) -> pl.DataFrame:
    """'mudabench:simple' or a gold.jsonl path → the gold frame."""
    if source.startswith("mudabench:"):
        return mudabench_gold(source.split(":", 1)[1] or "simple", doc_ids, manifests)
    return realdocs_gold(source)


# -- MuDABench question-level metrics (Section 3.6 of the paper and its public evaluator) -----------
#
# final  = share of questions whose answer is judged correct (T_i);
# cell   = share of gold (document, field) values extracted correctly, pooled over questions;
# process= mean over questions of the per-question cell share (the paper's Acc_process, eq. 8);
# row    = share of (question, document) rows with every field correct;
# column = share of (question, field) columns correct in every row;
# full   = final correct and every row correct (m_i · T_i, eq. 9).
# A system's field names need not be the gold names: each gold field is aligned to the system
# field that agrees with it on the most documents (the paper also scores "aligned rows").

QUESTION_METRICS = ("final", "final_llm", "cell", "process", "row", "column", "full")


def question_gold(split: str, question_id: str) -> pl.DataFrame:
    """The gold cells of one question as listed in its own metadata (doc_id, field, gold JSON)."""
    from mdqa_kernel.benchmarks.mudabench import load_split

    rows = []
    for meta in load_split(split).item(question_id)["metadata"]:
        for key, value in meta.items():
            if key.startswith("value_"):
                rows.append((meta["id"], key, _json(value), None))
    return pl.DataFrame(rows, schema=GOLD_SCHEMA, orient="row")


def align_fields(cells: pl.DataFrame, gold: pl.DataFrame) -> dict[str, str]:
    """{gold field: system field}: same name first, else the system field agreeing on most documents."""
    sys_fields = sorted(set(cells["field"].to_list())) if cells.height else []
    gold_fields = sorted(set(gold["field"].to_list()))
    mapping = {g: g for g in gold_fields if g in sys_fields}
    free = [f for f in sys_fields if f not in mapping.values()]
    scores: list[tuple[int, str, str]] = []
    for g in (g for g in gold_fields if g not in mapping):
        g_rows = gold.filter(pl.col("field") == g)
        for f in free:
            renamed = cells.filter(pl.col("field") == f).with_columns(field=pl.lit(g))
            hits = int(scored_cells(renamed, g_rows)["correct"].sum())
            if hits:
                scores.append((hits, g, f))
    for _hits, g, f in sorted(scores, key=lambda t: (-t[0], t[1], t[2])):
        if g not in mapping and f not in mapping.values():
            mapping[g] = f
    return mapping


def process_scores(cells: pl.DataFrame | None, gold: pl.DataFrame) -> dict[str, Any]:
    """Cell, row and column counts of one question's extracted cells against its gold cells.

    `cells`: doc_id, field, status, value_json (None: the system has no cells, e.g. flat RAG)."""
    if cells is None:
        return {"cells_n": gold.height, "cells_correct": None, "rows_n": None, "rows_correct": None,
                "columns_n": None, "columns_correct": None, "process": None, "all_rows_correct": None}  # fmt: skip
    mapping = align_fields(cells, gold)
    inverse = {f: g for g, f in mapping.items()}
    renamed = cells.filter(pl.col("field").is_in(list(inverse))).with_columns(
        field=pl.col("field").replace_strict(inverse, default=None, return_dtype=pl.String)
    )
    scored = scored_cells(
        renamed.select("doc_id", "field", "status", "value_json"), gold.select("doc_id", "field", "gold")
    )
    by_row = scored.group_by("doc_id").agg(pl.col("correct").all())
    by_col = scored.group_by("field").agg(pl.col("correct").all())
    n = scored.height
    correct = int(scored["correct"].sum())
    rows_ok = int(by_row["correct"].sum())
    return {
        "cells_n": n,
        "cells_correct": correct,
        "rows_n": by_row.height,
        "rows_correct": rows_ok,
        "columns_n": by_col.height,
        "columns_correct": int(by_col["correct"].sum()),
        "process": correct / n if n else None,
        "all_rows_correct": bool(n) and rows_ok == by_row.height,
        "field_alignment": mapping,
    }


def _share(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den > 0).then(num / den).otherwise(None).round(4)


def summarize_questions(results: pl.DataFrame, by: list[str] | None = None) -> pl.DataFrame:
    """Benchmark metrics per group (default: per system config) from one row per (config, question).

    Needed columns: correct (bool, deterministic judge), correct_llm (bool or null), cells_n,
    cells_correct, rows_n, rows_correct, columns_n, columns_correct, process, all_rows_correct.
    Process metrics are null for a group none of whose questions has cells (flat RAG).
    """
    by = by or ["config"]
    # Whole columns may be null (flat RAG has no cells; no LLM judge): give them a type first.
    results = results.with_columns(
        pl.col("correct", "correct_llm", "all_rows_correct").cast(pl.Boolean),
        pl.col("process").cast(pl.Float64),
        pl.col("cells_n", "cells_correct", "rows_n", "rows_correct", "columns_n", "columns_correct").cast(
            pl.Int64
        ),
    )
    has_llm = pl.col("correct_llm").is_not_null()
    aggs = [
        pl.len().alias("questions"),
        pl.col("correct").cast(pl.Float64).mean().round(4).alias("final"),
        pl.col("correct_llm").cast(pl.Float64).mean().round(4).alias("final_llm"),
        (pl.col("correct") == pl.col("correct_llm")).filter(has_llm).cast(pl.Float64).mean().round(4).alias("judge_agreement"),
        has_llm.sum().alias("llm_judged"),
        _share(pl.col("cells_correct").sum(), pl.col("cells_n").filter(pl.col("cells_correct").is_not_null()).sum()).alias("cell"),
        pl.col("process").cast(pl.Float64).mean().round(4).alias("process"),
        _share(pl.col("rows_correct").sum(), pl.col("rows_n").sum()).alias("row"),
        _share(pl.col("columns_correct").sum(), pl.col("columns_n").sum()).alias("column"),
        pl.when(pl.col("all_rows_correct").is_not_null().any())
        .then((pl.col("correct") & pl.col("all_rows_correct").fill_null(False)).cast(pl.Float64).mean())
        .otherwise(None).round(4).alias("full"),
    ]  # fmt: skip
    return results.group_by(by, maintain_order=True).agg(aggs)


def summarize_subsets(results: pl.DataFrame, by: list[str] | None = None) -> pl.DataFrame:
    """summarize_questions on all questions and on the clean subset (no known defect): `subset` column."""
    both = [
        summarize_questions(results, by).with_columns(subset=pl.lit("all")),
        summarize_questions(results.filter(~pl.col("known_defect")), by).with_columns(subset=pl.lit("clean")),
    ]
    return pl.concat(both, how="vertical_relaxed")


# -- gold from the review grid, and the calibration curve ------------------------------------------


def corrections_gold(
    ledger: Any, cells: pl.DataFrame | None = None, *, include_verified: bool = True
) -> pl.DataFrame:
    """The live corrections of a workspace as a gold frame for `cell_accuracy` and
    `calibration_curve`: doc_id, field, gold (JSON of the value), page, evidence.

    ledger: a `Ledger`, a Workspace or a workspace path. An edited cell's gold is the analyst's value
    (page unknown: null); a verified cell's gold is the value the person confirmed, taken from `cells`
    (value_json) when given, with the cell's page as its true page. `cells` (the extracted cells of one
    plan) also limits the gold to its (doc_id, field) cells, since a workspace may hold corrections of
    other plans. `evidence` says "corrected" or "verified" for each row.
    """
    from mdqa_kernel.rows.corrections import Ledger

    led = ledger if isinstance(ledger, Ledger) else Ledger(ledger)
    known: dict[tuple[str, str], dict[str, Any]] | None = None
    if cells is not None:
        cols = [c for c in ("value_json", "page") if c in cells.columns]
        known = {
            (r["doc_id"], r["field"]): r for r in cells.select("doc_id", "field", *cols).iter_rows(named=True)
        }
    rows = []
    for (doc_id, field), c in sorted(led.current().items()):
        if known is not None and (doc_id, field) not in known:
            continue
        cell = known.get((doc_id, field), {}) if known is not None else {}
        if c["status"] == "corrected":
            rows.append((doc_id, field, _json(c["value"]), None, "corrected"))
        elif include_verified:
            value = json.loads(cell["value_json"]) if cell.get("value_json") is not None else c["value"]
            rows.append((doc_id, field, _json(value), cell.get("page"), "verified"))
    return pl.DataFrame(rows, schema={**GOLD_SCHEMA, "evidence": pl.String}, orient="row")


def calibration_curve(
    cells: pl.DataFrame, gold: pl.DataFrame, thresholds: list[float] | None = None
) -> pl.DataFrame:
    """Coverage, precision and accuracy of the extracted cells when only answers at or above each
    confidence threshold are returned (the rest left blank, "not found").

    cells: the readers' cells (doc_id, field, status, value_json, confidence), e.g.
    ExtractionResult.cells, NOT the corrected ones. gold: doc_id, field, gold (JSON; null = the document
    does not hold it), as from `corrections_gold`, `realdocs_gold` or `load_gold`. Only cells with a
    gold row are scored; a gold row without a cell is never returned.

    thresholds: default 0.0, every distinct confidence of the scored cells, and 1.0, ascending.

    One row per threshold t:
    - n: gold cells scored; returned: answers (status found or absent) with confidence ≥ t
      (a null confidence counts as 0);
    - coverage = returned / n;
    - precision = returned answers that are correct (`cell_correct`) / returned (null when none);
    - precision_low, precision_high: its 95% Wilson interval;
    - accuracy = (correct returned answers + blanks whose gold is null) / n: the cell accuracy of the
      system that blanks everything below t.
    """
    joined = gold.select("doc_id", "field", "gold").join(
        cells.select("doc_id", "field", "status", "value_json", "confidence"),
        on=["doc_id", "field"],
        how="left",
    )
    correct = [cell_correct(s, v, g) for s, v, g in joined.select("status", "value_json", "gold").iter_rows()]
    scored = joined.with_columns(
        correct=pl.Series(correct, dtype=pl.Boolean),
        answered=pl.col("status").is_in(["found", "absent"]).fill_null(False),
        conf=pl.col("confidence").cast(pl.Float64).fill_null(0.0),
        gold_null=pl.col("gold").is_null() | (pl.col("gold") == "null"),
    )
    if thresholds is None:
        levels = {0.0, 1.0, *scored.filter(pl.col("answered"))["conf"].to_list()}
        thresholds = sorted(levels)
    rows = []
    n = scored.height
    for t in sorted(thresholds):
        returned = scored.filter(pl.col("answered") & (pl.col("conf") >= t))
        k = returned.height
        ok = int(returned["correct"].sum()) if k else 0
        blank_ok = scored.filter(~(pl.col("answered") & (pl.col("conf") >= t)) & pl.col("gold_null")).height
        lo, hi = wilson(ok, k) if k else (None, None)
        rows.append(
            {
                "threshold": float(t),
                "n": n,
                "returned": k,
                "correct": ok,
                "coverage": round(k / n, 4) if n else None,
                "precision": round(ok / k, 4) if k else None,
                "precision_low": None if lo is None else round(lo, 4),
                "precision_high": None if hi is None else round(hi, 4),
                "accuracy": round((ok + blank_ok) / n, 4) if n else None,
            }
        )
    schema = {
        "threshold": pl.Float64,
        "n": pl.Int64,
        "returned": pl.Int64,
        "correct": pl.Int64,
        "coverage": pl.Float64,
        "precision": pl.Float64,
        "precision_low": pl.Float64,
        "precision_high": pl.Float64,
        "accuracy": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema)
