"""The LLM layer: backends behind llama-index's `LLM` interface, chosen by one `LLMConfig`, and
`LLMClient`, through which every call is cached in the workspace, retried, validated and counted.

    from mdqa_kernel.llm import LLMClient, LLMConfig
    client = LLMClient(LLMConfig.from_env(backend="local-tiny"), "mdqa-workspace")
    answer = client.structured("Revenue in 2022? ...", Revenue, stage="extract")
    client.summary()   # calls / tokens / seconds by stage, with and without cache hits

Backends: `local` (default, offline: llama-cpp-python + Qwen2.5-Coder-1.5B from PyPI chunk
packages), `local-tiny` (Qwen2.5-Coder-0.5B), `openai` (any OpenAI-compatible server), `ollama`;
more from other packages through the `mdqa.backends` entry-point group (see `mdqa_kernel.registry`).
"""

from __future__ import annotations

from mdqa_kernel.llm.backends import (
    BACKENDS,
    Backend,
    Generation,
    LocalBackend,
    OllamaBackend,
    OpenAIBackend,
    make_backend,
    register,
)
from mdqa_kernel.llm.client import LLMClient, cache_key, summarize
from mdqa_kernel.llm.config import LLMConfig
from mdqa_kernel.llm.errors import (
    LLMConfigError,
    LLMError,
    LLMPermanentError,
    LLMRetriesExhaustedError,
    LLMTimeoutError,
    LLMTransientError,
    ModelIntegrityError,
    ModelNotInstalledError,
    StructuredOutputError,
    UnknownBackendError,
)
from mdqa_kernel.llm.weights import MODELS, ModelSpec, cache_dir, ensure_model

__all__ = [
    "BACKENDS",
    "MODELS",
    "Backend",
    "Generation",
    "LLMClient",
    "LLMConfig",
    "LLMConfigError",
    "LLMError",
    "LLMPermanentError",
    "LLMRetriesExhaustedError",
    "LLMTimeoutError",
    "LLMTransientError",
    "LocalBackend",
    "ModelIntegrityError",
    "ModelNotInstalledError",
    "ModelSpec",
    "OllamaBackend",
    "OpenAIBackend",
    "StructuredOutputError",
    "UnknownBackendError",
    "cache_dir",
    "cache_key",
    "ensure_model",
    "make_backend",
    "register",
    "summarize",
]
