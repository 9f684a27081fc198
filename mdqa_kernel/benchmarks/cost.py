"""Cost model: what recorded LLM tokens would cost on a paid API, for a configurable price table.

Prices are USD per million tokens, input and output. The defaults are examples to be checked
against current pricing, not quotes; pass a YAML/JSON file to use your own:

    gpt-4o-mini: {input: 0.15, output: 0.60}
    my-server:   {input: 0.0,  output: 0.0}

Tokens come from our runs (the local model's tokenizer), so a paid model's tokenizer will differ
by a few tens of percent; the estimate uses every call a question made (the cost without a cache).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import yaml
from pydantic import BaseModel, Field, ValidationError

from mdqa_kernel.errors import MdqaError

EXAMPLE_PRICES: dict[str, dict[str, float]] = {
    "gpt-4o": {"input": 2.50, "output": 10.00},
    "gpt-4.1-mini": {"input": 0.40, "output": 1.60},
    "deepseek-chat": {"input": 0.27, "output": 1.10},
    "local": {"input": 0.0, "output": 0.0},
}


class PriceError(MdqaError, ValueError):
    """A price table that cannot be read or has a bad entry."""


class Price(BaseModel):
    input: float = Field(ge=0, description="USD per 1M prompt tokens")
    output: float = Field(ge=0, description="USD per 1M completion tokens")

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6


def load_prices(source: str | Path | dict[str, Any] | None = None) -> dict[str, Price]:
    """The price table: a mapping, a YAML/JSON file, or the example prices."""
    data: Any = EXAMPLE_PRICES if source is None else source
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise PriceError(f"price table {path} does not exist")
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    if not isinstance(data, dict):
        raise PriceError("a price table maps model names to {input, output} USD per 1M tokens")
    try:
        return {str(k): Price.model_validate(v) for k, v in data.items()}
    except ValidationError as e:
        raise PriceError(f"bad price table entry: {e.errors()[0]['msg']}") from None


def cost_columns(
    summary: pl.DataFrame, prices: dict[str, Price], questions: int | None = None
) -> pl.DataFrame:
    """Add `cost_per_q_<model>` (USD per question) and, with `questions`, `cost_<model>` for that many."""
    if summary.height == 0 or "prompt_tokens_per_q" not in summary.columns:
        return summary
    out = summary
    for name, price in prices.items():
        per_q = (pl.col("prompt_tokens_per_q").fill_null(0) * price.input
                 + pl.col("completion_tokens_per_q").fill_null(0) * price.output) / 1e6  # fmt: skip
        out = out.with_columns(per_q.round(5).alias(f"cost_per_q_{name}"))
        if questions is not None:
            out = out.with_columns((per_q * questions).round(2).alias(f"cost_{name}"))
    return out


def _seconds_per_q(columns: list[str]) -> pl.Expr:
    """Seconds per question with nothing cached where the records say (cold_wall_s_per_q), else the
    measured wall time, which leaves out the answers found in the cache."""
    wall = pl.col("wall_s_per_q")
    if "cold_wall_s_per_q" in columns:
        wall = pl.coalesce(pl.col("cold_wall_s_per_q"), wall)
    return wall.alias("wall_s_per_q")


def estimate_grid(summary: pl.DataFrame, prices: dict[str, Price], questions: int) -> pl.DataFrame:
    """What running each config on `questions` questions would cost, from the tokens per question
    measured so far (rows of split 'all', subset 'all'), and how long it took here (`hours_here`:
    seconds per question with nothing cached × questions, on the machine that ran them)."""
    rows = summary
    if "split" in rows.columns:
        rows = rows.filter(pl.col("split") == "all")
    if "subset" in rows.columns:
        rows = rows.filter(pl.col("subset") == "all")
    base = rows.select(
        "config", "questions", "prompt_tokens_per_q", "completion_tokens_per_q", _seconds_per_q(rows.columns)
    )
    base = base.with_columns(hours_here=(pl.col("wall_s_per_q") * questions / 3600).round(2))
    return cost_columns(base, prices, questions)


# Documents a noise variant reads, relative to the clean question (0.5·|D| irrelevant ones added).
NOISE_DOCS = 1.5


def _scale(target: Any, donor: Any) -> float:
    """How much more prompt a config reads than a measured one of the same system. flat-rag and the
    paper's workflow retrieve k chunks (per collection or per document), so their prompts grow with k
    (an upper bound: the fixed instructions do not grow); every system but the oracle rows reads
    1.5× the documents with noise."""
    factor = target.k / donor.k if target.system in ("flat-rag", "paper-workflow") else 1.0
    if target.noise != donor.noise and not target.system.endswith("oracle-rows"):
        factor *= NOISE_DOCS if target.noise else 1 / NOISE_DOCS
    return factor


def extrapolate_grid(
    table: pl.DataFrame, measured: dict[str, Any], missing: list[Any], n_ctx: int, prices: dict[str, Price],
    questions: int,
) -> pl.DataFrame:  # fmt: skip
    """Estimates for configs not run yet, from the measured config of the same system (and the same
    metadata setting) nearest in k, scaled by `_scale`. Here a flat-RAG prompt is cut to the model's
    context (`n_ctx`), so its time stops growing there; a paid API reads (and bills) all of it. Each
    row says what it was scaled from."""
    rows = {r["config"]: r for r in table.iter_rows(named=True)}
    out = []
    for cfg in missing:
        donors = [(label, c) for label, c in measured.items()
                  if c.system == cfg.system and c.metadata == cfg.metadata and label in rows]  # fmt: skip
        if not donors:
            continue
        label, donor = min(donors, key=lambda d: (d[1].noise != cfg.noise, abs(d[1].k - cfg.k)))
        factor = _scale(cfg, donor)
        base = rows[label]
        prompt = base["prompt_tokens_per_q"] * factor  # a paid API's long context reads it all
        basis = f"×{factor:.2f} from {label}"
        time_factor = factor
        if cfg.system == "flat-rag" and prompt > n_ctx and base["prompt_tokens_per_q"]:
            time_factor = max(1.0, n_ctx / base["prompt_tokens_per_q"])  # here the prompt is cut to n_ctx
            basis += f" (hours: prompt cut to {n_ctx} tokens here)"
        out.append({
            "config": cfg.label, "questions": 0, "prompt_tokens_per_q": round(prompt, 1),
            "completion_tokens_per_q": base["completion_tokens_per_q"]
            * (NOISE_DOCS if cfg.noise and not donor.noise and cfg.system == "paper-workflow" else 1.0),
            "wall_s_per_q": round(base["wall_s_per_q"] * time_factor, 1),
            "basis": basis,
        })  # fmt: skip
    if not out:
        return table.head(0).with_columns(basis=pl.lit(None, pl.String))
    frame = pl.DataFrame(out).with_columns(
        pl.col("questions").cast(table.schema["questions"]),
        hours_here=(pl.col("wall_s_per_q") * questions / 3600).round(2),
    )
    return cost_columns(frame, prices, questions).select(*table.columns, "basis")
