"""`mdqa collection build/show` and `mdqa demo` through click's test runner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mdqa_kernel.cli.main import main
from mdqa_kernel.examples import make_example_pdfs
from tests._pdfs import text_pdf


def test_build_twice_then_show(tmp_path: Path) -> None:
    meta = make_example_pdfs(tmp_path / "ex")
    (tmp_path / "ex" / "pdfs" / "broken.pdf").write_text("not a pdf")
    args = [
        "collection",
        "build",
        str(tmp_path / "ex" / "pdfs"),
        "--metadata",
        str(meta),
        "--workspace",
        str(tmp_path / "ws"),
    ]
    runner = CliRunner()
    first = runner.invoke(main, [*args, "--jobs", "1"])
    assert first.exit_code == 0, first.output
    assert "cn_bank_a_2021" in first.output and "6 parsed, 0 from cache" in first.output
    assert "broken" in first.output and "no row of" in first.output  # the orphan file is listed with its fix
    second = runner.invoke(main, [*args, "--jobs", "1"])
    assert "0 parsed, 6 from cache" in second.output
    shown = runner.invoke(main, ["collection", "show", "--workspace", str(tmp_path / "ws"), "--json"])
    data = json.loads(shown.output)
    assert data["summary"]["documents"] == 7 and data["summary"]["by_status"] == {"error": 1, "ok": 6}
    assert {d["doc_id"] for d in data["documents"]} >= {"us_alpha_2022", "broken"}


def test_build_json_and_errors(tmp_path: Path) -> None:
    (tmp_path / "pdfs").mkdir()
    text_pdf(tmp_path / "pdfs" / "a.pdf", [["Total revenue 1 2"]])
    runner = CliRunner()
    out = runner.invoke(
        main,
        [
            "collection",
            "build",
            str(tmp_path / "pdfs"),
            "--workspace",
            str(tmp_path / "ws"),
            "--json",
            "--name",
            "n",
        ],
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["documents"][0]["doc_id"] == "a"
    bad_meta = tmp_path / "m.csv"
    bad_meta.write_text("company,year\nA,2021\n")
    err = runner.invoke(
        main,
        [
            "collection",
            "build",
            str(tmp_path / "pdfs"),
            "--metadata",
            str(bad_meta),
            "--workspace",
            str(tmp_path / "ws"),
        ],
    )
    assert err.exit_code == 2 and "m.csv" in err.output and "company" in err.output
    missing = runner.invoke(
        main, ["collection", "show", "--workspace", str(tmp_path / "ws"), "--name", "zzz"]
    )
    assert missing.exit_code == 2 and "no collection 'zzz'" in missing.output and "n" in missing.output
