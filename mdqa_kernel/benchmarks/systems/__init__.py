"""Benchmark systems as configurations, all on the same LLM layer (any backend):

- flat-rag: BM25 over all chunks of the question's collection, top k·|D| chunks, ± metadata, one call;
- paper-workflow: the MuDABench paper's Algorithm 1 (plan → per-document RAG → schema + batch
  normalisation → sandboxed analysis code → final answer), chunk budget k;
- mdqa: our pipeline through `mdqa_kernel.ask`; mdqa-oracle-rows: the same with the oracle reader;
- paper-workflow-oracle-rows: the workflow's code and answer phases on the gold rows (beside
  mdqa-oracle-rows: LLM-written code against a typed plan, both given perfect extraction);
- bash-agent: AGORA's harness (mini-swe-agent, one bash tool over the documents as text, each command in
  the sandbox), k = its turn budget; mebench-rag: MEBench's LLM + RAG baseline (1,024-token chunks, top 5
  per document, one call). Both run only when named (`--systems bash-agent,mebench-rag`): they are not
  columns of the paper's Table 2.

`SYSTEMS` maps a name to its run function; `table2_configs()` is the grid of the paper's Table 2
plus ours, each also with noise.
"""

from __future__ import annotations

from collections.abc import Callable

from mdqa_kernel.benchmarks.systems import bash_agent, flat_rag, mdqa_pipeline, mebench_rag, paper_workflow
from mdqa_kernel.benchmarks.systems.base import (
    LLM,
    QuestionInput,
    StageError,
    SystemConfig,
    SystemOutput,
    SystemUnavailableError,
    UnknownSystemError,
)

RunFn = Callable[[SystemConfig, QuestionInput, LLM], SystemOutput]

SYSTEMS: dict[str, RunFn] = {
    "flat-rag": flat_rag.run,
    "paper-workflow": paper_workflow.run,
    "mdqa": mdqa_pipeline.run,
    "mdqa-oracle-rows": mdqa_pipeline.run_oracle,
    "paper-workflow-oracle-rows": paper_workflow.run_oracle,
    "bash-agent": bash_agent.run,
    "mebench-rag": mebench_rag.run,
}

FLAT_RAG_K = (1.0, 1.5, 2.0, 2.5)
WORKFLOW_K = (1.0, 3.0, 5.0)
MDQA_K = (3.0,)
BASH_AGENT_TURNS = 30.0  # the reduced budget on two cores (AGORA: 200 turns, 3,600 s: `bash-agent@200`)
# Systems of the other seed papers: in the grid only when named.
OPT_IN = (SystemConfig("bash-agent", k=BASH_AGENT_TURNS), SystemConfig("mebench-rag", k=5.0))


def get_system(name: str) -> RunFn:
    try:
        return SYSTEMS[name]
    except KeyError:
        raise UnknownSystemError(f"unknown system {name!r}; choose one of {sorted(SYSTEMS)}") from None


def _matches(config: SystemConfig, spec: str) -> bool:
    """`name`, `name@k` or `name@k+meta` (flat-rag with metadata) selects configs of the grid."""
    name, _, rest = spec.strip().partition("@")
    if name not in SYSTEMS:
        raise UnknownSystemError(f"unknown system {name!r} in {spec!r}; choose from {sorted(SYSTEMS)}")
    if config.system != name:
        return False
    if not rest:
        return True
    k_text, _, flag = rest.partition("+")
    return config.k == float(k_text) and config.metadata == (flag == "meta")


def _opt_in(systems: list[str]) -> list[SystemConfig]:
    """The opt-in systems the specs name; `bash-agent@N` is an N-turn budget (any N)."""
    found: list[SystemConfig] = []
    for spec in systems:
        name, _, rest = spec.strip().partition("@")
        if name == "bash-agent" and rest:
            found.append(SystemConfig(name, k=float(rest)))
        else:
            found += [c for c in OPT_IN if c.system == name]
    return found


def table2_configs(systems: list[str] | None = None, noise: bool = True) -> list[SystemConfig]:
    """The grid in priority order (what gives the most information per CPU-hour first, so a time
    budget finishes the useful columns): each config clean, then (with `noise`) with 0.5·|D|
    irrelevant documents. `systems`: names or `name@k[+meta]` specs to keep."""
    clean: list[SystemConfig] = [
        SystemConfig("mdqa-oracle-rows", k=1.0),
        SystemConfig("paper-workflow-oracle-rows", k=1.0),
        *(SystemConfig("mdqa", k=k) for k in MDQA_K),
        SystemConfig("flat-rag", k=1.0),
        SystemConfig("flat-rag", k=1.0, metadata=True),
        SystemConfig("paper-workflow", k=1.0),
    ]
    clean += [SystemConfig("flat-rag", k=k, metadata=m) for k in FLAT_RAG_K[1:] for m in (False, True)]
    clean += [SystemConfig("paper-workflow", k=k) for k in WORKFLOW_K[1:]]
    if systems:
        clean = [c for c in clean if any(_matches(c, s) for s in systems)]
        clean += [c for c in dict.fromkeys(_opt_in(systems)) if c not in clean]
    noisy = [SystemConfig(c.system, c.k, c.metadata, noise=True) for c in clean] if noise else []
    return clean + noisy


__all__ = [
    "FLAT_RAG_K",
    "LLM",
    "MDQA_K",
    "OPT_IN",
    "SYSTEMS",
    "WORKFLOW_K",
    "QuestionInput",
    "StageError",
    "SystemConfig",
    "SystemOutput",
    "SystemUnavailableError",
    "UnknownSystemError",
    "get_system",
    "table2_configs",
]
