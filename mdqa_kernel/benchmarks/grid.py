"""The MuDABench grid: a fixed question sample, its rendered corpus, and a results store.

    refs = stratified_sample(10, seed=0)                 # split × doctype strata, seeded
    corpus = prepare_corpus(root, refs, noise=0.5)       # render once, build collections once
    store = ResultStore(root / "results.jsonl")
    store.done(key) / store.add(record)                  # one line per finished (system, question)

Everything is resumable: rendering is skipped when the corpus already holds the sample, building
reuses the workspace's parse cache, and a (system config, question) whose key is in the store is
never run again. Noise documents are rendered once with the question documents; a clean run simply
leaves them out of the question's document set.
"""

from __future__ import annotations

import json
import os
import random
import threading
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mdqa_kernel.benchmarks.mudabench import DOCTYPES, KNOWN_DEFECTS, SPLITS, load_split
from mdqa_kernel.errors import MdqaError
from mdqa_kernel.store import stable_hash

NOISE_RATIO = 0.5  # the paper's setting: 0.5 × |D| irrelevant documents per question


class GridError(MdqaError):
    """The grid cannot be prepared (unknown question, corpus that does not match the sample)."""


@dataclass(frozen=True)
class QuestionRef:
    """A question of a split: the unit a system answers and the results store is keyed by."""

    split: str
    question_id: str

    @property
    def label(self) -> str:
        return f"{self.split}:{self.question_id}"

    @classmethod
    def parse(cls, text: str) -> QuestionRef:
        split, _, qid = text.partition(":")
        if split not in SPLITS or not qid:
            raise GridError(
                f"question reference {text!r} is not '<simple|complex>:<question_id>'; "
                "use e.g. --sample complex:q_a91050d8dfb41eb2,q_8be68b3d500f424f, a count, 'all' or "
                "'shuffled:<split>[:<from>-<to>]'"
            )
        return cls(split, qid)


def _primary_doctype(split: str, qid: str) -> str:
    doctypes = sorted({m["doctype"] for m in load_split(split).item(qid)["metadata"]})
    return doctypes[0] if doctypes else ""


def stratified_sample(
    n: int | str, seed: int = 0, splits: Iterable[str] = SPLITS, clean_only: bool = False
) -> list[QuestionRef]:
    """`n` questions spread evenly over split × doctype strata, drawn at random (seeded) in each.

    `n='all'` returns every unique question. Strata are filled round-robin, so 10 questions over
    two splits and five doctypes give one question per (split, doctype).
    """
    splits = list(splits)
    if n == "all":
        return [QuestionRef(s, q) for s in splits for q in load_split(s).question_ids]
    n = int(n)
    if n <= 0:
        raise GridError("the sample size must be positive")
    strata: list[list[QuestionRef]] = []
    for split in splits:
        by_type: dict[str, list[str]] = {d: [] for d in DOCTYPES}
        for qid in load_split(split).question_ids:
            if clean_only and qid in KNOWN_DEFECTS:
                continue
            by_type.setdefault(_primary_doctype(split, qid), []).append(qid)
        for doctype, qids in by_type.items():
            rng = random.Random(f"{seed}:{split}:{doctype}")
            picked = list(qids)
            rng.shuffle(picked)
            strata.append([QuestionRef(split, q) for q in picked])
    # Round-robin over the strata, interleaving splits first, so any prefix stays balanced.
    order = sorted(range(len(strata)), key=lambda i: (i % len(DOCTYPES), i // len(DOCTYPES)))
    out: list[QuestionRef] = []
    depth = 0
    while len(out) < n and any(depth < len(s) for s in strata):
        for i in order:
            if depth < len(strata[i]) and len(out) < n:
                out.append(strata[i][depth])
        depth += 1
    return out


def parse_questions(spec: str | int, seed: int = 0) -> list[QuestionRef]:
    """'all', a count (stratified sample), 'shuffled:<split>[:<from>-<to>]', or '<split>:<qid>,…' (a
    bare id after the first takes the split before it: 'complex:q_a,q_b')."""
    text = str(spec).strip()
    if text == "all" or text.isdigit():
        return stratified_sample(text if text == "all" else int(text), seed)
    if text.startswith("shuffled:"):
        return shuffled_questions(text, seed)
    refs: list[QuestionRef] = []
    for token in (t.strip() for t in text.split(",")):
        if token and ":" not in token and refs:
            token = f"{refs[-1].split}:{token}"
        if token:
            refs.append(QuestionRef.parse(token))
    return refs


def shuffled_questions(spec: str, seed: int = 0) -> list[QuestionRef]:
    """A split's unique questions in a seeded random order, or positions `from`–`to` of it (1-based).

    Held-out checks take a stretch of this order nobody has looked at yet: the order is fixed by the
    split file and the seed (`random.Random(seed).shuffle` of the file's order), so the stretches of
    earlier sessions stay the same questions.
    """
    parts = spec.split(":")
    if len(parts) not in (2, 3) or parts[1] not in SPLITS:
        raise GridError(f"sample {spec!r} is not 'shuffled:<simple|complex>[:<from>-<to>]'")
    ids = list(load_split(parts[1]).question_ids)
    random.Random(seed).shuffle(ids)
    if len(parts) == 3:
        lo, _, hi = parts[2].partition("-")
        if not (lo.isdigit() and hi.isdigit() and 1 <= int(lo) <= int(hi)):
            raise GridError(f"positions {parts[2]!r} in {spec!r} are not '<from>-<to>' (1-based, from ≤ to)")
        ids = ids[int(lo) - 1 : int(hi)]
    return [QuestionRef(parts[1], q) for q in ids]


# -- corpus ---------------------------------------------------------------------------------------


@dataclass
class QuestionDocs:
    """The document ids a question reads, clean and with its noise documents."""

    doc_ids: list[str]
    noise_doc_ids: list[str]

    def for_run(self, noise: bool) -> list[str]:
        return self.doc_ids + (self.noise_doc_ids if noise else [])


@dataclass
class Corpus:
    """Rendered PDFs per split (root/corpus/<split>) built as collections named after the split."""

    root: Path
    workspace: Path
    questions: dict[str, QuestionDocs]  # QuestionRef.label → documents

    def collection(self, split: str) -> Any:
        from mdqa_kernel.collection.collection import Collection

        return Collection.open(str(self.workspace), split)

    def docs(self, ref: QuestionRef) -> QuestionDocs:
        try:
            return self.questions[ref.label]
        except KeyError:
            raise GridError(f"{ref.label} is not in the corpus at {self.root}; prepare it first") from None


def _rendered_questions(folder: Path) -> dict[str, Any]:
    path = folder / "questions.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def prepare_corpus(
    root: str | Path,
    refs: list[QuestionRef],
    *,
    noise: float = NOISE_RATIO,
    seed: int = 0,
    jobs: int = 1,
    progress: bool = False,
) -> Corpus:
    """Render the sample's documents (plus noise) once per split and build one collection per split."""
    from mdqa_kernel.benchmarks.render import render_mudabench
    from mdqa_kernel.collection.collection import Collection, CollectionNotFoundError

    root = Path(root)
    workspace = root / "workspace"
    questions: dict[str, QuestionDocs] = {}
    for split in sorted({r.split for r in refs}):
        wanted = sorted({r.question_id for r in refs if r.split == split})
        folder = root / "corpus" / split
        rendered = _rendered_questions(folder)
        if not set(wanted) <= set(rendered):
            # Render the union, so growing the sample never drops documents another run still uses.
            union = sorted(set(wanted) | set(rendered))
            render_mudabench(
                split,
                union,
                folder,
                seed=seed,
                noise=noise,
                workers=jobs,
                progress=progress,
                strict_fonts=True,
            )
            rendered = _rendered_questions(folder)
            _build(workspace, split, folder, jobs, progress)
        else:
            try:
                Collection.open(str(workspace), split)
            except CollectionNotFoundError:
                _build(workspace, split, folder, jobs, progress)
        for qid in wanted:
            q = rendered[qid]
            questions[f"{split}:{qid}"] = QuestionDocs(list(q["doc_ids"]), list(q.get("noise_doc_ids", [])))
    return Corpus(root, workspace, questions)


def _build(workspace: Path, split: str, folder: Path, jobs: int, progress: bool) -> None:
    from mdqa_kernel.collection.collection import Collection

    Collection.build(
        folder / "pdfs",
        folder / "metadata.csv",
        workspace=str(workspace),
        name=split,
        jobs=jobs,
        progress=progress,
    )


# -- results store --------------------------------------------------------------------------------


def result_key(system_config: dict[str, Any], ref: QuestionRef, llm: dict[str, Any]) -> str:
    """Hash of everything that decides one result: the system configuration, the question, the model."""
    return stable_hash({"system": system_config, "question": ref.label, "llm": llm})[:24]


class ResultStore:
    """Append-only JSON lines, one per finished (system config, question); the last line of a key wins.

    Appending one line with O_APPEND is atomic for lines this size, so two grid processes can share
    the file; a line cut by a crash fails to parse and is ignored (that question simply runs again).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def records(self) -> Iterator[dict[str, Any]]:
        if not self.path.is_file():
            return
        with self.path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue

    def latest(self) -> dict[str, dict[str, Any]]:
        return {r["key"]: r for r in self.records() if "key" in r}

    def done(self, key: str, *, retry_failed: bool = False) -> bool:
        rec = self.latest().get(key)
        if rec is None:
            return False
        # "unavailable" means a stage did not exist yet (a module still being written): never final.
        if rec.get("status") == "unavailable":
            return False
        return not (retry_failed and rec.get("status") != "ok")

    def add(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)


def refs_as_dicts(refs: list[QuestionRef]) -> list[dict[str, str]]:
    return [asdict(r) for r in refs]
