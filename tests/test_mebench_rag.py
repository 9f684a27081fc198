"""MEBench's LLM + RAG baseline: 1,024-token chunks, the top 5 of every document, one answer call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from mdqa_kernel.benchmarks.systems import get_system, table2_configs
from mdqa_kernel.benchmarks.systems.base import QuestionInput, SystemConfig, approx_tokens
from mdqa_kernel.benchmarks.systems.mebench_rag import CHUNK_TOKENS, TOP_PER_DOCUMENT, retrieve, token_chunks

FILLER = "The board met several times during the year and discussed governance matters at length."


def pages_of(doc: int, n_pages: int) -> list[str]:
    out = []
    for p in range(1, n_pages + 1):
        lines = [f"{FILLER} (doc {doc}, page {p}, line {i})" for i in range(30)]
        if p == n_pages:
            lines.append(f"Company {doc} reported net profit of {100 + doc} million yuan.")
        out.append("\n".join(lines))
    return out


def question(n_docs: int, n_pages: int = 12, n_ctx: int = 8192) -> QuestionInput:
    docs = pl.DataFrame({"doc_id": [f"d{i}" for i in range(n_docs)], "symbol": [f"S{i}" for i in range(n_docs)],
                         "year": [2023] * n_docs, "doctype": ["annual report"] * n_docs})  # fmt: skip

    def chunks(doc_id: str) -> pl.DataFrame:
        texts = pages_of(int(doc_id[1:]), n_pages)
        return pl.DataFrame({"chunk_id": list(range(len(texts))), "page": list(range(1, len(texts) + 1)),
                             "text": texts, "kind": ["text"] * len(texts)})  # fmt: skip

    return QuestionInput("q", "test", "Which company reported the highest net profit?", "en", docs, chunks,
                         n_ctx=n_ctx, max_tokens=256)  # fmt: skip


class Recorder:
    def __init__(self) -> None:
        self.prompts: list[str] = []

    def complete(self, prompt: str, *, stage: str = "default", **_: Any) -> str:
        self.prompts.append(prompt)
        return "S5 (105 million yuan)"

    def structured(self, prompt: Any, schema: Any, **_: Any) -> Any:
        raise AssertionError("one plain answer call")


def test_chunks_are_at_most_1024_tokens_and_name_their_pages() -> None:
    pages = pl.DataFrame({"page": list(range(1, 13)), "text": pages_of(1, 12)})
    chunks = token_chunks(pages)
    assert chunks.height > 1
    assert all(approx_tokens(t) <= CHUNK_TOKENS for t in chunks["text"])
    assert chunks["pages"][0].startswith("1") and chunks["pages"][-1].endswith("12")
    joined = "\n".join(chunks["text"])
    assert all(line in joined for text in pages["text"] for line in text.splitlines())  # nothing lost
    one_line = token_chunks(pl.DataFrame({"page": [1], "text": ["x" * 20000]}))  # a line longer than a chunk
    assert one_line.height > 1 and all(approx_tokens(t) <= CHUNK_TOKENS for t in one_line["text"])


def test_every_document_gets_its_own_top_five() -> None:
    hits = retrieve(question(4))
    per_doc = pl.DataFrame(hits).group_by("doc_id").len()
    assert per_doc.height == 4 and per_doc["len"].max() <= TOP_PER_DOCUMENT
    assert [h["rank"] for h in hits] == sorted(h["rank"] for h in hits)  # every best chunk first
    best = [h for h in hits if h["rank"] == 1]
    assert all(f"net profit of {100 + int(h['doc_id'][1:])}" in h["text"] for h in best)


def test_one_call_and_the_prompt_cut_to_the_context_best_chunks_of_all_documents_first() -> None:
    llm = Recorder()
    out = get_system("mebench-rag")(SystemConfig("mebench-rag", k=5), question(6, n_ctx=8192), llm)
    assert len(llm.prompts) == 1 and out.answer == "S5 (105 million yuan)"
    notes = out.notes
    assert notes["truncated"] and notes["chunks_in_prompt"] < notes["chunks_retrieved"]
    assert notes["docs_in_prompt"] == 6  # every document's best chunk survived the cut
    assert all(f"net profit of {100 + d}" in llm.prompts[0] for d in range(6))
    assert notes["prompt_tokens_est"] <= 8192 - 256
    assert [c.label for c in table2_configs(["mebench-rag"], noise=False)] == ["mebench-rag top5/doc"]


@pytest.mark.llm
def test_mebench_rag_with_the_tiny_local_model(tmp_path: Path) -> None:
    from mdqa_kernel.llm import LLMClient, LLMConfig

    config = LLMConfig(backend="local-tiny", n_threads=1, n_ctx=4096, max_tokens=48, temperature=0.0)
    with LLMClient(config, tmp_path / "ws") as client:
        out = get_system("mebench-rag")(SystemConfig("mebench-rag", k=5), question(3, n_ctx=4096), client)
        calls = client.calls()
    assert calls.height == 1 and calls["stage"].to_list() == ["answer"] and calls["error"].is_null().all()
    assert out.answer and out.notes["docs_in_prompt"] == 3
