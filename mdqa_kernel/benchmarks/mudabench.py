"""MuDABench loader: questions, documents, typed gold rows and reference answers.

MuDABench ("Navigating Large-Scale Document Collections: MuDABench for Multi-Document Analytical QA",
arXiv 2604.22239; Apache-2.0) ships two question files. Each item lists the documents a question
needs, with the gold per-document values as ``value_<field>`` keys and a ``schema`` describing them.
The files are vendored unchanged in ``examples/mudabench/``; this module reads them (or an explicit
path), drops the duplicated items, and exposes polars views of questions, documents and gold rows.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field

from mdqa_kernel.readers.oracle import GOLD_SOURCES, GoldValues
from mdqa_kernel.resources import example
from mdqa_kernel.text.language import detect_language

Split = Literal["simple", "complex"]
SPLITS: tuple[str, ...] = ("simple", "complex")
DOCTYPES: tuple[str, ...] = (
    "A股年报",
    "US Stock Annual Report",
    "A股ESG报告",
    "A股利润分配权益类公告",
    "A股股东大会类公告",
)

# MuDABench's document columns (its metadata: collection.metadata.mudabench_metadata): never lineage
# cells; `symbol` identifies the company, so ties in a ranking are ordered by it and value counts
# list it as members. What every MuDABench run passes to `aggregate` (`AGGREGATE_OPTIONS`).
META_COLUMNS: tuple[str, ...] = ("doc_id", "symbol", "year", "doctype")
ENTITY = "symbol"
AGGREGATE_OPTIONS: dict[str, Any] = {"meta_columns": META_COLUMNS, "entity": ENTITY}

# The defect table of the benchmark notes (shared/mudabench/README.md), keyed by question_id.
KNOWN_DEFECTS: dict[str, str] = {
    "q_b9e05d43931f462e": "one metadata value is 1000x too large (601077 2021 operating cost)",
    "q_b57ccf35163ebe6c": "metadata costs for 601838 conflict with the evidence statements",
    "q_0cfd6c84757a3012": "a negative operating cost (601166 2022) in metadata",
    "q_081d8bab80b7af28": "'changed office address' needs fuzzy address equality; one metadata pair disagrees",
    "q_dbd9558b2869c92b": "'changed office address' needs fuzzy address equality; one metadata pair disagrees",
    "q_da80971b5c66c504": "asks for top-3 tiers, reference lists two",
    "q_598c0a6143fd63d0": "'more than twice the mean' reference flags all 15 firms; no definition reproduces it",
    "q_94d121e79aa245a6": "reference computed on other questions' documents",
    "q_bc01a3e6c35c6890": "reference computed on other questions' documents",
    "q_54b3d543fbc0618e": "reference computed on other questions' documents",
    "q_f71028b35b269648": "growth fractions printed with a '%' sign (0.0084 shown as '0.01%')",
    "q_b602e30eddcec583": "growth fractions printed with a '%' sign (0.0084 shown as '0.01%')",
    "q_c92ba4044309645f": "growth fractions printed with a '%' sign (0.0084 shown as '0.01%')",
    "q_91cd8abfcf36ef8e": "growth fractions printed with a '%' sign (0.0084 shown as '0.01%')",
    "q_8c4b0ec7dceb6858": "growth fractions printed with a '%' sign (0.0084 shown as '0.01%')",
    "q_cef8d2eeee5ddc27": "growth fractions printed with a '%' sign (0.0084 shown as '0.01%')",
    "q_b05368dcc6c07cf0": "day differences ignore a leap day (30/40 vs 31/41)",
    "q_9fe447fad84e5342": "day differences ignore a leap day (30/40 vs 31/41)",
}

# Keyword rules for the operation family of a question, checked in order (the first match wins):
# the specific families (outliers, scores) come before the generic ones (top-k).
FAMILY_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("outlier", ("异常", "outlier", "anomal")),
    ("weighted_score", ("得分", "效率", "score", "weighted")),
    ("group_compare", ("差值", "与非", "compare", "versus", " vs ")),
    ("range_std", ("极差", "标准差", "range", "standard deviation", "dispersion")),
    ("growth", ("增长率", "变化率", "growth", "增长最快")),
    ("change", ("更换", "变化", "提前", "改进", "changed", "change", "间隔")),
    ("groupby_mode", ("最常见", "最常用", "哪个月份", "分布", "使用情况", "哪家", "most common")),
    ("count", ("多少家", "有多少", "数量", "how many", "number of")),
    (
        "threshold_filter",
        ("超过", "都实现", "既", "披露了", "在深圳", "经第三方", "所有利益", "above", "exceed"),
    ),
    ("topk", ("最高", "最多", "前三", "最早", "最快", "top", "highest", "largest", "most")),
)

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class DocumentRecord(BaseModel):
    """One document as MuDABench describes it: identity plus gold values and field descriptions."""

    model_config = ConfigDict(frozen=False)

    doc_id: str
    symbol: str
    year: int
    doctype: str
    values: dict[str, Any] = Field(default_factory=dict)
    schema_: dict[str, str] = Field(default_factory=dict, alias="schema")
    question_ids: list[str] = Field(default_factory=list)
    conflicts: dict[str, list[Any]] = Field(default_factory=dict)

    @property
    def language(self) -> str:
        return "en" if self.doctype.startswith("US ") else "zh"


def default_data_dir() -> Path:
    """The vendored copy: examples/mudabench, shipped with mdqa (see mdqa_kernel.resources)."""
    return example("mudabench")


def _resolve_path(split: str, path: str | Path | None) -> Path:
    if split not in SPLITS:
        raise ValueError(f"unknown MuDABench split {split!r}; expected one of {SPLITS}")
    if path is None:
        return default_data_dir() / f"{split}.json"
    p = Path(path)
    return p / f"{split}.json" if p.is_dir() else p


def classify_family(question: str) -> str:
    """Operation family of a question by keywords (see FAMILY_RULES); 'other' when none matches."""
    text = question.lower()
    for family, keywords in FAMILY_RULES:
        if any(k.lower() in text for k in keywords):
            return family
    return "other"


def question_language(question: str) -> str:
    return detect_language(question)


def _column_dtype(values: list[Any]) -> pl.DataType | None:
    """The polars dtype for one value_* column, or None to let polars infer (lists, structs)."""
    present = [v for v in values if v is not None]
    if not present:
        return pl.Null()
    if all(isinstance(v, bool) for v in present):
        return pl.Boolean()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pl.Int64()
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pl.Float64()
    if all(isinstance(v, str) for v in present):
        return pl.Date() if all(_ISO_DATE.match(v) for v in present) else pl.String()
    return None


def _typed_series(name: str, values: list[Any]) -> pl.Series:
    dtype = _column_dtype(values)
    if isinstance(dtype, pl.Date):
        parsed = [dt.date.fromisoformat(v) if v is not None else None for v in values]
        return pl.Series(name, parsed, dtype=pl.Date)
    if isinstance(dtype, pl.Float64):
        return pl.Series(name, [float(v) if v is not None else None for v in values], dtype=pl.Float64)
    if dtype is None:
        return pl.Series(name, values, strict=False)
    return pl.Series(name, values, dtype=dtype)


def _merge_values(records: list[tuple[str, dict[str, Any]]]) -> DocumentRecord:
    """Merge one document's metadata entries from several questions, recording disagreements."""
    first = records[0][1]
    doc = DocumentRecord(
        doc_id=first["id"], symbol=str(first["symbol"]), year=int(first["year"]), doctype=first["doctype"]
    )
    seen: dict[str, list[Any]] = defaultdict(list)
    for qid, meta in records:
        doc.question_ids.append(qid)
        for key, value in meta.items():
            if not key.startswith("value_"):
                continue
            if value not in seen[key]:
                seen[key].append(value)
            doc.values.setdefault(key, value)
        for key, desc in (meta.get("schema") or {}).items():
            doc.schema_.setdefault(key, desc)
    doc.conflicts = {k: v for k, v in seen.items() if len(v) > 1}
    doc.question_ids = sorted(set(doc.question_ids))
    return doc


class MudaSplit:
    """One deduplicated MuDABench split (164 unique questions each)."""

    def __init__(self, split: str, items: list[dict[str, Any]], source: Path) -> None:
        self.split = split
        self.source = source
        self._positions: dict[str, int] = {}
        self._items: dict[str, dict[str, Any]] = {}
        for position, item in enumerate(items):
            qid = item["question_id"]
            if qid not in self._items:  # first occurrence wins; later ones are exact duplicates
                self._items[qid] = item
                self._positions[qid] = position
        self.duplicate_positions = [
            i for i, it in enumerate(items) if self._positions[it["question_id"]] != i
        ]

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"MudaSplit({self.split!r}, questions={len(self)}, source={str(self.source)!r})"

    @property
    def question_ids(self) -> list[str]:
        return list(self._items)

    def item(self, question_id: str) -> dict[str, Any]:
        try:
            return self._items[question_id]
        except KeyError:
            raise KeyError(f"question {question_id!r} is not in the {self.split} split") from None

    @cached_property
    def questions(self) -> pl.DataFrame:
        rows = []
        for qid, item in self._items.items():
            meta = item["metadata"]
            rows.append(
                {
                    "question_id": qid,
                    "question": item["question"],
                    "language": question_language(item["question"]),
                    "split": self.split,
                    "position": self._positions[qid],
                    "n_docs": len(meta),
                    "doctypes": sorted({m["doctype"] for m in meta}),
                    "family": classify_family(item["question"]),
                    "known_defect": qid in KNOWN_DEFECTS,
                    "defect": KNOWN_DEFECTS.get(qid),
                }
            )
        return pl.DataFrame(rows, schema_overrides={"defect": pl.String, "doctypes": pl.List(pl.String)})

    def known_defect(self, question_id: str) -> bool:
        self.item(question_id)
        return question_id in KNOWN_DEFECTS

    def documents(self, question_id: str) -> pl.DataFrame:
        """The documents a question lists: doc_id, symbol, year, doctype."""
        meta = self.item(question_id)["metadata"]
        return pl.DataFrame(
            [
                {
                    "doc_id": m["id"],
                    "symbol": str(m["symbol"]),
                    "year": int(m["year"]),
                    "doctype": m["doctype"],
                }
                for m in meta
            ],
            schema={"doc_id": pl.String, "symbol": pl.String, "year": pl.Int64, "doctype": pl.String},
        )

    @cached_property
    def all_documents(self) -> pl.DataFrame:
        """Every unique document of the split, with how many questions list it."""
        recs = self.document_records
        return pl.DataFrame(
            [
                {
                    "doc_id": r.doc_id,
                    "symbol": r.symbol,
                    "year": r.year,
                    "doctype": r.doctype,
                    "n_questions": len(r.question_ids),
                }
                for r in recs.values()
            ],
        ).sort("doctype", "symbol", "year")

    def gold_rows(self, question_id: str) -> pl.DataFrame:
        """One row per listed document with typed value_* columns (dates as pl.Date when all parse)."""
        meta = self.item(question_id)["metadata"]
        base = self.documents(question_id)
        fields = sorted({k for m in meta for k in m if k.startswith("value_")})
        columns = [_typed_series(f, [m.get(f) for m in meta]) for f in fields]
        return base.with_columns(columns) if columns else base

    def schema(self, question_id: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for m in self.item(question_id)["metadata"]:
            for k, v in (m.get("schema") or {}).items():
                out.setdefault(k, v)
        return out

    def reference_answer(self, question_id: str) -> str:
        return self.item(question_id)["final_answer"]

    def source_answer(self, question_id: str) -> list[str]:
        src = self.item(question_id)["source_answer"]
        return list(src) if isinstance(src, list) else [str(src)]

    @cached_property
    def document_records(self) -> dict[str, DocumentRecord]:
        """Per document id, the merge of its values and schema over every question that lists it."""
        by_doc: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
        for qid, item in self._items.items():
            for meta in item["metadata"]:
                by_doc[meta["id"]].append((qid, meta))
        return {doc_id: _merge_values(entries) for doc_id, entries in by_doc.items()}


_CACHE: dict[tuple[str, str], MudaSplit] = {}


def load_split(split: str, path: str | Path | None = None) -> MudaSplit:
    """Load one split ('simple' or 'complex'), from the vendored copy unless `path` is given.

    `path` may be the JSON file itself or a folder holding `<split>.json`.
    """
    file = _resolve_path(split, path)
    key = (split, str(file.resolve()))
    if key not in _CACHE:
        if not file.exists():
            raise FileNotFoundError(f"MuDABench file not found: {file} (pass path= to point at a copy)")
        items = json.loads(file.read_text(encoding="utf-8"))
        _CACHE[key] = MudaSplit(split, items, file)
    return _CACHE[key]


def all_document_records(split: str, path: str | Path | None = None) -> dict[str, DocumentRecord]:
    """Merged per-document records (values + schema from every question listing the document).

    Disagreements between questions are kept in each record's `conflicts` ({field: [values]}).
    """
    return load_split(split, path).document_records


@GOLD_SOURCES.register("mudabench")
def gold_values(split: str) -> GoldValues:
    """The oracle reader's gold source `mudabench:<split>` (default split: simple): every document's
    value_<field> keys, merged over the questions that list it."""
    return {
        (doc_id, key): value
        for doc_id, rec in all_document_records(split or "simple").items()
        for key, value in rec.values.items()
    }


def document_conflicts(split: str, path: str | Path | None = None) -> dict[str, dict[str, list[Any]]]:
    """Per doc id, the fields whose values differ between the questions listing it (empty: none)."""
    return {d: r.conflicts for d, r in all_document_records(split, path).items() if r.conflicts}
