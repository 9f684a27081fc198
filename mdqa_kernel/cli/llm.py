"""`mdqa llm check`: the configured LLM backend, its model file, and one structured prompt.

Only click is imported at module level, so `mdqa --help` stays instant."""

from __future__ import annotations

import click

from mdqa_kernel.cli.common import BACKEND_CHOICE, RegistryChoice, fail

_CHECK_PASSAGE = (
    "At 31 December 2021 the bank's capital adequacy ratio was 15.44% (2020: 14.30%), "
    "and its core tier-1 ratio was 10.12%."
)


@click.group("llm")
def llm_group() -> None:
    """The configured LLM backend: check it, see what calls cost."""


@llm_group.command("check")
@click.option(
    "--backend",
    type=RegistryChoice(BACKEND_CHOICE),
    default=None,
    help="override MDQA_LLM_BACKEND / the config file",
)
@click.option("--model", default=None, help="model name, .gguf path (local) or model id (servers)")
@click.option("--base-url", default=None, help="server URL for openai/ollama")
@click.option("--threads", type=int, default=None, help="llama.cpp threads (local)")
@click.option("--workspace", default=None, help="workspace for the call cache (default: a temporary one)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def llm_check(
    backend: str | None,
    model: str | None,
    base_url: str | None,
    threads: int | None,
    workspace: str | None,
    as_json: bool,
) -> None:
    """Show the backend, its model file and sha256, and answer one structured prompt."""
    import json
    import tempfile
    import time

    from pydantic import BaseModel

    from mdqa_kernel.llm import LLMClient, LLMConfig, LLMError

    class CheckAnswer(BaseModel):
        capital_adequacy_ratio_2021: float

    try:
        config = LLMConfig.from_env(backend=backend, model=model, base_url=base_url, n_threads=threads)
        with tempfile.TemporaryDirectory(prefix="mdqa-llm-check-") as tmp:
            client = LLMClient(config, workspace or tmp)
            report = client.backend.describe(full_verify=True)
            start = time.perf_counter()
            client.backend.load()
            report["load_seconds"] = round(time.perf_counter() - start, 3)
            start = time.perf_counter()
            answer = client.structured(
                f"{_CHECK_PASSAGE}\nWhat was the capital adequacy ratio in 2021, in percent?",
                CheckAnswer,
                stage="check",
                max_tokens=64,
            )
            report["seconds"] = round(time.perf_counter() - start, 3)
            report["answer"] = answer.model_dump()
            report["correct"] = abs(answer.capital_adequacy_ratio_2021 - 15.44) < 1e-6
            calls = client.calls()
            report["prompt_tokens"] = int(calls["prompt_tokens"].sum() or 0)
            report["completion_tokens"] = int(calls["completion_tokens"].sum() or 0)
            client.close()
    except LLMError as e:
        fail(f"{type(e).__name__}: {e}")
        return
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    for k, v in report.items():
        click.echo(f"{k:22} {v}")
