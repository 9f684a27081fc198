"""mebench-rag: MEBench's "LLM + RAG" baseline — each document cut into 1,024-token chunks, the top 5
chunks of every document by BM25 against the question, one answer call.

Unlike flat-rag (one pool over the whole collection, so a few documents can take every slot), each
document gets its own top 5, which is how MEBench gives a multi-entity question evidence from every
entity. Chunks are cut from a document's page texts in order (a page longer than a chunk is split,
short pages are joined), so a chunk may span pages; it names the pages it holds. The prompt is cut
to the model's context from the lowest rank up, across documents (every document's best chunk before
any document's second), and the notes say how much was cut.
"""

from __future__ import annotations

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
    document_pages,
    fit_blocks,
    metadata_table,
)
from mdqa_kernel.benchmarks.systems.flat_rag import INSTRUCTION, PROMPT_MARGIN_TOKENS
from mdqa_kernel.readers.retrieval import ChunkIndex

CHUNK_TOKENS = 1024
TOP_PER_DOCUMENT = 5


def _pieces(text: str, budget: int) -> list[str]:
    """A page's text in pieces of at most `budget` tokens (by lines, a too-long line by characters)."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for line in text.splitlines():
        cost = approx_tokens(line) + 1
        while cost > budget:  # one enormous line: cut it by characters
            cut = max(1, int(len(line) * budget / cost))
            pieces.append(line[:cut])
            line = line[cut:]
            cost = approx_tokens(line) + 1
        if used + cost > budget and current:
            pieces.append("\n".join(current))
            current, used = [], 0
        current.append(line)
        used += cost
    if current:
        pieces.append("\n".join(current))
    return pieces


def token_chunks(pages: pl.DataFrame, size: int = CHUNK_TOKENS) -> pl.DataFrame:
    """A document's page texts (page, text; in page order) as chunks of at most `size` tokens:
    chunk_id, pages ("3-4"), text."""
    rows: list[dict[str, Any]] = []
    text: list[str] = []
    first = last = None
    used = 0

    def close() -> None:
        nonlocal text, first, used
        if text:
            span = f"{first}" if first == last else f"{first}-{last}"
            rows.append({"chunk_id": len(rows), "pages": span, "text": "\n".join(text)})
        text, first, used = [], None, 0

    for page, page_text in pages.select("page", "text").iter_rows():
        for piece in _pieces(str(page_text or ""), size):
            cost = approx_tokens(piece) + 1
            if used + cost > size:
                close()
            if first is None:
                first = page
            last = page
            text.append(piece)
            used += cost
    close()
    return pl.DataFrame(rows, schema={"chunk_id": pl.Int64, "pages": pl.String, "text": pl.String})


def retrieve(q: QuestionInput) -> list[dict[str, Any]]:
    """Every document's top chunks, ordered by rank first, then by document (the cut order)."""
    hits: list[dict[str, Any]] = []
    for doc in q.documents.iter_rows(named=True):
        chunks = token_chunks(document_pages(q, doc["doc_id"]))
        top = ChunkIndex(chunks).search(q.question, TOP_PER_DOCUMENT)
        for r in top.iter_rows(named=True):
            hits.append({"doc_id": doc["doc_id"], "label": doc_label(doc), "pages": r["pages"],
                         "text": r["text"], "rank": int(r["rank"])})  # fmt: skip
    if not q.documents.height:
        raise StageError("retrieve", "the question has no documents")
    return sorted(hits, key=lambda h: h["rank"])  # stable: documents keep their order within a rank


def build_prompt(q: QuestionInput, passages: list[str]) -> str:
    return "\n\n".join(
        [
            "Documents (metadata):\n" + metadata_table(q.documents),
            "Passages (the best chunks of each document):\n\n" + "\n\n".join(passages),
            f"Question: {q.question}\n{INSTRUCTION.get(q.language, INSTRUCTION['en'])}",
        ]
    )


def run(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    hits = retrieve(q)
    blocks = [f"[{h['label']}] (pages {h['pages']})\n{h['text']}" for h in hits]
    fixed = approx_tokens(build_prompt(q, [])) + PROMPT_MARGIN_TOKENS
    kept, dropped = fit_blocks(blocks, q.n_ctx - q.max_tokens - fixed)
    prompt = build_prompt(q, kept)
    answer = llm.complete(prompt, stage="answer")
    out = SystemOutput(answer=answer.strip())
    in_prompt = hits[: len(kept)]
    out.notes = {
        "chunk_tokens": CHUNK_TOKENS,
        "top_per_document": TOP_PER_DOCUMENT,
        "chunks_retrieved": len(hits),
        "chunks_in_prompt": len(kept),
        "chunks_truncated": dropped,
        "truncated": dropped > 0,
        "docs_in_prompt": len({h["doc_id"] for h in in_prompt}),
        "prompt_tokens_est": approx_tokens(prompt),
    }
    return out
