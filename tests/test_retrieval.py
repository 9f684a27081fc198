"""Retrieval inside one document: BM25 over chunks, Chinese bigrams, chunk budget, hybrid fusion."""

from __future__ import annotations

import polars as pl

from mdqa_kernel.readers.retrieval import ChunkIndex, field_query, retrieve, tokenize


def chunks(texts: list[str]) -> pl.DataFrame:
    n = len(texts)
    return pl.DataFrame(
        {
            "chunk_id": list(range(n)),
            "page": [i + 1 for i in range(n)],
            "kind": ["text"] * n,
            "text": texts,
            "x0": [0.0] * n,
            "top": [0.0] * n,
            "x1": [1.0] * n,
            "bottom": [1.0] * n,
            "char_start": [0] * n,
            "char_end": [len(t) for t in texts],
        }
    )


DOC = chunks(
    [
        "公司简介 办公地址 北京市朝阳区酒仙桥路10号",
        "主要会计数据 营业总成本 3,239,006,323.23 2,900,000,000.00",
        "Total revenue 211,915 198,270 Net income 72,361",
        "本公司持续加强职工权益保护，依法签订劳动合同。",
        "",
    ]
)


def test_tokenizer_bigrams_and_ascii_words():
    assert tokenize("营业总成本 Total Revenue") == ["营业", "业总", "总成", "成本", "total", "revenue"]
    assert tokenize("元") == ["元"]
    assert "the" not in tokenize("the total")


def test_bm25_finds_chinese_and_english_chunks():
    idx = ChunkIndex(DOC)
    assert idx.search("营业总成本。", 1)["chunk_id"].to_list() == [1]
    assert idx.search("total revenue of the company", 1)["chunk_id"].to_list() == [2]
    assert idx.search(field_query("是否披露职工权益保护", "600000 2021"), 1)["page"].to_list() == [4]


def test_chunk_budget_and_ranks():
    hits = retrieve(DOC, "办公地址", "公司办公地址在哪里", k=3)
    assert hits.height == 3 and hits["rank"].to_list() == [1, 2, 3] and hits["chunk_id"][0] == 0
    assert retrieve(DOC, "anything", k=0).height == 0
    assert retrieve(DOC.head(0), "anything", k=5).height == 0


def test_unknown_words_give_zero_scores_not_errors():
    hits = ChunkIndex(DOC).search("zzzz qqqq", 2)
    assert hits["score"].to_list() == [0.0, 0.0]


def test_hybrid_fuses_an_embedding_ranking():
    # A toy embedder that knows "address" ≈ 地址: dense retrieval rescues a cross-language query.
    def embed(texts: list[str]) -> list[list[float]]:
        return [[1.0 if ("地址" in t or "address" in t) else 0.0, 1.0] for t in texts]

    plain = ChunkIndex(DOC).search("office address", 1)
    hybrid = ChunkIndex(DOC, embedder=embed).search("office address", 1)
    assert plain["score"][0] == 0.0
    assert hybrid["chunk_id"].to_list() == [0]
