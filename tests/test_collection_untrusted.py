"""Documents as untrusted input: links and metadata paths out of the PDF folder are refused unopened,
and every odd entry (dangling link, loop, FIFO, socket, folder named x.pdf) gets a status row."""

from __future__ import annotations

import csv
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.collection.collection import Collection
from mdqa_kernel.collection.metadata import DocEntry, plan_documents
from mdqa_kernel.parsing import cache as parse_cache
from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.store import open_workspace, sha256_file
from tests._pdfs import text_pdf

SECRET = "TOPSECRET-do-not-echo"


def _secret(tmp_path: Path) -> Path:
    """A private file outside the PDF folder; its bytes must never appear in a status message."""
    outside = tmp_path / "private"
    outside.mkdir()
    secret = outside / "passwd"
    secret.write_text(f"{SECRET}:x:0:0:root:/root:/bin/bash\n")
    return secret


def _statuses(coll: Collection) -> dict[str, tuple[str, str | None]]:
    return {r["doc_id"]: (r["status"], r["error_kind"]) for r in coll.documents.iter_rows(named=True)}


def _build(pdf_dir: Path, ws: Path, metadata: Path | None = None) -> Collection:
    return Collection.build(pdf_dir, metadata=metadata, workspace=ws, jobs=1, progress=False)


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    """A folder with one good PDF and one of each kind of trouble a file system can hold."""
    secret = _secret(tmp_path)
    outside_pdf = text_pdf(tmp_path / "private" / "elsewhere.pdf", [["Revenue 1 2"]])
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    text_pdf(pdfs / "good.pdf", [["Revenue 1,234 1,100"]])
    (pdfs / "sub").mkdir()
    text_pdf(pdfs / "sub" / "inner.pdf", [["Revenue 5 6"]])
    os.symlink(secret, pdfs / "passwd_link.pdf")  # a link to a private file
    os.symlink(outside_pdf, pdfs / "outside_link.pdf")  # a real PDF, but outside the folder
    os.symlink("sub/inner.pdf", pdfs / "inside_link.pdf")  # a link that stays inside: fine
    os.symlink(pdfs / "gone.pdf", pdfs / "dangling.pdf")
    os.symlink("loop.pdf", pdfs / "loop.pdf")
    os.mkfifo(pdfs / "fifo.pdf")
    (pdfs / "folder.pdf").mkdir()
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(pdfs / "sock.pdf"))
    (pdfs / "notes.txt").write_text("not a document name: left alone")
    return pdfs


def test_every_hostile_entry_gets_a_status_and_the_build_does_not_hang(
    tmp_path: Path, hostile_folder: Path
) -> None:
    # In a child process with a timeout: a FIFO that is opened would block the build forever.
    script = (
        "import json, sys\n"
        "from mdqa_kernel.collection.collection import Collection\n"
        f"c = Collection.build({str(hostile_folder)!r}, workspace={str(tmp_path / 'ws')!r}, jobs=1,"
        " progress=False)\n"
        "print(json.dumps(c.documents.select('doc_id','status','error_kind','message','path').to_dicts()))\n"
    )
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert time.perf_counter() - t0 < 120
    coll = Collection.open(tmp_path / "ws")
    assert _statuses(coll) == {
        "dangling": ("error", "dangling_symlink"),
        "fifo": ("error", "special_file"),
        "folder": ("error", "not_a_file"),
        "good": ("ok", None),
        "inside_link": ("ok", None),
        "loop": ("error", "symlink_loop"),
        "outside_link": ("error", "outside_folder"),
        "passwd_link": ("error", "outside_folder"),
        "sock": ("error", "special_file"),
    }
    docs = {r["doc_id"]: r for r in coll.documents.iter_rows(named=True)}
    for doc_id, doc in docs.items():
        assert SECRET not in (doc["message"] or "")
        if doc["status"] == "error":  # a refused file keeps no path: nothing later opens it
            assert doc["path"] is None and doc_id in doc["message"], doc
    assert "outside the PDF folder" in docs["passwd_link"]["message"]
    assert "private" not in docs["passwd_link"]["message"]  # where a link points is not revealed
    assert "FIFO" in docs["fifo"]["message"] and "folder" in docs["folder"]["message"]
    assert "sub" not in docs and "notes" not in docs


def test_metadata_rows_that_leave_the_folder_are_refused_unparsed(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    pdfs = tmp_path / "a" / "b" / "pdfs"
    pdfs.mkdir(parents=True)
    text_pdf(pdfs / "good.pdf", [["Revenue 1,234 1,100"]])
    (pdfs / "sub").mkdir()
    text_pdf(pdfs / "sub" / "inner.pdf", [["Revenue 5 6"]])
    os.mkfifo(pdfs / "fifo.pdf")
    relative = os.path.relpath(secret, pdfs)  # ../../../private/passwd
    meta = tmp_path / "meta.csv"
    with open(meta, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["file", "doc_id", "year"])
        w.writerows(
            [
                ["good.pdf", "good", 2021],
                [relative, "relative", 2021],
                [str(secret), "absolute", 2021],
                ["sub/../sub/inner.pdf", "inner", 2021],  # '..' that stays inside: fine
                ["fifo.pdf", "fifo", 2021],
            ]
        )
    coll = _build(pdfs, tmp_path / "ws", meta)
    assert _statuses(coll) == {
        "good": ("ok", None),
        "relative": ("error", "outside_folder"),
        "absolute": ("error", "outside_folder"),
        "inner": ("ok", None),
        "fifo": ("error", "special_file"),
    }
    docs = {r["doc_id"]: r for r in coll.documents.iter_rows(named=True)}
    assert "meta.csv row 2" in docs["relative"]["message"] and "meta.csv row 3" in docs["absolute"]["message"]
    assert all(SECRET not in (d["message"] or "") for d in docs.values())
    assert coll.last_build is not None and coll.last_build.parsed == 2 and coll.last_build.not_parsed == 3


def test_parse_pdf_never_opens_a_fifo_nor_echoes_bytes(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.pdf")
    script = (
        "from mdqa_kernel.parsing.pdf import parse_pdf\n"
        f"r = parse_pdf({str(tmp_path / 'fifo.pdf')!r})\n"
        "print(r.status, r.error_kind)\n"
    )
    # A child with a timeout: opening a FIFO for reading would block until a writer comes.
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.stdout.split() == ["error", "not_a_file"], run.stderr[-2000:]
    not_pdf = tmp_path / "passwd.pdf"
    not_pdf.write_text(f"{SECRET}:x:0:0\n")
    result = parse_pdf(not_pdf)
    assert result.error_kind == "not_pdf" and "text" in result.message and SECRET[:8] not in result.message


def _swap_for_link(path: Path, to: Path) -> None:
    """Replace a checked file by a symlink, as a hostile writer racing the build would."""
    path.unlink()
    os.symlink(to, path)


def _planned(tmp_path: Path) -> tuple[Path, Path, list[DocEntry], pl.DataFrame]:
    (tmp_path / "private").mkdir()
    secret = text_pdf(tmp_path / "private" / "secret.pdf", [[f"Revenue {SECRET} 1 2"]])
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    text_pdf(pdfs / "good.pdf", [["Revenue 1,234 1,100"]])
    entries, meta = plan_documents(pdfs, None)
    assert [(e.doc_id, e.error_kind) for e in entries] == [("good", None)]
    return pdfs, secret, entries, meta


def test_a_file_swapped_for_an_outside_link_after_its_check_is_refused_unread(tmp_path: Path) -> None:
    pdfs, secret, entries, meta = _planned(tmp_path)
    _swap_for_link(pdfs / "good.pdf", secret)  # between the folder check and the hashing
    ws = open_workspace(tmp_path / "ws")
    spec = {"pdf_dir": str(pdfs.resolve()), "metadata": None}
    coll = Collection._build(ws, "default", entries, meta, spec, jobs=1, progress=False)
    row = coll.documents.row(0, named=True)
    assert (row["status"], row["error_kind"]) == ("error", "outside_folder")
    assert row["sha256"] is None and row["path"] is None  # not hashed, nothing to parse
    assert SECRET not in coll.report() and str(secret) not in row["message"]
    assert ws.query("SELECT count(*) FROM parses")[0][0] == 0


def test_the_parser_refuses_a_file_swapped_after_it_was_hashed(tmp_path: Path) -> None:
    pdfs, secret, entries, _ = _planned(tmp_path)
    target = entries[0].path
    assert target == (pdfs / "good.pdf").resolve()  # the checked real file, not the listed name
    sha = sha256_file(target)
    _swap_for_link(target, secret)  # between the hashing and the parse
    result = parse_pdf(target, sha256=sha)
    assert (result.status, result.error_kind) == ("error", "changed")
    assert SECRET not in result.message and result.n_pages == 0
    # Swapped for another file (not a link): the bytes differ from the hashed ones, not parsed either.
    target.unlink()
    shutil.copy(secret, target)
    result = parse_pdf(target, sha256=sha)
    assert (result.status, result.error_kind, result.n_pages) == ("error", "changed", 0)
    assert SECRET not in result.message
    # A refusal of a swap is not cached against the hash: the genuine file parses next time.
    assert "changed" in parse_cache._TRANSIENT


def test_a_folder_swapped_for_an_outside_link_after_the_check_is_refused(tmp_path: Path) -> None:
    (tmp_path / "private" / "sub").mkdir(parents=True)
    secret = text_pdf(tmp_path / "private" / "sub" / "inner.pdf", [[f"Revenue {SECRET} 1 2"]])
    pdfs = tmp_path / "pdfs"
    (pdfs / "sub").mkdir(parents=True)
    text_pdf(pdfs / "sub" / "inner.pdf", [["Revenue 5 6"]])
    os.symlink("sub/inner.pdf", pdfs / "inner.pdf")  # a link that stays inside: accepted
    entries, meta = plan_documents(pdfs, None)
    assert entries[0].error_kind is None
    shutil.rmtree(pdfs / "sub")
    os.symlink(secret.parent, pdfs / "sub")  # the folder on the path now leads out
    ws = open_workspace(tmp_path / "ws")
    spec = {"pdf_dir": str(pdfs.resolve()), "metadata": None}
    coll = Collection._build(ws, "default", entries, meta, spec, jobs=1, progress=False)
    row = coll.documents.row(0, named=True)
    assert (row["status"], row["error_kind"]) == ("error", "outside_folder")
    assert SECRET not in coll.report()
