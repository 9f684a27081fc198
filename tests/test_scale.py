"""The scale benchmark: the collection generator (distinct bytes, hashes and metadata; page counts),
process-tree memory sampling, and one tiny measured size end to end (build and extract as commands)."""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.benchmarks.chaos import make_filings
from mdqa_kernel.benchmarks.scale import (
    ScaleError,
    Source,
    _stem_year,
    goal,
    make_collection,
    measure,
    page_count,
    pdf_sources,
    plan_copies,
    scale,
    write_report,
)
from mdqa_kernel.parsing.pdf import parse_pdf


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[Source]:
    pdfs, _ = make_filings(tmp_path_factory.mktemp("filings"), 3)
    return pdf_sources(pdfs)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_copies_have_distinct_bytes_and_metadata_and_the_same_pages(
    sources: list[Source], tmp_path: Path
) -> None:
    gen = make_collection(tmp_path / "c", 8, sources, tmp_path / "pool")
    files = sorted(gen.pdfs.glob("*.pdf"))
    assert gen.documents == len(files) == 8  # one page each, cycling over the 3 sources
    assert gen.pages == 8
    assert len({_sha(f) for f in files}) == 8  # the parse cache cannot dedupe copies
    meta = pl.read_csv(gen.metadata)
    assert meta["doc_id"].n_unique() == meta["company"].n_unique() == 8
    assert sorted(f"{d}.pdf" for d in meta["doc_id"]) == [f.name for f in files]
    for f in files[:3]:  # the appended comment leaves the document readable, page for page
        parsed = parse_pdf(f)
        assert parsed.status == "ok" and parsed.n_pages == page_count(f) == 1
        source = next(s for s in sources if f.name.startswith(s.doc_name))
        assert parsed.pages["text"].to_list() == parse_pdf(source.path).pages["text"].to_list()


def test_a_smaller_size_is_a_prefix_of_a_larger_one_and_shares_the_pool(
    sources: list[Source], tmp_path: Path
) -> None:
    small = plan_copies(sources, 4)
    big = plan_copies(sources, 10)
    assert big[: len(small)] == small
    pool = tmp_path / "pool"
    a = make_collection(tmp_path / "a", 4, sources, pool)
    b = make_collection(tmp_path / "b", 10, sources, pool)
    first = sorted(a.pdfs.glob("*.pdf"))[0]
    assert (b.pdfs / first.name).stat().st_ino == first.stat().st_ino  # hard links: written once
    assert len(list(pool.glob("*.pdf"))) == 10


def test_pages_are_reached_with_multi_page_sources(tmp_path: Path, sources: list[Source]) -> None:
    many = [Source(s.path, s.doc_name, s.company, s.doc_type, s.year, s.sector, pages)
            for s, pages in zip(sources, (7, 120, 30), strict=True)]  # fmt: skip
    chosen = plan_copies(many, 300)
    total = sum(s.pages for _, s in chosen)
    assert total >= 300 and total - chosen[-1][1].pages < 300  # stops at the first copy past the size
    with pytest.raises(ScaleError, match="no pages"):
        plan_copies(
            [Source(s.path, s.doc_name, s.company, s.doc_type, s.year, s.sector, 0) for s in sources], 5
        )


def test_measure_sees_the_peak_memory_of_a_child_process(tmp_path: Path) -> None:
    code = (
        "import multiprocessing as mp, time\n"
        "def hold():\n    b = bytearray(120 * 2**20); b[::4096] = b'x' * len(b[::4096]); time.sleep(1.0)\n"
        "if __name__ == '__main__':\n"
        "    p = mp.get_context('spawn').Process(target=hold); p.start(); p.join()\n"
    )
    script = tmp_path / "child.py"
    script.write_text(code)
    usage = measure([sys.executable, str(script)], tmp_path / "log", interval=0.05)
    children = {pid: kb for pid, kb in usage.peak_kb.items() if usage.roles[pid] != "parent"}
    assert max(children.values()) >= 120 * 1024  # the child's 120 MB, seen through VmHWM
    assert usage.by_role()["parent"] < 100 * 1024
    assert usage.peak_total_kb >= 120 * 1024
    with pytest.raises(ScaleError, match="failed"):
        measure([sys.executable, "-c", "raise SystemExit(3)"], tmp_path / "log")


def test_one_tiny_size_end_to_end(sources: list[Source], tmp_path: Path) -> None:
    t0 = time.perf_counter()
    rows = tmp_path / "rows.jsonl"
    table = scale(tmp_path, [6], jobs=2, sources=sources, rows_file=rows, log=lambda _: None)
    assert time.perf_counter() - t0 < 60
    row = table.row(0, named=True)
    assert (row["documents"], row["pages"]) == (6, 6)
    assert row["cells"] == 6 * 3 and row["cells_found"] > 0  # three fields per filing
    assert row["build_s"] > 0 and row["pages_per_s"] > 0 and row["cells_per_s"] > 0
    assert row["workspace_mb"] > 0
    assert row["build_parent_mb"] > 20 and row["extract_parent_mb"] > 20
    assert row["extract_workers"] == 2 and row["extract_worker_mb"] > 20  # --jobs 2: two pool workers
    # the extract pool's workers live for the whole run, so sampling sees them (a tiny build's may not)
    assert {p["role"] for p in row["processes"]["extract"]} >= {"parent", "worker"}
    assert "parent" in {p["role"] for p in row["processes"]["build"]}
    verdict = goal(table)
    assert verdict["measured"] and not verdict["goal_size_run"] and not verdict["time_goal_met"]

    # measured sizes are kept: a second call reuses the row; a size past the deadline is not started
    again = scale(
        tmp_path, [6, 60], jobs=2, sources=sources, rows_file=rows, deadline=time.time(), log=lambda _: None
    )
    assert again.height == 2 and again["ran"].to_list() == [True, False]
    assert again.row(0, named=True)["build_s"] == row["build_s"]
    assert again.row(1, named=True)["predicted_s"] > 0
    paths = write_report(again, tmp_path / "report")
    assert Path(paths["png"]).stat().st_size > 1000 and Path(paths["svg"]).is_file()
    md = Path(paths["md"]).read_text()
    assert md.count("\n") == 3 and "| local | 6 | 6 |" in md  # header, rule, the one measured size
    assert pl.read_csv(paths["csv"]).height == 1


def test_reproduce_knows_scale_and_passes_its_out_dir_and_budget(tmp_path: Path) -> None:
    from mdqa_kernel.benchmarks.reproduce import listing
    from mdqa_kernel.benchmarks.reproduce_cli import _plain_parameters

    scale_nb = next(item for item in listing() if item["name"] == "scale")
    assert scale_nb["exists"] and scale_nb["notebook"].endswith("scale.ipynb")
    params = _plain_parameters("scale", str(tmp_path), 30.0)
    assert params == {"out_dir": str((tmp_path / "scale").resolve()), "max_minutes": 30.0}
    assert _plain_parameters("chaos", str(tmp_path), 30.0) is None


def test_a_bare_folder_dates_each_file_by_its_name() -> None:
    """A folder without metadata: the one year a file name names, else none (a made-up year dated
    every column of the filings to another period, and their readings were dropped)."""
    assert _stem_year("cn_bank_a_2021_00000") == 2021
    assert _stem_year("annual_report") is None
    assert _stem_year("compare_2021_2022") is None
