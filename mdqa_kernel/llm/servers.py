"""Server backends: any OpenAI-compatible endpoint and Ollama, registered beside the local one.

They share the Backend contract of base.py: messages (+ optional JSON schema) in, text and token
counts out, library exceptions mapped onto ours so the client can retry the transient ones.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any, ClassVar

from mdqa_kernel.llm.base import (
    Backend,
    Generation,
    Message,
    classify_common,
    from_status,
    register,
)
from mdqa_kernel.llm.config import LLMConfig
from mdqa_kernel.llm.errors import (
    LLMConfigError,
    LLMError,
    LLMTimeoutError,
    LLMTransientError,
)
from mdqa_kernel.llm.structured import Schema, schema_instruction


def _response_format_unsupported(err: LLMError) -> bool:
    # llama.cpp's server answers an unknown response_format type with a 500 carrying the
    # validation error, others with 400/422: recognise it by the message, not the status alone.
    msg = str(err).lower()
    return getattr(err, "status", None) in {400, 422, 500} and (
        "response_format" in msg or "json_schema" in msg
    )


class _ServerBackend(Backend):
    """A backend reached over HTTP: a model is identified by its name and the server's address."""

    model: str
    base_url: str

    @property
    def model_id(self) -> str:
        return f"{self.model}@{self.base_url}"


@register
class OpenAIBackend(_ServerBackend):
    """Any OpenAI-compatible endpoint (vLLM, llama.cpp server, DeepSeek, OpenRouter...)."""

    name = "openai"
    MODES: ClassVar[tuple[str, ...]] = ("json_schema", "json_object", "prompt")

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        self.base_url = (
            config.base_url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
        )
        if not self.base_url:
            raise LLMConfigError("the openai backend needs a base URL (MDQA_LLM_BASE_URL or base_url=...)")
        if not config.model:
            raise LLMConfigError("the openai backend needs a model id (MDQA_LLM_MODEL or model=...)")
        self.model = config.model
        self._llm: Any = None
        # auto: start with the strictest response_format and step down when the server refuses it.
        self.mode = "json_schema" if config.structured_mode == "auto" else config.structured_mode
        self._mode_lock = threading.Lock()

    @property
    def llm(self) -> Any:
        if self._llm is None:
            from llama_index.llms.openai_like import OpenAILike

            self._llm = OpenAILike(
                model=self.model,
                api_base=self.base_url,
                # Local servers accept any key; the openai client insists on one being set.
                api_key=self.config.api_key() or "not-needed",
                is_chat_model=True,
                context_window=self.config.n_ctx,
                temperature=self.config.temperature,
                max_tokens=self.config.max_tokens,
                timeout=self.config.timeout,
                max_retries=0,  # our client retries, with accounting; no hidden second layer
            )
        return self._llm

    def _request(
        self, messages: Sequence[Message], schema: Schema | None, params: dict[str, Any], mode: str
    ) -> Generation:
        from llama_index.core.llms import ChatMessage

        msgs = list(messages)
        kwargs: dict[str, Any] = {
            "temperature": params.get("temperature", self.config.temperature),
            "max_tokens": params.get("max_tokens", self.config.max_tokens),
        }
        if schema is not None:
            if mode == "json_schema":
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": _schema_name(schema), "schema": schema.json_schema},
                }
            else:
                msgs = _with_instruction(msgs, schema_instruction(schema))
                if mode == "json_object":
                    # OpenAI's form plus llama.cpp's "schema" extension (ignored where unknown).
                    kwargs["response_format"] = {"type": "json_object", "schema": schema.json_schema}
        resp = self.llm.chat([ChatMessage(role=m["role"], content=m["content"]) for m in msgs], **kwargs)
        usage = getattr(resp.raw, "usage", None)
        return Generation(
            text=resp.message.content or "",
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            enforced=schema is not None and mode == "json_schema",
        )

    def generate(
        self, messages: Sequence[Message], *, schema: Schema | None, params: dict[str, Any]
    ) -> Generation:
        while True:
            mode = self.mode
            try:
                return self._request(messages, schema, params, mode)
            except Exception as exc:
                err = self.classify(exc)
                can_step_down = (
                    schema is not None
                    and self.config.structured_mode == "auto"
                    and mode != "prompt"
                    and _response_format_unsupported(err)
                )
                if not can_step_down:
                    raise
                with self._mode_lock:
                    if self.mode == mode:
                        self.mode = self.MODES[self.MODES.index(mode) + 1]

    def classify(self, exc: BaseException) -> LLMError:
        try:
            import openai
        except ImportError:  # pragma: no cover - llama-index-llms-openai-like depends on it
            return classify_common(exc)
        if isinstance(exc, openai.APITimeoutError):
            return LLMTimeoutError(f"{self.base_url} timed out after {self.config.timeout:g} s")
        if isinstance(exc, openai.APIConnectionError):
            return LLMTransientError(f"cannot reach {self.base_url}: {exc.__cause__ or exc}")
        if isinstance(exc, openai.APIStatusError):
            return from_status(exc.status_code, _openai_message(exc))
        return classify_common(exc)

    def describe(self, *, full_verify: bool = False) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "structured_mode": self.mode,
        }


def _openai_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        return str(body)[:2000]
    return str(getattr(exc, "message", exc))


def _schema_name(schema: Schema) -> str:
    # OpenAI requires ^[a-zA-Z0-9_-]{1,64}$ for the schema name.
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in schema.name)[:64] or "output"


def _with_instruction(messages: list[Message], instruction: str) -> list[Message]:
    if messages and messages[0]["role"] == "system":
        return [{"role": "system", "content": messages[0]["content"] + "\n\n" + instruction}, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


@register
class OllamaBackend(_ServerBackend):
    """An Ollama server; `format=<schema>` makes Ollama constrain the output to the schema."""

    name = "ollama"

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        self.base_url = config.base_url or os.environ.get("OLLAMA_HOST") or "http://localhost:11434"
        self.model = config.model or "qwen2.5-coder:1.5b"
        self._llm: Any = None

    @property
    def llm(self) -> Any:
        if self._llm is None:
            from llama_index.llms.ollama import Ollama

            self._llm = Ollama(
                model=self.model,
                base_url=self.base_url,
                temperature=self.config.temperature,
                request_timeout=self.config.timeout,
                context_window=self.config.n_ctx,
                additional_kwargs={"num_predict": self.config.max_tokens},
            )
        return self._llm

    def generate(
        self, messages: Sequence[Message], *, schema: Schema | None, params: dict[str, Any]
    ) -> Generation:
        from llama_index.core.llms import ChatMessage

        kwargs: dict[str, Any] = {}
        if schema is not None:
            kwargs["format"] = schema.json_schema
        resp = self.llm.chat([ChatMessage(role=m["role"], content=m["content"]) for m in messages], **kwargs)
        raw = resp.raw or {}
        return Generation(
            text=resp.message.content or "",
            prompt_tokens=raw.get("prompt_eval_count"),
            completion_tokens=raw.get("eval_count"),
            enforced=schema is not None,
        )

    def classify(self, exc: BaseException) -> LLMError:
        try:
            import ollama
        except ImportError:  # pragma: no cover
            return classify_common(exc)
        if isinstance(exc, ollama.ResponseError):
            return from_status(exc.status_code, exc.error)
        return classify_common(exc)

    def describe(self, *, full_verify: bool = False) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "base_url": self.base_url}
