"""The backend contract that every LLM backend (local, servers, plug-ins) implements, and its registry.

A backend turns chat messages (+ an optional JSON schema) into text and token counts, and maps its
library's exceptions onto ours (transient: retried by the client; permanent: raised). Each exposes
the llama-index `LLM` object (`backend.llm`) for code that wants llama-index directly. Caching,
accounting and retries live in the client, above every backend, so they behave the same everywhere.

A new backend is one class: subclass `Backend`, set `name` (and `aliases`), decorate it with
`@register`, or add it to the `mdqa.backends` entry-point group from another package.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from mdqa_kernel.llm.config import BACKENDS, LLMConfig
from mdqa_kernel.llm.errors import LLMError, LLMPermanentError, LLMTimeoutError, LLMTransientError
from mdqa_kernel.llm.structured import Schema

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}
TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}


@dataclass(frozen=True)
class Generation:
    """One backend answer. `enforced`: the backend guaranteed the schema (grammar/json_schema)."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    enforced: bool = False


class Backend(ABC):
    """The interface the client needs from a backend."""

    name: ClassVar[str]
    # Other names that choose this class; the config keeps the name typed, so the class can tell them apart.
    aliases: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: LLMConfig) -> None:
        self.config = config

    @property
    @abstractmethod
    def model_id(self) -> str:
        """Identifies the weights/endpoint in cache keys and call records."""

    @property
    @abstractmethod
    def llm(self) -> Any:
        """The llama-index LLM object for this backend."""

    @abstractmethod
    def generate(
        self, messages: Sequence[Message], *, schema: Schema | None, params: dict[str, Any]
    ) -> Generation:
        """One call, no retries; raise the library's exceptions (classify() maps them)."""

    def classify(self, exc: BaseException) -> LLMError:
        """Map a library exception onto LLMTransientError / LLMTimeoutError / LLMPermanentError."""
        return classify_common(exc)

    def describe(self, *, full_verify: bool = False) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model_id}

    def load(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing
        """Load weights now (in-process backends), so that the first call's time is the call's."""

    def close(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing
        """Release the model or connections."""


def register(cls: type[Backend]) -> type[Backend]:
    """Class decorator: make a backend available under its `name` (and `aliases`)."""
    BACKENDS.add(cls.name, cls, aliases=cls.aliases)
    return cls


def make_backend(config: LLMConfig) -> Backend:
    """The backend `config.backend` names (UnknownBackendError, an LLMConfigError, if none does)."""
    return BACKENDS.get(config.backend)(config)


def classify_common(exc: BaseException) -> LLMError:
    """Exceptions any HTTP backend may raise (httpx, builtins), by type and status code."""
    if isinstance(exc, LLMError):
        return exc
    import httpx

    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return LLMTimeoutError(f"timed out: {exc}")
    if isinstance(exc, ConnectionError | httpx.TransportError):
        return LLMTransientError(f"connection failed: {exc}")
    if isinstance(exc, httpx.HTTPStatusError):
        return from_status(exc.response.status_code, exc.response.text or str(exc))
    return LLMPermanentError(f"{type(exc).__name__}: {exc}", backend_message=str(exc))


def from_status(status: int | None, message: str) -> LLMError:
    if status in TRANSIENT_STATUS:
        return LLMTransientError(f"HTTP {status}: {message}", status=status)
    return LLMPermanentError(f"HTTP {status}: {message}", status=status, backend_message=message)
