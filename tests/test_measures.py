"""MEBench's EA-F1 and categories, DocHop's recall@K and complete recall@K, on hand-made cases."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.benchmarks.financebench import FinanceBenchDataError
from mdqa_kernel.benchmarks.measures import (
    MEBENCH_CATEGORIES,
    MeasureInputError,
    UnknownFamilyError,
    _format,
    accuracy_per_category,
    cell_triples,
    cells_ea_f1,
    complete_at_k,
    ea_f1,
    financebench_evidence,
    financebench_questions,
    financebench_retrieval,
    gold_triples,
    main,
    mebench_category,
    mebench_table,
    recall_at_k,
    retrieval_recall,
    summarize_recall,
)
from mdqa_kernel.benchmarks.mudabench import FAMILY_RULES
from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.plan.families import FAMILY_TABLE
from tests._pdfs import text_pdf


def triples(rows: list[tuple[str, str, object]]) -> pl.DataFrame:
    return pl.DataFrame(
        [(d, f, json.dumps(v, ensure_ascii=False)) for d, f, v in rows],
        schema={"doc_id": pl.String, "field": pl.String, "value": pl.String},
        orient="row",
    )


GOLD = triples(
    [
        ("A", "revenue", 1577.0),
        ("A", "auditor", "KPMG LLP"),
        ("B", "revenue", 0.2311),
        ("B", "auditor", "Deloitte"),
        ("C", "revenue", 12.0),
    ]
)


# -- EA-F1 -------------------------------------------------------------------------------------------


def test_ea_f1_partial_match_with_numeric_tolerance_and_normalised_text():
    pred = triples(
        [
            ("A", "revenue", "1,577.04"),  # same integer digits and first decimal: a hit
            ("a", "Auditor", "kpmg"),  # entity/field case and a legal-form suffix: a hit
            ("B", "revenue", 23.11),  # a fraction read in percent points: a hit
            ("B", "auditor", "PwC"),  # wrong value
        ]
    )
    got = ea_f1(pred, GOLD)
    assert (got["tp"], got["predicted"], got["gold"]) == (3, 4, 5)
    assert got["precision"] == pytest.approx(0.75)
    assert got["recall"] == pytest.approx(0.6)
    assert got["f1"] == pytest.approx(2 * 0.75 * 0.6 / 1.35)


def test_ea_f1_numeric_tolerance_is_the_cell_rule():
    gold = triples([("A", "revenue", 1577.0)])
    assert ea_f1(triples([("A", "revenue", 1577.09)]), gold)["tp"] == 1
    assert ea_f1(triples([("A", "revenue", 1577.1)]), gold)["tp"] == 0  # first decimal differs


def test_ea_f1_duplicates_count_once_and_two_writings_match_one_gold():
    gold = triples([("A", "revenue", 1577.0)])
    same_twice = triples([("A", "revenue", 1577.0), ("A", "revenue", 1577.0)])
    assert ea_f1(same_twice, gold) == {
        "tp": 1, "predicted": 1, "gold": 1, "precision": 1.0, "recall": 1.0, "f1": 1.0,
    }  # fmt: skip
    two_writings = triples([("A", "revenue", "1,577"), ("A", "revenue", 1577.0)])
    got = ea_f1(two_writings, gold)
    assert (got["tp"], got["predicted"], got["precision"], got["recall"]) == (1, 2, 0.5, 1.0)


def test_ea_f1_matching_is_one_to_one_and_maximal():
    # 50 agrees with gold 0.5 (a fraction in percent points) and with gold 50.0; 0.5 only with 0.5.
    # A greedy pass would give 50 the gold 0.5 and leave 0.5 unmatched; the maximum matching pairs both.
    gold = triples([("A", "share", 0.5), ("A", "share", 50.0)])
    pred = triples([("A", "share", 50), ("A", "share", 0.5)])
    assert ea_f1(pred, gold)["tp"] == 2
    assert ea_f1(triples([("A", "share", 50)]), gold)["tp"] == 1  # one prediction matches one gold


def test_ea_f1_missing_entities_and_extra_entities():
    pred = triples([("A", "revenue", 1577.0), ("Z", "revenue", 12.0)])  # C missing, Z invented
    got = ea_f1(pred, GOLD)
    assert (got["tp"], got["predicted"], got["gold"]) == (1, 2, 5)
    assert got["recall"] == pytest.approx(0.2)
    assert ea_f1(triples([]), GOLD)["f1"] is None  # nothing predicted: precision undefined
    none_right = ea_f1(triples([("Z", "x", 1)]), GOLD)
    assert none_right["f1"] == 0.0


def test_ea_f1_nulls_are_no_triples():
    gold = triples([("A", "revenue", None), ("A", "auditor", "KPMG")])
    pred = triples([("A", "revenue", None), ("A", "auditor", "KPMG")])
    got = ea_f1(pred, gold)
    assert (got["tp"], got["predicted"], got["gold"], got["f1"]) == (1, 1, 1, 1.0)


def test_ea_f1_from_cells_and_gold_frames():
    cells = pl.DataFrame(
        {
            "doc_id": ["A", "A", "B"],
            "field": ["revenue", "auditor", "revenue"],
            "status": ["found", "not_found", "found"],
            "value_json": ["1577", None, "5"],
        }
    )
    gold = pl.DataFrame({"doc_id": ["A", "A", "B"], "field": ["revenue", "auditor", "revenue"],
                         "gold": ["1577.0", '"KPMG"', "6"], "page": [1, 2, None]})  # fmt: skip
    got = ea_f1(cell_triples(cells), gold_triples(gold))
    assert (got["tp"], got["predicted"], got["gold"]) == (1, 2, 3)
    # a system's own field name is aligned to the gold field it agrees with
    renamed = cells.with_columns(field=pl.col("field").replace({"revenue": "sales"}))
    assert ea_f1(cell_triples(renamed), gold_triples(gold))["tp"] == 0
    assert cells_ea_f1(renamed, gold)["tp"] == 1
    assert cells_ea_f1(renamed, gold, align=False)["tp"] == 0


def test_ea_f1_says_what_is_wrong_with_its_input():
    with pytest.raises(MeasureInputError, match="lacks column"):
        ea_f1(pl.DataFrame({"doc": ["A"]}), GOLD)
    bad = pl.DataFrame({"doc_id": ["A"], "field": ["f"], "value": ["not json"]})
    with pytest.raises(MdqaError, match="is not JSON"):
        ea_f1(bad, GOLD)


# -- MEBench categories ----------------------------------------------------------------------------


def test_every_family_has_a_category():
    families = {*FAMILY_TABLE, *(f for f, _k in FAMILY_RULES), "other"}
    assert families == set(MEBENCH_CATEGORIES)
    for family in families:
        assert mebench_category(family) in {"comparison", "statistics", "relationship", "other"}
    assert {mebench_category(f) for f in FAMILY_TABLE} == {"comparison", "statistics", "relationship"}
    assert mebench_category("topk") == "comparison"
    assert mebench_category("count") == "statistics"
    assert mebench_category("change") == "relationship"
    assert mebench_table()["family"].to_list()[-1] == "other"
    with pytest.raises(UnknownFamilyError, match="MEBENCH_CATEGORIES") as info:
        mebench_category("pivot")
    assert isinstance(info.value, UnknownNameError)  # the shared unquoted-KeyError base
    assert not str(info.value).startswith(("'", '"'))


def test_accuracy_per_category():
    results = pl.DataFrame(
        {
            "config": ["m"] * 5 + ["r"] * 2,
            "question_id": ["q1", "q2", "q3", "q4", "q5", "q1", "q4"],
            "family": ["topk", "growth", "count", "change", "other", "topk", "change"],
            "correct": [True, False, True, None, True, False, True],
        }
    )
    got = accuracy_per_category(results.filter(pl.col("config") == "m"))
    assert got.select("category", "questions", "correct").rows() == [
        ("comparison", 2, 1), ("statistics", 1, 1), ("relationship", 1, 0), ("other", 1, 1), ("overall", 5, 3),
    ]  # fmt: skip
    assert got["accuracy"].to_list() == [0.5, 1.0, 0.0, 1.0, 0.6]
    by = accuracy_per_category(results, by=["config"])
    assert by.filter(pl.col("config") == "r").select("category", "accuracy").rows() == [
        ("comparison", 0.0), ("relationship", 1.0), ("overall", 0.5),
    ]  # fmt: skip
    with pytest.raises(UnknownFamilyError):
        accuracy_per_category(results.with_columns(family=pl.lit("nope")))


# -- DocHop recall ---------------------------------------------------------------------------------


def test_recall_and_complete_recall_with_one_piece_of_two_missing():
    ranked = [7, 3, 3, 9, 1, 4]
    assert recall_at_k(ranked, {3, 4}, 5) == 0.5  # 4 is at rank 6
    assert not complete_at_k(ranked, {3, 4}, 5)
    assert recall_at_k(ranked, {3, 4}, 6) == 1.0
    assert complete_at_k(ranked, {3, 4}, 6)
    with pytest.raises(MeasureInputError):
        recall_at_k(ranked, set(), 5)


def _frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    retrieved = pl.DataFrame(
        {
            "query_id": ["q1", "q2", "q2", "q3"],
            "doc_id": ["A", "A", "B", "A"],
            "ranked": [[1, 2, 3], [5, 6], [1, 8], [9]],
        }
    )
    gold = pl.DataFrame(
        {
            "query_id": ["q1", "q2", "q2", "q3", "q4"],
            "doc_id": ["A", "A", "B", "A", "A"],
            "evidence": [
                [2, 4],
                [6],
                [1],
                [],
                [1],
            ],  # q1: one of two missing; q3 no evidence; q4 not retrieved
        }
    )
    return retrieved, gold


def test_retrieval_recall_per_document():
    retrieved, gold = _frames()
    per = retrieval_recall(retrieved, gold, ks=(1, 2), level="document")
    assert per.select("query_id", "doc_id", "recall_2", "complete_2").rows() == [
        ("q1", "A", 0.5, False), ("q2", "A", 1.0, True), ("q2", "B", 1.0, True), ("q4", "A", 0.0, False),
    ]  # fmt: skip
    assert per["recall_1"].to_list() == [0.0, 0.0, 1.0, 0.0]
    summary = summarize_recall(per, ks=(1, 2))
    assert summary["units"] == 4
    assert summary["recall@2"] == 0.625
    assert summary["complete@2"] == 0.5
    assert summary["hit@2"] == 0.75


def test_retrieval_recall_per_question_pools_each_documents_top_k():
    retrieved, gold = _frames()
    per = retrieval_recall(retrieved, gold, ks=(1, 2), level="question")
    assert per.select("query_id", "evidence_n", "recall_1", "complete_1", "complete_2").rows() == [
        ("q1", 2, 0.0, False, False), ("q2", 2, 0.5, False, True), ("q4", 1, 0.0, False, False),
    ]  # fmt: skip
    # page 1 of B is not page 1 of A: evidence is keyed by its document
    crossed = pl.DataFrame({"query_id": ["q"], "doc_id": ["A"], "ranked": [[1]]})
    wanted = pl.DataFrame({"query_id": ["q"], "doc_id": ["B"], "evidence": [[1]]})
    assert retrieval_recall(crossed, wanted, ks=(5,), level="question")["recall_5"].to_list() == [0.0]
    with pytest.raises(MeasureInputError, match="level"):
        retrieval_recall(retrieved, gold, level="chunk")


def test_financebench_evidence_pages_are_one_based():
    questions = [{"financebench_id": "q", "evidence": [
        {"doc_name": "D", "evidence_page_num": 0}, {"doc_name": "D", "evidence_page_num": 4}]}]  # fmt: skip
    assert financebench_evidence(questions).rows() == [("q", "D", [1, 5])]


def test_financebench_retrieval_on_a_small_filing(tmp_path: Path):
    """Real parse, real BM25: a two-page question finds one page in the top chunk, both in the top 2."""
    folder = tmp_path / "fb"
    (folder / "pdfs").mkdir(parents=True)
    text_pdf(
        folder / "pdfs" / "ACME_2020_10K.pdf",
        [
            ["Risk factors: weather and competition may hurt results."],
            ["Capital expenditure was 120 million dollars in fiscal 2020."],
            ["Employees: we had 3,000 staff at year end."],
            ["Dividends paid per share were 1.20 dollars in fiscal 2020."],
        ],
    )
    questions = [
        {"financebench_id": "fb1", "doc_name": "ACME_2020_10K", "question": "What was capital expenditure?",
         "company": "ACME", "question_type": "metrics-generated", "answer": "120",
         "evidence": [{"doc_name": "ACME_2020_10K", "evidence_page_num": 1}]},
        {"financebench_id": "fb2", "doc_name": "ACME_2020_10K",
         "company": "ACME", "question_type": "metrics-generated", "answer": "120; 1.20",
         "question": "Capital expenditure and dividends paid per share in fiscal 2020?",
         "evidence": [{"doc_name": "ACME_2020_10K", "evidence_page_num": 1},
                      {"doc_name": "ACME_2020_10K", "evidence_page_num": 3}]},
    ]  # fmt: skip
    (folder / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in questions), encoding="utf-8")
    got = financebench_retrieval(folder, tmp_path / "ws", ks=(1, 2), jobs=1)
    assert got["questions"] == 2 and got["documents"] == 1
    pages = got["pages/question"]
    assert pages["units"] == 2
    assert pages["recall@1"] == 0.75  # fb1 1/1, fb2 1/2
    assert pages["complete@1"] == 0.5
    assert pages["complete@2"] == 1.0
    assert got["chunks/document"]["complete@2"] == 1.0
    multi = got["pages/question, 2+ pages"]
    assert (multi["units"], multi["recall@1"], multi["complete@1"]) == (1, 0.5, 0.0)
    assert "| pages/question |" in _format(got, (1, 2))
    assert main(["--financebench", str(folder), "--workspace", str(tmp_path / "ws"), "--k", "1", "--jobs", "1",
                 "--json", str(tmp_path / "out.json")]) == 0  # fmt: skip
    assert json.loads((tmp_path / "out.json").read_text())["bm25"]["questions"] == 2


def test_hybrid_retrieval_finds_a_page_that_shares_no_word_with_the_question(tmp_path: Path):
    """WordLlama's offline embeddings, fused with BM25: "earn from sales" finds the revenue page,
    which BM25 alone cannot rank (no shared word), through the same DocHop measure."""
    from mdqa_kernel.readers.retrieval import wordllama_embedder

    folder = tmp_path / "fb"
    (folder / "pdfs").mkdir(parents=True)
    pages = [["Risk factors: weather and competition may hurt results."],
             ["Employees: we had 3,000 staff at year end."],
             ["The board of directors met four times."],
             ["Revenue grew to 500 million dollars as customers bought more products."]]  # fmt: skip
    text_pdf(folder / "pdfs" / "ACME_2020_10K.pdf", pages)
    question = {"financebench_id": "fb1", "doc_name": "ACME_2020_10K", "question": "How much did the firm earn from sales?",
                "company": "ACME", "question_type": "domain-relevant", "answer": "500",
                "evidence": [{"doc_name": "ACME_2020_10K", "evidence_page_num": 3}]}  # fmt: skip
    (folder / "questions.jsonl").write_text(json.dumps(question), encoding="utf-8")
    bm25 = financebench_retrieval(folder, tmp_path / "ws", ks=(1,), jobs=1)
    hybrid = financebench_retrieval(folder, tmp_path / "ws", ks=(1,), jobs=1, retriever="hybrid")
    assert bm25["pages/question"]["recall@1"] == 0.0 and hybrid["pages/question"]["recall@1"] == 1.0
    assert hybrid["retriever"] == "hybrid"
    vectors = wordllama_embedder()(["net sales", "revenue", "board meeting"])
    assert vectors.shape == (3, 256)
    with pytest.raises(MeasureInputError, match="unknown retriever 'dense'"):
        financebench_retrieval(folder, tmp_path / "ws", ks=(1,), jobs=1, retriever="dense")


def test_financebench_questions_are_read_with_the_loaders_checks(tmp_path: Path):
    """A row that is not JSON, or lacks a field, is a FinanceBench data error naming file and line."""
    folder = tmp_path / "fb"
    folder.mkdir()
    good = {"financebench_id": "fb1", "doc_name": "D", "question": "Q?", "company": "C",
            "question_type": "metrics-generated", "answer": 1, "evidence": []}  # fmt: skip
    (folder / "questions.jsonl").write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(FinanceBenchDataError, match=r"questions\.jsonl line 2 is not valid JSON"):
        financebench_questions(folder)
    (folder / "questions.jsonl").write_text(json.dumps({**good, "answer": None}) + "\n", encoding="utf-8")
    with pytest.raises(FinanceBenchDataError, match="line 1 lacks answer"):
        financebench_questions(folder)
    (folder / "questions.jsonl").write_text(json.dumps(good) + "\n", encoding="utf-8")
    assert [(q["financebench_id"], q["answer"]) for q in financebench_questions(folder)] == [("fb1", "1")]
