"""Collection: build from a folder + metadata, per-document errors, caching, filters, accessors."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.collection.collection import (
    Collection,
    CollectionError,
    CollectionNotFoundError,
    DocumentNotFoundError,
)
from mdqa_kernel.collection.metadata import MetadataError
from mdqa_kernel.errors import UnknownNameError
from mdqa_kernel.examples import make_example_pdfs
from mdqa_kernel.parsing import cache as parse_cache
from tests._pdfs import bad_corpus, text_pdf


def _write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


@pytest.fixture
def bad_collection(tmp_path: Path) -> Collection:
    files = bad_corpus(tmp_path / "pdfs")
    text_pdf(tmp_path / "pdfs" / "orphan.pdf", [["No metadata row names me"]])
    rows = [[p.name, kind, "000123", 2021] for kind, p in files.items()]
    rows += [
        ["missing.pdf", "missing", "000124", 2022],
        ["good.pdf", "dup", "1", 2021],
        ["good_zh.pdf", "dup", "2", 2022],
    ]
    meta = _write_csv(tmp_path / "meta.csv", ["file", "doc_id", "symbol", "year"], rows)
    return Collection.build(
        tmp_path / "pdfs", metadata=meta, workspace=tmp_path / "ws", jobs=1, progress=False
    )


def test_bad_input_becomes_per_document_status(bad_collection: Collection) -> None:
    docs = {r["doc_id"]: r for r in bad_collection.documents.iter_rows(named=True)}
    expected = {
        "good": ("ok", None),
        "good_zh": ("ok", None),
        "not_pdf": ("error", "not_pdf"),
        "empty": ("error", "empty"),
        "truncated": ("error", "corrupt"),
        "encrypted": ("error", "encrypted"),
        "zero_pages": ("error", "no_pages"),
        "scanned": ("error", "scanned_pages"),
        "half_scanned": ("partial", "scanned_pages"),
        "missing": ("error", "missing_file"),
        "dup": ("error", "duplicate_id"),
        "orphan": ("error", "no_metadata_row"),
    }
    assert {k: (v["status"], v["error_kind"]) for k, v in docs.items()} == expected
    assert "missing.pdf" in docs["missing"]["message"] and "meta.csv row 10" in docs["missing"]["message"]
    assert "rows 11, 12" in docs["dup"]["message"] and "unique" in docs["dup"]["message"]
    assert "orphan.pdf" in docs["orphan"]["message"] and "add a row" in docs["orphan"]["message"]
    assert "password" in docs["encrypted"]["message"] and "encrypted.pdf" in docs["encrypted"]["message"]
    assert docs["good"]["n_pages"] == 2 and docs["good_zh"]["language"] == "zh"
    assert bad_collection.last_build is not None and bad_collection.last_build.not_parsed == 3


def test_metadata_types_survive_reopen(bad_collection: Collection) -> None:
    again = Collection.open(bad_collection.workspace, "default")
    assert again.documents.equals(bad_collection.documents)
    schema = again.documents.schema
    assert schema["symbol"] == pl.String and schema["year"] == pl.Int64
    assert again.documents.filter(doc_id="good")["symbol"][0] == "000123"  # leading zeros kept
    assert list(again.documents.columns[:8]) == [
        "doc_id",
        "path",
        "sha256",
        "n_pages",
        "language",
        "status",
        "error_kind",
        "message",
    ]


def test_accessors(bad_collection: Collection) -> None:
    assert bad_collection.pages("good")["page"].to_list() == [1, 2]
    assert "Revenue 1,234 1,100" in bad_collection.chunks("good").filter(kind="table_row")["text"].to_list()
    assert bad_collection.words("good_zh")["text"][0] == "营业收入"
    assert bad_collection.tables("good", 1) == []
    with pytest.raises(DocumentNotFoundError, match="password-protected"):
        bad_collection.pages("encrypted")
    with pytest.raises(DocumentNotFoundError, match="no document 'nope'") as caught:
        bad_collection.chunks("nope")
    # One error family for unknown names: caught as UnknownNameError and KeyError, message unquoted.
    assert isinstance(caught.value, UnknownNameError) and isinstance(caught.value, KeyError)
    assert str(caught.value).startswith("no document 'nope'")


def test_wrong_metadata_columns_raise(tmp_path: Path) -> None:
    (tmp_path / "pdfs").mkdir()
    meta = _write_csv(tmp_path / "m.csv", ["company", "year"], [["A", 2021]])
    with pytest.raises(MetadataError) as info:
        Collection.build(tmp_path / "pdfs", metadata=meta, workspace=tmp_path / "ws", progress=False)
    message = str(info.value)
    assert (
        "m.csv" in message and "['company', 'year']" in message and "doc_id" in message and "file" in message
    )


def test_missing_folder_and_collection(tmp_path: Path) -> None:
    with pytest.raises(CollectionError, match="does not exist"):
        Collection.build(tmp_path / "nowhere", workspace=tmp_path / "ws", progress=False)
    with pytest.raises(CollectionNotFoundError, match="no collection 'x'"):
        Collection.open(tmp_path / "ws", "x")


@pytest.fixture
def example(tmp_path: Path) -> tuple[Path, Path]:
    meta = make_example_pdfs(tmp_path / "ex")
    return tmp_path / "ex" / "pdfs", meta


def test_cache_rebuild_parses_nothing_and_new_files_only(tmp_path: Path, example: tuple[Path, Path]) -> None:
    pdf_dir, meta = example
    first = Collection.build(pdf_dir, metadata=meta, workspace=tmp_path / "ws", jobs=1, progress=False)
    assert first.last_build is not None and (first.last_build.parsed, first.last_build.cached) == (6, 0)
    second = Collection.build(pdf_dir, metadata=meta, workspace=tmp_path / "ws", jobs=1, progress=False)
    assert second.last_build is not None and (second.last_build.parsed, second.last_build.cached) == (0, 6)
    text_pdf(pdf_dir / "new_doc.pdf", [["Total revenue 1 2"]])
    with open(meta, "a", encoding="utf-8") as f:
        f.write("new_doc,New Co,NEWC,2023,10-K\n")
    third = Collection.build(pdf_dir, metadata=meta, workspace=tmp_path / "ws", jobs=1, progress=False)
    assert third.last_build is not None and (third.last_build.parsed, third.last_build.cached) == (1, 6)
    assert third.documents.height == 7 and third.documents["status"].to_list() == ["ok"] * 7


def test_interrupted_build_keeps_finished_parses(
    tmp_path: Path, example: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf_dir, meta = example
    real, calls = parse_cache.parse_pdf, []

    def dies_on_third(path: str, sha256: str | None = None):  # type: ignore[no-untyped-def]
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(path, sha256=sha256)

    monkeypatch.setattr(parse_cache, "parse_pdf", dies_on_third)
    with pytest.raises(KeyboardInterrupt):
        Collection.build(pdf_dir, metadata=meta, workspace=tmp_path / "ws", jobs=1, progress=False)
    monkeypatch.setattr(parse_cache, "parse_pdf", real)
    pending = Collection.open(tmp_path / "ws")
    assert pending.documents["status"].to_list().count("pending") == 4
    resumed = Collection.build(pdf_dir, metadata=meta, workspace=tmp_path / "ws", jobs=1, progress=False)
    assert resumed.last_build is not None and (resumed.last_build.parsed, resumed.last_build.cached) == (4, 2)


def test_parallel_build(tmp_path: Path, example: tuple[Path, Path]) -> None:
    pdf_dir, meta = example
    coll = Collection.build(pdf_dir, metadata=meta, workspace=tmp_path / "ws", jobs=2, progress=False)
    assert coll.last_build is not None and coll.last_build.parsed == 6
    assert coll.documents["status"].to_list() == ["ok"] * 6


def test_unguarded_script_gets_a_message_that_names_the_fix(
    tmp_path: Path, example: tuple[Path, Path]
) -> None:
    """Worker processes import a script again: without a main guard every worker dies. The build must
    still finish, with error rows that say what to do, and a guarded re-run must parse everything."""
    pdf_dir, meta = example
    body = (
        "from mdqa_kernel.collection.collection import Collection\n"
        f"coll = Collection.build({str(pdf_dir)!r}, metadata={str(meta)!r}, workspace={str(tmp_path / 'ws')!r},"
        " jobs=2, progress=False)\n"
        "print('STATUS', sorted(set(coll.documents['status'].to_list())))\n"
        "print('MESSAGE', coll.documents['message'][0])\n"
    )
    script = tmp_path / "build_it.py"
    script.write_text(body)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    out = run.stdout
    assert "STATUS ['error']" in out and "build_it.py under `if __name__" in out, run.stderr[-2000:]
    guarded = "def main():\n" + "".join(f"    {line}\n" for line in body.splitlines())
    script.write_text(guarded + "if __name__ == '__main__':\n    main()\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert "STATUS ['ok']" in run.stdout, run.stderr[-2000:]  # crashes were not cached


def test_where_and_display(tmp_path: Path, example: tuple[Path, Path]) -> None:
    pdf_dir, meta = example
    coll = Collection.build(pdf_dir, metadata=meta, workspace=tmp_path / "ws", jobs=1, progress=False)
    assert coll.where(year=2021).doc_ids == ["cn_bank_a_2021", "cn_bank_b_2021"]
    assert coll.where(doctype=["10-K"], year=[2022, 2023]).doc_ids == [
        "us_alpha_2022",
        "us_beta_2022",
        "us_gamma_2023",
    ]
    assert len(coll.where(pl.col("year") > 2021, doctype="A股年报")) == 1
    sub = coll.where(pl.col("year") > 2021)
    assert sub.workspace is coll.workspace and sub.spec["filters"]
    with pytest.raises(CollectionError, match="no column 'sector'"):
        coll.where(sector="banks")
    html = coll._repr_html_()
    assert "ok: 6" in html and "A股年报: 3" in html and "cn_bank_a_2021" in html
    d = coll.describe()
    assert d["by_status"] == {"ok": 6} and d["by_year"] == {2021: 2, 2022: 3, 2023: 1} and d["pages"] == 6


def test_id_only_metadata_and_json(tmp_path: Path, example: tuple[Path, Path]) -> None:
    pdf_dir, _ = example
    meta = tmp_path / "m.json"
    pl.DataFrame({"id": ["us_alpha_2022", "us_beta_2022"], "year": [2022, 2022]}).write_json(meta)
    coll = Collection.build(
        pdf_dir, metadata=meta, workspace=tmp_path / "ws", name="two", jobs=1, progress=False
    )
    ok = coll.where(status="ok")
    assert ok.doc_ids == ["us_alpha_2022", "us_beta_2022"]
    assert set(coll.where(error_kind="no_metadata_row").doc_ids) == {
        "cn_bank_a_2021",
        "cn_bank_b_2021",
        "cn_bank_c_2022",
        "us_gamma_2023",
    }
    assert Collection.names(tmp_path / "ws") == ["two"]


def test_from_mudabench(tmp_path: Path) -> None:
    pdf_dir = tmp_path / "pdfs"
    pdf_dir.mkdir()
    records = [
        {
            "question": "q1",
            "metadata": [
                {
                    "id": "a-1",
                    "symbol": "002142",
                    "year": 2021,
                    "doctype": "A股年报",
                    "value_x": 1.5,
                    "schema": {"value_x": "x"},
                },
                {
                    "id": "b-2",
                    "symbol": "601166",
                    "year": 2021,
                    "doctype": "A股年报",
                    "value_x": 2.5,
                    "schema": {"value_x": "x"},
                },
            ],
        },
        {
            "question": "q2",
            "metadata": [{"id": "a-1", "symbol": "002142", "year": 2021, "doctype": "A股年报"}],
        },
    ]
    text_pdf(pdf_dir / "a-1.pdf", [["资本充足率 15.44% 14.80%"]], cjk=True)
    shutil.copy(pdf_dir / "a-1.pdf", pdf_dir / "b-2.pdf")
    coll = Collection.from_mudabench(records, pdf_dir, workspace=tmp_path / "ws", jobs=1, progress=False)
    assert coll.documents.columns[8:] == ["symbol", "year", "doctype"]
    assert coll.doc_ids == ["a-1", "b-2"] and coll.documents["symbol"].to_list() == ["002142", "601166"]
    assert coll.last_build is not None and coll.last_build.parsed == 1  # identical files are parsed once
    with pytest.raises(MetadataError, match="no 'metadata' list"):
        Collection.from_mudabench([{"question": "q"}], pdf_dir, workspace=tmp_path / "ws", progress=False)


def _build_bad(tmp_path: Path, executor: object | None) -> Collection:
    files = bad_corpus(tmp_path / "pdfs")
    rows = [[p.name, kind, "000123", 2021] for kind, p in files.items()]
    rows.append(["missing.pdf", "missing", "000124", 2022])
    meta = _write_csv(tmp_path / "meta.csv", ["file", "doc_id", "symbol", "year"], rows)
    return Collection.build(
        tmp_path / "pdfs", metadata=meta, workspace=tmp_path / "ws", jobs=1, progress=False, executor=executor
    )


def test_a_build_through_an_executor_ships_bytes_and_matches_the_local_build(tmp_path: Path) -> None:
    """The path of an executor whose workers may be elsewhere (Ray): the driver reads each file and
    ships its bytes, the worker parses them, the driver writes the parse. Run here through the inline
    executor; statuses, messages and parsed words must equal the local build's."""
    from mdqa_kernel.extract.executors import InlineExecutor

    local = _build_bad(tmp_path / "a", None)
    shipped = _build_bad(tmp_path / "b", InlineExecutor())

    def docs(coll: Collection) -> dict[str, tuple[object, ...]]:
        return {
            r["doc_id"]: (r["status"], r["error_kind"], r["n_pages"], r["message"].replace("/b/", "/a/"))
            for r in coll.documents.iter_rows(named=True)
        }

    assert docs(shipped) == docs(local)
    assert docs(shipped)["encrypted"][1] == "encrypted" and docs(shipped)["missing"][1] == "missing_file"
    for doc_id in ("good", "good_zh", "half_scanned"):
        assert shipped.words(doc_id).equals(local.words(doc_id)), doc_id
    runs = shipped.workspace.query("SELECT config FROM runs WHERE kind = 'collection build'")
    assert '"executor": "inline"' in runs[-1]["config"]


def test_bytes_read_for_shipping_refuse_what_a_build_refuses(tmp_path: Path) -> None:
    import hashlib
    import os

    from mdqa_kernel.parsing.pdf import ParseResult, parse_pdf_bytes, read_pdf_bytes

    good = text_pdf(tmp_path / "good.pdf", [["Total revenue 1,234"]])
    sha = hashlib.sha256(good.read_bytes()).hexdigest()
    data = read_pdf_bytes(good, sha256=sha)
    assert isinstance(data, bytes)
    assert parse_pdf_bytes(data, str(good), sha256=sha).status == "ok"
    changed = parse_pdf_bytes(data + b"\n%", str(good), sha256=sha)
    assert changed.error_kind == "changed" and str(good) in changed.message
    os.mkfifo(tmp_path / "fifo.pdf")
    fifo = read_pdf_bytes(tmp_path / "fifo.pdf")
    assert isinstance(fifo, ParseResult) and fifo.error_kind == "not_a_file"
    (tmp_path / "link.pdf").symlink_to(good)
    link = read_pdf_bytes(tmp_path / "link.pdf", sha256=sha)  # a checked file that became a link
    assert isinstance(link, ParseResult) and link.error_kind == "changed"
