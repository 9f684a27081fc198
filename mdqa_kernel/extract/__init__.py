"""Stage 3, extraction: one job per document, each field read by a reader into a typed cell with
evidence and a status; results are committed as jobs finish, so a run resumes where it stopped.

- `run`: `extract(plan, collection, ...)`, the jobs and their commit;
- `result`: `ExtractionResult` (the long cells frame and the wide rows frame);
- `executors`: where jobs run (inline, a local process pool, Ray).
"""

from __future__ import annotations

from mdqa_kernel.extract.executors import EXECUTORS, Executor, ExecutorError, make_executor
from mdqa_kernel.extract.result import ExtractionResult
from mdqa_kernel.extract.run import DocumentUnreadableError, ExtractError, extract

__all__ = [
    "EXECUTORS",
    "DocumentUnreadableError",
    "Executor",
    "ExecutorError",
    "ExtractError",
    "ExtractionResult",
    "extract",
    "make_executor",
]
