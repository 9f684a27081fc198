"""The aggregation operations: one module per operation, each holding that operation's polars code.

The spec of every operation (its pydantic model: `FilterOp`, `RankOp`, …) lives in the plan IR,
`mdqa_kernel/plan/aggregation.py`; the code that runs it lives here. The plan is the stage to the
left of aggregate and must not import it, so the two halves meet only through the `op` name: each
module registers its function in `OPERATIONS` under the `op` literal(s) of its spec, and
`aggregate.run` looks the function up by `step.op`. Adding an operation is a spec class in
plan/aggregation.py plus one module here (or, from another package, an entry point in the group
`mdqa.operations`).

Every function takes the current frame, the step's spec and a `StepContext`, checks its inputs
(missing field, wrong type, empty input) and returns a new frame that still carries the hidden
lineage columns (`_common`).
"""

from __future__ import annotations

from mdqa_kernel.aggregate.ops._common import (
    OPERATIONS,
    SRC,
    AggregationError,
    OperationFn,
    StepContext,
    src_cols,
    visible,
)

__all__ = ["OPERATIONS", "SRC", "AggregationError", "OperationFn", "StepContext", "src_cols", "visible"]
