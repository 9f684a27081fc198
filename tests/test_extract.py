"""The extraction run: tasks, store, resume after kill -9, idempotent re-runs, per-field re-runs,
errors as rows, and the LLM/cascade orchestration with a fake client (the real model: test_readers_llm)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.collection.collection import Collection
from mdqa_kernel.extract.result import ExtractionResult
from mdqa_kernel.extract.run import extract
from mdqa_kernel.plan.ir import Plan
from mdqa_kernel.readers import Status, make_reader
from tests._extract_fixtures import annual_cn, table_pdf

REPO = Path(__file__).resolve().parents[1]

PLAN = {
    "question": "test plan",
    "fields": [
        {
            "name": "total_operating_cost",
            "type": "number",
            "description": "营业总成本。",
            "question": "{symbol} {year} 营业总成本",
            "unit": "CNY",
        },
        {
            "name": "net_profit",
            "type": "number",
            "description": "净利润。",
            "question": "{symbol} {year} 净利润",
        },
        {
            "name": "accounting_firm",
            "type": "text",
            "description": "会计师事务所名称。",
            "question": "{symbol} 会计师事务所",
            "only": {"doctype": "年报"},
        },
    ],
}


def build(tmp_path: Path, n_docs: int = 3, extra: dict[str, Path] | None = None) -> Collection:
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    rows = ["doc_id,symbol,year,doctype"]
    for i in range(n_docs):
        annual_cn(pdfs / f"d{i}.pdf", current_left=i % 2 == 0)
        rows.append(f"d{i},60000{i},2022,年报")
    for name, src in (extra or {}).items():
        shutil.copy(src, pdfs / f"{name}.pdf")
        rows.append(f"{name},999999,2022,年报")
    (tmp_path / "meta.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return Collection.build(
        pdfs, metadata=tmp_path / "meta.csv", workspace=tmp_path / "ws", name="c", jobs=1, progress=False
    )


def test_run_rows_cells_and_reopen(tmp_path):
    coll = build(tmp_path)
    plan = Plan.from_dict(PLAN)
    result = extract(plan, coll, "table", progress=False)
    assert result.run["ran"] == 9 and result.missing == 0
    rows = result.rows
    assert rows.height == 3 and rows.schema["net_profit"] == pl.Float64
    assert rows.filter(pl.col("doc_id") == "d0")["total_operating_cost"][0] == pytest.approx(-9876543200.0)
    cells = result.cells
    assert (
        set(cells["status"]) == {"found"}
        and cells["page"].null_count() == 0
        and cells["snippet"].null_count() == 0
    )
    reopened = ExtractionResult.open(coll.workspace, plan, "c", "table")
    assert reopened.cells.drop("seconds").equals(cells.drop("seconds"))
    # a finished plan re-runs nothing
    again = extract(plan, coll, "table", progress=False)
    assert again.run["ran"] == 0 and again.run["skipped"] == 9


def test_changed_field_reruns_only_that_field(tmp_path):
    coll = build(tmp_path)
    extract(Plan.from_dict(PLAN), coll, "table", progress=False)
    changed = json.loads(json.dumps(PLAN))
    changed["fields"][1]["question"] = "{symbol} 的净利润是多少？"
    result = extract(Plan.from_dict(changed), coll, "table", progress=False)
    assert result.run["ran"] == 3 and result.run["skipped"] == 6


def test_bad_documents_become_error_rows_and_the_run_goes_on(tmp_path):
    enc = table_pdf(tmp_path / "enc.pdf", [[("营业总成本", "1", "2")]], cjk=True, encrypt="secret")
    scan = table_pdf(tmp_path / "scan.pdf", [[()]])
    coll = build(tmp_path, n_docs=1, extra={"encrypted": enc, "scanned": scan})
    result = extract(Plan.from_dict(PLAN), coll, "table", progress=False)
    cells = result.cells
    enc_cells = cells.filter(pl.col("doc_id") == "encrypted")
    assert set(enc_cells["status"]) == {"error"} and "password" in enc_cells["message"][0]
    scanned = cells.filter(pl.col("doc_id") == "scanned")
    assert set(scanned["status"]) == {"error"} and "OCR" in scanned["message"][0]  # says what to do
    assert set(cells.filter(pl.col("doc_id") == "d0")["status"]) == {"found"}


class Boom:
    name = "boom"

    def config(self):
        return {}

    def read(self, doc, field, question):
        if field.name == "net_profit":
            raise RuntimeError("reader bug")
        return make_reader("table").read(doc, field, question)


def test_reader_exception_is_a_row_and_is_retried_next_run(tmp_path):
    coll = build(tmp_path, n_docs=2)
    result = extract(Plan.from_dict(PLAN), coll, Boom(), progress=False)
    errors = result.cells.filter(pl.col("status") == "error")
    assert errors.height == 2 and "RuntimeError: reader bug" in errors["message"][0]
    assert extract(Plan.from_dict(PLAN), coll, Boom(), progress=False).run["ran"] == 2  # only the errors


def test_process_pool_executor(tmp_path):
    coll = build(tmp_path, n_docs=2)
    result = extract(Plan.from_dict(PLAN), coll, "table", jobs=2, progress=False)
    assert result.run["ran"] == 6 and set(result.cells["status"]) == {"found"}


SLEEPY = """
import os, time
from mdqa_kernel.readers.table.reader import TableReader

class Sleepy:
    name = "sleepy"
    def config(self):
        return {"v": 1}
    def read(self, doc, field, question):
        time.sleep(0.25)
        with open(os.environ["SLEEPY_LOG"], "a") as f:
            f.write(f"{doc.doc_id}|{field.name}\\n")
        return TableReader().read(doc, field, question)
"""

RUN = """
import sys
sys.path.insert(0, {tmp!r})
from sleepy import Sleepy
from mdqa_kernel.collection.collection import Collection
from mdqa_kernel.extract.run import extract
from mdqa_kernel.plan.ir import Plan
plan = Plan.from_dict({plan!r})
extract(plan, Collection.open({ws!r}, "c"), Sleepy(), progress=False)
"""


def _committed(ws: Path) -> set[tuple[str, str]]:
    import sqlite3

    con = sqlite3.connect(ws / "mdqa.sqlite")
    try:
        return set(con.execute("SELECT doc_id, field FROM extractions").fetchall())
    finally:
        con.close()


@pytest.mark.timeout(120)
def test_kill_minus_9_and_resume(tmp_path):
    coll = build(tmp_path, n_docs=4)  # 12 tasks, 0.25 s each
    (tmp_path / "sleepy.py").write_text(SLEEPY)
    script = RUN.format(tmp=str(tmp_path), plan=PLAN, ws=str(coll.workspace.path))
    env = {**os.environ, "SLEEPY_LOG": str(tmp_path / "first.log"), "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=REPO)
    deadline = time.time() + 60
    while len(_committed(coll.workspace.path)) < 4 and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _committed(coll.workspace.path)
    assert 4 <= len(before) < 12, "the kill should land mid-run"
    env["SLEEPY_LOG"] = str(tmp_path / "second.log")
    subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO, check=True)
    second = [tuple(x.split("|")) for x in (tmp_path / "second.log").read_text().split()]
    assert not set(second) & before, "a committed task ran again"
    after = _committed(coll.workspace.path)
    assert len(second) == len(set(second)) and before <= after
    assert len(after) == 12 and len(before) + len(second) == 12  # none lost, none run twice


# -- LLM reader orchestration with a fake client ----------------------------------------------------


class FakeClient:
    """Answers from a script; records prompts. `structured` mimics LLMClient.structured."""

    def __init__(self, answer=None, error: Exception | None = None):
        self.answer = answer or {}
        self.error = error
        self.prompts: list[str] = []

    def structured(self, prompt, schema, stage="default"):
        self.prompts.append(prompt)
        if self.error:
            raise self.error
        return schema.model_validate(self.answer)


def _llm_plan() -> Plan:
    return Plan.from_dict(
        {
            "question": "q",
            "fields": [
                {
                    "name": "net_profit",
                    "type": "number",
                    "description": "净利润。",
                    "question": "{symbol} {year} 净利润",
                },
                {
                    "name": "big4",
                    "type": "boolean",
                    "description": "是否为四大会计师事务所客户。",
                    "question": "四大？",
                },
            ],
        }
    )


def test_llm_quote_not_in_text_is_unsupported(tmp_path):
    coll = build(tmp_path, n_docs=1)
    client = FakeClient({"status": "found", "value": 246913.57, "page": 1, "quote": "净利润 999,999.99"})
    result = extract(_llm_plan(), coll, make_reader("llm", client=client, k=3), progress=False)
    cell = result.cells.filter(pl.col("field") == "net_profit").row(0, named=True)
    assert cell["supported"] is False and cell["confidence"] < 0.5 and "unsupported" in cell["message"]
    prompt = client.prompts[0]
    assert "fiscal year 2022" in prompt and "2021" in prompt  # the prior-year trap is named
    assert "{" not in prompt.split("Excerpts:")[0]  # no template syntax shown to the model


def test_llm_yes_without_the_topic_in_its_quote_is_unsupported_and_the_cascade_keeps_the_table(tmp_path):
    # The statement "环境保护" occurs nowhere, so the table reader says False (not confident); a small
    # model answers True quoting an unrelated line that does occur in the text.
    coll = build(tmp_path, n_docs=1)
    plan = Plan.from_dict({"question": "q", "fields": [
        {"name": "env", "type": "boolean", "description": "是否披露环境保护信息。", "question": "环境保护？"}]})  # fmt: skip
    off_topic = {
        "status": "found",
        "value": True,
        "page": 2,
        "quote": "本公司持续加强职工权益保护，依法签订劳动合同。",
    }
    llm = extract(plan, coll, make_reader("llm", client=FakeClient(off_topic), k=3), progress=False)
    cell = llm.cells.row(0, named=True)
    assert cell["supported"] is False and "环境保护信息" in cell["message"]
    cascade = make_reader("cascade", client=FakeClient(off_topic), k=3)
    cell = extract(plan, coll, cascade, progress=False).cells.row(0, named=True)
    assert json.loads(cell["value_json"]) is False and cell["reader"] == "table"
    # On topic, the same "yes" is supported.
    staff = Plan.from_dict({"question": "q", "fields": [
        {"name": "staff", "type": "boolean", "description": "是否披露职工权益保护。", "question": "职工？"}]})  # fmt: skip
    cell = extract(
        staff, coll, make_reader("llm", client=FakeClient(off_topic), k=3), progress=False
    ).cells.row(0, named=True)
    assert cell["supported"] is True and json.loads(cell["value_json"]) is True


def test_llm_supported_quote_gets_page_and_scale(tmp_path):
    coll = build(tmp_path, n_docs=1)
    client = FakeClient({"status": "found", "value": 246913.57, "page": 9, "quote": "净利润 246,913.57"})
    result = extract(_llm_plan(), coll, make_reader("llm", client=client, k=3), progress=False)
    cell = result.cells.filter(pl.col("field") == "net_profit").row(0, named=True)
    assert cell["supported"] is True and cell["page"] == 1  # the page of the chunk holding the quote
    assert json.loads(cell["value_json"]) == pytest.approx(246913.57 * 1e4)  # 单位：万元 on the page


def test_llm_timeout_is_an_error_row(tmp_path):
    from mdqa_kernel.llm import LLMTimeoutError

    coll = build(tmp_path, n_docs=1)
    client = FakeClient(error=LLMTimeoutError("no answer after 120 s"))
    cells = extract(_llm_plan(), coll, make_reader("llm", client=client), progress=False).cells
    assert set(cells["status"]) == {"error"} and "LLMTimeoutError" in cells["message"][0]


def test_cascade_calls_the_llm_only_where_the_table_is_not_confident(tmp_path):
    coll = build(tmp_path, n_docs=1)
    client = FakeClient({"status": "found", "value": True, "page": 2, "quote": "毕马威华振会计师事务所"})
    result = extract(_llm_plan(), coll, make_reader("cascade", client=client, k=3), progress=False)
    cells = {r["field"]: r for r in result.cells.iter_rows(named=True)}
    assert len(client.prompts) == 1 and "四大" in client.prompts[0]
    assert cells["net_profit"]["reader"] == "table" and cells["net_profit"]["llm_calls"] == 0
    assert (
        cells["big4"]["reader"] == "llm"
        and cells["big4"]["value"] == "True"
        and cells["big4"]["llm_calls"] == 1
    )


def test_statuses_are_plain_strings():
    assert Status.FOUND.value == "found" and json.dumps(Status.ABSENT) == '"absent"'


def test_cascade_does_not_answer_with_an_unsupported_guess(tmp_path):
    # The table reader finds no such row; the model "answers" quoting text that is not in the document.
    coll = build(tmp_path, n_docs=1)
    plan = Plan.from_dict({"question": "q", "fields": [
        {"name": "donation", "type": "number", "description": "对外捐赠总额", "question": "捐赠？"}]})  # fmt: skip
    guess = {"status": "found", "value": 123.0, "page": 1, "quote": "对外捐赠总额 123.00"}
    cell = extract(
        plan, coll, make_reader("cascade", client=FakeClient(guess), k=3), progress=False
    ).cells.row(0, named=True)
    assert cell["status"] == "not_found" and cell["value_json"] in (None, "null")
    assert "unsupported guess: 123.0" in cell["message"]


def test_a_worker_keeps_one_llm_reader_per_configuration():
    """Jobs reach a worker each with its own copy of the reader; an LLM reader is kept per configuration,
    so its client (and model) opens once per worker, not once per document."""
    import pickle

    from mdqa_kernel.extract.run import _worker_reader
    from mdqa_kernel.llm import LLMConfig

    reader = make_reader("cascade", llm_config=LLMConfig(backend="local-tiny"), k=2)
    first, second = (pickle.loads(pickle.dumps(reader)) for _ in range(2))
    assert first is not second and _worker_reader(first) is _worker_reader(second)
    other = make_reader("cascade", llm_config=LLMConfig(backend="local-tiny"), k=3)
    assert _worker_reader(pickle.loads(pickle.dumps(other))) is not _worker_reader(first)
    table = make_reader("table")
    assert _worker_reader(table) is table  # no model to keep


def test_the_label_caches_are_cleared_after_each_document(tmp_path):
    """A worker's memory must not grow with the documents it has read: the label caches that speed up
    reading one document's fields are emptied when the document is done."""
    from mdqa_kernel.text import labels, statement_context

    coll = build(tmp_path, n_docs=1)
    extract(Plan.from_dict(PLAN), coll, "table", progress=False)
    for cached in (labels.normalize_label, labels.label_score, statement_context._words):
        assert cached.cache_info().currsize == 0, cached
    assert labels.normalize_label("Total revenue") == "totalrevenue"  # and they still work


def test_a_value_read_under_the_review_floor_is_held_for_review_not_found(tmp_path):
    """A reading the reader itself rates under REVIEW_BELOW (here a number that only follows the label in
    a sentence, with no verb of being between) leaves the extraction as needs_review: its value and page
    are kept for the reviewer, the rows (what aggregation reads) leave it blank, and the review queue puts
    it first with the reason."""
    from mdqa_kernel.readers.confidence import REVIEW_BELOW
    from mdqa_kernel.rows.risk import risk_scores

    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    table_pdf(
        pdfs / "sure.pdf",
        [[("CONSOLIDATED STATEMENTS OF INCOME (In millions)",), ("", "2024", "2023"),
          ("Total revenue", "4,500", "4,100")]],
    )  # fmt: skip
    table_pdf(
        pdfs / "unsure.pdf",
        [[("A milestone is payable if total revenue for the acquired products exceeds $3.7 billion.",)]],
    )
    (tmp_path / "meta.csv").write_text("doc_id,year\nsure,2024\nunsure,2024\n", encoding="utf-8")
    coll = Collection.build(
        pdfs, metadata=tmp_path / "meta.csv", workspace=tmp_path / "ws", name="c", jobs=1, progress=False
    )
    plan = Plan.from_dict(
        {
            "question": "revenue",
            "fields": [
                {
                    "name": "revenue",
                    "type": "number",
                    "description": "Total revenue",
                    "question": "{doc_id} revenue",
                    "scale": 1e6,
                }
            ],
        }
    )
    result = extract(plan, coll, "table", progress=False)
    cells = {r["doc_id"]: r for r in result.cells.iter_rows(named=True)}
    assert cells["sure"]["status"] == "found" and cells["sure"]["confidence"] >= REVIEW_BELOW
    held = cells["unsure"]
    assert held["status"] == Status.NEEDS_REVIEW.value and held["confidence"] < REVIEW_BELOW
    assert json.loads(held["value_json"]) == pytest.approx(3700.0) and held["page"] == 1
    assert held["message"].startswith("needs review: confidence")
    rows = {r["doc_id"]: r["revenue"] for r in result.rows.iter_rows(named=True)}
    assert rows == {"sure": pytest.approx(4500.0), "unsure": None}
    assert result.summary()["needs_review"] == 1
    ranked = risk_scores(result.cells).sort("risk", descending=True)
    assert ranked["doc_id"][0] == "unsure" and "needs review" in ranked["reasons"][0]


def test_held_for_review_keeps_sure_values_and_other_statuses():
    from mdqa_kernel.readers import ReadResult, held_for_review

    def cell(status: Status, confidence: float) -> ReadResult:
        return ReadResult(doc_id="d", field="f", reader="r", status=status, value=1.0, confidence=confidence)

    assert held_for_review(cell(Status.FOUND, 0.5)).status == Status.FOUND  # at the floor: found
    low = held_for_review(cell(Status.FOUND, 0.3))
    assert low.status == Status.NEEDS_REVIEW and low.value == 1.0 and low.confidence == 0.3
    assert held_for_review(low) == low  # applying it twice changes nothing
    assert held_for_review(cell(Status.ABSENT, 0.2)).status == Status.ABSENT
    assert held_for_review(cell(Status.NOT_FOUND, 0.0)).status == Status.NOT_FOUND
