"""Extraction plans built from a benchmark's gold schema (the fields each question needs).

`mudabench_plan(split)` makes one plan for a whole split: the union of the value_* fields of every
question, each restricted (`only`) to the documents whose gold names it, typed from the gold values
(bool → boolean, int → integer, *_pct → percent, ISO dates and MM-DD → date, lists → list_text) and
scaled from the name (*_10k_cny: 万元). The same cells as running each question's own plan.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from mdqa_kernel.plan.ir import Plan

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MMDD = re.compile(r"^\d{2}-\d{2}$")


def infer_type(name: str, values: list[Any]) -> str:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "boolean"
    if present and all(isinstance(v, list) for v in present):
        return "list_text"
    if present and all(isinstance(v, str) for v in present):
        return "date" if all(_ISO.match(v) or _MMDD.match(v) for v in present) else "text"
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "integer"
    return "percent" if name.endswith("_pct") else "number"


def _unit(name: str) -> tuple[str | None, float]:
    if name.endswith("_10k_cny"):
        return "CNY", 1e4
    if name.endswith("_cny"):
        return "CNY", 1.0
    if name.endswith("_usd"):
        return "USD", 1.0
    return None, 1.0


def mudabench_plan(
    split: str = "simple", question_ids: list[str] | None = None, doc_ids: set[str] | None = None
) -> Plan:
    """One plan whose cells are the gold cells of the chosen questions (default: all of the split)."""
    from mdqa_kernel.benchmarks.mudabench import load_split

    data = load_split(split)
    qids = question_ids or data.question_ids
    docs: dict[str, set[str]] = defaultdict(set)
    values: dict[str, list[Any]] = defaultdict(list)
    descriptions: dict[str, str] = {}
    for qid in qids:
        for meta in data.item(qid)["metadata"]:
            if doc_ids is not None and meta["id"] not in doc_ids:
                continue
            for name, desc in (meta.get("schema") or {}).items():
                docs[name].add(meta["id"])
                values[name].append(meta.get(name))
                descriptions.setdefault(name, desc)
    fields = []
    for name in sorted(docs):
        ftype = infer_type(name, values[name])
        unit, scale = _unit(name)
        desc = descriptions[name].strip() or name
        if name.endswith("_mmdd"):
            desc = desc.rstrip("。.") + "（日期）"
        spec: dict[str, Any] = {
            "name": name,
            "type": ftype,
            "description": desc,
            "question": "{symbol} {year} {doctype}: " + desc,
            "scale": scale,
            "only": {"doc_id": sorted(docs[name])},
        }
        if unit and ftype in ("number", "integer"):
            spec["unit"] = unit
        fields.append(spec)
    return Plan.from_dict(
        {"question": f"MuDABench {split}: per-document gold fields ({len(qids)} questions)", "fields": fields}
    )
