"""Derived deterministic readings (readers/derived.py): the largest holding from a ranking table, a
group count stated in prose, and Big Four membership of the auditor (not of the assurance provider)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import Status, view_from_parse
from mdqa_kernel.readers.table.reader import TableReader
from tests._extract_fixtures import ROSTER_CN, annual_cn, governance_cn


def fld(name: str, description: str, type: str):
    return SimpleNamespace(name=name, type=type, description=description, question="", unit=None, scale=1.0)


def read(path, field):
    doc = view_from_parse(parse_pdf(path), path.stem, {"year": 2022})
    return TableReader().read(doc, field, "")


def test_largest_shareholder_is_the_largest_holding_in_the_ranking_table(tmp_path):
    r = read(governance_cn(tmp_path / "g.pdf"), fld("top_holder_pct", "第一大股东持股比例。", "percent"))
    assert r.status == Status.FOUND and r.value == pytest.approx(34.71)
    assert r.confidence >= 0.8 and r.evidence.page == 1 and "持股比例" in r.evidence.snippet


def test_group_count_in_prose(tmp_path):
    r = read(governance_cn(tmp_path / "g.pdf"), fld("female_execs", "女性高管人数。", "integer"))
    assert r.status == Status.FOUND and r.value == 3 and r.confidence >= 0.8


def test_group_names_from_the_roster_agree_with_the_printed_count(tmp_path):
    r = read(governance_cn(tmp_path / "g.pdf"), fld("names", "女性高管姓名列表", "list_text"))
    assert r.status == Status.FOUND and r.value == ["王丽", "李娜", "赵敏"]
    assert r.confidence >= 0.9 and r.evidence.page == 3 and "姓名" in r.evidence.snippet
    independent = read(governance_cn(tmp_path / "i.pdf"), fld("names", "独立董事姓名", "list_text"))
    assert independent.value == ["赵敏", "陈刚"] and independent.confidence == pytest.approx(0.8)  # no count


def test_group_names_disagreeing_with_the_count_are_unsure(tmp_path):
    # the report says 3 women; a roster with 2 is not trusted, so the cascade asks the LLM
    two = [row for row in ROSTER_CN if row[0] != "李娜"]
    r = read(governance_cn(tmp_path / "g.pdf", roster=two), fld("names", "女性高管姓名列表", "list_text"))
    assert r.value == ["王丽", "赵敏"] and r.confidence < 0.8


@pytest.mark.parametrize(
    ("auditor", "expected"),
    [("天健会计师事务所(特殊普通合伙)", False), ("普华永道中天会计师事务所(特殊普通合伙)", True)],
)
def test_big_four_membership_reads_the_auditor_not_the_assurance_provider(tmp_path, auditor, expected):
    path = governance_cn(tmp_path / "g.pdf", auditor=auditor)
    r = read(path, fld("big4", "是否为四大会计师事务所客户。", "boolean"))
    assert r.status == Status.FOUND and r.value is expected and r.confidence >= 0.8
    assert auditor[:4] in r.evidence.snippet


def test_derivations_stay_quiet_where_they_do_not_apply(tmp_path):
    # An income-statement page has no ranking table and no group count: nothing is invented.
    path = annual_cn(tmp_path / "cn.pdf")
    assert read(path, fld("top_holder_pct", "第一大股东持股比例。", "percent")).status == Status.NOT_FOUND
    assert read(path, fld("female_execs", "女性高管人数。", "integer")).status == Status.NOT_FOUND
    assert read(path, fld("names", "女性高管姓名列表", "list_text")).status == Status.NOT_FOUND
