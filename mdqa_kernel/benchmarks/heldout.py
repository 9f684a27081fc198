"""Score a held-out stretch of a shuffled grid: one system version, leaving out the development sample.

    python -m mdqa_kernel.benchmarks.heldout results/mudabench-table2/shuffled-complex-1-40-seed0 --version 28

Questions of the stratified 40-question development sample (seed 0) are scored apart ("dev"), and
`--from-position P` scores apart the positions before P (those looked at when the version was made, from
the misses of an earlier one), and `--looked-at q_a,q_b` questions further on that were run or read to make
it, so the "held out" line counts only questions nobody had looked at. The
latest record of each (config, question) is used, so re-scored records count once.

    python -m mdqa_kernel.benchmarks.heldout results/mudabench-table2/shuffled-complex-* --first-look

`--first-look` pools grids: each question is scored by its first run (whatever version ran it then,
with the latest re-scoring of that run), the development sample and `--looked-at` questions left out:
how the system did on questions when it met them, over the whole history of its development.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mdqa_kernel.benchmarks import grid
from mdqa_kernel.benchmarks.grid import ResultStore
from mdqa_kernel.benchmarks.metrics import wilson


def latest_records(folder: Path, system: str, version: int | None) -> list[dict[str, Any]]:
    latest = ResultStore(folder / "results.jsonl").latest()
    return [r for r in latest.values() if r["config"]["system"] == system and r["config"].get("v") == version]


def first_runs(folders: list[Path], system: str) -> list[dict[str, Any]]:
    """The first run of each question of `system` across the grids: the run finished earliest, in the
    latest scoring of that run (a re-scored record keeps its run's finished_at)."""
    runs: dict[tuple[str, str], dict[str, Any]] = {}
    for folder in folders:
        for rec in ResultStore(folder / "results.jsonl").records():
            if (rec.get("config") or {}).get("system") != system or "finished_at" not in rec:
                continue
            runs[(rec["question_id"], rec["finished_at"])] = rec  # later lines re-score the same run
    first: dict[str, dict[str, Any]] = {}
    for (qid, _finished), rec in sorted(runs.items(), key=lambda kv: kv[0][1]):
        first.setdefault(qid, rec)
    return list(first.values())


def by_version(records: list[dict[str, Any]]) -> str:
    counts: dict[Any, list[int]] = {}
    for r in records:
        c = counts.setdefault(r["config"].get("v"), [0, 0])
        c[0] += bool(r["correct"])
        c[1] += 1
    return ", ".join(f"v{v}: {k}/{n}" for v, (k, n) in sorted(counts.items(), key=lambda kv: kv[0] or 0))


def summary(records: list[dict[str, Any]], order: list[str]) -> str:
    n = len(records)
    k = sum(bool(r["correct"]) for r in records)
    clean = [r for r in records if not r["known_defect"]]
    lo, hi = wilson(k, n)
    misses = [
        f"{r['question_id'][:10]}@{order.index(r['question_id']) + 1}{'(defect)' if r['known_defect'] else ''}"
        for r in records
        if not r["correct"]
    ]
    return (
        f"n={n} final={k / n:.3f} ({k}), 95% interval {lo:.2f}-{hi:.2f}; "
        f"clean {sum(bool(r['correct']) for r in clean)}/{len(clean)}; "
        f"LLM calls/q {sum(r['llm_calls'] for r in records) / n:.1f} "
        f"(paid {sum(r['llm_paid_calls'] for r in records) / n:.1f}); "
        f"prompt tok/q {sum(r['llm_prompt_tokens'] for r in records) / n:,.0f}; "
        f"wall s/q {sum(r['wall_s'] for r in records) / n:.1f}; misses {misses}"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("grid", type=Path, nargs="+", help="a shuffled grid folder (holds results.jsonl)")
    ap.add_argument(
        "--first-look", action="store_true", help="pool the grids, each question scored by its first run"
    )
    ap.add_argument("--system", default="mdqa")
    ap.add_argument("--version", type=int, default=None, help="SYSTEM_VERSIONS value of the records")
    ap.add_argument("--split", default="complex")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--from-position", type=int, default=1, help="positions before this one count as development"
    )
    ap.add_argument(
        "--looked-at",
        default="",
        help="comma-separated question ids (or their first characters) looked at when the version was made",
    )
    args = ap.parse_args(argv)
    order = [q.question_id for q in grid.shuffled_questions(f"shuffled:{args.split}", args.seed)]
    dev = {q.question_id for q in grid.parse_questions("40", args.seed) if q.split == args.split}
    dev |= set(order[: max(args.from_position - 1, 0)])
    looked = [p.strip() for p in args.looked_at.split(",") if p.strip()]
    dev |= {q for q in order if any(q.startswith(p) for p in looked)}
    if args.first_look:
        first = [r for r in first_runs(args.grid, args.system) if r["question_id"] not in dev]
        if not first:
            raise SystemExit(f"no {args.system} records outside the development questions in {args.grid}")
        print(f"{args.system} first look: {summary(first, order)}")
        print(f"  by the version that ran it first: {by_version(first)}")
        return
    if len(args.grid) > 1:
        raise SystemExit("several grids are pooled only with --first-look; score one grid per version")
    folder = args.grid[0]
    records = latest_records(folder, args.system, args.version)
    if not records:
        raise SystemExit(f"no {args.system} v{args.version} records in {folder / 'results.jsonl'}")
    for name, part in (
        ("held out", [r for r in records if r["question_id"] not in dev]),
        ("dev", [r for r in records if r["question_id"] in dev]),
    ):
        if part:
            print(f"{args.system} v{args.version} {name}: {summary(part, order)}")


if __name__ == "__main__":
    main()
