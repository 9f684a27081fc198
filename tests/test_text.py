"""The text layer: language and CJK, Chinese numerals, vocabulary data files, field types, and its
place below every stage."""

from __future__ import annotations

import ast
import datetime as dt
import math
import re
from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.rows.corrections import CorrectionError, Ledger, typed_correction
from mdqa_kernel.store import Workspace
from mdqa_kernel.text import datafiles
from mdqa_kernel.text.fieldtypes import (
    FIELD_TYPES,
    NUMERIC_TYPES,
    FieldValueError,
    UnknownFieldTypeError,
    coerce,
    field_type,
)
from mdqa_kernel.text.labels import SYNONYM_GROUPS, TOPIC_GROUPS, same_line_item
from mdqa_kernel.text.language import CJK, CJK_RANGES, CJK_RE, detect_language, has_cjk, is_cjk
from mdqa_kernel.text.normalize import LEGAL_SUFFIXES, default_entity
from mdqa_kernel.text.numerals import COUNT_CHARS, NUMBERING_CHARS, NUMERAL_CHARS, cn_number
from mdqa_kernel.text.words import FACT_VERBS, KNOWN_SETS, NAMES_ASKED

KERNEL = Path(__file__).resolve().parents[1] / "mdqa_kernel"

# -- language ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("哪家公司的营业收入最高？", "zh"),
        ("Which company had the highest revenue?", "en"),
        ("2022年Apple的revenue", "zh"),  # mixed: any ideograph makes it Chinese
        ("Revenue in FY2022 (USD)", "en"),
        ("", "en"),
        ("１２３，４５６", "en"),  # full-width digits and comma are not ideographs
    ],
)
def test_detect_language(text: str, language: str) -> None:
    assert detect_language(text) == language


@pytest.mark.parametrize(
    ("ch", "cjk"),
    [
        ("\u3400", True),  # Extension A, first
        ("\u4dbf", True),  # Extension A, last
        ("\u4e00", True),  # unified, first (一)
        ("中", True),
        ("\u9fff", True),  # unified, last
        ("\uf900", True),  # compatibility ideograph, first
        ("\ufaff", True),  # compatibility block, last
        ("\u4dc0", False),  # a Yijing hexagram symbol, between Extension A and the unified block
        ("。", False),  # CJK punctuation
        ("Ａ", False),  # full-width Latin
        ("a", False),
        ("ä", False),
        ("あ", False),  # kana
    ],
)
def test_cjk_class_covers_the_three_ranges(ch: str, cjk: bool) -> None:
    assert is_cjk(ch) is cjk
    assert has_cjk(f"x{ch}y") is cjk
    assert bool(CJK_RE.search(ch)) is cjk
    assert bool(re.fullmatch(CJK, ch)) is cjk
    assert bool(re.fullmatch(f"[{CJK_RANGES}]", ch)) is cjk


# -- numerals ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("零", 0), ("〇", 0), ("一", 1), ("两", 2), ("九", 9), ("十", 10), ("十五", 15), ("二十", 20),
     ("三十五", 35), ("六十", 60), ("百", 100), ("12", 12), ("12.5", 12.5),
     ("一百二十", 120), ("一百", 100), ("两百", 200), ("三百", 300), ("一百零五", 105), ("九十九", 99),
     ("一百一十", 110), ("二十三", 23),
     ("", None), ("第三", None), ("千", None), ("abc", None), ("二三十", None), ("一百五", None),
     ("十百", None), ("一百十", None), ("零五", None), ("一百零", None), ("一百零十", None),
     ("一零", None), ("十十", None), ("二十三十", None)],
)  # fmt: skip
def test_cn_number(text: str, value: float | None) -> None:
    assert cn_number(text) == value


def test_numeral_character_classes() -> None:
    # list numbering never uses 两 ("两、" is not an item); counts in questions do ("两倍", "前两家")
    assert "两" not in NUMBERING_CHARS and "两" in COUNT_CHARS
    assert set(NUMBERING_CHARS) <= set(COUNT_CHARS) <= set(NUMERAL_CHARS)
    assert all(cn_number(ch) is not None for ch in NUMERAL_CHARS)


def test_planner_reads_chinese_counts_through_the_one_table() -> None:
    from mdqa_kernel.plan.rules import _to_int

    assert [_to_int(t) for t in ("三", "两", "十", "7", "three", "twice", None)] == [3, 2, 10, 7, 3, 2, None]


# -- vocabulary data files -------------------------------------------------------------------------


def test_word_lists_come_from_the_data_file_in_order() -> None:
    # the regex alternatives keep their order: the longer verb is tried first
    assert FACT_VERBS == "使用或参照|披露|公开|经过|经|参照|遵循|采用|使用"
    assert list(KNOWN_SETS) == [r"四大|big\s*(?:four|4)"]
    assert KNOWN_SETS[r"四大|big\s*(?:four|4)"][:4] == ("普华永道", "德勤", "安永", "毕马威")
    assert NAMES_ASKED.pattern == r"姓名|名字|名单|\bnames?\b" and NAMES_ASKED.flags & re.IGNORECASE
    assert LEGAL_SUFFIXES[:3] == ("特殊普通合伙", "普通合伙", "股份有限公司") and "co" not in LEGAL_SUFFIXES
    assert default_entity("德勤华永会计师事务所（特殊普通合伙）") == "德勤华永会计师事务所"


def test_glossary_comes_from_the_data_file() -> None:
    assert SYNONYM_GROUPS[0][:2] == ("营业收入", "营业总收入")
    assert all(isinstance(g, tuple) and len(g) >= 2 for g in SYNONYM_GROUPS + TOPIC_GROUPS)
    assert TOPIC_GROUPS[0][0] == "环境保护与可持续发展"
    assert same_line_item("netsales", "revenues") and not same_line_item("净利润", "营业收入")


def test_data_files_are_read_once() -> None:
    assert datafiles.load("words.json") is datafiles.load("words.json")


def test_data_file_errors_name_the_file_and_the_key() -> None:
    with pytest.raises(datafiles.TextDataError, match=r"nosuch\.json"):
        datafiles.load("nosuch.json")
    with pytest.raises(datafiles.TextDataError, match=r"words\.json has no 'nosuch'"):
        datafiles.entry("words.json", "nosuch")
    with pytest.raises(datafiles.TextDataError, match="must be a list of strings"):
        datafiles.string_list("words.json", "known_sets")
    with pytest.raises(datafiles.TextDataError, match="must be a list of lists of strings"):
        datafiles.string_groups("words.json", "fact_verbs")


# -- field types ------------------------------------------------------------------------------------


def test_field_type_registry() -> None:
    assert FIELD_TYPES == ("number", "integer", "percent", "boolean", "date", "text", "list_text")
    assert NUMERIC_TYPES == ("number", "integer", "percent")
    dtypes = {name: field_type(name).dtype for name in FIELD_TYPES}
    assert dtypes == {
        "number": pl.Float64, "integer": pl.Int64, "percent": pl.Float64, "boolean": pl.Boolean,
        "date": pl.Date, "text": pl.String, "list_text": pl.List(pl.String),
    }  # fmt: skip
    with pytest.raises(UnknownFieldTypeError, match="unknown field type 'money'; expected one of number"):
        field_type("money")


@pytest.mark.parametrize(
    ("type_name", "value", "expected"),
    [
        ("number", "1,234.5", 1234.5),
        ("number", "(1,234)", -1234.0),
        ("number", "７，１７６", 7176.0),
        ("number", "$3.00", 3.0),
        ("number", 12, 12.0),
        ("number", "1 234", 1234.0),  # written, not printed: still a number
        ("number", "+5", 5.0),
        ("percent", "12.6%", 12.6),
        ("integer", "42", 42),
        ("integer", 41.9999999, 42),
        ("boolean", "是", True),
        ("boolean", "披露", True),
        ("boolean", "No", False),
        ("boolean", "未", False),
        ("boolean", False, False),
        ("date", "2023年2月3日", dt.date(2023, 2, 3)),
        ("date", "2023-02-03", dt.date(2023, 2, 3)),
        ("date", "February 3, 2023", dt.date(2023, 2, 3)),
        ("date", dt.datetime(2023, 2, 3, 10, 30), dt.date(2023, 2, 3)),
        ("text", "  KPMG   Huazhen ", "KPMG Huazhen"),
        ("text", "（特殊普通合伙）", "(特殊普通合伙)"),
        ("text", "   ", None),
        ("list_text", "张三、李四,王五；", ["张三", "李四", "王五"]),
        ("list_text", "a\nb", ["a", "b"]),
        ("list_text", [" a ", "", "b"], ["a", "b"]),
    ],
)
def test_coerce_good_values(type_name: str, value: object, expected: object) -> None:
    assert field_type(type_name).coerce(value) == expected
    assert coerce(value, type_name) == expected
    assert coerce(None, type_name) is None


@pytest.mark.parametrize(
    ("type_name", "value", "message"),
    [
        ("number", "abc", "'abc' is not a number"),
        ("number", True, "True is a boolean, not a number"),
        ("number", math.nan, "nan is not a number"),
        ("number", "inf", "'inf' is not a number"),
        ("percent", "—", "'—' is not a number"),
        ("integer", "1.5", "'1.5' is not a whole number"),
        ("integer", "x", "'x' is not a number"),
        ("boolean", "maybe", "'maybe' is not a yes/no answer"),
        ("date", "31/12/2022", "'31/12/2022' is not a date"),
        ("date", "2023年13月1日", "'2023年13月1日' is not a date"),
    ],
)
def test_coerce_bad_values(type_name: str, value: object, message: str) -> None:
    with pytest.raises(FieldValueError, match=re.escape(message)):
        coerce(value, type_name)
    with pytest.raises(ValueError):  # the readers catch ValueError
        coerce(value, type_name)


# -- corrections type as the readers do ----------------------------------------------------------


def test_a_correction_accepts_a_chinese_date(workspace: Workspace) -> None:
    assert typed_correction("2023年2月3日", "date") == "2023-02-03"
    ledger = Ledger(workspace, reviewer="ana", fields={"record_date": "date"}, doc_ids=["d1"])
    ledger.edit("d1", "record_date", "2023年2月3日")
    assert ledger.current()[("d1", "record_date")]["value"] == "2023-02-03"


def test_a_bad_correction_names_the_type_and_the_hint() -> None:
    with pytest.raises(CorrectionError, match=r"d1/x: 'soon' is not a valid date \('soon' is not a date\)"):
        typed_correction("soon", "date", where="d1/x: ")
    with pytest.raises(CorrectionError, match="d1/x: unknown field type 'money'"):
        typed_correction("1", "money", where="d1/x: ")


# -- layering ---------------------------------------------------------------------------------------

_STAGES = ("plan", "collection", "extract", "readers", "rows", "aggregate", "answer", "ask", "notebook",
           "cli", "benchmarks", "parsing", "store", "llm")  # fmt: skip


def _kernel_imports(package: str) -> set[str]:
    out: set[str] = set()
    for path in (KERNEL / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                out.add(node.module)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("mdqa_kernel")}


def test_the_text_layer_imports_no_stage() -> None:
    imported = _kernel_imports("text")
    assert imported, "the scan found no imports at all"
    bad = {m for m in imported if m.split(".")[1] in _STAGES}
    assert not bad, f"text imports stages: {sorted(bad)}"
    assert {m.split(".")[1] for m in imported} <= {"text", "errors"}


def test_the_planner_imports_no_reader() -> None:
    assert not {m for m in _kernel_imports("plan") if m.startswith("mdqa_kernel.readers")}
