"""Implausible readings: a value planted in a PDF that no real document could hold ("employed
999999999 people") is kept for review, below the cascade's threshold, with the reason in its message."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import Status, view_from_parse
from mdqa_kernel.readers.base import DocumentView, FieldLike, ReadResult, found
from mdqa_kernel.readers.cascade import CascadeReader
from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.plausibility import checked, field_kind, implausibility
from mdqa_kernel.readers.table.reader import TableReader
from tests._pdfs import text_pdf


def fld(name: str, description: str, type: str = "integer", unit: str | None = None, scale: float = 1.0):
    return SimpleNamespace(name=name, type=type, description=description, question="", unit=unit, scale=scale)


EMPLOYEES = fld("employees", "Number of employees")


def _view(tmp_path: Path, sentence: str) -> DocumentView:
    path = text_pdf(tmp_path / "planted.pdf", [["Annual report 2023", "Human capital", sentence]])
    return view_from_parse(parse_pdf(path), "planted", {"year": 2023})


@pytest.mark.parametrize(
    "sentence",
    [
        "At year end the total number of employees was 999999999.",  # read at 0.85 before
        "Employees: 999999999",  # a key-value line, read at 1.0 before
        "As of December 31, 2023, we employed 999999999 people on a full-time basis.",
    ],
)
def test_a_planted_count_of_people_is_never_confident(tmp_path: Path, sentence: str) -> None:
    result = TableReader().read(_view(tmp_path, sentence), EMPLOYEES, "")
    assert result.status == Status.FOUND and result.value == 999999999  # kept for the reviewer
    assert result.confidence < CONFIDENT
    assert "implausible" in result.message and "count of people" in result.message


def test_a_plausible_count_reads_as_before(tmp_path: Path) -> None:
    result = TableReader().read(
        _view(tmp_path, "At year end the total number of employees was 221,000."), EMPLOYEES, ""
    )
    assert result.value == 221000 and result.confidence == 0.85 and "implausible" not in result.message


class Agrees:
    """A second reader that reads the same planted number (as a faithful LLM would), at 0.75."""

    name = "second"

    def config(self) -> dict[str, Any]:
        return {}

    def read(self, doc: DocumentView, field: FieldLike, question: str) -> ReadResult:
        return found(doc.doc_id, field.name, self.name, 999999999, confidence=0.75, message="model")


def test_the_cascade_never_lifts_an_implausible_value_over_its_threshold(tmp_path: Path) -> None:
    view = _view(tmp_path, "At year end the total number of employees was 999999999.")
    result = CascadeReader(TableReader(), Agrees()).read(view, EMPLOYEES, "")
    # both readers agree, which alone would lift the answer to 0.85: the value is still implausible
    assert len(result.trail) == 2 and result.confidence < CONFIDENT and "implausible" in result.message


@pytest.mark.parametrize(
    ("field", "value", "kind"),
    [
        (fld("staff", "在职员工的数量合计"), 10_000_001, "people"),
        (fld("holders", "年末普通股股东户数"), 200_000_000, "shareholders"),
        (fld("meetings", "临时股东大会次数"), 5000, "meetings"),
        (fld("employees", "Full-time employees", type="number", unit="persons"), 1234.5, "people"),
        (fld("employees", "Number of employees", type="number"), -20, "people"),
        (fld("car", "资本充足率", type="percent"), 1500.0, "percent"),
        (fld("margin", "Gross margin", type="number", unit="%"), -2000.0, "percent"),
        (fld("dps", "税前每股股利", type="number"), 2e6, "per_share"),
        (fld("dps_fen", "每股股利（万元）", type="number", scale=1e4), 200.0, "per_share"),
    ],
)
def test_bounds_by_the_fields_kind(field: Any, value: float, kind: str) -> None:
    field_kind_found = field_kind(field)
    assert field_kind_found is not None and field_kind_found.name == kind
    assert implausibility(field, value) is not None
    flagged = checked(field, found("d", field.name, "table", value, confidence=1.0))
    assert flagged.confidence < CONFIDENT and flagged.value == value
    assert checked(field, flagged) == flagged  # checking twice changes nothing


@pytest.mark.parametrize(
    ("field", "value"),
    [
        (fld("staff", "在职员工的数量合计"), 2_100_000),  # the largest employers
        (fld("attending", "年度股东大会出席股东及股东代表人数"), 1047),  # people at a meeting, not meetings
        (fld("holders", "年末普通股股东户数"), 1_500_000),
        (fld("meetings", "临时股东大会次数"), 12),
        (fld("rd_share", "研发人员数量占比", type="number"), 0.25),  # a share of a count is not a count
        (fld("votes", "Votes for director nominee", type="integer"), 2_500_000_000),  # votes, not people
        (fld("shares", "Number of shares outstanding", type="integer"), 356_406_257_089),
        (fld("growth", "净利润增长率", type="percent"), 845.2),
        (fld("bvps", "Book value per share", type="number", unit="USD"), 451_000.0),  # Berkshire class A
        (fld("revenue", "营业收入", type="number"), 9e13),  # amounts have no bound
        (fld("auditor", "会计师事务所名称", type="text"), "毕马威"),
    ],
)
def test_real_extremes_stay_plausible(field: Any, value: Any) -> None:
    assert implausibility(field, value) is None
    result = found("d", field.name, "table", value, confidence=0.95, message="table: x")
    assert checked(field, result) is result


def test_a_few_dollars_is_no_amount_kept_in_millions(tmp_path: Path) -> None:
    """A sentence's small figure read for a field kept in USD millions (here $0.2) needs review;
    the same figure for a field in plain dollars, and a real figure in millions, do not."""
    revenue_millions = fld(
        "total_revenue", "Total revenue in USD millions", type="number", unit="USD", scale=1e6
    )
    assert "too small" in (implausibility(revenue_millions, -2e-07) or "")
    assert implausibility(revenue_millions, 0.012) is None  # $12,000 from a table in thousands
    assert implausibility(revenue_millions, 94_943) is None and implausibility(revenue_millions, 0) is None
    plain = fld("fee", "Filing fee in USD", type="number", unit="USD")
    assert implausibility(plain, 0.2) is None
    path = text_pdf(
        tmp_path / "small.pdf", [["Annual report 2023", "Total revenue was $0.2 per visit on average."]]
    )
    doc = view_from_parse(parse_pdf(path), "small", {"year": 2023})
    result = TableReader().read(doc, revenue_millions, "")
    assert result.status != Status.FOUND or result.confidence < CONFIDENT
