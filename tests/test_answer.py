"""Answers: templates per form and language, number formatting, lineage with evidence, polish."""

from __future__ import annotations

import polars as pl
import pytest

from mdqa_kernel.aggregate.run import aggregate
from mdqa_kernel.answer import check_polish, detect_language, format_number, polish, render_answer
from mdqa_kernel.plan.aggregation import Aggregation, CountOp, FilterOp, Output, RankOp, StatOp

ROWS = pl.DataFrame({"doc_id": ["d1", "d2", "d3", "d4"], "symbol": ["600036", "601398", "002142", "601166"],
                     "car": [15.78, 18.02, 15.44, 15.44], "cost": [1.5e11, 2.0e11, 0.3e11, 1.0e11]})  # fmt: skip
TOP = Aggregation(steps=[RankOp(field="car", k=3)],
                  output=Output(form="entity_values", value="car", unit="%", subject="资本充足率最高的三家银行"))  # fmt: skip


@pytest.mark.parametrize(
    ("value", "kwargs", "text"),
    [(15.78, {}, "15.78"), (0.883333, {}, "0.8833"), (0.008416, {}, "0.008416"), (172689968830.0, {}, "172689968830.00"),
     (-610825128.7, {}, "-610825128.70"), (11, {}, "11"), (0.1578, {"percent": True}, "15.78"), (1.0, {"decimals": 0}, "1")],
)  # fmt: skip
def test_format_number(value: float, kwargs: dict, text: str) -> None:
    assert format_number(value, **kwargs) == text


def test_chinese_ranking_with_values_and_ties() -> None:
    ans = render_answer("2021年资本充足率最高的三家银行？", TOP, aggregate(ROWS, TOP))
    assert ans.language == "zh"
    assert (
        ans.text
        == "资本充足率最高的三家银行为：601398（18.02%）、600036（15.78%）、002142（15.44%）、601166（15.44%）。"
    )
    assert ans.values == ["601398", "600036", "002142", "601166"]


def test_english_forms() -> None:
    q = "Which banks have the highest CAR?"
    agg = TOP.model_copy(update={"output": Output(form="entities", subject="Top banks by CAR")})
    assert (
        render_answer(q, agg, aggregate(ROWS, agg)).text
        == "Top banks by CAR: 601398, 600036, 002142, 601166."
    )
    num = Aggregation(
        steps=[StatOp(field="cost", stat="range", name="r")],
        output=Output(form="number", value="r", unit="CNY"),
    )
    assert render_answer(q, num, aggregate(ROWS, num)).text == "The result is 170000000000.00 CNY."
    cnt = Aggregation(
        steps=[FilterOp(field="car", cmp="gt", value=16), CountOp()], output=Output(form="count")
    )
    assert render_answer("有多少家？", cnt, aggregate(ROWS, cnt)).text == "符合条件的公司共有1家。"


def test_groups_template_for_tiers() -> None:
    agg = Aggregation(
        steps=[RankOp(field="car", k=2, rank_method="dense")],
        output=Output(form="groups", value="car", unit="%"),
    )
    text = render_answer("前两档", agg, aggregate(ROWS, agg)).text
    assert text == "结果为：第1档：601398（18.02%）；第2档：600036（15.78%）。"


def test_lineage_carries_page_and_snippet() -> None:
    cells = pl.DataFrame({"doc_id": ["d2"], "field": ["car"], "value": ["18.02%"], "status": ["found"], "page": [57],
                          "snippet": ["资本充足率 18.02%"]})  # fmt: skip
    ans = render_answer("最高？", TOP, aggregate(ROWS, TOP), cells=cells)
    first = ans.lineage[0]
    assert (first.row, first.entity, first.doc_id, first.field, first.page, first.snippet) == (
        0,
        "601398",
        "d2",
        "car",
        57,
        "资本充足率 18.02%",
    )
    assert ans.model_dump_json()  # serialisable


def test_polish_keeps_numbers_and_identifiers_or_falls_back() -> None:
    ans = render_answer("最高？", TOP, aggregate(ROWS, TOP))
    good = "资本充足率排名前三（含并列）的银行依次为601398（18.02%）、600036（15.78%）、002142（15.44%）和601166（15.44%）。"
    assert check_polish(ans, good) is None
    assert polish(ans, lambda _p: good).polished
    changed = good.replace("18.02", "18.0")
    assert "numbers changed" in (check_polish(ans, changed) or "")
    rejected = polish(ans, lambda _p: changed)
    assert not rejected.polished and rejected.text == ans.text
    reordered = "依次为600036（15.78%）、601398（18.02%）、002142（15.44%）和601166（15.44%）。"
    assert check_polish(ans, reordered) is not None
    dropped = "依次为601398（18.02%）、600036（15.78%）、002142（15.44%）。"
    assert check_polish(ans, dropped) is not None

    def broken(_p: str) -> str:
        raise RuntimeError("model offline")

    assert "polish failed" in (polish(ans, broken).polish_note or "")


def test_language_detection() -> None:
    assert detect_language("2021年资本充足率") == "zh" and detect_language("top three by assets") == "en"
