"""Planner evaluation on MuDABench simple questions: gold-schema fields, oracle rows, planner aggregation.

For each question of a seeded stratified sample: the fields come from the gold schema (types inferred
from the gold values), the planner chooses the aggregation from the question, the rows are the gold
rows (the oracle reader's values) filtered by the plan's filters, and the answer is rendered and
judged with the deterministic judge. The gap between this accuracy and the ~96% the gold table can
reach is the planner's and the operations' error. Results are appended to a jsonl file, one line per
question, and questions already there are skipped, so a killed run resumes:

    python -m mdqa_kernel.benchmarks.planner_eval --n 60 --seed 0 --out runs/planner.jsonl \
        --workspace runs/planner-ws --backend local --threads 1
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.aggregate.run import aggregate
from mdqa_kernel.answer import render_answer
from mdqa_kernel.benchmarks.gold_plans import infer_type
from mdqa_kernel.benchmarks.judge import judge
from mdqa_kernel.benchmarks.mudabench import AGGREGATE_OPTIONS, DOCTYPES, MudaSplit, load_split
from mdqa_kernel.plan.ir import FieldSpec
from mdqa_kernel.plan.planner import MetadataSchema, Planner

EVAL_VERSION = 1


def stratified_sample(split: MudaSplit, n: int, seed: int = 0) -> list[str]:
    """n question ids covering every (family, language, doctype) stratum, the rest proportional.

    One question per stratum first (so every family, both languages and all doctypes are in), then
    the remaining slots drawn at random; `n >= len(split)` returns every question.
    """
    q = split.questions.with_columns(pl.col("doctypes").list.first().alias("doctype"))
    ids = q["question_id"].to_list()
    if n >= len(ids):
        return ids
    rng = random.Random(seed)
    strata: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for r in q.iter_rows(named=True):
        strata[(r["family"], r["language"], r["doctype"])].append(r["question_id"])
    chosen: list[str] = []
    for key in sorted(strata):
        chosen.append(rng.choice(strata[key]))
    rest = [i for i in ids if i not in chosen]
    rng.shuffle(rest)
    chosen += rest[: max(0, n - len(chosen))]
    return chosen[:n] if len(chosen) > n else chosen


def split_metadata(split: MudaSplit) -> MetadataSchema:
    """The planner's view of the whole split as one collection: years and the five doctypes."""
    years = sorted(split.all_documents["year"].unique().to_list())
    return MetadataSchema(["doc_id", "symbol", "year", "doctype"], {"year": years, "doctype": list(DOCTYPES)})


def gold_fields(split: MudaSplit, qid: str) -> list[FieldSpec]:
    """The question's gold schema as FieldSpecs, typed from the gold values."""
    meta = split.item(qid)["metadata"]
    out = []
    for name, desc in split.schema(qid).items():
        values = [m.get(name) for m in meta]
        d = desc.strip() or name
        ftype = infer_type(name, values)
        unit = next((u for suffix, u in _UNITS if name.endswith(suffix)), None) if ftype == "number" else None
        out.append(
            FieldSpec(name=name, type=ftype, description=d, question="{symbol} {year}: " + d, unit=unit)
        )
    return out


_UNITS = (("_10k_cny", "万元"), ("_cny", "CNY"), ("_usd", "USD"))


def oracle_rows(split: MudaSplit, qid: str, fields: list[FieldSpec]) -> pl.DataFrame:
    """The gold rows typed as the fields say: 'MM-DD' strings of a date field become dates (in 2000,
    a leap year, so every month-day exists), as a date-typed reader would return them."""
    rows = split.gold_rows(qid)
    fixes = []
    for f in fields:
        if f.type == "date" and f.name in rows.columns and rows.schema[f.name] == pl.String:
            fixes.append(("2000-" + pl.col(f.name)).str.to_date("%Y-%m-%d", strict=False).alias(f.name))
    return rows.with_columns(fixes) if fixes else rows


def evaluate_question(planner: Planner, split: MudaSplit, qid: str, meta: MetadataSchema) -> dict[str, Any]:
    item = split.item(qid)
    info = split.questions.filter(pl.col("question_id") == qid).row(0, named=True)
    t0 = time.perf_counter()
    fields = gold_fields(split, qid)
    result = planner.propose(item["question"], metadata=meta, schema_fields=fields)
    rec: dict[str, Any] = {
        "v": EVAL_VERSION,
        "question_id": qid,
        "position": info["position"],
        "language": info["language"],
        "doctype": info["doctypes"][0],
        "family": info["family"],
        "known_defect": info["known_defect"],
        "question": item["question"],
        "reference": item["final_answer"],
        "plan_valid": result.valid,
        "plan_error": result.error,
        "family_chosen": result.trace.family,
        "family_source": result.trace.family_source,
        "model_family": result.trace.model_family,
        "family_match": result.trace.family == info["family"],
        "model_family_match": result.trace.model_family == info["family"],
        "sources": result.trace.sources,
        "params": result.trace.params,
        "llm_steps": len(result.trace.attempts),
        "plan_seconds": round(result.trace.seconds, 2),
        "aggregation": result.plan.aggregation.to_dict() if result.plan and result.plan.aggregation else None,
        "filters": result.plan.to_dict().get("filters") if result.plan else None,
        "answer": None,
        "correct": False,
        "judge_reason": None,
        "aggregate_error": None,
    }
    if result.plan is not None and result.plan.aggregation is not None:
        rows = oracle_rows(split, qid, fields)
        try:
            rows = rows.filter(result.plan.filter_expr()) if result.plan.filters else rows
            agg = aggregate(rows, result.plan.aggregation, **AGGREGATE_OPTIONS)
            answer = render_answer(item["question"], result.plan.aggregation, agg)
            verdict = judge(answer.text, item["final_answer"], question=item["question"])
            rec.update(answer=answer.text, correct=bool(verdict), judge_reason=verdict.reason)
        except Exception as e:  # a plan that fails on real rows is a wrong answer, recorded with its reason
            rec["aggregate_error"] = f"{type(e).__name__}: {e}"
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def done_ids(path: Path) -> set[str]:
    if not path.exists():
        return set()
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a kill: that question runs again
        if rec.get("v") == EVAL_VERSION:
            out.add(rec["question_id"])
    return out


def run(planner: Planner, qids: list[str], out: Path, split: MudaSplit, *, echo: bool = True) -> int:
    """Evaluate the questions not yet in `out`, appending one line each; returns how many ran."""
    out.parent.mkdir(parents=True, exist_ok=True)
    skip = done_ids(out)
    meta = split_metadata(split)
    ran = 0
    for i, qid in enumerate(qids):
        if qid in skip:
            continue
        rec = evaluate_question(planner, split, qid, meta)
        with out.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")
        ran += 1
        if echo:
            mark = "OK " if rec["correct"] else "-- "
            print(f"[{i + 1}/{len(qids)}] {mark}{rec['position']:>3} {rec['family']:<16} -> {rec['family_chosen']}"
                  f" ({rec['family_source']}) valid={rec['plan_valid']} {rec['seconds']}s", flush=True)  # fmt: skip
    return ran


def load_results(path: str | Path) -> pl.DataFrame:
    """The results file as a frame (one row per question, latest line wins)."""
    recs: dict[str, dict[str, Any]] = {}
    p = Path(path)
    if p.exists():
        for line in p.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if rec.get("v") == EVAL_VERSION:
                recs[rec["question_id"]] = rec
    keep = ["question_id", "position", "language", "doctype", "family", "known_defect", "plan_valid",
            "family_chosen", "family_source", "model_family", "family_match", "model_family_match",
            "correct", "plan_seconds", "llm_steps", "answer", "reference", "judge_reason", "plan_error",
            "aggregate_error"]  # fmt: skip
    rows = [{k: r.get(k) for k in keep} for r in recs.values()]
    schema = {k: pl.String for k in keep} | {
        "position": pl.Int64, "known_defect": pl.Boolean, "plan_valid": pl.Boolean, "family_match": pl.Boolean,
        "model_family_match": pl.Boolean, "correct": pl.Boolean, "plan_seconds": pl.Float64, "llm_steps": pl.Int64,
    }  # fmt: skip
    return pl.DataFrame(rows, schema=schema)


def summarize(results: pl.DataFrame) -> dict[str, Any]:
    """Accuracy on all and on the clean subset, plan validity, family agreement (final and model-only)."""
    if results.height == 0:
        return {"n": 0}
    clean = results.filter(~pl.col("known_defect"))

    def rate(df: pl.DataFrame, col: str) -> float | None:
        return round(float(df[col].cast(pl.Float64).mean()), 4) if df.height else None

    return {
        "n": results.height,
        "n_clean": clean.height,
        "accuracy_all": rate(results, "correct"),
        "accuracy_clean": rate(clean, "correct"),
        "plan_valid": rate(results, "plan_valid"),
        "family_match": rate(results, "family_match"),
        "model_family_match": rate(results, "model_family_match"),
        "rule_overrides": int((results["family_source"] == "rule>model").sum()),
        "mean_plan_seconds": round(float(results["plan_seconds"].mean()), 1),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60, help="sample size (>= 164: every unique question)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/planner_eval.jsonl")
    ap.add_argument("--workspace", default="runs/planner-ws", help="LLM call cache and accounting")
    ap.add_argument("--backend", default=None, help="local | local-tiny | openai | ollama (default: env)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--family-mode", default="model+rules", choices=["model+rules", "model", "rules"])
    args = ap.parse_args(argv)

    from mdqa_kernel.llm import LLMClient, LLMConfig

    split = load_split("simple")
    client = LLMClient(LLMConfig.from_env(backend=args.backend, n_threads=args.threads), args.workspace)
    planner = Planner(client, family_mode=args.family_mode, dry_run=aggregate)
    qids = stratified_sample(split, args.n, args.seed)
    ran = run(planner, qids, Path(args.out), split)
    client.close()
    print(json.dumps({"ran": ran, **summarize(load_results(args.out))}, ensure_ascii=False))


if __name__ == "__main__":
    main()
