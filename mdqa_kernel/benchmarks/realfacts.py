"""The real-filings fact set (examples/realfacts/): load it, check every fact against its PDF, and turn it
into a plan and a collection's metadata.

A fact is one JSON line: a filing of the FinanceBench folder (`doc`, the PDF stem), a plan field
(`field`, with its type, unit, `field_scale` and one-line description), the number or text as printed
(`value_text`) with the printed scale (`scale`), the value in the field's unit and scale (`value`), and
where it was read: a 1-based `page` and a verbatim `snippet` of that page as our own parser
(mdqa_kernel.parsing.pdf) gives it. examples/realfacts/README.md describes the format and how the facts
were chosen; `check_facts` is what keeps them honest:

    python -m mdqa_kernel.benchmarks.realfacts check examples/realfacts/dev.jsonl [--data DIR]

prints one line per problem (the PDF is missing, the page is out of range, the snippet is not on that
page, value_text is not in the snippet, value does not equal value_text × scale / field_scale, a fact
sits in the wrong split) and exits non-zero if there is any.

The split is fixed by company: the companies sorted by sha256("realfacts-split:" + company), the first
`VALIDATION_COMPANIES` of them are validation, the rest dev.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.financebench import collection_metadata, data_path
from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.ir import FieldSpec, Plan

# key -> accepted JSON types (bool is excluded from numbers below: json gives True for `true` only).
FACT_KEYS: dict[str, tuple[type, ...]] = {
    "doc": (str,),
    "company": (str,),
    "year": (str,),
    "doctype": (str,),
    "field": (str,),
    "field_description": (str,),
    "type": (str,),
    "unit": (str, type(None)),
    "field_scale": (int, float),
    "value_text": (str,),
    "value": (int, float, str),
    "scale": (int, float),
    "page": (int,),
    "snippet": (str,),
    "evidence": (str,),
    "period": (str,),
    "trap": (bool,),
    "category": (str,),
    "split": (str,),
}
CHOICES: dict[str, tuple[str, ...]] = {
    "type": ("number", "integer", "percent", "text"),
    "doctype": ("10k", "10q", "8k", "earnings"),
    "evidence": ("table", "prose"),
    "category": (
        "statement",
        "per_share",
        "headcount",
        "auditor",
        "dividend",
        "segment",
        "prior_period",
        "other",
    ),
    "split": ("dev", "validation"),
}
# What one field name must keep the same in every fact that uses it (the plan has one FieldSpec per name).
FIELD_KEYS = ("type", "unit", "field_scale", "field_description")
SPLIT_SALT = "realfacts-split:"
VALIDATION_COMPANIES = 7
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
_NUMBER = re.compile(r"^\(?-?\$?\s*([0-9][0-9,]*(?:\.[0-9]+)?|\.[0-9]+)\s*%?\)?$")


class RealFactsError(MdqaError, ValueError):
    """A facts file that cannot be read: the message names the file, the line and the fix."""


@dataclass(frozen=True)
class Problem:
    """One fact that does not hold against its PDF (or its split)."""

    file: str
    line: int
    doc: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.doc} {self.field}: {self.message}"


# -- loading -----------------------------------------------------------------------------------------
def _key_errors(fact: Any) -> list[str]:
    """What is wrong with one decoded line's keys, types and choices (empty when it is a fact)."""
    if not isinstance(fact, dict):
        return [f"a fact is a JSON object, got {type(fact).__name__}"]
    errors = [f"lacks {k!r}" for k in FACT_KEYS if k not in fact]
    for key, types in FACT_KEYS.items():
        v = fact.get(key)
        if key in fact and (not isinstance(v, types) or (isinstance(v, bool) and bool not in types)):
            errors.append(f"{key!r} must be {' or '.join(t.__name__ for t in types)}, got {v!r}")
    for key, allowed in CHOICES.items():
        if isinstance(fact.get(key), str) and fact[key] not in allowed:
            errors.append(f"{key!r} is {fact[key]!r}; use one of {', '.join(allowed)}")
    if isinstance(fact.get("field"), str) and not _SNAKE.match(fact["field"]):
        errors.append(f"field {fact['field']!r} must be snake_case")
    if isinstance(fact.get("page"), int) and fact["page"] < 1:
        errors.append("page is 1-based and must be at least 1")
    if fact.get("type") == "text" and not isinstance(fact.get("value"), str):
        errors.append("a text fact's value is a string")
    if fact.get("type") in ("number", "integer", "percent") and isinstance(fact.get("value"), str):
        errors.append(f"a {fact['type']} fact's value is a number")
    return errors


def _field_conflicts(facts: Sequence[tuple[int, dict[str, Any]]]) -> list[tuple[int, str]]:
    """(line, message) for each fact whose field disagrees with the first fact of that field name."""
    first: dict[str, tuple[int, dict[str, Any]]] = {}
    out: list[tuple[int, str]] = []
    for line, fact in facts:
        seen = first.setdefault(fact["field"], (line, fact))
        for key in FIELD_KEYS:
            if fact[key] != seen[1][key]:
                out.append(
                    (
                        line,
                        f"field {fact['field']!r} has {key}={fact[key]!r} but line {seen[0]} has "
                        f"{seen[1][key]!r}; one field name keeps one {key} (rename the field or align it)",
                    )
                )
    return out


def load_facts(path: str | Path) -> list[dict[str, Any]]:
    """The facts of a JSON-lines file, each with its `line`; raises `RealFactsError` naming file, line
    and fix for a bad line, a missing key, a wrong type or choice, or one field name used inconsistently."""
    file = Path(path)
    if not file.is_file():
        raise RealFactsError(f"{file} does not exist; pass a facts file such as examples/realfacts/dev.jsonl")
    numbered: list[tuple[int, dict[str, Any]]] = []
    with file.open(encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                fact = json.loads(raw)
            except json.JSONDecodeError as e:
                raise RealFactsError(
                    f"{file} line {n} is not valid JSON ({e.msg}); write one object per line"
                ) from e
            errors = _key_errors(fact)
            if errors:
                raise RealFactsError(
                    f"{file} line {n}: {'; '.join(errors)} (see examples/realfacts/README.md)"
                )
            numbered.append((n, fact))
    if not numbered:
        raise RealFactsError(f"{file} has no facts; add one JSON object per line")
    conflicts = _field_conflicts(numbered)
    if conflicts:
        n, message = conflicts[0]
        raise RealFactsError(f"{file} line {n}: {message}")
    return [{**fact, "line": n} for n, fact in numbered]


# -- checking ----------------------------------------------------------------------------------------
def split_of(company: str, companies: Iterable[str]) -> str:
    """'validation' for the first VALIDATION_COMPANIES companies by sha256(SPLIT_SALT + company), else 'dev'."""
    ranked = sorted(set(companies), key=lambda c: hashlib.sha256((SPLIT_SALT + c).encode()).hexdigest())
    return "validation" if company in ranked[:VALIDATION_COMPANIES] else "dev"


def parse_number(text: str) -> float | None:
    """The number printed as `text` ("1,234.5", "(12)", "$3.40", "-0.5", "24.6%"), or None when it is
    not one number. Parentheses mean negative, as in financial statements."""
    t = text.strip()
    m = _NUMBER.match(t)
    if not m:
        return None
    value = float(m.group(1).replace(",", ""))
    negative = (t.startswith("(") and t.endswith(")")) or "-" in t
    return -value if negative else value


def _squash(text: str) -> str:
    """Text without whitespace: the snippet match ignores how the parser spaced and broke lines."""
    return re.sub(r"\s+", "", text)


def _value_problem(fact: dict[str, Any]) -> str | None:
    """Why `value` is not `value_text` × scale / field_scale (None when it is)."""
    if fact["type"] == "text":
        return None if fact["value"] == fact["value_text"] else "value must equal value_text for a text field"
    printed = parse_number(fact["value_text"])
    if printed is None:
        return f"value_text {fact['value_text']!r} is not a number as printed; copy it from the page"
    expected = printed * fact["scale"] / fact["field_scale"]
    if fact["type"] == "integer" and not float(fact["value"]).is_integer():
        return f"an integer field's value must be whole, got {fact['value']!r}"
    if not math.isclose(float(fact["value"]), expected, rel_tol=1e-9, abs_tol=1e-9):
        return (
            f"value {fact['value']!r} != value_text {fact['value_text']!r} × scale {fact['scale']:g} / "
            f"field_scale {fact['field_scale']:g} = {expected!r}; fix value or the scales"
        )
    return None


def _page_texts(pdf: Path) -> dict[int, str] | str:
    """Page number -> text from our own parser, or the parser's message when the file does not parse."""
    return _parsed_pages(str(pdf), pdf.stat().st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _parsed_pages(pdf: str, _mtime_ns: int) -> dict[int, str] | str:
    """`_page_texts` once per file version: checking several fact files of the same filings (the tests check
    every development set) parses each filing once."""
    from mdqa_kernel.parsing.pdf import parse_pdf  # the parser pulls in pypdfium2: only when checking

    result = parse_pdf(pdf)
    if result.status == "error":
        return f"{pdf} does not parse ({result.error_kind}: {result.message})"
    return {int(row["page"]): row["text"] or "" for row in result.pages.iter_rows(named=True)}


def _fact_problems(fact: dict[str, Any], pages: dict[int, str] | str, companies: set[str]) -> list[str]:
    """Everything wrong with one fact, given its PDF's pages (or why they could not be read)."""
    problems: list[str] = []
    if isinstance(pages, str):
        problems.append(pages)
    elif fact["page"] not in pages:
        problems.append(f"page {fact['page']} is not in the PDF (it has {len(pages)} pages; page is 1-based)")
    elif _squash(fact["snippet"]) not in _squash(pages[fact["page"]]):
        problems.append(f"snippet is not on page {fact['page']} of our parse; copy it from that page's text")
    if _squash(fact["value_text"]) not in _squash(fact["snippet"]):
        problems.append(f"value_text {fact['value_text']!r} is not in the snippet")
    value = _value_problem(fact)
    if value:
        problems.append(value)
    split = split_of(fact["company"], companies)
    if fact["split"] != split:
        problems.append(
            f"split is {fact['split']!r} but the split rule puts {fact['company']!r} in {split!r}"
        )
    return problems


def _companies(folder: Path) -> set[str]:
    """Every company of documents.jsonl: the split rule ranks all of them, not only those with facts."""
    from mdqa_kernel.benchmarks.financebench import load_documents

    return set(load_documents(folder)["company"].to_list())


def check_facts(path: str | Path, data_dir: str | Path | None = None) -> list[Problem]:
    """Every problem of every fact in `path` against the PDFs of the FinanceBench folder `data_dir`
    (default: $MDQA_FINANCEBENCH or ../shared/financebench). Empty when all facts hold."""
    facts = load_facts(path)
    folder = data_path(data_dir)
    companies = _companies(folder)
    parsed: dict[str, dict[int, str] | str] = {}
    out: list[Problem] = []
    for fact in facts:
        doc = fact["doc"]
        if doc not in parsed:
            pdf = folder / "pdfs" / f"{doc}.pdf"
            parsed[doc] = _page_texts(pdf) if pdf.is_file() else f"{pdf} is missing; doc is the PDF's stem"
        for message in _fact_problems(fact, parsed[doc], companies):
            out.append(Problem(str(path), fact["line"], doc, fact["field"], message))
    return out


# -- plan and metadata -------------------------------------------------------------------------------
QUESTION_TEMPLATE = "{description} — in the {{doctype}} of {{entity}} ({{year}})"


def plan_for(facts: Sequence[dict[str, Any]]) -> Plan:
    """One FieldSpec per field name (type, unit, scale and description from its facts), restricted with
    `only: {doc_id: [...]}` to the filings whose facts name it, so no cell is read for nothing."""
    docs: dict[str, list[str]] = {}
    first: dict[str, dict[str, Any]] = {}
    for fact in facts:
        first.setdefault(fact["field"], fact)
        names = docs.setdefault(fact["field"], [])
        if fact["doc"] not in names:
            names.append(fact["doc"])
    fields = [
        FieldSpec(
            name=name,
            type=fact["type"],
            description=fact["field_description"],
            question=QUESTION_TEMPLATE.format(description=fact["field_description"]),
            unit=fact["unit"],
            scale=float(fact["field_scale"]),
            only={"doc_id": sorted(docs[name])},  # type: ignore[arg-type]  # expanded by the validator
        )
        for name, fact in first.items()
    ]
    n_docs = len({f["doc"] for f in facts})
    return Plan(question=f"Read the {len(facts)} hand-checked facts of {n_docs} real filings", fields=fields)


def metadata_frame(facts: Sequence[dict[str, Any]], data_dir: str | Path | None = None) -> pl.DataFrame:
    """The collection metadata of the facts' filings: doc_id, path (the PDF), entity (the company),
    year, doctype — the names the plan's question template uses — plus sector."""
    folder = data_path(data_dir)
    docs = sorted({f["doc"] for f in facts})
    meta = collection_metadata(folder, docs)
    return meta.select(
        "doc_id",
        pl.col("doc_id")
        .map_elements(lambda d: str(folder / "pdfs" / f"{d}.pdf"), return_dtype=pl.String)
        .alias("path"),
        pl.col("company").alias("entity"),
        pl.col("year").cast(pl.String),
        pl.col("doc_type").str.to_lowercase().alias("doctype"),
        "sector",
    )


# -- command line ------------------------------------------------------------------------------------
USAGE = "usage: python -m mdqa_kernel.benchmarks.realfacts check FILE [--data FINANCEBENCH_DIR]"


def main(argv: Sequence[str]) -> int:
    """`check FILE [--data DIR]`: print every problem and a summary; 1 when there is any, 2 on bad usage."""
    args = list(argv)
    data: str | None = None
    if "--data" in args:
        k = args.index("--data")
        if k + 1 >= len(args):
            print(USAGE, file=sys.stderr)
            return 2
        data = args[k + 1]
        del args[k : k + 2]
    if len(args) != 2 or args[0] != "check":
        print(USAGE, file=sys.stderr)
        return 2
    try:
        problems = check_facts(args[1], data)
        n = len(load_facts(args[1]))
    except MdqaError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for p in problems:
        print(p)
    bad = len({p.line for p in problems})
    print(f"{args[1]}: {n} facts, {n - bad} hold, {bad} with problems ({len(problems)} problems)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
