"""FinanceBench (Patronus AI, 2023): loaders for the questions, the filings and the published results.

The data is never vendored: it is read from a folder with the published layout (`questions.jsonl`,
`documents.jsonl`, `pdfs/<doc_name>.pdf`, `results/<model>_<mode>.jsonl`), by default
`../shared/financebench` beside the repository, or the folder named by `$MDQA_FINANCEBENCH`, or a path
passed to each function. The held-out split has the same layout, so every function takes its folder.

Every problem with the folder or a file raises a `FinanceBenchDataError` that names the file, the
line where there is one, and the fix.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.numeric_judge import judge, quantities, reference_quantity
from mdqa_kernel.errors import MdqaError

ENV_VAR = "MDQA_FINANCEBENCH"
DEFAULT_PATH = Path(__file__).resolve().parents[2].parent / "shared" / "financebench"

QUESTION_FIELDS = ("financebench_id", "company", "doc_name", "question_type", "question", "answer")
DOCUMENT_FIELDS = ("doc_name", "company", "gics_sector", "doc_type", "doc_period")
RESULT_FIELDS = ("financebench_id", "model_name", "eval_mode", "model_answer", "label")
# The paper's three human labels, as tidy words.
LABELS = {"Correct Answer": "correct", "Incorrect Answer": "incorrect", "Refusal": "refusal"}


class FinanceBenchDataError(MdqaError, ValueError):
    """The FinanceBench folder or one of its files is missing or malformed."""


def data_path(path: str | Path | None = None) -> Path:
    """The FinanceBench folder: `path`, else `$MDQA_FINANCEBENCH`, else `../shared/financebench`."""
    chosen = Path(path) if path is not None else Path(os.environ.get(ENV_VAR) or DEFAULT_PATH)
    if not chosen.is_dir():
        raise FinanceBenchDataError(
            f"FinanceBench folder {chosen} does not exist; pass the folder that holds questions.jsonl, "
            f"documents.jsonl, pdfs/ and results/ (or set ${ENV_VAR})"
        )
    return chosen


def _read_jsonl(file: Path, required: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows of a JSON-lines file, each checked for the required fields (errors name file and line)."""
    if not file.is_file():
        raise FinanceBenchDataError(
            f"{file} is missing; the FinanceBench folder must hold it as published (see its README.md)"
        )
    rows: list[dict[str, Any]] = []
    with file.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise FinanceBenchDataError(
                    f"{file} line {n} is not valid JSON ({e.msg}); restore the file from the published data"
                ) from e
            missing = [f for f in required if not isinstance(row, dict) or row.get(f) is None]
            if missing:
                raise FinanceBenchDataError(
                    f"{file} line {n} lacks {', '.join(missing)}; every row needs {', '.join(required)}"
                )
            rows.append(row)
    if not rows:
        raise FinanceBenchDataError(f"{file} has no rows; restore it from the published data")
    return rows


def load_questions(path: str | Path | None = None) -> pl.DataFrame:
    """One row per question: the published fields, `evidence` as a list of
    {evidence_text, doc_name, evidence_page_num (0-based)}."""
    rows = _read_jsonl(data_path(path) / "questions.jsonl", QUESTION_FIELDS)
    records = [
        {
            "financebench_id": r["financebench_id"],
            "company": r["company"],
            "doc_name": r["doc_name"],
            "question_type": r["question_type"],
            "question_reasoning": r.get("question_reasoning"),
            "question": r["question"],
            "answer": str(r["answer"]),
            "justification": r.get("justification"),
            "evidence": [
                {
                    "evidence_text": e.get("evidence_text"),
                    "doc_name": e.get("doc_name"),
                    "evidence_page_num": e.get("evidence_page_num"),
                }
                for e in r.get("evidence") or []
            ],
        }
        for r in rows
    ]
    evidence = pl.List(
        pl.Struct({"evidence_text": pl.String, "doc_name": pl.String, "evidence_page_num": pl.Int64})
    )
    text_columns = (
        "financebench_id", "company", "doc_name", "question_type", "question_reasoning", "question",
        "answer", "justification",
    )  # fmt: skip
    schema = pl.Schema([*((c, pl.String()) for c in text_columns), ("evidence", evidence)])
    return pl.DataFrame(records, schema=schema)


def load_documents(path: str | Path | None = None) -> pl.DataFrame:
    """One row per filing: doc_name, company, sector (GICS), doc_type (lower case: 10k, 10q, 8k,
    earnings), year (the published
    doc_period, a fiscal year), doc_link, pdf (its path; the file may be absent in a partial copy)."""
    folder = data_path(path)
    file = folder / "documents.jsonl"
    rows = _read_jsonl(file, DOCUMENT_FIELDS)
    records = []
    for n, r in enumerate(rows, 1):
        try:
            year = int(r["doc_period"])
        except (TypeError, ValueError) as e:
            raise FinanceBenchDataError(
                f"{file} row {n} ({r['doc_name']}) has doc_period {r['doc_period']!r}, not a year; "
                "doc_period must be the fiscal year (e.g. 2022)"
            ) from e
        records.append(
            {
                "doc_name": r["doc_name"],
                "company": r["company"],
                "sector": r["gics_sector"],
                "doc_type": str(r["doc_type"]).lower(),  # published as "10k" and "Earnings"
                "year": year,
                "doc_link": r.get("doc_link"),
                "pdf": str(folder / "pdfs" / f"{r['doc_name']}.pdf"),
            }
        )
    docs = pl.DataFrame(records, schema_overrides={"year": pl.Int64, "doc_link": pl.String})
    dupes = docs.filter(pl.col("doc_name").is_duplicated())["doc_name"].unique().to_list()
    if dupes:
        raise FinanceBenchDataError(
            f"{file} lists {', '.join(sorted(dupes))} more than once; keep one row each"
        )
    return docs


def load_published(path: str | Path | None = None) -> pl.DataFrame:
    """The published configurations' answers in one tidy frame: config (the file's stem), model,
    setting (the paper's eval_mode), financebench_id, question, gold_answer, answer, label
    (correct / incorrect / refusal) and label_raw (as published)."""
    folder = data_path(path) / "results"
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if not files:
        raise FinanceBenchDataError(
            f"{folder} holds no <model>_<mode>.jsonl files; copy the published results/ folder there"
        )
    frames = []
    for file in files:
        rows = _read_jsonl(file, RESULT_FIELDS)
        unknown = sorted({r["label"] for r in rows} - set(LABELS))
        if unknown:
            raise FinanceBenchDataError(
                f"{file} has labels {unknown}; expected one of {sorted(LABELS)} as published"
            )
        frames.append(
            pl.DataFrame(
                [
                    {
                        "config": file.stem,
                        "model": r["model_name"],
                        "setting": r["eval_mode"],
                        "financebench_id": r["financebench_id"],
                        "question": r.get("question"),
                        "gold_answer": None if r.get("gold_answer") is None else str(r["gold_answer"]),
                        "answer": str(r["model_answer"]),
                        "label": LABELS[r["label"]],
                        "label_raw": r["label"],
                    }
                    for r in rows
                ],
                schema_overrides={"question": pl.String, "gold_answer": pl.String},
            )
        )
    return pl.concat(frames)


def collection_metadata(
    path: str | Path | None = None, doc_names: Sequence[str] | None = None
) -> pl.DataFrame:
    """The metadata table `mdqa collection build PDFS --metadata FILE` accepts: doc_id (matched to
    `<doc_id>.pdf`), company, doc_type, year (fiscal year), sector; only `doc_names` when given
    (a collection of a few filings)."""
    docs = load_documents(path)
    if doc_names is not None:
        unknown = sorted(set(doc_names) - set(docs["doc_name"]))
        if unknown:
            raise FinanceBenchDataError(
                f"{', '.join(unknown)} not in {data_path(path) / 'documents.jsonl'}; "
                "pick doc_name values listed there"
            )
        docs = docs.filter(pl.col("doc_name").is_in(list(doc_names)))
    return docs.select(pl.col("doc_name").alias("doc_id"), "company", "doc_type", "year", "sector")


def write_collection_metadata(
    out: str | Path, path: str | Path | None = None, doc_names: Sequence[str] | None = None
) -> Path:
    """Write `collection_metadata(path, doc_names)` as CSV to `out`, for
    `mdqa collection build <folder>/pdfs --metadata OUT`."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    collection_metadata(path, doc_names).write_csv(out)
    return out


def _reference_kind(question: str, reference: str) -> str:
    """'yes_no', 'numeric' or 'other': which part of the numeric judge applies to the reference."""
    if judge(question, reference, "yes").reason.startswith("leading"):
        return "yes_no"
    return "numeric" if reference_quantity(question, reference) is not None else "other"


def judge_agreement(path: str | Path | None = None) -> pl.DataFrame:
    """The numeric judge beside the paper's human labels, one row per published answer whose
    reference is a number or begins with yes/no: config, financebench_id, question_type, kind
    (numeric / yes_no), judged (False when the answer holds no number, or no leading yes/no, for the
    judge to decide on), verdict, reason, label (human: correct / incorrect / refusal), human
    (correct / incorrect: a refusal counts as incorrect) and agree (on judged rows)."""
    questions = load_questions(path).select("financebench_id", "question_type", "question", "answer")
    published = load_published(path).select("config", "financebench_id", "answer", "label")
    missing = set(published["financebench_id"]) - set(questions["financebench_id"])
    if missing:
        raise FinanceBenchDataError(
            f"results/ answers questions not in questions.jsonl ({', '.join(sorted(missing)[:3])}, ...); "
            "use the questions and results of the same split"
        )
    joined = published.join(questions.rename({"answer": "reference"}), on="financebench_id", how="left")
    rows = []
    for r in joined.iter_rows(named=True):
        kind = _reference_kind(r["question"], r["reference"])
        if kind == "other":
            continue
        v = judge(r["question"], r["reference"], r["answer"])
        judged = v.verdict != "not_numeric" and (
            kind == "yes_no" or bool(quantities(r["answer"], r["question"]))
        )
        human = "correct" if r["label"] == "correct" else "incorrect"
        rows.append(
            {
                "config": r["config"],
                "financebench_id": r["financebench_id"],
                "question_type": r["question_type"],
                "kind": kind,
                "reference": r["reference"],
                "answer": r["answer"],
                "judged": judged,
                "verdict": v.verdict,
                "reason": v.reason,
                "label": r["label"],
                "human": human,
                "agree": judged and v.verdict == human,
            }
        )
    return pl.DataFrame(rows)


def agreement_summary(agreement: pl.DataFrame, by: str | list[str] = "kind") -> pl.DataFrame:
    """n judged, agree, disagree, the agreement share, and the two kinds of disagreement
    (judge correct / human incorrect, and the reverse), per `by`."""
    judged = agreement.filter(pl.col("judged"))
    return (
        judged.group_by(by)
        .agg(
            pl.len().alias("n"),
            pl.col("agree").sum().alias("agree"),
            (~pl.col("agree")).sum().alias("disagree"),
            ((pl.col("verdict") == "correct") & (pl.col("human") == "incorrect"))
            .sum()
            .alias("judge_lenient"),
            ((pl.col("verdict") == "incorrect") & (pl.col("human") == "correct")).sum().alias("judge_strict"),
        )
        .with_columns((pl.col("agree") / pl.col("n")).round(3).alias("agreement"))
        .sort(by)
    )


def agreement_report(path: str | Path | None = None, examples: int = 10) -> str:
    """Markdown: the judge's agreement with the human labels per kind, then disagreements."""
    a = judge_agreement(path)
    lines = [
        f"FinanceBench numeric judge vs human labels ({data_path(path)}): "
        f"{a.height} published answers whose reference is a number or a yes/no; "
        f"{a['judged'].sum()} judged, {(~a['judged']).sum()} left to an LLM judge.",
        "",
        "| kind | n | agree | disagree | judge correct, human not | judge incorrect, human correct | agreement |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in agreement_summary(a).iter_rows(named=True):
        lines.append(
            f"| {r['kind']} | {r['n']} | {r['agree']} | {r['disagree']} | {r['judge_lenient']} | "
            f"{r['judge_strict']} | {r['agreement']:.3f} |"
        )
    lines += ["", "Disagreements (first examples):", ""]
    for r in a.filter(pl.col("judged") & ~pl.col("agree")).head(examples).iter_rows(named=True):
        lines.append(
            f"- {r['config']} {r['financebench_id']}: judge {r['verdict']}, human {r['label']}; "
            f"reference {r['reference'][:40]!r}; {r['reason']}"
        )
    return "\n".join(lines)


def left_to_llm_judge(path: str | Path | None = None) -> pl.DataFrame:
    """The published answers the numeric judge gives no verdict on (a reference that is neither a
    number nor a yes/no, or an answer without a number): the LLM judge's share of the work."""
    questions = load_questions(path).select("financebench_id", "question_type", "question", "answer")
    published = load_published(path).select("config", "financebench_id", "answer", "label")
    judged = judge_agreement(path).filter(pl.col("judged")).select("config", "financebench_id")
    joined = published.join(
        questions.rename({"answer": "reference"}), on="financebench_id", how="inner", maintain_order="left"
    )
    human = pl.when(pl.col("label") == "correct").then(pl.lit("correct")).otherwise(pl.lit("incorrect"))
    return joined.join(
        judged, on=["config", "financebench_id"], how="anti", maintain_order="left"
    ).with_columns(human.alias("human"))


def llm_judge_agreement(
    llm: Any, path: str | Path | None = None, sample: int = 40, seed: int = 0
) -> pl.DataFrame:
    """The LLM judge (`llm_judge`, the model `llm` serves) beside the human labels on a seeded sample of
    the answers left to it; one row per answer with its verdict, the human label and whether they agree."""
    import random

    from mdqa_kernel.benchmarks.llm_judge import LLMJudgeError, llm_judge

    left = left_to_llm_judge(path)
    picked = sorted(random.Random(seed).sample(range(left.height), min(sample, left.height)))
    rows = []
    for r in left[picked].iter_rows(named=True):
        try:
            ok, reason = llm_judge(r["answer"], r["reference"], r["question"], llm)
            verdict = "correct" if ok else "incorrect"
        except LLMJudgeError as e:
            verdict, reason = "failed", str(e)[:200]
        rows.append({"config": r["config"], "financebench_id": r["financebench_id"], "verdict": verdict,
                     "human": r["human"], "agree": verdict == r["human"], "reason": reason})  # fmt: skip
    return pl.DataFrame(rows, infer_schema_length=None)


def _main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(
        description="The judges of FinanceBench beside the paper's human labels."
    )
    parser.add_argument(
        "path", nargs="?", default=None, help="FinanceBench folder (default ../shared/financebench)"
    )
    parser.add_argument("--llm-judge", type=int, default=0, metavar="N",
                        help="also run the LLM judge on N sampled answers the numeric judge leaves to it")  # fmt: skip
    parser.add_argument("--llm", default="local", help="LLM backend for --llm-judge (default local)")
    parser.add_argument(
        "--workspace", default="results/financebench-judge", help="LLM cache and journal folder"
    )
    args = parser.parse_args(argv)
    print(agreement_report(args.path, examples=30))
    if args.llm_judge:
        from mdqa_kernel.benchmarks.runner import LLMPool
        from mdqa_kernel.llm import LLMConfig
        from mdqa_kernel.llm.journal import load_journal
        from mdqa_kernel.store import Workspace

        ws = Workspace(args.workspace)
        journal = Path(args.workspace) / "llm-cache.jsonl"
        load_journal(journal, ws)
        pool = LLMPool(LLMConfig.from_env(backend=args.llm), str(ws.path), journal=str(journal))
        client = pool.judge_client()
        rows = llm_judge_agreement(client, args.path, sample=args.llm_judge)
        client.flush()
        agree = int(rows["agree"].sum())
        print(f"\nLLM judge ({args.llm}) on {rows.height} sampled answers left to it: {agree} agree with the "
              f"human labels ({agree / max(rows.height, 1):.3f}); judge correct / human incorrect: "
              f"{rows.filter((pl.col('verdict') == 'correct') & (pl.col('human') == 'incorrect')).height}, "
              f"the reverse: {rows.filter((pl.col('verdict') == 'incorrect') & (pl.col('human') == 'correct')).height}, "
              f"failed: {rows.filter(pl.col('verdict') == 'failed').height}")  # fmt: skip


if __name__ == "__main__":
    _main()
