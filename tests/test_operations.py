"""The aggregation specification: validation, discriminated union, YAML/JSON round trips, expressions."""

from __future__ import annotations

import polars as pl
import pytest
from pydantic import ValidationError

from mdqa_kernel.aggregate.run import AggregationError, aggregate
from mdqa_kernel.errors import MdqaError, UnknownNameError
from mdqa_kernel.plan.aggregation import (
    Aggregation,
    ChangeOp,
    DeriveOp,
    FilterOp,
    Output,
    RankOp,
    StatOp,
)
from mdqa_kernel.plan.expr import ExpressionError, fields_of, parse_expr
from mdqa_kernel.text.normalize import UnknownNormalizerError, entity_normalizer

YAML = """
steps:
  - {op: filter, field: year, cmp: eq, value: 2021}
  - {op: derive, name: score, expr: "0.6*roe + 40%*growth"}
  - {op: top_k, field: score, k: 3}
output: {form: entities, entity: symbol}
"""


def test_yaml_parses_into_typed_steps() -> None:
    agg = Aggregation.from_yaml(YAML)
    assert [type(s).__name__ for s in agg.steps] == ["FilterOp", "DeriveOp", "RankOp"]
    assert agg.fields_read() == ["year", "roe", "growth", "score"]


def test_round_trips_keep_op_and_drop_defaults() -> None:
    agg = Aggregation.from_yaml(YAML)
    assert Aggregation.from_yaml(agg.to_yaml()) == agg
    assert Aggregation.from_json(agg.to_json()) == agg
    d = agg.to_dict()
    assert d["steps"][2] == {"op": "top_k", "field": "score", "k": 3}


def test_bottom_k_and_group_by_share_classes() -> None:
    agg = Aggregation.model_validate(
        {
            "steps": [
                {"op": "bottom_k", "field": "x", "k": 1},
                {"op": "group_by", "field": "x", "stat": "mean", "by": ["g"]},
            ],
            "output": {"form": "table"},
        }
    )
    assert isinstance(agg.steps[0], RankOp) and agg.steps[0].op == "bottom_k"
    assert isinstance(agg.steps[1], StatOp) and agg.steps[1].out_name() == "x_mean"


@pytest.mark.parametrize(
    "bad",
    [
        {"op": "top_k", "field": "x", "k": 0},
        {"op": "nope"},
        {"op": "filter", "field": "x", "cmp": "gt"},  # no value
        {"op": "filter", "field": "x", "cmp": "in", "value": 3},  # membership needs a list
        {"op": "filter"},  # neither field nor expr
        {"op": "derive", "name": "x", "expr": "__import__('os')"},
        {"op": "stat", "stat": "mean"},  # no field
        {"op": "top_k", "field": "x", "k": 3, "typo": 1},
    ],
)
def test_invalid_steps_are_rejected(bad: dict) -> None:
    with pytest.raises(ValidationError):
        Aggregation.model_validate({"steps": [bad], "output": {"form": "entities"}})


def test_json_schema_is_flat_enough_for_a_small_llm() -> None:
    schema = Aggregation.json_schema()
    assert "discriminator" in str(schema)
    assert set(schema["$defs"]) >= {"FilterOp", "RankOp", "GrowthOp", "Output"}


def test_expression_parser() -> None:
    assert parse_expr("0.6*a + 0.4*b") == ("arith", "+", ("arith", "*", ("num", 0.6), ("field", "a")),
                                           ("arith", "*", ("num", 0.4), ("field", "b")))  # fmt: skip
    assert parse_expr("40%")[1] == pytest.approx(0.4)
    assert fields_of(parse_expr("abs(x - `y z`) > 1 and not flag")) == ["x", "y z", "flag"]
    assert fields_of(parse_expr("营业收入 / 总资产")) == ["营业收入", "总资产"]


@pytest.mark.parametrize(
    "text", ["", "a +", "a ** b", "foo(a)", "a.b", "(a", "x; import os", "a % b", "lambda: 1"]
)
def test_expression_errors(text: str) -> None:
    with pytest.raises(ExpressionError):
        parse_expr(text)


def test_models_build_from_python() -> None:
    agg = Aggregation(steps=[FilterOp(field="flag", cmp="is_true"), DeriveOp(name="r", expr="a / b")],
                      output=Output(form="count"))  # fmt: skip
    assert agg.steps[0].fields_read() == ["flag"]


def test_an_unknown_entity_normaliser_is_a_named_error_without_quotes() -> None:
    with pytest.raises(UnknownNormalizerError) as info:
        entity_normalizer("nope")
    assert isinstance(info.value, UnknownNameError) and isinstance(info.value, MdqaError)
    assert str(info.value).startswith("unknown entity normaliser 'nope'; use one of default")
    frame = pl.DataFrame(
        {"doc_id": ["a", "b"], "symbol": ["A", "A"], "year": [2021, 2022], "auditor": ["X", "Y"]}
    )
    step = ChangeOp(field="auditor", from_year=2021, to_year=2022, normalize="entity", normalizer="nope")
    with pytest.raises(AggregationError) as failed:
        aggregate(frame, Aggregation(steps=[step], output=Output(form="entities")))
    assert "unknown entity normaliser 'nope'; use one of" in str(failed.value)
    assert '"unknown' not in str(failed.value)  # not a KeyError's quoted message
