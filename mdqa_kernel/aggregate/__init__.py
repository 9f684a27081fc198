"""Stage 5, aggregation: a plan's operations compiled to polars over the rows frame (`run`; `ops`,
one module per operation; `expr_polars`), with lineage from every result row back to its documents;
free code runs in the `sandbox`."""

from __future__ import annotations

from mdqa_kernel.aggregate.ops import AggregationError
from mdqa_kernel.aggregate.run import AggregateResult, aggregate

__all__ = ["AggregateResult", "AggregationError", "aggregate"]
