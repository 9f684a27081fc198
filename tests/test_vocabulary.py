"""The collection vocabulary (labels the documents print) and how the planner grounds fields in it."""

from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

import pytest

from mdqa_kernel.collection.collection import Collection
from mdqa_kernel.plan.fields import ground_fields
from mdqa_kernel.plan.ir import FieldSpec
from mdqa_kernel.plan.vocabulary import Vocabulary
from tests._extract_fixtures import annual_cn, annual_us, governance_cn


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    root = tmp_path_factory.mktemp("vocab")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    annual_cn(pdfs / "cn.pdf")
    governance_cn(pdfs / "gov.pdf")
    annual_us(pdfs / "us.pdf")
    rows = [["cn.pdf", "cn", "000001", 2022, "annual"], ["gov.pdf", "gov", "000001", 2022, "annual"],
            ["us.pdf", "us", "ABC", 2022, "10-K"]]  # fmt: skip
    with open(root / "meta.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["file", "doc_id", "symbol", "year", "doctype"], *rows])
    return Collection.build(pdfs, metadata=root / "meta.csv", workspace=root / "ws", jobs=1, progress=False)


def test_vocabulary_reads_row_labels_and_headings(collection: Collection) -> None:
    vocab = Vocabulary.of(collection)
    assert vocab.sampled_docs == 3
    assert vocab.terms["营业总成本"].type == "number"
    assert vocab.terms["资本充足率"].type == "percent"
    assert "公司" not in vocab.terms and "项目" not in vocab.terms  # generic labels are not fields


def test_question_matches_are_printed_labels_longest_first_without_overlap(collection: Collection) -> None:
    vocab = Vocabulary.of(collection)
    found = [t.text for t in vocab.matches("2022年净利润或营业总成本变化超过均值两倍的公司")]
    assert found == ["净利润", "营业总成本"]
    # A glossary synonym of a printed label counts ("总资产" for a printed "Total assets").
    us = Vocabulary.of(collection.where(doc_id="us"))
    assert [t.text for t in us.matches("2022年总资产最高的三家公司")] == ["总资产"]
    assert us.ground("total assets amounts").norm == "totalassets"
    assert us.ground("companies") is None


def test_grounding_keeps_printed_fields_adds_named_ones_and_drops_the_rest(collection: Collection) -> None:
    vocab = Vocabulary.of(collection)
    question = "2022年净利润或营业总成本变化超过均值两倍的公司"
    proposed = [
        FieldSpec(name="net_profit", type="number", description="净利润", question="{symbol}{year}年净利润"),
        FieldSpec(name="anomaly", type="text", description="异常波动情况", question="{symbol}{year}年异常"),
    ]
    trace = SimpleNamespace(fields_source="model", sources={})
    fields = ground_fields(proposed, vocab.matches(question), vocab, "zh", trace)
    assert [f.description for f in fields] == ["净利润", "营业总成本"]
    assert fields[1].type == "number" and "{symbol}" in fields[1].question
    assert trace.fields_source == "model+vocabulary" and "异常波动情况" in trace.sources["grounding"]
    # A model phrase joining two printed values is not one field: both printed labels are read.
    both = [
        FieldSpec(name="combo", type="number", description="净利润或营业总成本", question="{symbol}{year}")
    ]
    fields = ground_fields(both, vocab.matches(question), vocab, "zh", trace)
    assert [f.description for f in fields] == ["净利润", "营业总成本"]


def test_grounding_reads_an_amount_the_model_typed_as_a_percent(collection: Collection) -> None:
    """q_8147f47d: the model typed "operating profit" a percent; the documents print it as an amount
    (a number row), so the plan reads a number (the percent reader had picked up margins)."""
    vocab = Vocabulary.of(collection)
    proposed = [
        FieldSpec(
            name="cost", type="percent", description="营业总成本", question="{symbol}{year}年营业总成本"
        )
    ]
    trace = SimpleNamespace(fields_source="model", sources={})
    (cost,) = ground_fields(proposed, [], vocab, "zh", trace)
    assert cost.type == "number"
    ratio = [
        FieldSpec(name="car", type="percent", description="资本充足率", question="{symbol}{year}年资本充足率")
    ]
    assert ground_fields(ratio, [], vocab, "zh", trace)[0].type == "percent"  # printed as a percent: kept


def test_nothing_grounded_keeps_the_model_fields(collection: Collection) -> None:
    vocab = Vocabulary.of(collection)
    proposed = [
        FieldSpec(name="esg_score", type="number", description="ESG评级", question="{symbol}{year}年ESG评级")
    ]
    trace = SimpleNamespace(fields_source="model", sources={})
    assert ground_fields(proposed, [], vocab, "zh", trace) == proposed
    assert trace.fields_source.startswith("model (no field grounded")


def test_vocabulary_of_an_empty_collection(tmp_path: Path, collection: Collection) -> None:
    vocab = Vocabulary.of(collection.where(doc_id="nobody"))
    assert vocab.sampled_docs == 0 and vocab.matches("净利润") == []


def test_enumeration_with_a_shared_word_names_each_printed_heading() -> None:
    from mdqa_kernel.plan.vocabulary import Term
    from mdqa_kernel.text.labels import normalize_label

    heads = ["股东权益保护", "债权人权益保护", "职工权益保护", "客户及消费者权益保护", "股东大会决议"]
    vocab = Vocabulary({normalize_label(h): Term(h, normalize_label(h), "boolean", 5) for h in heads}, 5)
    question = (
        "2022年ESG报告中披露所有利益相关者权益保护信息（包括股东、债权人、职工、客户权益四个方面）的公司"
    )
    assert [t.text for t in vocab.matches(question)] == [
        "股东权益保护",
        "债权人权益保护",
        "职工权益保护",
        "客户及消费者权益保护",
    ]
    # A list whose items share no printed ending is not expanded.
    assert vocab.enumerated("比较股东、债权人、董事的情况") == []


def test_a_heading_named_inside_a_quantity_is_that_quantity() -> None:
    """q_4b6bd3eb: "纳税效率=纳税总额÷每股社会贡献值" names the heading 社会贡献 inside "每股…值": the
    number printed under it, not "是否披露社会贡献" (the plan had divided a tax total by a yes/no flag)."""
    from mdqa_kernel.plan.vocabulary import Term
    from mdqa_kernel.text.labels import normalize_label

    heads = {"社会贡献": "boolean", "纳税总额": "number", "安全生产": "boolean"}
    vocab = Vocabulary({normalize_label(h): Term(h, normalize_label(h), t, 5) for h, t in heads.items()}, 5)
    question = "计算纳税效率，给出最高的三家公司的股票代码、纳税总额、每股社会贡献值和纳税效率"
    found = [(t.text, t.type) for t in vocab.matches(question)]
    assert found == [("纳税总额", "number"), ("每股社会贡献值", "number")]
    # a heading on its own stays a disclosure flag
    assert [(t.text, t.type) for t in vocab.matches("2022年披露安全生产信息的公司")] == [
        ("安全生产", "boolean")
    ]


def test_a_decorated_phrase_is_read_under_the_printed_label(collection: Collection) -> None:
    """q_c7f10721: the model asked for "exact operating revenue amounts"; the table reader matched no
    row under that phrase, so every document went to the LLM and was misread (the reader's side is
    `tests/test_readers_table.py`). A phrase that is a printed label plus decoration is read as the
    label; a phrase with another word keeps its meaning."""
    us = Vocabulary.of(collection.where(doc_id="us"))
    proposed = [
        FieldSpec(
            name="total_assets_amounts",
            type="number",
            description="total assets amounts",
            question="What were the total assets amounts of {symbol} in fiscal year {year}?",
        )
    ]
    trace = SimpleNamespace(fields_source="model", sources={})
    (assets,) = ground_fields(proposed, [], us, "en", trace)
    assert assets.description == "Total assets" and assets.name == "total_assets_amounts"
    assert "total assets amounts → Total assets" in trace.sources["grounding"]

    cn = Vocabulary.of(collection.where(doc_id="cn"))
    amount = [FieldSpec(name="cost", type="number", description="营业总成本金额", question="{symbol}{year}")]
    assert ground_fields(amount, [], cn, "zh", trace)[0].description == "营业总成本"
    from mdqa_kernel.plan.fields import undecorated
    from mdqa_kernel.plan.vocabulary import Term

    margin = Term("gross profit margin", "grossprofitmargin", "percent", 5)
    assert undecorated("exact gross profit margin percentages", margin) == "gross profit margin"
    assert undecorated("gross profit margin growth", margin) == "gross profit margin growth"
    other = [FieldSpec(name="ratio", type="number", description="营业总成本占比", question="{symbol}{year}")]
    assert ground_fields(other, [], cn, "zh", trace)[0].description == "营业总成本占比"
