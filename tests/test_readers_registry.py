"""Readers and executors are found by name in their registries; make_reader/make_executor are generic."""

from __future__ import annotations

from typing import Any

import pytest

from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.extract.executors import (
    EXECUTORS,
    InlineExecutor,
    LocalPoolExecutor,
    RayExecutor,
    UnknownExecutorError,
    make_executor,
)
from mdqa_kernel.readers import READERS, ReaderError, UnknownReaderError, make_reader, needs_llm
from mdqa_kernel.readers.cascade import CascadeReader
from mdqa_kernel.readers.llm import LLMReader
from mdqa_kernel.readers.oracle import OracleReader
from mdqa_kernel.readers.pages import PagesReader
from mdqa_kernel.readers.table import TableReader


class EchoReader:
    """A reader from outside the package: it takes `k` only."""

    name = "echo"
    options = ("k",)

    def __init__(self, k: int = 1) -> None:
        self.k = k

    def config(self) -> dict[str, Any]:
        return {"k": self.k}


def test_each_builtin_reader_registers_itself_in_its_module() -> None:
    assert READERS.names() == ("cascade", "llm", "oracle", "pages", "table")
    for name, cls in [
        ("cascade", CascadeReader),
        ("llm", LLMReader),
        ("oracle", OracleReader),
        ("pages", PagesReader),
        ("table", TableReader),
    ]:
        assert READERS.get(name) is cls and cls.name == name


def test_the_reader_classes_say_whether_they_need_an_llm() -> None:
    assert [n for n in READERS.names() if needs_llm(n)] == ["cascade", "llm"]
    assert not needs_llm("nope") and not needs_llm(f"{__name__}:EchoReader") and not needs_llm(TableReader())


def test_make_reader_passes_each_reader_the_options_it_declares() -> None:
    options = {"min_label_score": 0.7, "source": "gold.jsonl", "k": 3, "threshold": 0.9, "fields": None}
    table = make_reader("table", **options)
    assert isinstance(table, TableReader) and table.min_label_score == 0.7
    oracle = make_reader("oracle", **options)
    assert isinstance(oracle, OracleReader) and oracle.source == "gold.jsonl"
    assert make_reader("table", min_label_score=None).min_label_score == 0.6  # None: the class default
    cascade = make_reader("cascade", **options)
    assert isinstance(cascade, CascadeReader) and cascade.threshold == 0.9 and cascade.fields == {}
    assert isinstance(cascade.first, TableReader) and cascade.first.min_label_score == 0.7
    assert isinstance(cascade.second, LLMReader) and cascade.second.k == 3


def test_a_registered_reader_is_built_generically(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(READERS._items, "echo", EchoReader)  # restored afterwards: READERS is global
    echo = make_reader("echo", k=4, source="ignored")
    assert isinstance(echo, EchoReader) and echo.k == 4
    assert "echo" in READERS.names()


def test_module_class_readers_and_unknown_names() -> None:
    custom = make_reader(f"{__name__}:EchoReader", custom={"k": 2})
    assert isinstance(custom, EchoReader) and custom.k == 2
    with pytest.raises(UnknownReaderError, match="cannot load reader 'no_such_module:X'"):
        make_reader("no_such_module:X")
    with pytest.raises(UnknownReaderError) as info:
        make_reader("tabel")
    assert str(info.value).startswith(
        "unknown reader 'tabel'; use one of cascade, llm, oracle, pages, table or 'module:Class'"
    )
    assert all(isinstance(info.value, c) for c in (ReaderError, UnknownNameError, MdqaError, KeyError))


def test_executors_are_a_registry_too() -> None:
    assert EXECUTORS.names() == ("local", "ray")
    assert isinstance(make_executor(1), InlineExecutor) and isinstance(make_executor(None), InlineExecutor)
    pool = make_executor(3, "local")
    assert isinstance(pool, LocalPoolExecutor) and pool.workers == 3
    ray = make_executor(0, "ray", "auto")
    assert isinstance(ray, RayExecutor) and (ray.address, ray.workers) == ("auto", 1)
    with pytest.raises(UnknownExecutorError, match="unknown executor 'dask'; use one of local, ray"):
        make_executor(2, "dask")


def test_cli_choices_read_the_registries_when_needed() -> None:
    import subprocess
    import sys

    from click.testing import CliRunner

    from mdqa_kernel.cli.main import main

    # Building the command line imports no stage: the choices are read when a command needs them.
    code = "import sys, mdqa_kernel.cli.main; print(sorted(m for m in sys.modules if m.startswith('mdqa_kernel.')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "mdqa_kernel.readers" not in loaded and "mdqa_kernel.llm" not in loaded
    help_text = CliRunner().invoke(main, ["extract", "--help"]).output
    assert "[cascade|llm|oracle|pages|table]" in help_text and "[local|ray]" in help_text
    wrong = CliRunner().invoke(main, ["llm", "check", "--backend", "gpt"])
    assert wrong.exit_code == 2 and "'local', 'local-tiny', 'ollama', 'openai'" in wrong.output
