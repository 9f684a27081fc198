"""Speed targets: any aggregation over 1,000,000 rows under a second; a cell correction on a
10,000-row frame re-aggregated under 100 ms. Marked slow: building the frames takes seconds."""

from __future__ import annotations

import time

import polars as pl
import pytest

from mdqa_kernel.aggregate.run import aggregate
from mdqa_kernel.plan.aggregation import (
    Aggregation,
    ChangeOp,
    CountOp,
    DeriveOp,
    FilterOp,
    GrowthOp,
    OutliersOp,
    Output,
    RankOp,
    StatOp,
)
from mdqa_kernel.rows.rows import apply_corrections


def make_rows(n: int) -> pl.DataFrame:
    i = pl.int_range(n, eager=True)
    return pl.DataFrame({
        "doc_id": i.cast(pl.String), "symbol": (i // 2).cast(pl.String), "year": 2021 + i % 2,
        "ratio": (i * 7919 % 100003).cast(pl.Float64) / 1000, "profit": (i * 104729 % 1000003).cast(pl.Float64),
        "flag": i % 3 == 0, "city": (i % 7).cast(pl.String),
    })  # fmt: skip


AGGREGATIONS = {
    "filter+top_k": Aggregation(steps=[FilterOp(field="year", value=2021), RankOp(field="ratio", k=3)], output=Output(form="entities")),
    "growth+top_k": Aggregation(steps=[GrowthOp(fields=["profit"], from_year=2021, to_year=2022),
                                       RankOp(field="profit_growth", k=3)], output=Output(form="entities")),
    "group_by mean": Aggregation(steps=[StatOp(op="group_by", field="ratio", stat="mean", by=["city"])], output=Output(form="table")),
    "std": Aggregation(steps=[StatOp(field="ratio", stat="std_sample")], output=Output(form="table")),
    "derive+filter+count": Aggregation(steps=[DeriveOp(name="s", expr="0.6*ratio + 0.4*profit/1000"),
                                              FilterOp(expr="s > 50 and flag"), CountOp()], output=Output(form="count")),
    "outliers": Aggregation(steps=[OutliersOp(fields=["ratio", "profit"], k=1.5)], output=Output(form="entities")),
    "change": Aggregation(steps=[ChangeOp(field="city", from_year=2021, to_year=2022)], output=Output(form="entities")),
}  # fmt: skip


@pytest.fixture(scope="module")
def million() -> pl.DataFrame:
    return make_rows(1_000_000)


def best_of(fn, n: int = 3) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)  # the machine is shared: the best run is the code's speed, not the neighbours'


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(AGGREGATIONS))
def test_million_row_aggregation_under_one_second(million: pl.DataFrame, name: str) -> None:
    seconds = best_of(lambda: aggregate(million, AGGREGATIONS[name]))
    assert seconds < 1.0, f"{name}: {seconds:.3f} s"


def test_correction_then_reaggregate_under_100ms() -> None:
    rows = make_rows(10_000)
    agg = AGGREGATIONS["growth+top_k"]
    aggregate(rows, agg)
    seconds = best_of(lambda: aggregate(apply_corrections(rows, {("42", "profit"): 1e9}), agg), n=5)
    assert seconds < 0.1
    assert aggregate(apply_corrections(rows, {("43", "profit"): 1e12}), agg).frame["symbol"][0] == "21"
