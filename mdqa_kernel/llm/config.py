"""LLMConfig: the one object that chooses and tunes an LLM backend.

Sources, later ones winning: the defaults below; a YAML config file (`$MDQA_LLM_CONFIG`, else an
`llm:` section of ./mdqa.yaml, else $XDG_CONFIG_HOME/mdqa/llm.yaml); environment variables
(`MDQA_LLM_<FIELD>`, e.g. MDQA_LLM_BACKEND=openai, MDQA_LLM_BASE_URL, MDQA_LLM_MODEL,
MDQA_LLM_THREADS); and keyword arguments. Papermill notebooks set the environment or pass keywords,
so one notebook runs offline on a laptop and against a server in CI without edits.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mdqa_kernel.llm.errors import LLMConfigError, UnknownBackendError
from mdqa_kernel.registry import Registry
from mdqa_kernel.text.yamlsafe import YamlLoadError, load_yaml, read_document

# The backend classes by name (`llm.base.register` adds to it). It lives here, beside the setting that
# names a backend, so that validating a config needs no backend module; the built-in modules are
# imported the first time a name is checked.
BACKENDS: Registry[Any] = Registry(
    "LLM backend",
    "mdqa.backends",
    packages=("mdqa_kernel.llm.backends", "mdqa_kernel.llm.servers"),
    error=UnknownBackendError,
)
ENV_PREFIX = "MDQA_LLM_"
# Short environment names people expect, beside the generic MDQA_LLM_<FIELD>.
ENV_ALIASES = {"MDQA_LLM_THREADS": "n_threads", "MDQA_LLM_CTX": "n_ctx"}


def default_threads() -> int:
    # Two threads is where a 2-core laptop peaks; more threads than cores collapses llama.cpp's speed.
    return max(1, min(2, os.cpu_count() or 1))


class LLMConfig(BaseModel):
    """Which backend and model, and every parameter that shapes a call."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str = Field(
        default="local", description="a name in BACKENDS: local, local-tiny, openai, ollama, ..."
    )
    model: str | None = Field(
        default=None,
        description="local: a model name from weights.MODELS or a path to a .gguf; openai/ollama: the model id",
    )
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    n_threads: int = Field(default_factory=default_threads, ge=1)
    n_ctx: int = Field(default=8192, ge=256)
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=512, ge=1)
    timeout: float = Field(default=120.0, gt=0)
    max_retries: int = Field(
        default=4, ge=0, description="retries of transient failures (not counting the first try)"
    )
    backoff_base: float = Field(default=0.5, ge=0)
    backoff_max: float = Field(default=20.0, ge=0)
    cache: bool = True
    structured_mode: Literal["auto", "json_schema", "json_object", "prompt"] = "auto"
    max_repairs: int = Field(
        default=2, ge=0, description="re-asks after an answer that does not fit the schema"
    )
    extra_bufts: Literal["auto", "on", "off"] = Field(
        default="auto", description="llama.cpp extra buffer types; auto turns them off only where AMX faults"
    )

    @field_validator("backend", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.strip().lower() if isinstance(v, str) else v

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, v: str) -> str:
        if v not in BACKENDS:
            raise ValueError(BACKENDS.unknown_message(v))
        return v

    @classmethod
    def from_env(cls, config_file: str | os.PathLike[str] | None = None, **overrides: Any) -> LLMConfig:
        """Defaults < config file < MDQA_LLM_* environment < keyword overrides."""
        data: dict[str, Any] = {}
        path = Path(config_file) if config_file else find_config_file()
        if path is not None:
            data.update(read_config_file(path))
        data.update(env_values())
        data.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**data)
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors())
            raise LLMConfigError(f"invalid LLM configuration: {problems}") from None

    def with_(self, **changes: Any) -> LLMConfig:
        return self.model_copy(update=changes)

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) if self.api_key_env else None


def env_values(environ: dict[str, str] | None = None) -> dict[str, Any]:
    env = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    for name in LLMConfig.model_fields:
        key = ENV_PREFIX + name.upper()
        if env.get(key, "") != "":
            out[name] = env[key]
    for key, name in ENV_ALIASES.items():
        if env.get(key, "") != "" and name not in out:
            out[name] = env[key]
    if "cache" in out:
        out["cache"] = str(out["cache"]).strip().lower() not in {"0", "false", "no", "off"}
    return out


def find_config_file() -> Path | None:
    if env := os.environ.get("MDQA_LLM_CONFIG"):
        path = Path(env).expanduser()
        if not path.is_file():
            raise LLMConfigError(f"MDQA_LLM_CONFIG points to {path}, which is not a file")
        return path
    local = Path("mdqa.yaml")
    if local.is_file():
        return local
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    user = base / "mdqa" / "llm.yaml"
    return user if user.is_file() else None


def read_config_file(path: Path) -> dict[str, Any]:
    """The LLM settings of a YAML file: its `llm:` section if it has one, else the whole mapping."""
    try:
        data = load_yaml(read_document(path), str(path), what="an LLM config") or {}
    except (OSError, YamlLoadError) as e:
        raise LLMConfigError(f"cannot read LLM config file {path}: {e}") from None
    if isinstance(data, dict) and isinstance(data.get("llm"), dict):
        data = data["llm"]
    elif isinstance(data, dict) and "llm" not in data and path.name == "mdqa.yaml":
        return {}  # a project file without an llm section says nothing about the LLM
    if not isinstance(data, dict):
        raise LLMConfigError(f"LLM config file {path} must hold a mapping")
    return data
