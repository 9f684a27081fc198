"""The oracle reader: gold values from a benchmark, for upper-bound runs.

It reads nothing from the PDF. Sources: `<name>:<argument>` of a registered gold source, or a
realdocs-style gold.jsonl (doc, field, value_base_units). The kernel registers no gold source of its
own: benchmarks add theirs to GOLD_SOURCES (MuDABench adds "mudabench", so "mudabench:simple" is every
document's value_<field> keys merged over the questions that list it), through the entry-point group
"mdqa.gold_sources" declared in pyproject.toml. With an oracle the rest of the pipeline (rows,
aggregation, answer) can be measured on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mdqa_kernel.readers.base import (
    READERS,
    DocumentView,
    Evidence,
    FieldLike,
    ReaderError,
    ReadResult,
    Status,
    found,
    not_found,
)
from mdqa_kernel.registry import Registry
from mdqa_kernel.text.fieldtypes import coerce

GoldValues = dict[tuple[str, str], Any]
# name -> function of the argument after "name:" returning {(doc_id, field): value}
GOLD_SOURCES: Registry[Callable[[str], GoldValues]] = Registry("gold source", "mdqa.gold_sources")


class OracleSourceError(ReaderError):
    """The gold source of the oracle reader could not be read."""


def load_gold(source: str) -> GoldValues:
    """{(doc_id, field): value in base units (or as typed in the benchmark)} from a gold source."""
    name, colon, argument = source.partition(":")
    if colon and name in GOLD_SOURCES:
        return GOLD_SOURCES.get(name)(argument)
    path = Path(source)
    if not path.is_file():
        known = ", ".join(f"'{n}:…'" for n in GOLD_SOURCES.names()) or (
            "none: install mdqa (pip install -e .) so that its entry points register them"
        )
        raise OracleSourceError(
            f"gold source {source!r} is neither <name>:<argument> of a registered gold source "
            f"({known}) nor a gold.jsonl file"
        )
    return {(rec["doc"], rec["field"]): base_value(rec) for rec in gold_records(path)}


class GoldFileError(OracleSourceError):
    """A line of a gold.jsonl is not a JSON object naming its `doc` and `field`."""


GOLD_KEYS = ("doc", "field")
"""What every fact of a gold.jsonl names (its value is optional: a null says the fact is absent)."""


def gold_records(path: str | Path) -> list[dict[str, Any]]:
    """The facts of a realdocs-format gold.jsonl (one JSON object per non-empty line), each checked
    to be an object with `doc` and `field`; GoldFileError names the file and line otherwise."""
    records: list[dict[str, Any]] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            records.append(_gold_record(line, path, n))
    return records


def _gold_record(line: str, path: str | Path, n: int) -> dict[str, Any]:
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as e:
        raise GoldFileError(
            f"{path} line {n} is not valid JSON ({e.msg}, column {e.colno}); write one JSON object per line"
        ) from None
    missing = [k for k in GOLD_KEYS if not isinstance(rec, dict) or not isinstance(rec.get(k), str)]
    if missing:
        raise GoldFileError(
            f"{path} line {n} lacks {' and '.join(repr(k) for k in missing)}; every fact is an object "
            f'naming its document and field, e.g. {{"doc": "600000_2022", "field": "revenue", '
            '"value_base_units": 1.5e9}'
        )
    return rec


def base_value(rec: dict[str, Any]) -> Any:
    """A gold fact's value in base units, else as printed (the number, else the text)."""
    value = rec.get("value_base_units")
    if value is None:
        value = rec.get("value") if rec.get("value") is not None else rec.get("value_text")
    return value


@READERS.register("oracle")
class OracleReader:
    name = "oracle"
    options = ("source",)  # the make_reader keywords it takes

    def __init__(self, source: str = "mudabench:simple") -> None:
        self.source = source
        self._gold: dict[tuple[str, str], Any] | None = None

    def config(self) -> dict[str, Any]:
        return {"source": self.source}

    def __getstate__(self) -> dict[str, Any]:
        return {"source": self.source, "_gold": None}  # workers reload the gold rather than pickling it

    def read(self, doc: DocumentView, field: FieldLike, question: str) -> ReadResult:
        if self._gold is None:
            self._gold = load_gold(self.source)
        key = (doc.doc_id, field.name)
        if key not in self._gold:
            return not_found(doc.doc_id, field.name, self.name, f"no gold value in {self.source}")
        raw = self._gold[key]
        if raw is None:
            return ReadResult(
                doc_id=doc.doc_id,
                field=field.name,
                reader=self.name,
                status=Status.ABSENT,
                confidence=1.0,
                message="gold says the fact is absent",
            )
        value = raw
        if (
            field.type in ("number", "percent")
            and isinstance(raw, (int, float))
            and not isinstance(raw, bool)
        ):
            value = float(raw) / (field.scale or 1.0) if self.source.endswith(".jsonl") else float(raw)
        value = coerce(value, field.type) if not isinstance(value, (list, dict)) else value
        return found(
            doc.doc_id,
            field.name,
            self.name,
            value,
            unit=field.unit,
            scale=1.0,
            confidence=1.0,
            evidence=Evidence(doc_id=doc.doc_id, snippet=f"gold: {raw!r}", reader=self.name),
        )
