"""Retrieval inside one document: the k chunks most likely to hold one field's value.

BM25 (bm25s) over that document's chunks — text chunks and table rows from parsing — queried with the
field's description and its per-document question. It needs no model: Chinese is tokenised into
character bigrams plus ASCII words (no jieba download at run time). When an embedding model is
configured, its ranking is fused with BM25's by reciprocal rank fusion (hybrid retrieval).
`wordllama_embedder()` is one that runs offline: WordLlama's static token embeddings (MIT, 256
dimensions, weights inside the PyPI wheel; no model hub, no GPU, ~2,000 pages a second on one core).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

import bm25s
import numpy as np
import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.text.language import CJK

# Embedder: texts → vectors (llama-index's BaseEmbedding.get_text_embedding_batch fits).
Embedder = Callable[[list[str]], Sequence[Sequence[float]]]

_CJK_RUN = re.compile(rf"{CJK}+")
_ASCII_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
# English words that carry no meaning for finding a fact (BM25's IDF handles the rest).
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "which",
        "with",
        "how",
        "much",
        "many",
        "does",
        "did",
        "do",
        "its",
        "their",
        "company",
    ]
)
RRF_K = 60  # reciprocal rank fusion constant (Cormack et al. 2009)


def tokenize(text: str) -> list[str]:
    """Character bigrams for CJK runs (a lone character stays a unigram) plus lower-case ASCII words."""
    norm = unicodedata.normalize("NFKC", text).lower()
    tokens: list[str] = []
    for run in _CJK_RUN.findall(norm):
        if len(run) == 1:
            tokens.append(run)
        else:
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    tokens.extend(w for w in _ASCII_WORD.findall(norm) if w not in _STOP)
    return tokens


def field_query(description: str, question: str = "") -> str:
    """The retrieval query of a field: its description plus the filled-in question."""
    return f"{description} {question}".strip()


class ChunkIndex:
    """A BM25 index (and optional embeddings) over one document's chunks. Build once, query per field."""

    def __init__(self, chunks: pl.DataFrame, embedder: Embedder | None = None) -> None:
        self.chunks = chunks.with_row_index("_row") if "_row" not in chunks.columns else chunks
        texts = self.chunks["text"].to_list() if self.chunks.height else []
        self._tokens = [tokenize(t or "") for t in texts]
        self._bm25: bm25s.BM25 | None = None
        if any(self._tokens):
            self._bm25 = bm25s.BM25()
            # Empty token lists would break bm25s' vocabulary; give them a placeholder token instead.
            self._bm25.index([t or ["\x00"] for t in self._tokens], show_progress=False)
        self._embedder = embedder
        self._vectors: np.ndarray | None = None
        if embedder is not None and texts:
            self._vectors = _unit_rows(np.asarray(embedder(texts), dtype=np.float32))

    def bm25_scores(self, query: str) -> np.ndarray:
        n = self.chunks.height
        tokens = tokenize(query)
        if self._bm25 is None or not tokens or not any(t in self._bm25.vocab_dict for t in tokens):
            return np.zeros(n, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)

    def dense_scores(self, query: str) -> np.ndarray | None:
        if self._embedder is None or self._vectors is None:
            return None
        q = _unit_rows(np.asarray(self._embedder([query]), dtype=np.float32))[0]
        return self._vectors @ q

    def search(self, query: str, k: int = 5) -> pl.DataFrame:
        """Top-k chunks (all chunk columns) with `score` and `rank` (1 = best), best first."""
        n = self.chunks.height
        if n == 0 or k <= 0:
            return self.chunks.head(0).with_columns(score=pl.lit(0.0), rank=pl.lit(0, dtype=pl.Int32))
        scores = self.bm25_scores(query)
        dense = self.dense_scores(query)
        if dense is not None:
            scores = _rrf([scores, dense])
        # Stable order: equal scores keep document order, so results are reproducible.
        order = np.lexsort((np.arange(n), -scores))[: min(k, n)]
        picked = self.chunks[order.tolist()]
        return picked.with_columns(
            score=pl.Series(scores[order].astype(float)),
            rank=pl.Series(np.arange(1, len(order) + 1, dtype=np.int32)),
        )


def _unit_rows(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1.0, norms)


def _rrf(rankings: list[np.ndarray]) -> np.ndarray:
    """Reciprocal rank fusion of several score vectors over the same items. Tied scores share a rank
    (1 + how many score higher): a ranking with no information (BM25 with no query word in any
    chunk: all zero) then moves nothing, instead of favouring the items that come first."""
    fused = np.zeros(len(rankings[0]), dtype=np.float64)
    for scores in rankings:
        ranks = np.searchsorted(np.sort(-scores), -scores, side="left") + 1
        fused += 1.0 / (RRF_K + ranks)
    return fused.astype(np.float32)


def retrieve(
    chunks: pl.DataFrame,
    description: str,
    question: str = "",
    k: int = 5,
    embedder: Embedder | None = None,
    index: ChunkIndex | None = None,
) -> pl.DataFrame:
    """The top-k chunks of one document for one field (build `index` once to query many fields)."""
    index = index or ChunkIndex(chunks, embedder)
    return index.search(field_query(description, question), k)


class EmbedderUnavailableError(MdqaError, RuntimeError):
    """The offline embedding model cannot be loaded here."""


@functools.lru_cache(maxsize=1)
def wordllama_embedder() -> Embedder:
    """WordLlama (PyPI `wordllama`) loaded from the files its wheel ships, downloads disabled: the
    package looks for its tokenizer under a folder name the wheel does not use and would fetch it
    from a model hub, so its own package folder is given as the cache it reads from."""
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError as e:
        raise EmbedderUnavailableError(f"wordllama is not installed ({e}); run `make install`") from e
    try:
        model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    except (FileNotFoundError, ValueError) as e:
        raise EmbedderUnavailableError(
            f"wordllama's bundled weights or tokenizer are missing ({e}); reinstall it: "
            "pip install --force-reinstall wordllama"
        ) from e

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray(model.embed(texts), dtype=np.float32)

    return embed
