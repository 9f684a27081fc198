"""flat-rag: the paper's baseline — one BM25 pool over every chunk of the question's collection,
the top ⌈k·|D|⌉ chunks in one prompt, one LLM call to answer.

As in the paper, chunks are the document's text chunks (passages of a few hundred tokens, like
OpenAI file search's), not our table-row chunks. With `metadata`, the prompt starts with the
documents' metadata table and every passage names its document (symbol, year, doctype); without it
a passage is labelled only by its document id, as a file-search result is. The prompt is cut to the
model's context (n_ctx minus the answer budget) from the lowest-ranked chunk up; the truncation is
recorded in the output notes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import polars as pl

from mdqa_kernel.benchmarks.systems.base import (
    LLM,
    QuestionInput,
    StageError,
    SystemConfig,
    SystemOutput,
    approx_tokens,
    doc_label,
    fit_blocks,
    metadata_table,
)
from mdqa_kernel.readers.retrieval import ChunkIndex

PROMPT_MARGIN_TOKENS = 200  # chat template and instruction text beyond the passages

INSTRUCTION = {
    "zh": "请只根据上面的文档片段回答问题。需要计算时请给出计算结果；列出股票代码和数值。回答要简洁。",
    "en": "Answer the question using only the passages above. Compute what is asked; list the stock symbols and values. Be concise.",
}


def pooled_chunks(q: QuestionInput) -> pl.DataFrame:
    """Every text chunk of the question's documents, with the document's metadata beside it."""
    frames = []
    for row in q.documents.iter_rows(named=True):
        chunks = q.chunks(row["doc_id"])
        if "kind" in chunks.columns:
            chunks = chunks.filter(pl.col("kind") == "text")
        frames.append(
            chunks.select("chunk_id", "page", "text").with_columns(
                doc_id=pl.lit(row["doc_id"]), label=pl.lit(doc_label(row))
            )
        )
    if not frames:
        raise StageError("retrieve", "the question has no documents")
    return pl.concat(frames, how="vertical_relaxed")


def passage(row: dict[str, Any], with_metadata: bool) -> str:
    head = f"[{row['label']}]" if with_metadata else f"[document {row['doc_id']}]"
    return f"{head} (p.{row['page']})\n{row['text']}"


def build_prompt(q: QuestionInput, passages: list[str], with_metadata: bool) -> str:
    parts = []
    if with_metadata:
        parts.append("Documents (metadata):\n" + metadata_table(q.documents))
    parts.append("Passages:\n\n" + "\n\n".join(passages))
    parts.append(f"Question: {q.question}\n{INSTRUCTION.get(q.language, INSTRUCTION['en'])}")
    return "\n\n".join(parts)


def with_min_chunks(config: SystemConfig, n_docs: int, chunks: int = 5) -> SystemConfig:
    """The config with k raised so that at least `chunks` passages are retrieved over `n_docs` documents
    (over one filing, k=3 would give three passages)."""
    return replace(config, k=max(config.k, chunks / max(n_docs, 1)))


def retrieve(
    config: SystemConfig, q: QuestionInput, prompt: Callable[[list[str]], str]
) -> tuple[pl.DataFrame, list[str], int]:
    """The top ⌈k·|D|⌉ chunks (hits), the passages of them that fit the model's context beside the rest
    of `prompt` (a function of the passages), and how many were dropped."""
    hits = ChunkIndex(pooled_chunks(q)).search(q.question, chunks_wanted(config, q))
    blocks = [passage(r, config.metadata) for r in hits.iter_rows(named=True)]
    budget = q.n_ctx - q.max_tokens - approx_tokens(prompt([])) - PROMPT_MARGIN_TOKENS
    kept, dropped = fit_blocks(blocks, budget)
    return hits, kept, dropped


def chunks_wanted(config: SystemConfig, q: QuestionInput) -> int:
    """⌈k·|D|⌉: how many chunks a retrieval asks for."""
    return math.ceil(config.k * q.n_docs)


def run(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    hits, kept, dropped = retrieve(config, q, lambda passages: build_prompt(q, passages, config.metadata))
    prompt = build_prompt(q, kept, config.metadata)
    answer = llm.complete(prompt, stage="answer")
    out = SystemOutput(answer=answer.strip())
    out.notes = {
        "chunks_wanted": chunks_wanted(config, q),
        "chunks_retrieved": hits.height,
        "chunks_in_prompt": len(kept),
        "chunks_truncated": dropped,
        "truncated": dropped > 0,
        "prompt_tokens_est": approx_tokens(prompt),
        "docs_hit": hits["doc_id"].n_unique() if hits.height else 0,
    }
    return out
