"""paper-workflow: Algorithm 1 of the MuDABench paper, re-implemented with our code and prompts.

Phase 1  PlanAgent: free-text sub-query templates with optional metadata restrictions
         (doctype, years), placeholders {symbol} {year} {doctype} filled per document.
Phase 2  for each document satisfying a template's restriction: single-document RAG (BM25 over that
         document's text chunks, top k) answers the filled-in sub-query in free text.
Phase 3  DefineSchema from a sample of (metadata, sub-query, answer) pairs, then NormAgent turns
         batches of B pairs into flat JSON records under that schema.
Phase 4  CodeAgent sees the schema and a few records (never the whole table) and writes polars
         code; it runs on the full table in our sandbox (one retry with the error).
Phase 5  FinalAgent writes the answer from the program's result and the sample records.

Stages recorded for accounting: plan, extract, schema, normalize, code, answer.

paper-workflow-oracle-rows runs phases 4 and 5 only, on the gold table (the question's annotated
values, one row per document): how far LLM-written analysis code gets when extraction is perfect,
beside mdqa-oracle-rows (typed plan and aggregation on the same gold rows, same model).
"""

from __future__ import annotations

import json
import math
import re
import string
from typing import Any, Literal

import polars as pl
from pydantic import BaseModel, Field

from mdqa_kernel.benchmarks.systems.base import (
    DOC_COLUMNS,
    LLM,
    QuestionInput,
    StageError,
    SystemConfig,
    SystemOutput,
    doc_label,
    empty_cells,
    fit_blocks,
)
from mdqa_kernel.readers.retrieval import ChunkIndex

BATCH_SIZE = 5  # B of Algorithm 1
SCHEMA_SAMPLE = 4  # pairs shown to DefineSchema
DEMO_RECORDS = 5  # records shown to the code and final agents
CODE_MAX_TOKENS = 1024
MAX_TEMPLATES = 3
MAX_FIELDS = 4
EXTRACT_MAX_TOKENS = 96
_FENCE = re.compile(r"```(?:python|py)?\s*(.*?)```", re.DOTALL)


class Template(BaseModel):
    name: str = Field(description="short snake_case name of the fact asked")
    question: str = Field(description="the question asked of ONE document; may use {symbol} {year} {doctype}")
    doctype: str | None = Field(default=None, description="only documents of this doctype (or null)")
    years: list[int] = Field(default_factory=list, description="only documents of these years (empty: all)")


class PlanOut(BaseModel):
    templates: list[Template]


class FieldDef(BaseModel):
    name: str
    type: Literal["number", "string", "boolean", "date"]
    description: str


class SchemaOut(BaseModel):
    fields: list[FieldDef]


# -- phase 1 ------------------------------------------------------------------------------------


def metadata_schema(documents: pl.DataFrame) -> str:
    return (
        "Each document has metadata: symbol (stock code), year (fiscal year), doctype.\n"
        f"doctypes present: {sorted(set(documents['doctype'].to_list()))}\n"
        f"years present: {sorted(set(documents['year'].to_list()))}\n"
        f"number of documents: {documents.height}"
    )


def plan_prompt(q: QuestionInput) -> str:
    return (
        "You plan how to answer an analytical question over a collection of company filings. "
        "You cannot read all documents at once: write question templates that will be asked of "
        "EACH document separately, one fact per template. Use {symbol}, {year} and {doctype} "
        "placeholders; they are filled from each document's metadata. Restrict a template to a "
        f"doctype or years only when the question needs it. At most {MAX_TEMPLATES} templates.\n\n"
        f"{metadata_schema(q.documents)}\n\nQuestion: {q.question}"
    )


def plan(q: QuestionInput, llm: LLM) -> list[Template]:
    out = llm.structured(plan_prompt(q), PlanOut, stage="plan")
    templates = [t for t in out.templates if t.question.strip()][:MAX_TEMPLATES]
    if not templates:
        raise StageError("plan", "the plan agent wrote no template")
    return templates


class _Keep(dict):
    def __missing__(self, key: str) -> str:  # unknown placeholders stay as written
        return "{" + key + "}"


def fill_template(template: str, meta: dict[str, Any]) -> str:
    try:
        return string.Formatter().vformat(template, (), _Keep(meta))
    except (ValueError, IndexError):
        return template  # stray braces: ask the template as written


def satisfies(meta: dict[str, Any], t: Template, present: pl.DataFrame) -> bool:
    """SatisfyRestriction. A restriction naming nothing present is read as no restriction (a small
    model's typo must not silently empty the plan)."""
    doctypes = set(present["doctype"].to_list())
    years = set(present["year"].to_list())
    if t.doctype and t.doctype in doctypes and meta["doctype"] != t.doctype:
        return False
    wanted = set(t.years) & years
    return not (wanted and meta["year"] not in wanted)


# -- phase 2 ------------------------------------------------------------------------------------


def rag_answer(q: QuestionInput, meta: dict[str, Any], query: str, k: int, llm: LLM) -> str:
    chunks = q.chunks(meta["doc_id"])
    if "kind" in chunks.columns:
        chunks = chunks.filter(pl.col("kind") == "text")
    hits = ChunkIndex(chunks).search(query, k)
    blocks = [f"(p.{r['page']}) {r['text']}" for r in hits.iter_rows(named=True)]
    kept, _ = fit_blocks(blocks, q.n_ctx - EXTRACT_MAX_TOKENS - 400)
    prompt = (
        f"Document: {doc_label(meta)}\n\nPassages:\n" + "\n\n".join(kept) + f"\n\nQuestion: {query}\n"
        "Answer from the passages only, in one short sentence with the exact figure and its unit; "
        "say 'not found' if the passages do not contain it."
    )
    return llm.complete(prompt, stage="extract", max_tokens=EXTRACT_MAX_TOKENS).strip()


# -- phase 3 ------------------------------------------------------------------------------------


def _pair_text(pair: dict[str, Any]) -> str:
    return f"[{doc_label(pair)}] Q: {pair['query']} A: {pair['answer']}"


def define_schema(q: QuestionInput, pairs: list[dict[str, Any]], llm: LLM) -> list[FieldDef]:
    sample = "\n".join(_pair_text(p) for p in pairs[:SCHEMA_SAMPLE])
    prompt = (
        "Answers were extracted from single documents for this question:\n"
        f"{q.question}\n\nSample of (document, sub-question, answer):\n{sample}\n\n"
        f"Define at most {MAX_FIELDS} flat JSON fields (snake_case names) that hold these answers as "
        "values, so that a program can compute the question's answer. Numbers as plain numbers "
        "(no units, no thousands separators); percentages as numbers in percent."
    )
    out = llm.structured(prompt, SchemaOut, stage="schema")
    seen: set[str] = set()
    fields = []
    for f in out.fields:
        name = re.sub(r"[^a-z0-9_]+", "_", f.name.lower()).strip("_") or f"field_{len(fields) + 1}"
        if name in seen or name in DOC_COLUMNS:
            continue
        seen.add(name)
        fields.append(FieldDef(name=name, type=f.type, description=f.description))
    if not fields:
        raise StageError("schema", "the schema agent defined no field")
    return fields[:MAX_FIELDS]


_JSON_TYPE = {"number": "number", "string": "string", "boolean": "boolean", "date": "string"}


def record_schema(fields: list[FieldDef], n: int) -> dict[str, Any]:
    props = {f.name: {"type": [_JSON_TYPE[f.type], "null"]} for f in fields}
    item = {"type": "object", "properties": props, "required": list(props)}
    return {
        "type": "object",
        "properties": {"records": {"type": "array", "items": item, "minItems": n, "maxItems": n}},
        "required": ["records"],
    }


def normalize(fields: list[FieldDef], pairs: list[dict[str, Any]], llm: LLM) -> list[dict[str, Any]]:
    """NormAgent over batches of B pairs: one flat record per pair, in order."""
    described = "\n".join(f"- {f.name} ({f.type}): {f.description}" for f in fields)
    records: list[dict[str, Any]] = []
    for start in range(0, len(pairs), BATCH_SIZE):
        batch = pairs[start : start + BATCH_SIZE]
        listing = "\n".join(f"{i + 1}. {_pair_text(p)}" for i, p in enumerate(batch))
        prompt = (
            f"Convert each answer into one JSON record with these fields:\n{described}\n"
            "Use null when the answer does not give the value. Numbers without units or separators; "
            "dates as YYYY-MM-DD.\n\n"
            f"Answers:\n{listing}\n\nReturn exactly {len(batch)} records, in the same order."
        )
        out = llm.structured(
            prompt,
            record_schema(fields, len(batch)),
            stage="normalize",
            max_tokens=min(1024, 40 + 30 * len(batch) * len(fields)),
        )
        got = list(out.get("records", []))[: len(batch)]
        got += [{}] * (len(batch) - len(got))
        records.extend(got)
    return records


def records_frame(
    pairs: list[dict[str, Any]], records: list[dict[str, Any]], fields: list[FieldDef]
) -> pl.DataFrame:
    """J as one row per document: metadata + fields, coalescing a document's several sub-queries."""
    merged: dict[str, dict[str, Any]] = {}
    for pair, rec in zip(pairs, records, strict=True):
        row = merged.setdefault(
            pair["doc_id"],
            {"doc_id": pair["doc_id"], "symbol": str(pair["symbol"]), "year": int(pair["year"]),
             "doctype": pair["doctype"]} | {f.name: None for f in fields},
        )  # fmt: skip
        for f in fields:
            if row[f.name] is None and rec.get(f.name) is not None:
                row[f.name] = rec[f.name]
    schema: dict[str, Any] = {
        "doc_id": pl.String,
        "symbol": pl.String,
        "year": pl.Int64,
        "doctype": pl.String,
    }
    for f in fields:
        schema[f.name] = {"number": pl.Float64, "boolean": pl.Boolean}.get(f.type, pl.String)
    rows = [{k: _coerce(v, schema[k]) for k, v in r.items()} for r in merged.values()]
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def _coerce(value: Any, dtype: Any) -> Any:
    if value is None:
        return None
    try:
        if dtype == pl.Float64:
            return float(str(value).replace(",", "")) if not isinstance(value, bool) else None
        if dtype == pl.Boolean:
            return value if isinstance(value, bool) else None
        if dtype == pl.Int64:
            return int(value)
    except (TypeError, ValueError):
        return None
    return str(value)


def cells_from(frame: pl.DataFrame, fields: list[FieldDef]) -> pl.DataFrame:
    rows = []
    for r in frame.iter_rows(named=True):
        for f in fields:
            v = r[f.name]
            rows.append(
                (
                    r["doc_id"],
                    f.name,
                    "found" if v is not None else "not_found",
                    json.dumps(v, ensure_ascii=False),
                )
            )
    return pl.DataFrame(rows, schema=empty_cells().schema, orient="row") if rows else empty_cells()


# -- phases 4 and 5 -----------------------------------------------------------------------------


def _demo(frame: pl.DataFrame) -> str:
    return json.dumps(frame.head(DEMO_RECORDS).to_dicts(), ensure_ascii=False, default=str)


def code_prompt(q: QuestionInput, frame: pl.DataFrame, error: str | None) -> str:
    columns = ", ".join(f"{n} ({t})" for n, t in frame.schema.items())
    prompt = (
        "A polars DataFrame `rows` holds one record per document (full table, "
        f"{frame.height} rows). Columns: {columns}.\nExample records: {_demo(frame)}\n\n"
        f"Question: {q.question}\n\nWrite Python code using polars (imported as pl) that computes the "
        "answer from `rows` and assigns a polars DataFrame to `result`. `rows` already exists: do not "
        "define it and do not copy the example records into the code. No file access, no prints. "
        "Return only the code."
    )
    if error:
        prompt += f"\n\nThe previous code failed with: {error[:400]}\nFix it."
    return prompt


def extract_code(text: str) -> str:
    fenced = _FENCE.search(text)
    return (fenced.group(1) if fenced else text).strip()


def analyse(q: QuestionInput, frame: pl.DataFrame, llm: LLM, out: SystemOutput) -> str:
    from mdqa_kernel.aggregate.sandbox import SandboxLimits, run_with_retries

    def generate(error: str | None) -> str:
        # Room for a real program: at 400 tokens a small model that re-typed the example records was
        # cut mid-string, and the workflow failed on our limit, not on its own code.
        return extract_code(
            llm.complete(code_prompt(q, frame, error), stage="code", max_tokens=CODE_MAX_TOKENS)
        )

    res = run_with_retries(generate, frame, max_attempts=2, limits=SandboxLimits(timeout_s=60))
    out.notes["code_attempts"] = len(res.attempts) + 1
    if not res.ok:
        out.fail("code", res.error or "sandbox failed")
        return f"(the analysis program failed: {res.error})"
    assert res.frame is not None
    return json.dumps(res.frame.head(40).to_dicts(), ensure_ascii=False, default=str)


def final_answer(q: QuestionInput, result_text: str, frame: pl.DataFrame, llm: LLM) -> str:
    prompt = (
        f"Question: {q.question}\n\nResult of the analysis program: {result_text}\n"
        f"Example records it ran on: {_demo(frame)}\n\n"
        "Write the final answer to the question from the program's result: the stock symbols and "
        "values asked for, concisely, in the question's language."
    )
    return llm.complete(prompt, stage="answer", max_tokens=256).strip()


def gold_frame(q: QuestionInput) -> pl.DataFrame:
    """The question's gold values as the workflow's table J: one row per document of the run (noise
    documents get nulls, as an extractor finding nothing would), columns named without `value_`."""
    from mdqa_kernel.benchmarks.metrics import question_gold

    gold = question_gold(q.split, q.question_id)
    values: dict[str, dict[str, Any]] = {}
    for doc_id, name, value_json in gold.select("doc_id", "field", "gold").iter_rows():
        values.setdefault(name.removeprefix("value_"), {})[doc_id] = json.loads(value_json)
    frame = q.documents.select(DOC_COLUMNS)
    for name, by_doc in values.items():
        frame = frame.with_columns(_gold_column(name, [by_doc.get(d) for d in frame["doc_id"].to_list()]))
    return frame


def _gold_column(name: str, column: list[Any]) -> pl.Series:
    """Typed as the values are: booleans, numbers, lists of text; anything else (a list of records,
    mixed values) as its JSON text, which the code agent can still parse."""
    present = [v for v in column if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pl.Series(name, column, dtype=pl.Boolean)
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pl.Series(name, column, dtype=pl.Float64)
    if present and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in present):
        return pl.Series(name, column, dtype=pl.List(pl.String))
    text = [v if isinstance(v, str) or v is None else json.dumps(v, ensure_ascii=False) for v in column]
    return pl.Series(name, text, dtype=pl.String)


def run_oracle(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    frame = gold_frame(q)
    fields = [FieldDef(name=c, type="string", description="") for c in frame.columns if c not in DOC_COLUMNS]
    out = SystemOutput(answer=None, cells=cells_from(frame, fields))
    result_text = analyse(q, frame, llm, out)
    out.answer = final_answer(q, result_text, frame, llm)
    out.notes.update(fields=[f.name for f in fields])
    return out


def run(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    k = max(1, math.ceil(config.k))
    out = SystemOutput(answer=None)
    templates = plan(q, llm)
    pairs: list[dict[str, Any]] = []
    for meta in q.documents.iter_rows(named=True):
        for t in templates:
            if satisfies(meta, t, q.documents):
                query = fill_template(t.question, meta)
                pairs.append({**meta, "template": t.name, "query": query,
                              "answer": rag_answer(q, meta, query, k, llm)})  # fmt: skip
    if not pairs:
        raise StageError("extract", "no document satisfies any template restriction")
    fields = define_schema(q, pairs, llm)
    records = normalize(fields, pairs, llm)
    frame = records_frame(pairs, records, fields)
    out.cells = cells_from(frame, fields)
    result_text = analyse(q, frame, llm, out)
    out.answer = final_answer(q, result_text, frame, llm)
    out.notes.update(templates=[t.model_dump() for t in templates], pairs=len(pairs),
                     fields=[f.name for f in fields])  # fmt: skip
    return out
