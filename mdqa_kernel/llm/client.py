"""LLMClient: every LLM call of a run goes through here (cache → retries → validation → accounting).

- Cache: the workspace table `llm_cache`, keyed by sha256 of (backend, model, messages, schema,
  parameters). Temperature is 0 by default, so a cached answer is the answer; a re-run is free.
- Accounting: one `llm_calls` row per call with its stage, tokens, seconds and cache hit, so a run
  summary shows what the run cost and what it would have cost without the cache. A hit records the
  tokens of the original answer (the cost it saved). Rows of hits are buffered and written in
  batches: a hit must stay a few milliseconds, and a SQLite commit with fsync costs about that much.
- Retries: transient failures (timeouts, 429/5xx, connection resets) back off exponentially with
  full jitter, bounded by `max_retries`; permanent ones raise at once with the backend's message.
- Structured output: `structured(prompt, Schema)` returns a validated pydantic instance (or dict).
  Where the backend cannot enforce the schema, an invalid answer is re-asked with the error,
  at most `max_repairs` times.
"""

from __future__ import annotations

import os
import random
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, overload

import polars as pl
from pydantic import BaseModel

from mdqa_kernel.llm.backends import Backend, Generation, Message, make_backend
from mdqa_kernel.llm.config import LLMConfig
from mdqa_kernel.llm.errors import (
    LLMError,
    LLMRetriesExhaustedError,
    LLMTransientError,
    StructuredOutputError,
)
from mdqa_kernel.llm.journal import append_entry, insert_entries
from mdqa_kernel.llm.structured import OutputInvalid, Schema, repair_message
from mdqa_kernel.store import Workspace, open_workspace, stable_hash

M = TypeVar("M", bound=BaseModel)
FLUSH_EVERY_ROWS = 64
FLUSH_EVERY_SECONDS = 2.0
CACHE_KEY_VERSION = 1  # bump when the prompt format changes, so old cache entries stop matching

_CALL_COLUMNS = (
    "run_id, stage, key, backend, model, cache_hit, prompt_tokens, completion_tokens, seconds, error, created"
)


def cache_key(
    backend: str,
    model: str,
    messages: Sequence[Message],
    schema: dict[str, Any] | None,
    params: dict[str, Any],
) -> str:
    """sha256 over everything that determines the answer (and nothing that does not)."""
    return stable_hash(
        {
            "v": CACHE_KEY_VERSION,
            "backend": backend,
            "model": model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "schema": schema,
            "params": params,
        }
    )


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with full jitter: uniform(0, min(cap, base * 2**attempt))."""
    return (rng or random).uniform(0, min(cap, base * (2**attempt)))


def new_run_id() -> str:
    return f"llm-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{os.urandom(3).hex()}"


class LLMClient:
    """A workspace + a configured backend: cached, accounted, retried LLM calls."""

    def __init__(
        self,
        config: LLMConfig | None = None,
        workspace: Workspace | str | os.PathLike[str] | None = None,
        *,
        backend: Backend | None = None,
        run_id: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        journal: str | os.PathLike[str] | None = None,
    ) -> None:
        """`journal`: a file to which every new answer is also appended (see `llm.journal`), so
        that the answers outlive the workspace."""
        self.config = config or LLMConfig.from_env()
        self.journal = Path(journal) if journal is not None else None
        self.workspace = open_workspace(workspace)
        self.backend = backend or make_backend(self.config)
        self.run_id = run_id or new_run_id()
        self._sleep = sleep
        self._pending: list[tuple[Any, ...]] = []
        self._pending_lock = threading.Lock()
        self._last_flush = time.monotonic()
        # Buffered rows must reach the database even if the notebook kernel just exits.
        # (weakref.finalize also runs at interpreter exit.)
        self._finalizer = weakref.finalize(
            self, LLMClient._flush_rows, self.workspace, self._pending, self._pending_lock
        )

    def __repr__(self) -> str:
        return f"LLMClient(backend={self.config.backend!r}, run_id={self.run_id!r}, workspace={self.workspace!r})"

    @property
    def llm(self) -> Any:
        """The llama-index LLM object of the backend (uncached, unaccounted: for llama-index code)."""
        return self.backend.llm

    # -- public calls ---------------------------------------------------------------------------
    def complete(
        self, prompt: str, *, stage: str = "default", system: str | None = None, **params: Any
    ) -> str:
        """Plain text answer to one prompt."""
        return self.chat(_messages(prompt, system), stage=stage, **params)

    def chat(self, messages: Sequence[Message], *, stage: str = "default", **params: Any) -> str:
        text, _value = self._call(list(messages), None, stage, params)
        return text

    @overload
    def structured(
        self,
        prompt: str | Sequence[Message],
        schema: type[M],
        *,
        stage: str = ...,
        system: str | None = ...,
        **params: Any,
    ) -> M: ...

    @overload
    def structured(
        self,
        prompt: str | Sequence[Message],
        schema: dict[str, Any],
        *,
        stage: str = ...,
        system: str | None = ...,
        **params: Any,
    ) -> dict[str, Any]: ...

    def structured(
        self,
        prompt: str | Sequence[Message],
        schema: type[BaseModel] | dict[str, Any],
        *,
        stage: str = "default",
        system: str | None = None,
        **params: Any,
    ) -> Any:
        """A validated instance of `schema` (pydantic model class) or a dict (JSON-schema dict)."""
        messages = _messages(prompt, system) if isinstance(prompt, str) else list(prompt)
        _text, value = self._call(messages, Schema.of(schema), stage, params)
        return value

    # -- the call path --------------------------------------------------------------------------
    def _params(self, overrides: dict[str, Any]) -> dict[str, Any]:
        unknown = set(overrides) - {"temperature", "max_tokens"}
        if unknown:
            raise TypeError(f"unknown call parameters {sorted(unknown)}; allowed: temperature, max_tokens")
        return {
            "temperature": overrides.get("temperature", self.config.temperature),
            "max_tokens": overrides.get("max_tokens", self.config.max_tokens),
        }

    def _call(
        self, messages: list[Message], schema: Schema | None, stage: str, overrides: dict[str, Any]
    ) -> tuple[str, Any]:
        start = time.perf_counter()
        params = self._params(overrides)
        key = cache_key(
            self.backend.name, self.backend.model_id, messages, schema.json_schema if schema else None, params
        )
        if self.config.cache:
            hit = self._lookup(key, schema)
            if hit is not None:
                text, value, p_tok, c_tok = hit
                self._record(stage, key, True, p_tok, c_tok, time.perf_counter() - start, None)
                return text, value
        try:
            gen, value = self._generate_valid(messages, schema, params)
        except LLMError as e:
            self._record(
                stage,
                key,
                False,
                None,
                None,
                time.perf_counter() - start,
                f"{type(e).__name__}: {e}",
                write=True,
            )
            raise
        seconds = time.perf_counter() - start
        # The answer and its call record go in one transaction: one commit (fsync) per model call.
        entry = self._entry(key, gen, seconds)  # one entry for the cache table and the journal
        self._record(stage, key, False, gen.prompt_tokens, gen.completion_tokens, seconds, None, cache=entry)
        if self.journal is not None:
            append_entry(self.journal, entry)
        return gen.text, value

    def _lookup(self, key: str, schema: Schema | None) -> tuple[str, Any, int | None, int | None] | None:
        rows = self.workspace.query(
            "SELECT response, prompt_tokens, completion_tokens FROM llm_cache WHERE key=?", (key,)
        )
        if not rows:
            return None
        text = rows[0]["response"]
        try:
            value = schema.validate_text(text) if schema else text
        except OutputInvalid:
            return None  # only valid answers are stored; be safe if a stored one stops validating
        return text, value, rows[0]["prompt_tokens"], rows[0]["completion_tokens"]

    def _generate_valid(
        self, messages: list[Message], schema: Schema | None, params: dict[str, Any]
    ) -> tuple[Generation, Any]:
        """Generate; for a schema, parse and validate, re-asking with the error when allowed."""
        convo = list(messages)
        p_tok = c_tok = 0
        attempts = 0
        while True:
            attempts += 1
            gen = self._with_retries(
                lambda msgs=convo: self.backend.generate(msgs, schema=schema, params=params)
            )
            p_tok += gen.prompt_tokens or 0
            c_tok += gen.completion_tokens or 0
            total = Generation(gen.text, p_tok, c_tok, gen.enforced)
            if schema is None:
                return total, gen.text
            try:
                return total, schema.validate_text(gen.text)
            except OutputInvalid as e:
                # A grammar-enforced answer can still fail (cut at max_tokens, a pydantic constraint
                # the grammar cannot express); repairing helps there too, within the same bound.
                if attempts > self.config.max_repairs:
                    raise StructuredOutputError(
                        f"answer did not fit schema {schema.name} after {attempts} attempt(s): {e}",
                        raw=gen.text,
                        attempts=attempts,
                    ) from None
                convo = [
                    *convo,
                    {"role": "assistant", "content": gen.text},
                    {"role": "user", "content": repair_message(str(e))},
                ]

    def _with_retries(self, fn: Callable[[], Generation]) -> Generation:
        attempt = 0
        while True:
            try:
                return fn()
            except Exception as exc:
                err = self.backend.classify(exc)
                if not isinstance(err, LLMTransientError):
                    raise err from exc
                if attempt >= self.config.max_retries:
                    raise LLMRetriesExhaustedError(
                        f"{self.backend.name}: still failing after {attempt + 1} attempts: {err}",
                        attempts=attempt + 1,
                        last=err,
                    ) from exc
                self._sleep(backoff_delay(attempt, self.config.backoff_base, self.config.backoff_max))
                attempt += 1

    # -- store ----------------------------------------------------------------------------------
    def _entry(self, key: str, gen: Generation, seconds: float) -> dict[str, Any]:
        return {
            "key": key,
            "backend": self.backend.name,
            "model": self.backend.model_id,
            "response": gen.text,
            "prompt_tokens": gen.prompt_tokens,
            "completion_tokens": gen.completion_tokens,
            "seconds": seconds,
            "created": time.time(),
        }

    def _record(
        self,
        stage: str,
        key: str,
        hit: bool,
        p_tok: int | None,
        c_tok: int | None,
        seconds: float,
        error: str | None,
        *,
        write: bool = False,
        cache: dict[str, Any] | None = None,
    ) -> None:
        row = (
            self.run_id,
            stage,
            key,
            self.backend.name,
            self.backend.model_id,
            int(hit),
            p_tok,
            c_tok,
            seconds,
            error,
            time.time(),
        )
        with self._pending_lock:
            self._pending.append(row)
            due = (
                write
                or cache is not None
                or len(self._pending) >= FLUSH_EVERY_ROWS
                or time.monotonic() - self._last_flush > FLUSH_EVERY_SECONDS
            )
        if due:
            also = None if cache is None else (lambda conn: insert_entries(conn, [cache], replace=True))
            self.flush(also)

    def flush(self, also: Callable[[Any], None] | None = None) -> None:
        """Write buffered call records now (and, with `also`, a cache entry in the same commit)."""
        self._flush_rows(self.workspace, self._pending, self._pending_lock, also)
        self._last_flush = time.monotonic()

    @staticmethod
    def _flush_rows(
        workspace: Workspace,
        pending: list[tuple[Any, ...]],
        lock: threading.Lock,
        also: Callable[[Any], None] | None = None,
    ) -> None:
        with lock:
            rows, pending[:] = list(pending), []
        if not rows and also is None:
            return
        with workspace.transaction() as conn:
            if also is not None:
                also(conn)
            conn.executemany(f"INSERT INTO llm_calls({_CALL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)

    # -- reporting ------------------------------------------------------------------------------
    def calls(self, *, all_runs: bool = False) -> pl.DataFrame:
        """The raw call records of this run (or of every run in the workspace)."""
        self.flush()
        sql = (
            f"SELECT {_CALL_COLUMNS} FROM llm_calls"
            + ("" if all_runs else " WHERE run_id=?")
            + " ORDER BY id"
        )
        rows = self.workspace.query(sql, () if all_runs else (self.run_id,))
        schema = {
            "run_id": pl.String,
            "stage": pl.String,
            "key": pl.String,
            "backend": pl.String,
            "model": pl.String,
            "cache_hit": pl.Boolean,
            "prompt_tokens": pl.Int64,
            "completion_tokens": pl.Int64,
            "seconds": pl.Float64,
            "error": pl.String,
            "created": pl.Float64,
        }
        return pl.DataFrame([tuple(r) for r in rows], schema=schema, orient="row")

    def summary(self, *, all_runs: bool = False) -> pl.DataFrame:
        """Calls, tokens and seconds by stage: all calls (the cost without a cache) and those that
        reached the model (the cost paid), plus a `total` row."""
        return summarize(self.calls(all_runs=all_runs))

    def close(self) -> None:
        self.flush()
        self.backend.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def summarize(calls: pl.DataFrame) -> pl.DataFrame:
    miss = ~pl.col("cache_hit")
    ok = pl.col("error").is_null()
    aggs = [
        pl.len().alias("calls"),
        pl.col("cache_hit").sum().alias("cache_hits"),
        (~ok).sum().alias("errors"),
        pl.col("prompt_tokens").filter(ok).sum().alias("prompt_tokens"),
        pl.col("completion_tokens").filter(ok).sum().alias("completion_tokens"),
        pl.col("prompt_tokens").filter(miss & ok).sum().alias("prompt_tokens_paid"),
        pl.col("completion_tokens").filter(miss & ok).sum().alias("completion_tokens_paid"),
        pl.col("seconds").sum().alias("seconds"),
    ]
    by_stage = calls.group_by("stage", maintain_order=True).agg(aggs)
    total = calls.select(aggs).with_columns(pl.lit("total").alias("stage")).select(by_stage.columns)
    return pl.concat([by_stage, total]).with_columns(pl.col("calls", "cache_hits", "errors").cast(pl.Int64))


def _messages(prompt: str, system: str | None) -> list[Message]:
    msgs: list[Message] = []
    if system:
        msgs.append({"role": "system", "content": system})
    msgs.append({"role": "user", "content": prompt})
    return msgs
