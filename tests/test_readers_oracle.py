"""The oracle reader's gold sources: `<name>:<argument>` through the GOLD_SOURCES registry (the
kernel registers none; MuDABench registers "mudabench"), else a realdocs-style gold.jsonl."""

from __future__ import annotations

import importlib
import json
import tomllib
from pathlib import Path

import pytest

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.ir import FieldSpec
from mdqa_kernel.readers import oracle
from mdqa_kernel.readers.base import DocumentView, Status
from mdqa_kernel.registry import Registry

from .conftest import REPO


@pytest.fixture
def sources(monkeypatch: pytest.MonkeyPatch) -> Registry:
    registry: Registry = Registry("gold source", "mdqa.test_gold_sources")
    monkeypatch.setattr(oracle, "GOLD_SOURCES", registry)
    return registry


def _doc(doc_id: str) -> DocumentView:
    return DocumentView(doc_id=doc_id)  # the oracle reads no page


def _field(name: str, type_: str) -> FieldSpec:
    return FieldSpec(name=name, type=type_, description=name, question=f"What is the {name}?")


def test_a_registered_source_answers_its_prefix(sources: Registry) -> None:
    asked: list[str] = []

    @sources.register("toy")
    def toy(argument: str) -> oracle.GoldValues:
        asked.append(argument)
        return {("d1", "revenue"): 12.5, ("d1", "ceo"): None}

    reader = oracle.OracleReader("toy:v2")
    field = _field("revenue", "number")
    hit = reader.read(_doc("d1"), field, "q")
    assert hit.status == Status.FOUND and hit.value == 12.5 and asked == ["v2"]
    absent = reader.read(_doc("d1"), _field("ceo", "text"), "q")
    assert absent.status == Status.ABSENT
    assert reader.read(_doc("d2"), field, "q").status == Status.NOT_FOUND


def test_a_gold_jsonl_file_still_works_and_an_unknown_source_names_the_known(
    sources: Registry, tmp_path: Path
) -> None:
    sources.add("toy", lambda argument: {})
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"doc": "d1", "field": "revenue", "value_base_units": 3.0}) + "\n", "utf-8")
    assert oracle.load_gold(str(gold)) == {("d1", "revenue"): 3.0}
    with pytest.raises(oracle.OracleSourceError, match="'toy:…'"):
        oracle.load_gold("nosuch:simple")


def test_mudabench_registers_itself_and_in_pyproject() -> None:
    from mdqa_kernel.benchmarks import mudabench

    assert oracle.GOLD_SOURCES.get("mudabench") is mudabench.gold_values
    gold = oracle.load_gold("mudabench:simple")
    assert gold and gold == oracle.load_gold("mudabench:")  # the split defaults to simple
    declared = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["entry-points"]
    module, _, attr = declared["mdqa.gold_sources"]["mudabench"].partition(":")
    assert getattr(importlib.import_module(module), attr) is mudabench.gold_values


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"doc": "d1", "field": "revenue"}\n{"doc": "d2", "field"\n',
            r"gold\.jsonl line 2 is not valid JSON",
        ),
        ('\n{"doc": "d1", "value_base_units": 1}\n', r"gold\.jsonl line 2 lacks 'field'; every fact"),
        ("[1, 2]\n", r"line 1 lacks 'doc' and 'field'"),
    ],
)
def test_a_broken_gold_file_names_the_file_line_and_fix(tmp_path: Path, text: str, message: str) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(text, "utf-8")
    for read in (oracle.gold_records, lambda p: oracle.load_gold(str(p))):
        with pytest.raises(oracle.GoldFileError, match=message) as info:
            read(gold)
        assert isinstance(info.value, MdqaError) and isinstance(info.value, oracle.OracleSourceError)
