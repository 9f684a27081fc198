"""Formulas and checklists read from a question's own words (planner_formula), and the yes/no fields a
checklist becomes (planner_fields.checklist_fields)."""

from __future__ import annotations

import pytest

from mdqa_kernel.plan.fields import (
    checklist_fields,
    event_dates_field,
    field_from_phrase,
    formula_fields,
    located_field,
    people_count_field,
    predicate_fields,
)
from mdqa_kernel.plan.formula import (
    checklist_items,
    cn_number,
    enumerations,
    formula_in,
    formula_operands,
    formula_parts,
    match_field,
    verbal_to_symbols,
)
from mdqa_kernel.plan.rules import located_in

QUALITY = (
    "综合质量评估方法：披露完整性得分等于已披露的ESG信息项数除以总项数（包括环境披露、股东保护、员工保护、"
    "客户保护、公共关系、制度建设、安全生产、不足披露八个方面，其中任意一个方面有明确的正式披露加一分。），"
    "规范性得分等于满足的规范要求数除以总要求数（包括是否遵循GRI标准、是否有第三方审验两个方面，其中任意一个"
    "方面有正式披露加一分。），综合质量得分等于披露完整性得分乘以百分之六十加上规范性得分乘以百分之四十，"
    "最后得分百分制到100分"
)
PILLARS = (
    "以下任一细分维度如有明确且完整的披露则记为1分反之为0分：环境得分=（环境披露+安全生产）÷2，"
    "社会得分=（员工保护+客户保护+公共关系）÷3，治理得分=（股东保护+债权人保护+制度建设）÷3，"
    "ESG综合得分=环境得分×30%+社会得分×35%+治理得分×35%"
)


@pytest.mark.parametrize(("text", "value"), [("六十", 60), ("三十五", 35), ("十", 10), ("八", 8), ("两", 2),
                                             ("12.5", 12.5), ("百", 100), ("第三", None)])  # fmt: skip
def test_cn_number(text: str, value: float | None) -> None:
    assert cn_number(text) == value


def test_verbal_arithmetic_becomes_symbols() -> None:
    assert verbal_to_symbols("C等于A乘以百分之六十加上B除以2") == "C=A×60%＋B÷2"
    assert verbal_to_symbols("大于等于3") == "大于等于3"  # a comparison, not a definition


def test_counted_lists_must_agree_with_their_count() -> None:
    assert enumerations("在环境披露、股东保护、员工保护这3个维度中")[0][2] == [
        "环境披露",
        "股东保护",
        "员工保护",
    ]
    assert enumerations("包括A项、B项三个方面") == []  # two items said to be three: not trusted


def test_checklist_score_is_expanded_into_its_items() -> None:
    items = checklist_items(QUALITY)
    assert items == ["环境披露", "股东保护", "员工保护", "客户保护", "公共关系", "制度建设", "安全生产",
                     "不足披露", "GRI标准", "第三方审验"]  # fmt: skip
    fields = checklist_fields(items, QUALITY, "zh")
    assert [f.description for f in fields[:2]] == ["是否披露环境", "是否披露股东保护"]
    assert fields[8].description == "是否披露GRI标准" and all(f.type == "boolean" for f in fields)
    described = [(f.name, f.description) for f in fields]
    sums = " + ".join(f"item_{i}" for i in range(1, 9))
    # a share of items is in points (7 of 8 -> 87.5), so "百分制" needs no further scaling
    assert (
        formula_in(QUALITY, described)
        == f"( ( {sums} ) / 8 * 100 ) * 0.6 + ( ( item_9 + item_10 ) / 2 * 100 ) * 0.4"
    )
    parts = formula_parts(QUALITY, described)
    assert [(n, label) for n, label, _e in parts] == [
        ("sub_1", "披露完整性得分"),
        ("sub_2", "规范性得分"),
        ("score", "综合质量得分"),
    ]
    assert parts[-1][2] == "sub_1 * 0.6 + sub_2 * 0.4" and parts[1][2] == "( item_9 + item_10 ) / 2 * 100"


def test_sub_scores_are_substituted_into_the_top_level_score() -> None:
    items = checklist_items(PILLARS)
    assert items == [
        "环境披露",
        "安全生产",
        "员工保护",
        "客户保护",
        "公共关系",
        "股东保护",
        "债权人保护",
        "制度建设",
    ]
    described = [(f.name, f.description) for f in checklist_fields(items, PILLARS, "zh")]
    assert formula_in(PILLARS, described) == (
        "( ( item_1 + item_2 ) / 2 ) * 0.3 + ( ( item_3 + item_4 + item_5 ) / 3 ) * 0.35"
        " + ( ( item_6 + item_7 + item_8 ) / 3 ) * 0.35"
    )


def test_checklist_with_groups_and_disclosure_words() -> None:
    q = ("计算四大会计师事务所与非四大事务所客户的ESG披露质量得分差值。ESG质量得分=（第三方审验+GRI标准+披露不足）÷3，"
         "有第三方审验记1分，遵循了GRI标准记1分，明确披露了不足记1分")  # fmt: skip
    items = checklist_items(q)
    assert items == ["第三方审验", "GRI标准", "披露不足"]
    fields = checklist_fields(items, q, "zh")
    assert fields[2].description == "是否披露不足"  # the verb is not part of the topic
    assert fields[-1].name == "big4_client" and fields[-1].description == "是否为四大会计师事务所客户"
    described = [(f.name, f.description) for f in fields]
    assert formula_in(q, described) == "( item_1 + item_2 + item_3 ) / 3"
    assert formula_parts(q, described) == []  # no sub-scores


def test_no_checklist_without_points() -> None:
    assert checklist_items("计算纳税效率（纳税效率=纳税总额÷每股社会贡献值）") == []
    assert checklist_items("2021年披露了环境、股东、员工三个方面的公司有哪些？") == []


def test_topics_match_fields_under_the_reports_titles() -> None:
    """Gold or printed descriptions name the topics as reports title them; the question, its own way."""
    gold = [("env", "是否披露环境和可持续发展信息。"), ("staff", "是否披露职工权益保护。"),
            ("deficiency", "是否披露公司存在的不足。"), ("gri", "是否使用或参照 GRI 标准。")]  # fmt: skip
    items = ["环境披露", "员工保护", "不足披露", "GRI标准"]
    assert [match_field(i, gold) for i in items] == ["env", "staff", "deficiency", "gri"]
    parts = formula_parts(QUALITY, gold)
    assert parts == []  # four of the ten items have no field: no partial score
    assert formula_in(QUALITY, gold) is None  # and never the sub-score that happens to compile alone


def test_by_month_questions_read_the_events_dates() -> None:
    spec = event_dates_field(
        "针对中国A股市场，在你的知识库中2022年股东大会的时间分布情况及各月份对应的公司证券代码", "zh"
    )
    assert spec is not None and (spec.name, spec.type, spec.description) == (
        "event_dates",
        "list_text",
        "股东大会召开日期",
    )
    assert event_dates_field("Which month had the most shareholder meetings in 2022?", "en").description == (
        "dates of the shareholder meetings"
    )
    assert event_dates_field("2022年股东大会出席股份比例最高的公司", "zh") is None  # not counted by month
    assert event_dates_field("2022年哪个月份的营业收入最高", "zh") is None  # no event named


def test_most_people_rankings_read_a_count() -> None:
    q = "针对中国A股市场，2021年你的知识库中女性高管最多的三家公司的股票代码和这些公司的所有女性高管名字是？"
    spec = people_count_field(q, "zh")
    assert spec is not None and (spec.type, spec.description) == ("integer", "女性高管人数")
    assert people_count_field("2021年营业收入最多的三家公司", "zh") is None


@pytest.mark.parametrize(
    ("phrase", "typed", "kept"),
    [("税前每股股利", "percent", "number"), ("每股社会贡献值", "integer", "number"),
     ("女性高管人数", "integer", "integer"), ("资本充足率", "percent", "percent"),
     ("表决方式组合", "list_text", "list_text"), ("各种召开方式组合", "list_text", "list_text"),
     ("最常见的召开方式组合", "list_text", "list_text")],
)  # fmt: skip
def test_model_types_repaired_by_what_the_phrase_names(phrase: str, typed: str, kept: str) -> None:
    """An amount per share is not a percent, and only counts are whole numbers."""
    spec = field_from_phrase(0, {"phrase": phrase, "name": "x", "type": typed}, [], "zh", None)
    assert spec is not None and spec.type == kept
    # a combination of the printed 表决方式 / 召开方式
    assert spec.description == phrase.removeprefix("各种").removeprefix("最常见的").removesuffix("组合")


DONATION = "请根据你知识库中2022年的数据，计算捐赠效率（捐赠效率=社会捐赠额÷每股社会贡献值），给出最高的三家公司股票代码"


def test_a_formula_names_the_values_to_read() -> None:
    """Each operand of the question's own formula is a field (the model had merged two of them)."""
    assert formula_operands(DONATION) == ["社会捐赠额", "每股社会贡献值"]
    fields = formula_fields(formula_operands(DONATION), "zh")
    assert [(f.name, f.type, f.description) for f in fields] == [
        ("field_1", "number", "社会捐赠额"),
        ("field_2", "number", "每股社会贡献值"),
    ]
    assert formula_in(DONATION, [(f.name, f.description) for f in fields]) == "field_1 / field_2"
    assert formula_fields(["资本充足率"], "zh")[0].type == "percent"
    # sub-scores are expanded to what is read; a share of counted items is a checklist, not values
    assert formula_operands("综合得分=甲得分×60%+乙得分×40%，甲得分=营业收入÷总资产，乙得分=净利润") == [
        "营业收入",
        "总资产",
        "净利润",
    ]
    assert formula_operands("得分=已披露的项数÷总项数") == []
    assert formula_operands("2022年营业收入最高的三家公司") == []


@pytest.mark.parametrize(
    ("question", "description"),
    [
        ("请你给出你知识库中2022年ESG报告经第三方机构审验的公司股票代码", "是否经第三方机构审验"),
        ("在你的知识库中2023年有多少家公司的ESG报告参照了GRI《可持续发展报告指南》？", "是否参照GRI《可持续发展报告指南》"),
        ("2022年经营业绩提升的公司有多少家", None),  # 经营 is no verb here, and no known topic follows
        ("2022年采用了现场投票的公司有多少家", None),  # not a disclosure topic the readers know
        ("2022年有多少家公司的ESG报告披露了环境和可持续发展信息？", "是否披露环境和可持续发展信息"),
        # two facts joined by 又: two flags, both conditions of the count
        ("2023年既参照GRI标准又经第三方机构审验的公司有多少家？", "是否参照GRI标准|是否经第三方机构审验"),
    ],
)  # fmt: skip
def test_yes_no_facts_of_known_topics(question: str, description: str | None) -> None:
    specs = predicate_fields(question, "zh")
    assert ("|".join(s.description for s in specs) or None) == description
    assert all(s.type == "boolean" for s in specs)
    assert len({s.name for s in specs}) == len(specs)


def test_a_place_is_looked_for_in_the_address() -> None:
    assert located_in("在你的知识库中2022年有多少家办公地址在深圳的公司？") == ("办公地址", "深圳")
    assert located_in("注册地位于北京市的公司有哪些") == ("注册地", "北京")
    assert located_in("2022年营业收入在100亿以上的公司") is None
    spec = located_field("办公地址", "zh")
    assert spec is not None and (spec.type, spec.description) == ("text", "办公地址")


def test_a_changed_value_is_read_as_the_value() -> None:
    """ "更换了办公地点的公司": each report prints its 办公地点 (under 办公地址); the change is found by
    comparing the years, so the field is the address as text, never a yes/no "更换了…"."""
    from mdqa_kernel.plan.rules import load_hints, read_question

    q = "请你给出你知识库中2022-2023年期间更换了办公地点的公司股票代码"
    facts = read_question(q, hints=load_hints())
    spec = field_from_phrase(
        0, {"phrase": "更换了办公地点", "name": "x", "type": "boolean"}, [], "zh", facts.effect("field_type")
    )
    assert spec is not None and (spec.type, spec.description) == ("text", "办公地点")
