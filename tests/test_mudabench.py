"""MuDABench loader: deduplication, typed gold rows, families, defects, merged document records."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import polars as pl
import pytest

from mdqa_kernel.benchmarks import mudabench
from mdqa_kernel.benchmarks.mudabench import KNOWN_DEFECTS, classify_family, load_split

FAMILIES = {
    "topk",
    "threshold_filter",
    "count",
    "groupby_mode",
    "growth",
    "change",
    "range_std",
    "outlier",
    "weighted_score",
    "group_compare",
    "other",
}


@pytest.mark.parametrize("split", ["simple", "complex"])
def test_split_deduplicates_to_164(split: str) -> None:
    s = load_split(split)
    assert len(s.questions) == 164
    assert s.duplicate_positions == [159, 160]
    q = s.questions
    assert q["question_id"].n_unique() == 164
    assert set(q["language"]) == {"zh", "en"}
    assert set(q["family"]) <= FAMILIES
    assert q.filter(pl.col("language") == "zh").height == 107  # the two duplicates are English items
    assert q.filter(pl.col("language") == "en").height == 57
    assert set(q["split"]) == {split}


def test_cli_one_liner_prints_164() -> None:
    code = "import mdqa_kernel; from mdqa_kernel.benchmarks import mudabench; print(len(mudabench.load_split('simple').questions))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "164"


def test_vendored_copy_is_unchanged_and_attributed() -> None:
    data = mudabench.default_data_dir()
    assert (data / "LICENSE").exists()
    note = (data / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "305c9ab3de9e081692dd674b7185d798ed74a961" in note and "2604.22239" in note
    items = json.loads((data / "simple.json").read_text(encoding="utf-8"))
    assert len(items) == 166


def test_explicit_path_file_or_folder(tmp_path) -> None:
    src = mudabench.default_data_dir() / "complex.json"
    (tmp_path / "complex.json").write_bytes(src.read_bytes())
    assert len(load_split("complex", tmp_path)) == 164
    assert len(load_split("complex", tmp_path / "complex.json")) == 164
    with pytest.raises(FileNotFoundError):
        load_split("complex", tmp_path / "missing.json")
    with pytest.raises(ValueError):
        load_split("medium")


def test_gold_rows_are_typed() -> None:
    s = load_split("simple")
    q = s.questions
    first = q["question_id"][0]
    rows = s.gold_rows(first)
    assert rows.columns[:4] == ["doc_id", "symbol", "year", "doctype"]
    assert rows["value_capital_adequacy_ratio_pct"].dtype == pl.Float64
    assert rows.height == q["n_docs"][0]
    # dates become pl.Date, booleans Boolean, ints Int64, lists List
    dtypes: dict[str, pl.DataType] = {}
    for qid in q["question_id"]:
        for name, dtype in s.gold_rows(qid).schema.items():
            dtypes.setdefault(name, dtype)
    assert dtypes["value_record_date"] == pl.Date
    assert dtypes["value_record_date_mmdd"] == pl.String  # '07-20' is not a full date
    assert dtypes["value_uses_gri_standard"] == pl.Boolean
    assert dtypes["value_attending_shares_count"] == pl.Int64
    assert isinstance(dtypes["value_annual_meeting_methods"], pl.List)
    assert dtypes["value_net_profit_usd"] == pl.Float64


def test_date_values_parse() -> None:
    s = load_split("simple")
    qid = next(q for q in s.question_ids if "value_record_date" in s.schema(q))
    col = s.gold_rows(qid)["value_record_date"].drop_nulls()
    assert all(isinstance(d, dt.date) for d in col)


def test_answers_schema_documents() -> None:
    s = load_split("complex")
    qid = s.question_ids[0]
    assert s.schema(qid) == {"value_capital_adequacy_ratio_pct": "资本充足率。"}
    assert "601398" in s.reference_answer(qid)
    assert s.source_answer(qid)[0].startswith("根据2021年数据")
    docs = s.documents(qid)
    assert docs.columns == ["doc_id", "symbol", "year", "doctype"]
    assert s.all_documents.height == 589
    assert set(s.all_documents["doctype"]) == set(mudabench.DOCTYPES)
    with pytest.raises(KeyError):
        s.documents("q_nope")


def test_known_defects_flagged_by_id() -> None:
    simple, complex_ = load_split("simple"), load_split("complex")
    flagged = set(simple.questions.filter("known_defect")["question_id"]) | set(
        complex_.questions.filter("known_defect")["question_id"]
    )
    assert flagged == set(KNOWN_DEFECTS)
    assert simple.known_defect("q_b9e05d43931f462e")
    row = complex_.questions.filter(pl.col("question_id") == "q_b05368dcc6c07cf0")
    assert row["position"][0] == 82 and "leap" in row["defect"][0]


def test_family_keywords() -> None:
    assert classify_family("请你给出你知识库中2021年资本充足率最高的三家公司股票代码") == "topk"
    assert classify_family("请你计算你知识库中2021年公司营业总成本的极差是多少？") == "range_std"
    assert classify_family("在你的知识库中2023年有多少家办公地址在深圳的公司？") == "count"
    assert (
        classify_family("Which companies achieved the highest revenue growth from 2021 to 2022?") == "growth"
    )
    assert classify_family("2022年股东大会最常见的召开方式组合是什么？") == "groupby_mode"
    assert classify_family("Tell me a story") == "other"


def test_all_document_records_merge_fields_across_questions() -> None:
    recs = mudabench.all_document_records("simple")
    assert len(recs) == 589
    multi = [r for r in recs.values() if len(r.question_ids) > 1]
    assert multi
    # an ESG report is asked about in many questions, each with some of its fields: the merge has them all
    esg = max((r for r in recs.values() if r.doctype == "A股ESG报告"), key=lambda r: len(r.values))
    assert len(esg.values) >= 8
    assert set(esg.values) <= set(esg.schema_)
    assert mudabench.document_conflicts("simple") == {}


def test_conflicts_are_reported() -> None:
    meta = {"symbol": "X", "year": 2022, "doctype": "A股年报", "id": "d1", "schema": {"value_a": "a"}}
    items = [
        {
            "question": "q1",
            "question_id": "q_1",
            "metadata": [{**meta, "value_a": 1.0}],
            "source_answer": [],
            "final_answer": "",
        },
        {
            "question": "q2",
            "question_id": "q_2",
            "metadata": [{**meta, "value_a": 2.0}],
            "source_answer": [],
            "final_answer": "",
        },
    ]
    s = mudabench.MudaSplit("simple", items, mudabench.default_data_dir())
    rec = s.document_records["d1"]
    assert rec.conflicts == {"value_a": [1.0, 2.0]}
    assert rec.question_ids == ["q_1", "q_2"]
