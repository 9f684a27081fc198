"""The Ray executor on a real local Ray instance (marked slow: starting Ray takes 10-20 s on 2 cores).

Ray workers are treated as if on other machines: jobs carry their parsed document, workers return their
cells and new LLM answers, and the driver commits them. The same run as with the local executors must
give the same cells, resume where it stopped, and keep a bad document's error rows.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

import polars as pl
import pytest
import ray  # make install puts it in .venv (extra "ray"): a missing Ray fails here, it is not skipped
import yaml
from click.testing import CliRunner

from mdqa_kernel.extract.executors import RayExecutor
from mdqa_kernel.extract.run import extract
from mdqa_kernel.plan.ir import Plan
from tests.test_extract import PLAN, build

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _cells(result) -> pl.DataFrame:
    columns = ["doc_id", "field", "status", "value", "confidence", "page"]
    # the messages name the PDF, whose folder differs between the two runs
    message = pl.col("message").str.replace_all(r"/[ab]/pdfs/", "/pdfs/")
    return result.cells.select(*columns, message).sort("doc_id", "field")


def _fails(job: int) -> int:
    if job == 2:
        raise ValueError(f"job {job} is bad")
    return job


@pytest.mark.timeout(300)
def test_ray_run_matches_the_inline_run_and_the_driver_commits(tmp_path, local_ray):
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.4 not really a pdf")
    plan = Plan.from_dict(PLAN)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    inline = extract(plan, build(tmp_path / "a", n_docs=3, extra={"bad": corrupt}), "table", progress=False)
    coll = build(tmp_path / "b", n_docs=3, extra={"bad": corrupt})
    away = extract(plan, coll, "table", executor=RayExecutor(workers=2), progress=False)
    assert away.run["ran"] == inline.run["ran"] == 12  # 4 documents × 3 fields
    assert _cells(away).equals(_cells(inline))
    bad = away.cells.filter(pl.col("doc_id") == "bad")
    assert set(bad["status"]) == {"error"} and bad["message"][0]  # the reason, not a crash
    con = sqlite3.connect(tmp_path / "b" / "ws" / "mdqa.sqlite")
    try:  # every cell is in the driver's workspace, read back from there
        assert con.execute("SELECT COUNT(*) FROM extractions").fetchone()[0] == 12
    finally:
        con.close()
    again = extract(plan, coll, "table", executor=RayExecutor(workers=2), progress=False)
    assert again.run["ran"] == 3 and again.run["skipped"] == 9  # the bad document's 3 error rows are retried
    assert _cells(again).equals(_cells(away))


def test_a_jobs_exception_comes_back_as_itself(local_ray):
    with pytest.raises(ValueError, match="job 2 is bad"):
        list(RayExecutor(workers=2).map_unordered(_fails, range(5)))
    assert sorted(RayExecutor(workers=2).map_unordered(_fails, [0, 1, 3])) == [0, 1, 3]


def test_the_executor_leaves_a_ray_instance_it_did_not_start_running(local_ray):
    list(RayExecutor().map_unordered(_fails, [1]))
    assert ray.is_initialized()


def test_cli_extract_on_ray(tmp_path, local_ray):
    from mdqa_kernel.cli.main import main

    coll = build(tmp_path, n_docs=2)
    plan = tmp_path / "plan.yaml"
    plan.write_text(yaml.safe_dump(PLAN, allow_unicode=True), encoding="utf-8")
    ws = str(coll.workspace.path)
    args = ["extract", "--workspace", ws, "--collection", "c", "--plan", str(plan), "--reader", "table"]
    done = CliRunner().invoke(main, [*args, "--executor", "ray", "--jobs", "2", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output.strip().splitlines()[-1])["found"] == 6
    wrong = CliRunner().invoke(main, [*args, "--ray-address", "auto"])
    assert wrong.exit_code != 0 and "--ray-address needs --executor ray" in wrong.output


@pytest.mark.timeout(300)
def test_collection_build_on_ray_matches_the_local_build_and_resumes(tmp_path, local_ray):
    """The parsers run as Ray tasks on shipped bytes; the driver writes every parse into its workspace."""
    from mdqa_kernel.collection.collection import Collection
    from mdqa_kernel.examples import make_example_pdfs

    meta = make_example_pdfs(tmp_path / "ex")
    pdfs = tmp_path / "ex" / "pdfs"
    here = Collection.build(pdfs, metadata=meta, workspace=tmp_path / "a", jobs=1, progress=False)
    away = Collection.build(
        pdfs, metadata=meta, workspace=tmp_path / "b", progress=False, executor=RayExecutor(workers=2)
    )
    columns = ["doc_id", "status", "error_kind", "n_pages", "sha256"]
    assert away.documents.select(columns).equals(here.documents.select(columns))
    for doc_id in away.documents["doc_id"]:
        assert away.words(doc_id).equals(here.words(doc_id)), doc_id
    again = Collection.build(
        pdfs, metadata=meta, workspace=tmp_path / "b", progress=False, executor=RayExecutor(workers=2)
    )
    assert again.last_build is not None and (again.last_build.parsed, again.last_build.cached) == (0, 6)


def test_cli_collection_build_on_ray(tmp_path, local_ray):
    from mdqa_kernel.cli.main import main
    from mdqa_kernel.examples import make_example_pdfs

    meta = make_example_pdfs(tmp_path / "ex")
    args = ["collection", "build", str(tmp_path / "ex" / "pdfs"), "--metadata", str(meta)]
    args += ["--workspace", str(tmp_path / "ws")]
    done = CliRunner().invoke(main, [*args, "--executor", "ray", "--jobs", "2", "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output.strip().splitlines()[-1])
    assert report["summary"]["last_build"]["parsed"] == 6 and report["summary"]["by_status"] == {"ok": 6}
    wrong = CliRunner().invoke(main, [*args, "--ray-address", "auto"])
    assert wrong.exit_code != 0 and "--ray-address needs --executor ray" in wrong.output


@pytest.mark.llm
@pytest.mark.timeout(600)
def test_llm_answers_asked_away_reach_the_drivers_cache(tmp_path):
    """A worker away asks the real model through a scratch workspace; its answers come back with the job
    and land in the driver's LLM cache, so a later run here asks nothing."""
    from mdqa_kernel.extract.run import Job, commit_returned, load_view, run_job
    from mdqa_kernel.extract.tasks import plan_tasks
    from mdqa_kernel.llm import LLMConfig
    from mdqa_kernel.readers import make_reader
    from tests.test_llm_local import model_path

    model_path("qwen2.5-coder-0.5b-instruct-q4_k_m")
    config = LLMConfig.from_env(backend="local-tiny", n_ctx=2048, max_tokens=64)  # threads: conftest
    coll = build(tmp_path, n_docs=1)
    plan = Plan.from_dict({"question": "q", "fields": [PLAN["fields"][1]]})
    reader = make_reader("llm", llm_config=config, workspace=str(coll.workspace.path), k=2)
    tasks, docs = plan_tasks(plan, coll.documents, reader)
    fields = [f.model_dump(mode="json") for f in plan.fields]
    job = Job(str(coll.workspace.path), "c", docs["d0"], fields, tasks, reader, away=True)
    job.view = load_view(job)
    outcome = run_job(job)
    assert outcome.llm_calls == 1 and len(outcome.cells) == 1 and len(outcome.llm_answers) == 1
    ws = coll.workspace
    assert ws.query("SELECT COUNT(*) AS n FROM llm_cache")[0]["n"] == 0  # the worker did not write here
    commit_returned(ws, outcome, docs["d0"].get("sha256"))
    assert ws.query("SELECT COUNT(*) AS n FROM extractions")[0]["n"] == 1
    assert ws.query("SELECT key FROM llm_cache")[0]["key"] == outcome.llm_answers[0]["key"]
    # the same cell read again here, on the driver's workspace: answered from the cache the worker filled
    with ws.transaction() as conn:
        conn.execute("DELETE FROM extractions")
    here = make_reader("llm", llm_config=config, workspace=str(ws.path), k=2)
    again = extract(plan, coll, here, progress=False)
    calls = ws.query("SELECT cache_hit FROM llm_calls")
    assert again.run["ran"] == 1 and [c["cache_hit"] for c in calls] == [1]  # no paid call here
    assert json.loads(again.cells["value_json"][0]) == outcome.cells[0][1].value
