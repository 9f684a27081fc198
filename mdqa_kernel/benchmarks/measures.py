"""The other seed papers' measures: MEBench's entity-attributed F1 and accuracy per category, and
DocHop-QA's retrieval recall@K and complete recall@K (with their run on FinanceBench's evidence pages).

**EA-F1** (MEBench, Section 4.1.3): an F1 score over the predicted and gold *sets* of (entity,
attribute, value) triples; a predicted triple is correct when all three elements match a gold one.
Here a triple is one cell: (doc_id, field, value). Matching rule:
- entity and field match when their `comparison_key`s (text/normalize.py: NFKC, case-folded,
  whitespace, punctuation and symbols dropped) are equal;
- a value matches by the MuDABench cell rule (`metrics.values_agree`: numbers agree on integer digits
  and first decimal, fractions in percent points; text by normalised key, legal-form suffixes as a
  second chance; dates as dates; lists as sets). The paper says "exactly match"; MEBench's gold is
  standardised first (numbers rounded, categories canonicalised), and this rule is that
  standardisation for our gold, the one every other cell score of the project uses;
- each triple is a set member: exact duplicates (same keys, same value JSON) count once, and within
  one (entity, field) a gold triple is matched by at most one predicted triple and vice versa (a
  maximum matching), so two writings of one value ("1,577" and 1577.0) are one hit and one false
  positive;
- a null value is no triple: a gold null asks for nothing to be extracted, and a predicted null (a
  cell not found) claims nothing.
`cells_ea_f1` scores an extraction's cells directly, its field names first aligned to the gold's.

**Categories**: MEBench groups questions as comparison / statistics / relationship. MuDABench
questions carry an operation family (`classify_family`; the planner's FAMILY_TABLE plus "other");
`MEBENCH_CATEGORIES` maps each family onto MEBench's category and nearest sub-type.

**Retrieval recall** (DocHop-QA, Appendix H, Table 27): recall@K is the share of a question's
evidence pieces among the top K retrieved; complete recall@K counts a question only when *every*
evidence piece it needs is retrieved together (1 or 0 per question). Both are averaged over the
units that have evidence. A unit is one (question, document) at level "document" (each document
searched on its own, as our readers do), or one question at level "question", whose top K is the
union of each of its documents' top K (DocHop retrieves per source document and pools the snippets).
The paper does not spell out whether "Top-K recall" averages the share or counts a hit; we report
the share (the usual definition) and the hit rate beside it (`hit@K`: at least one piece found).

Run on FinanceBench: `python -m mdqa_kernel.benchmarks.measures --financebench ../shared/financebench`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Collection as AbstractCollection
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.financebench import load_questions
from mdqa_kernel.benchmarks.metrics import align_fields, values_agree
from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.plan.families import FAMILY_TABLE
from mdqa_kernel.text.normalize import comparison_key


class MeasureInputError(MdqaError, ValueError):
    """A frame given to a measure lacks a column it needs, or a value it holds cannot be read."""


class UnknownFamilyError(UnknownNameError):
    """A family that the MEBench category table does not list."""


def _require(frame: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise MeasureInputError(
            f"{what} lacks column(s) {missing}; it has {frame.columns}. Rename the columns or pass their names"
        )


# -- MEBench: entity-attributed F1 ------------------------------------------------------------------

TRIPLE_COLUMNS = ("doc_id", "field", "value")


def _triples(frame: pl.DataFrame, columns: Sequence[str], what: str) -> dict[tuple[str, str], list[Any]]:
    """{(entity key, field key): distinct non-null values}, values read from JSON text."""
    _require(frame, columns, what)
    entity, field, value = columns
    out: dict[tuple[str, str], list[Any]] = {}
    seen: set[tuple[str, str, str]] = set()
    for e, f, v in frame.select(entity, field, value).iter_rows():
        if v is None or e is None or f is None:
            continue
        try:
            parsed = json.loads(v) if isinstance(v, str) else v
        except json.JSONDecodeError:
            raise MeasureInputError(
                f"{what}: value {v!r} of ({e!r}, {f!r}) is not JSON; write values as JSON text "
                "(json.dumps), as cells' value_json and gold frames do"
            ) from None
        if parsed is None:
            continue
        key = (comparison_key(str(e)) or "", comparison_key(str(f)) or "")
        canon = json.dumps(parsed, ensure_ascii=False, sort_keys=True)
        if (*key, canon) in seen:  # a set: the same triple twice is one triple
            continue
        seen.add((*key, canon))
        out.setdefault(key, []).append(parsed)
    return out


def _max_matching(preds: list[Any], golds: list[Any]) -> int:
    """Size of a maximum one-to-one matching of predicted to gold values (Kuhn's augmenting paths;
    the rule is not transitive, so a greedy pass could match fewer). Groups are a few values."""
    edges = [[j for j, g in enumerate(golds) if values_agree(p, g)] for p in preds]
    owner: dict[int, int] = {}

    def augment(i: int, visited: set[int]) -> bool:
        for j in edges[i]:
            if j in visited:
                continue
            visited.add(j)
            if j not in owner or augment(owner[j], visited):
                owner[j] = i
                return True
        return False

    return sum(augment(i, set()) for i in range(len(preds)))


def ea_f1(
    predicted: pl.DataFrame,
    gold: pl.DataFrame,
    *,
    predicted_columns: Sequence[str] = TRIPLE_COLUMNS,
    gold_columns: Sequence[str] = TRIPLE_COLUMNS,
) -> dict[str, Any]:
    """MEBench's entity-attributed F1 of predicted triples against gold triples (module docstring).

    Each frame has an entity, a field and a value column (value as JSON text; defaults doc_id, field,
    value). Returns tp, predicted, gold (distinct non-null triples), precision, recall and f1 (None
    where a denominator is zero)."""
    pred = _triples(predicted, predicted_columns, "the predicted frame")
    want = _triples(gold, gold_columns, "the gold frame")
    tp = sum(_max_matching(values, want[key]) for key, values in pred.items() if key in want)
    n_pred = sum(len(v) for v in pred.values())
    n_gold = sum(len(v) for v in want.values())
    precision = tp / n_pred if n_pred else None
    recall = tp / n_gold if n_gold else None
    f1 = (
        2 * precision * recall / (precision + recall)
        if precision is not None and recall is not None and precision + recall > 0
        else (0.0 if precision is not None and recall is not None else None)
    )
    return {"tp": tp, "predicted": n_pred, "gold": n_gold, "precision": precision, "recall": recall, "f1": f1}


def cell_triples(cells: pl.DataFrame) -> pl.DataFrame:
    """The triples an extraction claims: its found cells (ExtractionResult.cells) as doc_id, field, value."""
    _require(cells, ("doc_id", "field", "status", "value_json"), "the cells frame")
    return cells.filter(pl.col("status") == "found").select(
        "doc_id", "field", pl.col("value_json").alias("value")
    )


def gold_triples(gold: pl.DataFrame) -> pl.DataFrame:
    """The triples of a gold frame (metrics.GOLD_SCHEMA: doc_id, field, gold JSON) as doc_id, field, value."""
    _require(gold, ("doc_id", "field", "gold"), "the gold frame")
    return gold.select("doc_id", "field", pl.col("gold").alias("value"))


def cells_ea_f1(cells: pl.DataFrame, gold: pl.DataFrame, *, align: bool = True) -> dict[str, Any]:
    """EA-F1 of an extraction's cells (doc_id, field, status, value_json) against a gold frame (doc_id,
    field, gold). A system names its fields its own way: with `align`, each gold field is first given
    the system field agreeing with it on most documents (`metrics.align_fields`, as the process
    metrics do); fields left unaligned keep their names and score as false positives."""
    if align:
        _require(cells, ("doc_id", "field", "status", "value_json"), "the cells frame")
        inverse = {f: g for g, f in align_fields(cells, gold).items()}
        cells = cells.with_columns(field=pl.col("field").replace(inverse))
    return ea_f1(cell_triples(cells), gold_triples(gold))


# -- MEBench: question categories ---------------------------------------------------------------------

COMPARISON, STATISTICS, RELATIONSHIP, UNMAPPED = "comparison", "statistics", "relationship", "other"
MEBENCH_ORDER = (COMPARISON, STATISTICS, RELATIONSHIP, UNMAPPED)

# family -> (MEBench category, nearest MEBench sub-type, why). MuDABench has no hypothetical
# ("if X won one more medal…") question, so relationship holds only the cross-year changes.
MEBENCH_CATEGORIES: dict[str, tuple[str, str, str]] = {
    "topk": (COMPARISON, "superlative", "the entities with the highest/lowest value"),
    "weighted_score": (COMPARISON, "superlative", "a ranking on a score derived from several attributes"),
    "growth": (COMPARISON, "superlative", "a ranking on each entity's growth between two years"),
    "threshold_filter": (
        COMPARISON,
        "intercomparison",
        "each entity's attributes compared with a stated value",
    ),
    "group_compare": (COMPARISON, "intercomparison", "one attribute compared between two groups of entities"),
    "count": (STATISTICS, "aggregation", "how many entities meet a condition"),
    "groupby_mode": (
        STATISTICS,
        "distribution compliance",
        "the distribution (mode) of a categorical attribute",
    ),
    "range_std": (STATISTICS, "variance analysis", "the spread (range, std) of an attribute"),
    "outlier": (STATISTICS, "variance analysis", "MEBench's variance analysis is outlier detection"),
    "change": (
        RELATIONSHIP,
        "descriptive relationship",
        "how one entity's attribute relates across two years",
    ),
    "other": (UNMAPPED, "", "no keyword rule matched the question (classify_family)"),
}


def mebench_category(family: str) -> str:
    """MEBench's category (comparison | statistics | relationship; 'other' for 'other') of a family."""
    try:
        return MEBENCH_CATEGORIES[family][0]
    except KeyError:
        known = ", ".join(MEBENCH_CATEGORIES)
        raise UnknownFamilyError(
            f"family {family!r} has no MEBench category; known families: {known}. "
            "Add it to MEBENCH_CATEGORIES in mdqa_kernel/benchmarks/measures.py"
        ) from None


def mebench_table() -> pl.DataFrame:
    """The mapping as a frame (family, category, mebench_type, why), in FAMILY_TABLE order."""
    rows = [(f, *MEBENCH_CATEGORIES[f]) for f in (*FAMILY_TABLE, "other")]
    return pl.DataFrame(rows, schema=["family", "category", "mebench_type", "why"], orient="row")


def accuracy_per_category(results: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Accuracy per MEBench category and overall (MEBench Table 3) from one row per question.

    `results`: question_id, family, correct (bool; a null counts as wrong), plus the `by` columns
    (e.g. config). Returns by…, category, questions, correct, accuracy; 'overall' last per group."""
    _require(results, ("question_id", "family", "correct", *by), "the results frame")
    for family in results["family"].unique().to_list():
        mebench_category(family)  # an unknown family is an error, not a silent 'other'
    frame = results.with_columns(
        category=pl.col("family").replace_strict({f: c for f, (c, _t, _w) in MEBENCH_CATEGORIES.items()}),
        correct=pl.col("correct").cast(pl.Boolean).fill_null(False),
    )
    aggs = [pl.len().alias("questions"), pl.col("correct").sum().cast(pl.Int64).alias("correct")]
    keys = [*by, "category"]
    per = frame.group_by(keys).agg(aggs)
    overall = frame.group_by(list(by)).agg(aggs) if by else frame.select(aggs)
    overall = overall.with_columns(category=pl.lit("overall")).select(per.columns)
    order = {c: i for i, c in enumerate((*MEBENCH_ORDER, "overall"))}
    out = pl.concat([per, overall.cast(per.schema)])
    out = out.with_columns(_order=pl.col("category").replace_strict(order, return_dtype=pl.Int64))
    return (
        out.sort([*by, "_order"])
        .drop("_order")
        .with_columns(accuracy=(pl.col("correct") / pl.col("questions")).round(4))
    )


# -- DocHop-QA: recall@K and complete recall@K --------------------------------------------------------


def recall_at_k(ranked: Sequence[Hashable], evidence: AbstractCollection[Hashable], k: int) -> float:
    """Share of the evidence pieces among the first k retrieved (ids may repeat: chunks of one page)."""
    if not evidence:
        raise MeasureInputError("recall@K needs at least one evidence piece; leave such queries out")
    top = set(ranked[:k])
    return sum(1 for e in set(evidence) if e in top) / len(set(evidence))


def complete_at_k(ranked: Sequence[Hashable], evidence: AbstractCollection[Hashable], k: int) -> bool:
    """Is every evidence piece among the first k retrieved (DocHop's complete recall of one query)?"""
    return recall_at_k(ranked, evidence, k) == 1.0


RETRIEVED_COLUMNS = ("query_id", "doc_id", "ranked")
EVIDENCE_COLUMNS = ("query_id", "doc_id", "evidence")


def retrieval_recall(
    retrieved: pl.DataFrame, gold: pl.DataFrame, ks: Sequence[int] = (5, 10), level: str = "document"
) -> pl.DataFrame:
    """Per unit: units with evidence only, with evidence_n and, per k, recall_k, hit_k, complete_k.

    `retrieved`: query_id, doc_id, ranked (list of ids, best first, within that document).
    `gold`: query_id, doc_id, evidence (list of ids). level 'document': one unit per (query, doc);
    'question': one per query, its top k the union of each document's top k. A unit not retrieved
    at all has found nothing."""
    if level not in ("document", "question"):
        raise MeasureInputError(f"unknown level {level!r}; expected 'document' or 'question'")
    _require(retrieved, RETRIEVED_COLUMNS, "the retrieved frame")
    _require(gold, EVIDENCE_COLUMNS, "the gold frame")
    ranking = {(q, d): list(r or []) for q, d, r in retrieved.select(RETRIEVED_COLUMNS).iter_rows()}
    wanted: dict[Any, dict[Any, set[Any]]] = {}
    for q, d, ev in gold.select(EVIDENCE_COLUMNS).iter_rows():
        wanted.setdefault(q, {}).setdefault(d, set()).update(ev or [])
    rows: list[dict[str, Any]] = []
    for q, docs in wanted.items():
        units = [(d, {d: e}) for d, e in docs.items()] if level == "document" else [(None, docs)]
        for d, part in units:
            evidence = {(doc, e) for doc, ids in part.items() for e in ids}
            if not evidence:
                continue
            row: dict[str, Any] = {"query_id": q, "doc_id": d, "evidence_n": len(evidence)}
            for k in ks:
                # the pooled top k of each document searched (one document at level 'document')
                pooled = [(doc, e) for doc in part for e in ranking.get((q, doc), [])[:k]]
                recall = recall_at_k(pooled, evidence, len(pooled))
                row[f"recall_{k}"] = recall
                row[f"hit_{k}"] = recall > 0
                row[f"complete_{k}"] = complete_at_k(pooled, evidence, len(pooled))
            rows.append(row)
    schema: dict[str, Any] = {"query_id": pl.String, "doc_id": pl.String, "evidence_n": pl.Int64}
    for k in ks:
        schema |= {f"recall_{k}": pl.Float64, f"hit_{k}": pl.Boolean, f"complete_{k}": pl.Boolean}
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def summarize_recall(per_unit: pl.DataFrame, ks: Sequence[int] = (5, 10)) -> dict[str, Any]:
    """Means over units: recall@k, hit@k, complete recall@k (rounded to 4 places), and units."""
    out: dict[str, Any] = {"units": per_unit.height}
    for k in ks:
        for name, col in (
            (f"recall@{k}", f"recall_{k}"),
            (f"hit@{k}", f"hit_{k}"),
            (f"complete@{k}", f"complete_{k}"),
        ):
            mean = per_unit.select(pl.col(col).cast(pl.Float64).mean()).item()
            out[name] = round(float(mean), 4) if mean is not None else None
    return out


# -- DocHop's measures on FinanceBench's evidence pages -------------------------------------------------


def financebench_questions(folder: str | Path) -> list[dict[str, Any]]:
    """The questions as `financebench.load_questions` reads and checks them (FinanceBenchDataError
    names the file and line of a row that is not JSON or lacks a field), one dict per question."""
    return load_questions(folder).to_dicts()


def financebench_evidence(questions: list[dict[str, Any]]) -> pl.DataFrame:
    """query_id, doc_id, evidence: 1-based PDF pages (FinanceBench's evidence_page_num is 0-based)."""
    rows: dict[tuple[str, str], set[int]] = {}
    for q in questions:
        for ev in q.get("evidence") or []:
            rows.setdefault((q["financebench_id"], ev["doc_name"]), set()).add(
                int(ev["evidence_page_num"]) + 1
            )
    return pl.DataFrame(
        [(q, d, sorted(p)) for (q, d), p in rows.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "evidence": pl.List(pl.Int64)},
        orient="row",
    )


RETRIEVERS = ("bm25", "hybrid")  # hybrid: BM25 fused with WordLlama's offline embeddings (RRF)


def ranked_pages(index: Any, query: str, k: int, distinct: bool) -> list[int]:
    """The pages of the top-k chunks of one document's index (readers.retrieval.ChunkIndex: BM25, or
    hybrid with an embedder) for a query, best first, as the LLM reader retrieves. distinct: the first
    k distinct pages (ranking deeper chunks) rather than the pages of the first k chunks."""
    if not distinct:
        return [int(p) for p in index.search(query, k)["page"].to_list()]
    pages: list[int] = []
    for p in index.search(query, index.chunks.height)["page"].to_list():
        if int(p) not in pages:
            pages.append(int(p))
        if len(pages) == k:
            break
    return pages


def financebench_retrieval(
    folder: str | Path,
    workspace: str | Path,
    ks: Sequence[int] = (5, 10),
    limit: int | None = None,
    jobs: int | None = None,
    retriever: str = "bm25",
) -> dict[str, Any]:
    """DocHop's recall measures for our retrieval over each question's own filing, FinanceBench
    evidence pages; `retriever`: bm25, or hybrid (BM25 + WordLlama embeddings, RRF).

    Each question's text is the query; its filing's chunks are ranked (readers/retrieval.py) and mapped
    to their pages. Two retrieved units: 'chunks' (the pages of the top K chunks, what a reader with
    k=K reads) and 'pages' (the top K distinct pages); each at both levels, and for the questions whose
    evidence spans two or more pages. `limit`: the first N questions only."""
    from mdqa_kernel.collection import Collection
    from mdqa_kernel.readers.retrieval import ChunkIndex, wordllama_embedder

    if retriever not in RETRIEVERS:
        raise MeasureInputError(f"unknown retriever {retriever!r}; choose one of {', '.join(RETRIEVERS)}")
    embedder = wordllama_embedder() if retriever == "hybrid" else None
    questions = financebench_questions(folder)[:limit]
    gold = financebench_evidence(questions)
    names = sorted(set(gold["doc_id"].to_list()))
    t0 = time.perf_counter()
    coll = Collection.build(
        Path(folder) / "pdfs", workspace=workspace, name="financebench", jobs=jobs, progress=False
    )
    parsed = time.perf_counter() - t0
    missing = [n for n in names if n not in coll.doc_ids]
    if missing:
        raise MeasureInputError(
            f"no PDF for {missing} under {Path(folder) / 'pdfs'}; the folder is incomplete"
        )
    # One index per filing, shared by its questions (a hybrid index embeds the filing's chunks once).
    indexes = {n: ChunkIndex(coll.chunks(n), embedder) for n in names}
    out: dict[str, Any] = {
        "questions": len(questions),
        "documents": len(names),
        "parse_seconds": round(parsed, 1),
        "retriever": retriever,
    }
    for unit, distinct in (("chunks", False), ("pages", True)):
        rows = [
            (q["financebench_id"], d, ranked_pages(indexes[d], q["question"], max(ks), distinct))
            for q in questions
            for d in sorted({ev["doc_name"] for ev in q.get("evidence") or []})
        ]
        retrieved = pl.DataFrame(rows, schema=list(RETRIEVED_COLUMNS), orient="row")
        for level in ("document", "question"):
            out[f"{unit}/{level}"] = summarize_recall(retrieval_recall(retrieved, gold, ks, level), ks)
        # the multi-hop ones: where recall and complete recall part ways
        per = retrieval_recall(retrieved, gold, ks, "question").filter(pl.col("evidence_n") > 1)
        out[f"{unit}/question, 2+ pages"] = summarize_recall(per, ks)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _format(result: dict[str, Any], ks: Sequence[int]) -> str:
    head = [
        "retrieved unit / level",
        "units",
        *(f"{m}@{k}" for k in ks for m in ("recall", "complete", "hit")),
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, value in result.items():
        if isinstance(value, dict):
            cells = [
                key,
                str(value["units"]),
                *(_figure(value[f"{m}@{k}"]) for k in ks for m in ("recall", "complete", "hit")),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    facts = {k: v for k, v in result.items() if not isinstance(v, dict)}
    return "\n".join(lines) + "\n" + json.dumps(facts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--financebench", required=True, help="FinanceBench folder (questions.jsonl, pdfs/)")
    parser.add_argument(
        "--workspace", default="/tmp/mdqa-measures-ws", help="workspace holding the parse cache"
    )
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--limit", type=int, default=None, help="the first N questions only")
    parser.add_argument("--jobs", type=int, default=None, help="parser processes")
    parser.add_argument("--retriever", nargs="+", choices=RETRIEVERS, default=["bm25"],
                        help="one table per retriever (hybrid: BM25 + WordLlama embeddings)")  # fmt: skip
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    results = {}
    for retriever in args.retriever:
        result = financebench_retrieval(
            args.financebench, args.workspace, args.k, args.limit, args.jobs, retriever=retriever
        )
        print(f"retriever: {retriever}\n{_format(result, args.k)}\n")
        results[retriever] = result
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
