"""Exception types of the LLM layer: callers catch the specific one they can act on."""

from __future__ import annotations

from mdqa_kernel.errors import MdqaError, UnknownNameError


class LLMError(MdqaError):
    """Base class of every error raised by mdqa_kernel.llm."""


class LLMConfigError(LLMError):
    """The LLM configuration is invalid (unknown backend, missing base URL or key...)."""


class UnknownBackendError(LLMConfigError, UnknownNameError):
    """No backend is registered under the configured name."""


class ModelNotInstalledError(LLMError):
    """The local model's weights are not installed (the chunk packages are missing)."""


class ModelIntegrityError(LLMError):
    """An assembled model file does not have the expected sha256 (corrupt or changed parts)."""


class LLMTransientError(LLMError):
    """A failure worth retrying: connection reset, 429, 5xx. Carries the backend's message."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMTimeoutError(LLMTransientError):
    """The backend did not answer within the configured timeout."""


class LLMRetriesExhaustedError(LLMError):
    """A transient failure persisted through every retry; `last` is the final transient error."""

    def __init__(self, message: str, *, attempts: int, last: LLMTransientError) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.last = last


class LLMPermanentError(LLMError):
    """A failure that retrying cannot fix (400, 401, 404, unknown model...): the backend's message."""

    def __init__(
        self, message: str, *, status: int | None = None, backend_message: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.backend_message = backend_message or message


class StructuredOutputError(LLMError):
    """The model's answer could not be parsed into the requested schema, even after repairs."""

    def __init__(self, message: str, *, raw: str, attempts: int) -> None:
        super().__init__(message)
        self.raw = raw
        self.attempts = attempts
