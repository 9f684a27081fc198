"""FinanceBench building blocks: loaders on the shared data, the collection metadata (and a real
collection of three small filings), the deterministic numeric judge, and its agreement with the
paper's human labels."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.benchmarks.financebench import (
    ENV_VAR,
    FinanceBenchDataError,
    agreement_report,
    agreement_summary,
    collection_metadata,
    data_path,
    judge_agreement,
    load_documents,
    load_published,
    load_questions,
    write_collection_metadata,
)
from mdqa_kernel.benchmarks.numeric_judge import asked_decimals, asked_scale, judge, quantities
from mdqa_kernel.collection.metadata import read_metadata
from mdqa_kernel.errors import MdqaError

REPO = Path(__file__).resolve().parents[1]
FINANCEBENCH = Path(os.environ.get(ENV_VAR) or REPO.parent / "shared" / "financebench")
SMALL = [
    "FOOTLOCKER_2022_8K_dated-2022-05-20",
    "PEPSICO_2023_8K_dated-2023-05-05",
    "ULTABEAUTY_2023Q4_EARNINGS",
]


@pytest.fixture
def fb() -> Path:
    if not (FINANCEBENCH / "questions.jsonl").is_file():
        pytest.skip(f"FinanceBench data absent at {FINANCEBENCH} (../shared/financebench, or set ${ENV_VAR})")
    return FINANCEBENCH


# -- loaders on the real shared files ----------------------------------------------------------


def test_load_questions(fb: Path) -> None:
    q = load_questions(fb)
    assert q.height == 83 and q["financebench_id"].n_unique() == 83
    counts = dict(q.group_by("question_type").len().iter_rows())
    assert counts == {"metrics-generated": 24, "domain-relevant": 23, "novel-generated": 36}
    capex = q.filter(pl.col("financebench_id") == "financebench_id_03029").row(0, named=True)
    assert capex["answer"] == "$1577.00" and capex["doc_name"] == "3M_2018_10K"
    page = capex["evidence"][0]["evidence_page_num"]
    assert isinstance(page, int) and page >= 0


def test_load_documents(fb: Path) -> None:
    d = load_documents(fb)
    assert d.height == 43 and d["company"].n_unique() == 19
    assert set(d["doc_type"]) == {"10k", "10q", "8k", "earnings"}
    assert d.schema["year"] == pl.Int64 and d["year"].min() >= 2015
    assert all(Path(p).is_file() for p in d["pdf"])
    row = d.filter(pl.col("doc_name") == "3M_2018_10K").row(0, named=True)
    assert (row["company"], row["year"], row["sector"]) == ("3M", 2018, "Industrials")
    # every question's filing is listed
    assert set(load_questions(fb)["doc_name"]) <= set(d["doc_name"])


def test_load_published(fb: Path) -> None:
    p = load_published(fb)
    assert p.height == 16 * 83 and p["config"].n_unique() == 16
    assert set(p["label"]) == {"correct", "incorrect", "refusal"}
    share = dict(p.group_by("config").agg((pl.col("label") == "correct").mean().round(3)).iter_rows())
    # the README's table, counted from results/
    assert share["gpt-4-1106-preview_sharedStore"] == 0.169
    assert share["gpt-4-1106-preview_singleStore"] == 0.482
    assert share["gpt-4-1106-preview_oracle"] == 0.892
    gpt4 = p.filter(pl.col("config") == "gpt-4_oracle").row(0, named=True)
    assert (gpt4["model"], gpt4["setting"]) == ("gpt-4", "oracle")


def test_collection_metadata_names_every_pdf(fb: Path, tmp_path: Path) -> None:
    meta = collection_metadata(fb)
    assert meta.columns == ["doc_id", "company", "doc_type", "year", "sector"]
    assert {f"{d}.pdf" for d in meta["doc_id"]} == {p.name for p in (fb / "pdfs").glob("*.pdf")}
    out = write_collection_metadata(tmp_path / "meta" / "financebench.csv", fb)
    back, _ = read_metadata(out)
    assert back.equals(meta)
    with pytest.raises(FinanceBenchDataError, match="NOPE_2020_10K not in"):
        collection_metadata(fb, ["NOPE_2020_10K"])


def test_collection_build_finds_filing_by_company_and_year(fb: Path, tmp_path: Path, workspace) -> None:
    from mdqa_kernel.collection import Collection

    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    for name in SMALL:  # a copy in a temporary folder, never in the repository
        shutil.copy(fb / "pdfs" / f"{name}.pdf", pdfs)
    meta = write_collection_metadata(tmp_path / "meta.csv", fb, SMALL)
    coll = Collection.build(pdfs, meta, workspace=workspace, name="financebench", jobs=1, progress=False)
    assert len(coll) == 3 and set(coll.documents["status"]) == {"ok"}
    assert (coll.documents["n_pages"] > 0).all()
    found = coll.where(company="PepsiCo", year=2023)
    assert found.doc_ids == ["PEPSICO_2023_8K_dated-2023-05-05"]
    assert "PepsiCo" in " ".join(coll.pages(found.doc_ids[0])["text"])
    assert coll.where(company="Foot Locker", year=2023).doc_ids == []
    assert coll.where(sector="Consumer Discretionary", doc_type="earnings").doc_ids == [
        "ULTABEAUTY_2023Q4_EARNINGS"
    ]


# -- clear errors on a missing or malformed folder (our own small files) ------------------------


def _folder(tmp_path: Path, documents: list[dict] | None = None) -> Path:
    root = tmp_path / "fb"
    root.mkdir()
    docs = documents or [
        {
            "doc_name": "ACME_2021_10K",
            "company": "Acme",
            "gics_sector": "Industrials",
            "doc_type": "10k",
            "doc_period": 2021,
        }
    ]
    (root / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    return root


def test_missing_folder_names_path_and_fix(tmp_path: Path) -> None:
    with pytest.raises(FinanceBenchDataError, match=rf"{tmp_path / 'none'} does not exist.*{ENV_VAR}") as e:
        load_questions(tmp_path / "none")
    assert isinstance(e.value, MdqaError)


def test_env_var_overrides_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path)
    monkeypatch.setenv(ENV_VAR, str(root))
    assert data_path() == root
    assert load_documents()["company"].to_list() == ["Acme"]


def test_missing_file_and_bad_lines(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    with pytest.raises(FinanceBenchDataError, match=r"questions.jsonl is missing"):
        load_questions(root)
    (root / "questions.jsonl").write_text('{"financebench_id": "x"\n')
    with pytest.raises(FinanceBenchDataError, match=r"questions.jsonl line 1 is not valid JSON"):
        load_questions(root)
    (root / "questions.jsonl").write_text('{"financebench_id": "x", "company": "Acme"}\n')
    with pytest.raises(
        FinanceBenchDataError, match=r"line 1 lacks doc_name, question_type, question, answer"
    ):
        load_questions(root)


def test_bad_documents_and_results(tmp_path: Path) -> None:
    bad_year = {"doc_name": "A", "company": "A", "gics_sector": "S", "doc_type": "10k", "doc_period": "FY21"}
    root = _folder(tmp_path, [bad_year])
    with pytest.raises(FinanceBenchDataError, match=r"doc_period 'FY21', not a year"):
        load_documents(root)
    with pytest.raises(FinanceBenchDataError, match=r"results holds no <model>_<mode>.jsonl"):
        load_published(root)
    (root / "results").mkdir()
    row = {
        "financebench_id": "x",
        "model_name": "m",
        "eval_mode": "oracle",
        "model_answer": "1",
        "label": "Maybe",
    }
    (root / "results" / "m_oracle.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(FinanceBenchDataError, match=r"m_oracle.jsonl has labels \['Maybe'\]"):
        load_published(root)


# -- the numeric judge: our own cases ----------------------------------------------------------

MILLIONS = "What was Acme's FY2020 revenue (in USD millions)?"
BILLIONS = "What was Acme's FY2020 revenue? Answer in USD billions."
TWO_DP = "What is Acme's FY2020 quick ratio? Round your answer to two decimal places."
PERCENT = "What is Acme's FY2020 gross margin (as a %)? Round to one decimal place."
PLAIN = "What is Acme's FY2020 return on equity? Define it as net income / average equity."
Q1_POINTS = "As of FY2023Q1, by how many percentage points did Acme raise guidance?"

CASES = [
    # scales
    (MILLIONS, "$1577.00", "Revenue was $1,577 million.", "correct"),
    (MILLIONS, "$1577.00", "It was $1.58 billion.", "correct"),
    (MILLIONS, "$1577.00", "USD 1577 millions", "correct"),
    (MILLIONS, "$1577.00", "1577", "correct"),
    (MILLIONS, "$1577.00", "$1,577,000,000 in total", "correct"),
    (MILLIONS, "$1577.00", "$1.577bn", "correct"),
    (MILLIONS, "$1577.00", "$1,577 thousand", "incorrect"),
    (MILLIONS, "$1577.00", "$1,650 million", "incorrect"),
    (BILLIONS, "$8.70", "$8,700 million", "correct"),
    (BILLIONS, "$8.70", "8.7", "correct"),
    (BILLIONS, "$8.70", "$9.1 billion", "incorrect"),
    # rounding and tolerance
    (TWO_DP, "1.73", "The ratio is 1.734.", "correct"),
    (TWO_DP, "1.73", "The ratio is 1.70.", "incorrect"),
    ("How much in total? ", "$20 billion", "about $20.4 billion", "correct"),
    # percent vs ratio
    (PERCENT, "24.3%", "24.26%", "correct"),
    (PERCENT, "24.3%", "0.2426", "correct"),
    (PERCENT, "24.3%", "a margin of 24.3", "correct"),
    (PERCENT, "24.3%", "26.1%", "incorrect"),
    (TWO_DP, "0.24", "24.26%", "correct"),
    (TWO_DP, "24.26", "24.26%", "incorrect"),
    (PLAIN, "0.24", "24.26%", "incorrect"),
    # negatives
    (MILLIONS, "(12.3)", "-$12.3 million", "correct"),
    (MILLIONS, "(12.3)", "$12.3 million", "incorrect"),
    (MILLIONS, "-$473 million", "a loss of $(473) million", "correct"),
    # years, periods and the question's numbers are not answers
    (MILLIONS, "$2020.00", "In FY2020 revenue rose.", "incorrect"),
    (MILLIONS, "$3.00", "See page 3 of the 10-K.", "incorrect"),
    ("What is 3M's FY2018 capex (in USD millions)?", "$3.00", "3M spent little.", "incorrect"),
    ("What is 3M's FY2018 capex (in USD millions)?", "$1577.00", "3M spent $1,577M on PP&E.", "correct"),
    # yes/no
    ("Did Acme grow in 2021?", "Yes, by 4%.", "Yes. Revenue grew.", "correct"),
    ("Did Acme grow in 2021?", "No, it shrank.", "Yes, it grew by 4%.", "incorrect"),
    ("Did Acme grow in 2021?", "No, it shrank.", "The filing says revenue fell.", "not_numeric"),
    # not numeric
    ("Which segment grew most in 2021?", "Consumer, by 3.1%.", "Consumer", "not_numeric"),
    ("What drove the margin change?", "Higher costs of 12 plants.", "12", "not_numeric"),
    ("What are Acme's main markets?", "US, EMEA and APAC", "US and Europe", "not_numeric"),
    ("How did US growth compare to the rest?", "US 3.0% vs international -0.6%.", "3.0%", "not_numeric"),
    (MILLIONS, "$1577.00", "The filing does not state it.", "incorrect"),
    # a period the question names is no number it states: "1" answers "FY2023Q1 … by how many points"
    (Q1_POINTS, "By 1 percentage point.", "1", "correct"),
    (Q1_POINTS, "By 1 percentage point.", "3", "incorrect"),
]


@pytest.mark.parametrize(("question", "reference", "candidate", "expected"), CASES)
def test_numeric_judge(question: str, reference: str, candidate: str, expected: str) -> None:
    v = judge(question, reference, candidate)
    assert v.verdict == expected, v.reason
    assert v.reason


def test_quantity_parsing() -> None:
    assert [q.value for q in quantities("(1,577) and $4.6bn and 24.26%")] == [-1577.0, 4.6e9, 24.26]
    assert quantities("in fiscal 2019 (see Note 7), on May 26, FY2021 Q2, COVID-19, our 10-K") == []
    aside = quantities("operating activities ($1.8 bn)")
    assert [q.value for q in aside] == [1.8e9]
    assert asked_scale("Answer in USD billions.") == 1e9 and asked_scale("(in USD millions)") == 1e6
    assert asked_decimals("Round your answer to two decimal places.") == 2
    assert asked_decimals("round to one decimal place") == 1 and asked_decimals("in USD") is None


# -- agreement with the paper's human labels (development figures on the dev slice) -------------


def test_judge_agreement_on_published_answers(fb: Path) -> None:
    a = judge_agreement(fb)
    assert set(a["kind"]) == {"numeric", "yes_no"}
    summary = agreement_summary(a).rows_by_key("kind", named=True, unique=True)
    numeric = summary["numeric"]
    assert numeric["n"] >= 300 and numeric["agreement"] >= 0.9
    assert numeric["agree"] + numeric["disagree"] == numeric["n"]
    # a refusal counts as incorrect; rows the judge leaves to an LLM judge are never counted
    assert a.filter(~pl.col("judged"))["agree"].sum() == 0
    assert set(a.filter(pl.col("label") == "refusal")["human"]) == {"incorrect"}
    assert "| numeric | " in agreement_report(fb, examples=3)


def test_llm_judge_agreement_counts_against_the_human_labels() -> None:
    """Orchestration only (a stand-in judge that calls everything correct): the sample is seeded, drawn
    from the answers the numeric judge leaves, and agreement is the share the humans also called correct."""
    from types import SimpleNamespace

    from mdqa_kernel.benchmarks.financebench import left_to_llm_judge, llm_judge_agreement

    class AlwaysCorrect:
        def structured(self, prompt, schema, **kw):
            return SimpleNamespace(correct=True, reason="stand-in")

    left = left_to_llm_judge(FINANCEBENCH)
    assert left.height > 0 and set(left["human"]) == {"correct", "incorrect"}
    rows = llm_judge_agreement(AlwaysCorrect(), FINANCEBENCH, sample=12, seed=3)
    again = llm_judge_agreement(AlwaysCorrect(), FINANCEBENCH, sample=12, seed=3)
    assert rows.height == 12 and rows["financebench_id"].to_list() == again["financebench_id"].to_list()
    assert int(rows["agree"].sum()) == int((rows["human"] == "correct").sum())
