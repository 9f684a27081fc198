"""Fast unit tests of the LLM layer with fake backends: cache keys, cache hits, retries, accounting,
structured output repair, configuration and model assembly. No model is loaded here."""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from mdqa_kernel.llm import (
    LLMClient,
    LLMConfig,
    LLMConfigError,
    LLMPermanentError,
    LLMRetriesExhaustedError,
    LLMTimeoutError,
    LLMTransientError,
    ModelIntegrityError,
    ModelNotInstalledError,
    StructuredOutputError,
    backends,
    cache_key,
    weights,
)
from mdqa_kernel.llm.backends import Backend, Generation, Message, OpenAIBackend
from mdqa_kernel.llm.client import backoff_delay
from mdqa_kernel.llm.journal import load_journal
from mdqa_kernel.llm.structured import OutputInvalid, Schema, extract_json


class Revenue(BaseModel):
    value: float
    unit: str


class FakeBackend(Backend):
    """Answers from a script: each item is a text, or an exception to raise."""

    name = "fake"
    model_id = "fake-model"
    llm = None

    def __init__(self, config: LLMConfig, script: Sequence[Any] = ()) -> None:
        super().__init__(config)
        self.script = list(script)
        self.calls: list[list[Message]] = []
        self.lock = threading.Lock()

    def generate(self, messages: Sequence[Message], *, schema: Any, params: dict[str, Any]) -> Generation:
        with self.lock:
            self.calls.append(list(messages))
            item = self.script.pop(0) if self.script else None
        if isinstance(item, BaseException):
            raise item
        if item is None:  # default: echo a valid answer for whatever schema was asked
            title = schema.name if schema else "text"
            item = json.dumps({"value": 1.5, "unit": title}) if schema else "plain text"
        return Generation(item, prompt_tokens=100, completion_tokens=10, enforced=False)


CFG = LLMConfig(
    backend="openai", model="m", base_url="http://127.0.0.1:9", backoff_base=0.01, backoff_max=0.05
)


def make_client(
    tmp_path: Path, script: Sequence[Any] = (), **changes: Any
) -> tuple[LLMClient, FakeBackend, list[float]]:
    cfg = CFG.with_(**changes)
    backend = FakeBackend(cfg, script)
    sleeps: list[float] = []
    client = LLMClient(cfg, tmp_path / "ws", backend=backend, sleep=sleeps.append, run_id="run-1")
    return client, backend, sleeps


# -- cache keys ---------------------------------------------------------------------------------
def test_cache_key_is_stable_and_sensitive() -> None:
    msgs = [{"role": "user", "content": "hi"}]
    params = {"temperature": 0.0, "max_tokens": 10}
    base = cache_key("local", "m@abc", msgs, {"type": "object", "properties": {"a": {}, "b": {}}}, params)
    reordered = cache_key(
        "local",
        "m@abc",
        msgs,
        {"properties": {"b": {}, "a": {}}, "type": "object"},
        dict(reversed(params.items())),
    )
    assert base == reordered
    others = {
        cache_key("openai", "m@abc", msgs, {"type": "object", "properties": {"a": {}, "b": {}}}, params),
        cache_key("local", "m@abd", msgs, {"type": "object", "properties": {"a": {}, "b": {}}}, params),
        cache_key(
            "local",
            "m@abc",
            [{"role": "user", "content": "hi!"}],
            {"type": "object", "properties": {"a": {}, "b": {}}},
            params,
        ),
        cache_key("local", "m@abc", msgs, None, params),
        cache_key(
            "local",
            "m@abc",
            msgs,
            {"type": "object", "properties": {"a": {}, "b": {}}},
            {**params, "temperature": 0.7},
        ),
    }
    assert base not in others and len(others) == 5


def test_second_identical_call_is_a_cache_hit_without_backend_call(tmp_path: Path) -> None:
    client, backend, _ = make_client(tmp_path)
    first = client.structured("Revenue?", Revenue, stage="extract")
    second = client.structured("Revenue?", Revenue, stage="extract")
    assert first == second and isinstance(second, Revenue)
    assert len(backend.calls) == 1
    client.structured("Revenue?", Revenue, stage="extract", max_tokens=99)  # other params: a miss
    assert len(backend.calls) == 2
    # A second client on the same workspace (another process, a re-run) also hits.
    again = LLMClient(CFG, client.workspace, backend=FakeBackend(CFG))
    assert again.structured("Revenue?", Revenue, stage="extract") == first
    assert again.backend.calls == []  # type: ignore[attr-defined]


def test_cache_off_always_calls(tmp_path: Path) -> None:
    client, backend, _ = make_client(tmp_path, cache=False)
    client.complete("x")
    client.complete("x")
    assert len(backend.calls) == 2


def test_accounting_adds_up(tmp_path: Path) -> None:
    client, _backend, _ = make_client(tmp_path)
    for _ in range(3):
        client.structured("Revenue?", Revenue, stage="extract")
    client.complete("hello", stage="plan")
    summary = client.summary()
    rows = {r["stage"]: r for r in summary.iter_rows(named=True)}
    assert rows["extract"]["calls"] == 3 and rows["extract"]["cache_hits"] == 2
    assert rows["extract"]["prompt_tokens"] == 300 and rows["extract"]["prompt_tokens_paid"] == 100
    assert rows["extract"]["completion_tokens_paid"] == 10
    assert rows["plan"]["calls"] == 1 and rows["plan"]["cache_hits"] == 0
    total = rows["total"]
    assert total["calls"] == 4 and total["cache_hits"] == 2
    assert total["prompt_tokens"] == 400 and total["prompt_tokens_paid"] == 200
    calls = client.calls()
    assert calls.height == 4 and calls["run_id"].unique().to_list() == ["run-1"]


def test_journal_carries_answers_to_a_fresh_workspace(tmp_path: Path) -> None:
    """A grid's answers outlive its workspace: a fresh clone (new workspace, same journal) asks the
    model nothing it already answered; a line cut by a crash costs only that answer."""
    journal = tmp_path / "llm-cache.jsonl"
    backend = FakeBackend(CFG)
    client = LLMClient(CFG, tmp_path / "ws1", backend=backend, journal=journal)
    first = client.structured("Revenue?", Revenue, stage="extract")
    client.complete("hello", stage="plan")
    client.complete("hello", stage="plan")  # a hit: not journalled again
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and len(backend.calls) == 2
    assert {json.loads(x)["response"] for x in lines} == {json.dumps(first.model_dump()), "plain text"}
    with journal.open("a", encoding="utf-8") as fh:
        fh.write('{"key": "abc", "respo')  # the crash

    loaded = load_journal(journal, tmp_path / "ws2")
    assert (loaded.added, loaded.known, loaded.bad_lines) == (2, 0, 1)
    assert load_journal(journal, tmp_path / "ws2").added == 0  # loading twice changes nothing
    fresh_backend = FakeBackend(CFG)
    fresh = LLMClient(CFG, tmp_path / "ws2", backend=fresh_backend, journal=journal)
    assert fresh.structured("Revenue?", Revenue, stage="extract") == first
    assert fresh.complete("hello", stage="plan") == "plain text"
    assert fresh_backend.calls == []
    fresh.complete("a new prompt", stage="plan")  # appended after the cut line, on a line of its own
    again = load_journal(journal, tmp_path / "ws3")
    assert (again.added, again.bad_lines) == (3, 1)
    assert load_journal(tmp_path / "missing.jsonl", tmp_path / "ws2").added == 0


def test_buffered_hit_records_reach_the_database(tmp_path: Path) -> None:
    client, _backend, _ = make_client(tmp_path)
    client.complete("x")
    client.complete("x")  # a hit: buffered
    del client
    import gc

    gc.collect()
    from mdqa_kernel.store import Workspace

    rows = Workspace(tmp_path / "ws").query("SELECT cache_hit FROM llm_calls ORDER BY id")
    assert [r[0] for r in rows] == [0, 1]


# -- retries ------------------------------------------------------------------------------------
def test_transient_failures_are_retried_with_backoff(tmp_path: Path) -> None:
    client, backend, sleeps = make_client(
        tmp_path, [LLMTransientError("HTTP 503", status=503), LLMTimeoutError("slow"), "ok"], max_retries=3
    )
    assert client.complete("x") == "ok"
    assert len(backend.calls) == 3 and len(sleeps) == 2
    assert all(0 <= s <= CFG.backoff_max for s in sleeps)


def test_retries_are_bounded(tmp_path: Path) -> None:
    client, backend, sleeps = make_client(tmp_path, [ConnectionResetError("reset")] * 10, max_retries=2)
    with pytest.raises(LLMRetriesExhaustedError) as info:
        client.complete("x", stage="extract")
    assert info.value.attempts == 3 and len(backend.calls) == 3 and len(sleeps) == 2
    assert isinstance(info.value.last, LLMTransientError)
    calls = client.calls()
    assert calls["error"][0].startswith("LLMRetriesExhaustedError")


def test_permanent_failure_raises_at_once_with_backend_message(tmp_path: Path) -> None:
    err = LLMPermanentError("HTTP 401: invalid api key", status=401, backend_message="invalid api key")
    client, backend, sleeps = make_client(tmp_path, [err])
    with pytest.raises(LLMPermanentError, match="invalid api key") as info:
        client.complete("x")
    assert info.value.status == 401 and len(backend.calls) == 1 and sleeps == []


def test_backoff_grows_and_is_capped() -> None:
    import random

    rng = random.Random(0)
    for attempt in range(12):
        d = backoff_delay(attempt, 0.5, 8.0, rng)
        assert 0 <= d <= min(8.0, 0.5 * 2**attempt)


def _openai_status_error(status: int, message: str) -> Exception:
    import openai

    request = httpx.Request("POST", "http://x/v1/chat/completions")
    response = httpx.Response(status, request=request, json={"error": {"message": message}})
    cls = {429: openai.RateLimitError, 400: openai.BadRequestError, 500: openai.InternalServerError}.get(
        status, openai.APIStatusError
    )
    return cls(message, response=response, body={"error": {"message": message}})


def test_openai_errors_are_classified() -> None:
    import openai

    backend = OpenAIBackend(CFG)
    request = httpx.Request("POST", "http://x")
    assert type(backend.classify(_openai_status_error(429, "slow down"))) is LLMTransientError
    assert type(backend.classify(_openai_status_error(500, "boom"))) is LLMTransientError
    assert isinstance(backend.classify(openai.APITimeoutError(request=request)), LLMTimeoutError)
    assert type(backend.classify(openai.APIConnectionError(request=request))) is LLMTransientError
    perm = backend.classify(_openai_status_error(400, "model 'nope' not found"))
    assert isinstance(perm, LLMPermanentError) and perm.status == 400
    assert perm.backend_message == "model 'nope' not found"
    assert isinstance(backend.classify(httpx.ReadTimeout("t")), LLMTimeoutError)
    assert type(backend.classify(httpx.RemoteProtocolError("reset"))) is LLMTransientError


def test_openai_steps_down_when_response_format_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = OpenAIBackend(CFG)
    modes: list[str] = []

    def fake_request(messages: Any, schema: Any, params: Any, mode: str) -> Generation:
        modes.append(mode)
        if mode == "json_schema":
            raise _openai_status_error(400, "response_format json_schema is not supported")
        return Generation('{"value": 1, "unit": "x"}')

    monkeypatch.setattr(backend, "_request", fake_request)
    backend.generate([{"role": "user", "content": "q"}], schema=Schema.of(Revenue), params={})
    backend.generate([{"role": "user", "content": "q"}], schema=Schema.of(Revenue), params={})
    assert modes == ["json_schema", "json_object", "json_object"] and backend.mode == "json_object"


# -- structured output --------------------------------------------------------------------------
def test_structured_parses_fences_and_repairs(tmp_path: Path) -> None:
    client, backend, _ = make_client(
        tmp_path,
        [
            "I think: {value: 2.9}",
            '```json\n{"value": "abc", "unit": "%"}\n```',
            '```json\n{"value": 2.9, "unit": "%"}\n```',
        ],
    )
    result = client.structured("Revenue?", Revenue)
    assert result == Revenue(value=2.9, unit="%")
    assert len(backend.calls) == 3
    assert "not usable" in backend.calls[-1][-1]["content"]  # the repair message carries the error
    row = client.summary().filter(stage="total").row(0, named=True)
    assert row["calls"] == 1 and row["prompt_tokens_paid"] == 300  # tokens of all attempts


def test_structured_gives_up_after_max_repairs(tmp_path: Path) -> None:
    client, backend, _ = make_client(tmp_path, ["nope", "nope", "nope"], max_repairs=1)
    with pytest.raises(StructuredOutputError) as info:
        client.structured("Revenue?", Revenue)
    assert info.value.raw == "nope" and info.value.attempts == 2 and len(backend.calls) == 2


def test_structured_with_a_dict_schema(tmp_path: Path) -> None:
    schema = {
        "title": "T",
        "type": "object",
        "properties": {"value": {"type": "number"}},
        "required": ["value"],
    }
    client, _backend, _ = make_client(tmp_path, ['{"value": "x"}', '{"value": 3}'])
    assert client.structured("q", schema) == {"value": 3}


def test_extract_json_and_dict_schema_checks() -> None:
    assert extract_json('prose {"a": [1, 2]} more') == {"a": [1, 2]}
    with pytest.raises(OutputInvalid):
        extract_json("no json here")
    schema = Schema.of({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    with pytest.raises(OutputInvalid, match="expected integer"):
        schema.validate_text('{"n": true}')
    with pytest.raises(OutputInvalid, match="missing keys"):
        schema.validate_text("{}")


def test_concurrent_calls_with_different_schemas(tmp_path: Path) -> None:
    class A(BaseModel):
        value: float
        unit: str

    class B(BaseModel):
        value: float
        unit: str

    client, _backend, _ = make_client(tmp_path)
    results: dict[int, Any] = {}

    def work(i: int) -> None:
        results[i] = client.structured(f"q{i}", A if i % 2 else B)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.unit == ("A" if i % 2 else "B") for i, r in results.items())
    assert client.summary().filter(stage="total")["calls"][0] == 16


def test_unknown_call_parameter_is_rejected(tmp_path: Path) -> None:
    client, _backend, _ = make_client(tmp_path)
    with pytest.raises(TypeError, match="top_p"):
        client.complete("x", top_p=0.5)


# -- configuration ------------------------------------------------------------------------------
def test_config_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg_file = tmp_path / "llm.yaml"
    cfg_file.write_text("llm:\n  backend: ollama\n  model: from-file\n  max_tokens: 77\n")
    monkeypatch.setenv("MDQA_LLM_CONFIG", str(cfg_file))
    monkeypatch.setenv("MDQA_LLM_MODEL", "from-env")
    monkeypatch.setenv("MDQA_LLM_THREADS", "1")
    monkeypatch.setenv("MDQA_LLM_CACHE", "off")
    cfg = LLMConfig.from_env(max_tokens=None, temperature=0.2)
    assert (cfg.backend, cfg.model, cfg.max_tokens, cfg.n_threads) == ("ollama", "from-env", 77, 1)
    assert cfg.cache is False and cfg.temperature == 0.2


def test_config_defaults_and_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in [k for k in list(__import__("os").environ) if k.startswith("MDQA_LLM_")]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    cfg = LLMConfig.from_env()
    assert cfg.backend == "local" and cfg.temperature == 0.0 and 1 <= cfg.n_threads <= 2
    with pytest.raises(LLMConfigError, match="backend"):
        LLMConfig.from_env(backend="gpt")
    with pytest.raises(LLMConfigError, match="base URL"):
        OpenAIBackend(LLMConfig(backend="openai", model="m"))
    with pytest.raises(LLMConfigError, match="unknown local model"):
        backends.resolve_local_model(LLMConfig(model="no-such-model"))


def test_backends_are_one_registry_read_by_the_config() -> None:
    from mdqa_kernel.llm import BACKENDS, LocalBackend, OllamaBackend, make_backend, register
    from mdqa_kernel.llm.errors import UnknownBackendError

    assert BACKENDS.choices() == ("local", "local-tiny", "ollama", "openai")
    assert BACKENDS.get("local-tiny") is LocalBackend and BACKENDS.get("ollama") is OllamaBackend
    assert register(OllamaBackend) is OllamaBackend  # the public decorator; the same class again is fine
    tiny = make_backend(LLMConfig(backend="local-tiny"))
    assert isinstance(tiny, LocalBackend) and tiny.config.backend == "local-tiny"
    with pytest.raises(
        LLMConfigError, match=r"unknown LLM backend 'gpt'; use one of local, local-tiny, ollama, openai"
    ):
        LLMConfig.from_env(backend="gpt")
    with pytest.raises(UnknownBackendError) as info:
        BACKENDS.get("gpt")
    assert isinstance(info.value, LLMConfigError) and isinstance(info.value, KeyError)


def test_extra_bufts_only_off_where_amx_is_advertised_and_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backends, "cpu_flags", lambda: frozenset({"avx2", "amx_tile"}))
    monkeypatch.setattr(backends, "library_has_amx", lambda: True)
    assert backends.disable_extra_bufts("auto") is True
    monkeypatch.setattr(backends, "library_has_amx", lambda: False)
    assert backends.disable_extra_bufts("auto") is False
    monkeypatch.setattr(backends, "cpu_flags", lambda: frozenset({"avx2"}))
    assert backends.disable_extra_bufts("auto") is False
    assert backends.disable_extra_bufts("off") is True and backends.disable_extra_bufts("on") is False


def test_chatml_template() -> None:
    text = backends.chatml([{"role": "user", "content": "hi"}])
    assert text.startswith("<|im_start|>system\n") and text.endswith(
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )
    own = backends.chatml([{"role": "system", "content": "S"}, {"role": "user", "content": "u"}])
    assert own.count("<|im_start|>system") == 1 and "S<|im_end|>" in own


# -- model assembly -----------------------------------------------------------------------------
@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[weights.ModelSpec, bytes]:
    chunks = [b"GGUF" + bytes([i]) * 1000 for i in range(3)]
    for i, data in enumerate(chunks, start=1):
        path = tmp_path / f"part{i}.bin"
        path.write_bytes(data)
        module = types.ModuleType(f"mdqa_fake_part{i}")
        module.get_part_path = lambda p=path: str(p)  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, f"mdqa_fake_part{i}", module)
    blob = b"".join(chunks)
    spec = weights.ModelSpec(
        "fake",
        "fake model",
        "mdqa-fake-part",
        "mdqa_fake_part",
        3,
        hashlib.sha256(blob).hexdigest(),
        len(blob),
    )
    monkeypatch.setenv("MDQA_CACHE_DIR", str(tmp_path / "cache"))
    return spec, blob


def test_assemble_concatenates_verifies_and_reuses(fake_parts: tuple[weights.ModelSpec, bytes]) -> None:
    spec, blob = fake_parts
    path, sha = weights.ensure_model(spec)
    assert path.read_bytes() == blob and sha == spec.sha256
    assert path.parent == weights.cache_dir() / "models"
    mtime = path.stat().st_mtime_ns
    assert weights.ensure_model(spec)[0].stat().st_mtime_ns == mtime  # reused, not rebuilt
    path.write_bytes(blob[:-1] + b"X")  # corrupted in the cache: rebuilt from the parts
    path2, sha2 = weights.ensure_model(spec)
    assert path2.read_bytes() == blob and sha2 == spec.sha256


def test_assemble_rejects_wrong_parts(fake_parts: tuple[weights.ModelSpec, bytes]) -> None:
    spec, _blob = fake_parts
    bad = weights.ModelSpec(spec.name, "", spec.package_prefix, spec.module_prefix, 3, "0" * 64, 0)
    with pytest.raises(ModelIntegrityError, match="expected 0000"):
        weights.assemble(bad)
    assert not list((weights.cache_dir() / "models").glob("*.gguf"))  # nothing half-written left


def test_missing_parts_name_the_packages_and_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = weights.ModelSpec("x", "", "mdqa-absent-part", "mdqa_absent_part", 4, "", 0)
    with pytest.raises(ModelNotInstalledError, match=r"mdqa-absent-part1, .*and 1 more.*make install"):
        weights.part_paths(spec)


def test_model_constants_match_the_packages() -> None:
    assert set(weights.MODELS) == {"qwen2.5-coder-1.5b-instruct-q4_k_m", "qwen2.5-coder-0.5b-instruct-q4_k_m"}
    for spec in weights.MODELS.values():
        assert len(spec.sha256) == 64 and spec.size > 100_000_000
