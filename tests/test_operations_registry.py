"""The operations registry: every op spec of the plan IR has code in aggregate/ops and vice versa,
an unknown op fails with a message naming the known ones, and every planner family maps to known ops."""

from __future__ import annotations

import polars as pl
import pytest

from mdqa_kernel.aggregate.ops import OPERATIONS
from mdqa_kernel.aggregate.run import AggregationError, aggregate
from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.plan.aggregation import OP_NAMES, Aggregation, Output, SortOp
from mdqa_kernel.plan.families import FAMILIES, FAMILY_TABLE


def test_every_op_spec_has_a_registered_function_and_back() -> None:
    assert len(OP_NAMES) == len(set(OP_NAMES))
    assert set(OPERATIONS.names()) == set(OP_NAMES)


@pytest.mark.parametrize("op", OP_NAMES)
def test_each_operation_lives_in_its_own_module(op: str) -> None:
    module = OPERATIONS.get(op).__module__
    assert module.startswith("mdqa_kernel.aggregate.ops.") and not module.endswith("._common")


def test_unknown_op_names_the_known_ones() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown operation 'median_polish'.*top_k") as err:
        OPERATIONS.get("median_polish")
    assert isinstance(err.value, MdqaError)
    assert "mdqa.operations" in str(err.value)  # where a plug-in would add it


def test_a_step_without_code_fails_naming_the_step() -> None:
    # A spec that validates but that no module registered (a plug-in spec without its code).
    step = SortOp.model_construct(op="median_polish", by=["x"], descending=True)
    agg = Aggregation.model_construct(steps=[step], output=Output(form="table"))
    rows = pl.DataFrame({"doc_id": ["d0"], "x": [1.0]})
    with pytest.raises(
        AggregationError, match=r"step 1 \(median_polish\): unknown operation 'median_polish'"
    ):
        aggregate(rows, agg)


def test_family_table_maps_every_family_to_known_operations() -> None:
    # The family names are part of the planning prompts (the family enum, in this order).
    assert FAMILIES == (
        "topk", "threshold_filter", "count", "groupby_mode", "growth", "change",
        "range_std", "outlier", "weighted_score", "group_compare",
    )  # fmt: skip
    for family, entry in FAMILY_TABLE.items():
        assert entry.operations, family
        assert set(entry.operations) <= set(OP_NAMES), family
    assert FAMILY_TABLE["outlier"].operations == ("outliers",)
    assert FAMILY_TABLE["group_compare"].operations == ("compare_groups",)
    assert FAMILY_TABLE["topk"].operations == ("top_k", "bottom_k")
