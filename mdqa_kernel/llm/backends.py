"""The local LLM backend (llama-cpp-python in process), and the import point of every built-in backend.

The backend contract (`Backend`, `Generation`, `register`, `make_backend`) lives in `llm.base`; the
server backends in `llm.servers`. Both are re-exported here, where callers have always found them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from mdqa_kernel.llm.base import (
    BACKENDS,
    TRANSIENT_STATUS,
    Backend,
    Generation,
    Message,
    classify_common,
    from_status,
    make_backend,
    register,
)
from mdqa_kernel.llm.config import LLMConfig
from mdqa_kernel.llm.errors import LLMConfigError, LLMError, LLMPermanentError, ModelNotInstalledError
from mdqa_kernel.llm.servers import OllamaBackend, OpenAIBackend
from mdqa_kernel.llm.structured import Schema
from mdqa_kernel.llm.weights import INSTALL_HINT, MODELS, ModelSpec, ensure_model, verify

LOCAL_DEFAULTS = {
    "local": "qwen2.5-coder-1.5b-instruct-q4_k_m",
    "local-tiny": "qwen2.5-coder-0.5b-instruct-q4_k_m",
}
CHATML_STOP = ["<|im_end|>", "<|endoftext|>"]
DEFAULT_SYSTEM = "You are a careful assistant that reads documents and answers precisely."


# -- ChatML ------------------------------------------------------------------------------------
def chatml(messages: Sequence[Message]) -> str:
    """Qwen's chat template. The llama-index LlamaCPP wrapper ignores the GGUF template, so we
    format explicitly (and identically on every path, so prompts and cache keys agree)."""
    parts = []
    if not messages or messages[0]["role"] != "system":
        parts.append(f"<|im_start|>system\n{DEFAULT_SYSTEM}<|im_end|>\n")
    for m in messages:
        parts.append(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n")
    parts.append("<|im_start|>assistant\n")
    return "".join(parts)


def _li_messages_to_prompt(messages: Sequence[Any]) -> str:
    return chatml(
        [{"role": str(getattr(m.role, "value", m.role)), "content": m.content or ""} for m in messages]
    )


def _li_completion_to_prompt(completion: str) -> str:
    return chatml([{"role": "user", "content": completion}])


# -- CPU features (the AMX fault) ----------------------------------------------------------------
@cache
def cpu_flags() -> frozenset[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def library_has_amx() -> bool:
    import llama_cpp

    return "AMX" in llama_cpp.llama_print_system_info().decode(errors="replace")


def disable_extra_bufts(setting: str) -> bool:
    """Whether to load with use_extra_bufts=False.

    Some VMs advertise AMX but fault on AMX tile loads (SIGILL on the first inference). The AMX
    kernels are reached through llama.cpp's extra buffer types, so turning those off avoids them;
    it also turns off weight repacking, which costs speed, hence only where the CPU advertises AMX
    *and* the library was built with AMX (a native build). Builds from our Makefile use
    GGML_NATIVE=OFF without AMX and are never slowed.
    """
    if setting in {"on", "off"}:
        return setting == "off"
    return "amx_tile" in cpu_flags() and library_has_amx()


_PARAMS_PATCH_LOCK = threading.Lock()


@contextlib.contextmanager
def _model_params(disable_bufts: bool) -> Iterator[None]:
    """`Llama()` does not expose use_extra_bufts; wrap the default-params factory it calls while
    one model loads (under a lock, restored afterwards)."""
    if not disable_bufts:
        yield
        return
    import llama_cpp.llama as llama_module

    lowlevel = llama_module.llama_cpp
    original = lowlevel.llama_model_default_params

    def patched() -> Any:
        params = original()
        if hasattr(params, "use_extra_bufts"):
            params.use_extra_bufts = False
        return params

    with _PARAMS_PATCH_LOCK:
        lowlevel.llama_model_default_params = patched
        try:
            yield
        finally:
            lowlevel.llama_model_default_params = original


def resolve_local_model(config: LLMConfig) -> tuple[ModelSpec | None, Path | None]:
    """A named model (assembled from packages) or a user-supplied .gguf path."""
    name = config.model or LOCAL_DEFAULTS[config.backend if config.backend in LOCAL_DEFAULTS else "local"]
    if name in MODELS:
        return MODELS[name], None
    path = Path(name).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ModelNotInstalledError(f"model file {path} does not exist")
        return None, path
    raise LLMConfigError(
        f"unknown local model {name!r}; use one of {sorted(MODELS)} or a path to a .gguf file"
    )


@register
class LocalBackend(Backend):
    """llama-cpp-python in process. One `Llama` is not re-entrant, so every use of it holds a lock;
    the grammar is passed per call (never stored on shared state), so concurrent callers with
    different schemas cannot see each other's grammar."""

    name = "local"
    aliases = ("local-tiny",)  # the same backend with a smaller default model (LOCAL_DEFAULTS)

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        self.spec, self._path = resolve_local_model(config)
        self._sha256: str | None = None
        self._llama: Any = None
        self._llm: Any = None
        self._lock = threading.RLock()
        self._grammars: dict[str, Any] = {}
        self.extra_bufts_disabled = False

    @property
    def model_path(self) -> Path:
        if self._path is None:
            assert self.spec is not None
            self._path, self._sha256 = ensure_model(self.spec)
        return self._path

    @property
    def sha256(self) -> str:
        if self._sha256 is None:
            self._sha256 = verify(self.model_path, self.spec.sha256 if self.spec else None)
        return self._sha256

    @property
    def model_id(self) -> str:
        # Keyed by content, not by name: two names for the same file share cache entries.
        label = self.spec.name if self.spec else self.model_path.stem
        return f"{label}@{self.sha256[:12]}"

    @property
    def llama(self) -> Any:
        """The loaded llama_cpp.Llama (loaded on first use)."""
        with self._lock:
            if self._llama is None:
                self._llama = self._load()
            return self._llama

    def _load(self) -> Any:
        try:
            from llama_cpp import Llama
        except ImportError as e:
            raise ModelNotInstalledError(f"llama-cpp-python is not installed ({e}); {INSTALL_HINT}") from None
        path = self.model_path
        self.extra_bufts_disabled = disable_extra_bufts(self.config.extra_bufts)
        with _model_params(self.extra_bufts_disabled):
            return Llama(
                model_path=str(path),
                n_ctx=self.config.n_ctx,
                n_threads=self.config.n_threads,
                n_threads_batch=self.config.n_threads,
                n_gpu_layers=0,
                verbose=False,
            )

    def load(self) -> None:
        _ = self.llama

    @property
    def llm(self) -> Any:
        with self._lock:
            if self._llm is None:
                self._llm = _make_llamacpp(self)
            return self._llm

    def grammar(self, schema: Schema) -> Any:
        """A LlamaGrammar per schema, built once: it holds only the GBNF text, so sharing is safe."""
        from llama_cpp import LlamaGrammar

        from mdqa_kernel.store import stable_hash

        key = stable_hash(schema.json_schema)
        g = self._grammars.get(key)
        if g is None:
            import json

            g = LlamaGrammar.from_json_schema(json.dumps(schema.json_schema), verbose=False)
            self._grammars[key] = g
        return g

    def tokens(self, messages: Sequence[Message]) -> list[int]:
        return self.llama.tokenize(chatml(messages).encode("utf-8"), add_bos=False, special=True)

    def generate(
        self, messages: Sequence[Message], *, schema: Schema | None, params: dict[str, Any]
    ) -> Generation:
        grammar = self.grammar(schema) if schema is not None else None
        with self._lock:
            llama = self.llama
            tokens = self.tokens(messages)
            out = llama.create_completion(
                tokens,
                max_tokens=params.get("max_tokens", self.config.max_tokens),
                temperature=params.get("temperature", self.config.temperature),
                stop=CHATML_STOP,
                grammar=grammar,
            )
        usage = out.get("usage") or {}
        return Generation(
            text=out["choices"][0]["text"],
            prompt_tokens=usage.get("prompt_tokens", len(tokens)),
            completion_tokens=usage.get("completion_tokens"),
            enforced=schema is not None,
        )

    def classify(self, exc: BaseException) -> LLMError:
        if isinstance(exc, ValueError) and "context window" in str(exc):
            return LLMPermanentError(
                f"prompt too long for n_ctx={self.config.n_ctx}: {exc}", backend_message=str(exc)
            )
        return super().classify(exc)

    def describe(self, *, full_verify: bool = False) -> dict[str, Any]:
        path = self.model_path
        sha = verify(path, self.spec.sha256 if self.spec else None, full=full_verify)
        import llama_cpp

        return {
            "backend": self.config.backend,
            "model": self.spec.name if self.spec else path.stem,
            "description": self.spec.description if self.spec else "user-supplied GGUF",
            "model_file": str(path),
            "sha256": sha,
            "sha256_expected": self.spec.sha256 if self.spec else None,
            "size_bytes": path.stat().st_size,
            "n_threads": self.config.n_threads,
            "n_ctx": self.config.n_ctx,
            "llama_cpp_version": llama_cpp.__version__,
            "extra_bufts_disabled": disable_extra_bufts(self.config.extra_bufts),
            "cpu_amx": "amx_tile" in cpu_flags(),
        }

    def close(self) -> None:
        with self._lock:
            if self._llama is not None:
                self._llama.close()
            self._llama = None
            self._llm = None


def _make_llamacpp(backend: LocalBackend) -> Any:
    """A llama-index LlamaCPP sharing the backend's loaded model and lock (no second copy in RAM)."""
    from llama_index.core.base.llms.types import CompletionResponse
    from llama_index.core.llms.callbacks import llm_completion_callback
    from llama_index.llms.llama_cpp import LlamaCPP
    from pydantic import PrivateAttr

    class SharedLlamaCPP(LlamaCPP):
        _lock: Any = PrivateAttr()

        def __init__(self, owner: LocalBackend) -> None:
            model = owner.llama
            cfg = owner.config
            # Skip LlamaCPP.__init__, which would load the weights a second time.
            super(LlamaCPP, self).__init__(
                model_path=str(owner.model_path),
                model_url=None,
                temperature=cfg.temperature,
                max_new_tokens=cfg.max_tokens,
                context_window=model.n_ctx(),
                generate_kwargs={
                    "temperature": cfg.temperature,
                    "max_tokens": cfg.max_tokens,
                    "stop": CHATML_STOP,
                },
                model_kwargs={"n_ctx": cfg.n_ctx, "n_threads": cfg.n_threads},
                verbose=False,
                messages_to_prompt=_li_messages_to_prompt,
                completion_to_prompt=_li_completion_to_prompt,
            )
            self._model = model
            self._lock = owner._lock

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
            if not formatted:
                prompt = self.completion_to_prompt(prompt)
            # Per-call kwargs merged into a copy: LlamaCPP mutates shared generate_kwargs.
            gen = {**self.generate_kwargs, **kwargs, "stream": False}
            with self._lock:
                response = self._model(prompt=prompt, **gen)
            return CompletionResponse(text=response["choices"][0]["text"], raw=response)

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            text = self.complete(prompt, formatted=formatted, **kwargs).text

            def gen() -> Iterator[CompletionResponse]:
                yield CompletionResponse(text=text, delta=text)

            return gen()

    return SharedLlamaCPP(backend)


__all__ = [
    "BACKENDS",
    "TRANSIENT_STATUS",
    "Backend",
    "Generation",
    "LocalBackend",
    "Message",
    "OllamaBackend",
    "OpenAIBackend",
    "classify_common",
    "from_status",
    "make_backend",
    "register",
]
