"""The Plan IR: YAML/JSON round trips, validation errors that name the key, notebook rendering."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from mdqa_kernel.plan.ir import FieldSpec, MetadataFilter, Plan, PlanValidationError

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "plans" / "capital_adequacy_top3.yaml"

HAND_WRITTEN = """
question: Which companies grew revenue fastest from 2021 to 2022?
filters:
  doctype: annual report
  year: [2021, 2022]
  revenue_hint: {min: 0}
fields:
  - name: revenue
    type: number
    unit: CNY
    scale: 万
    description: Operating revenue of the fiscal year
    question: What was the operating revenue of {symbol} in fiscal year {year}?
  - name: auditor
    type: text
    description: Name of the audit firm that signed the report
    question: Which firm audited the {year} {doctype} of {symbol}?
    only: {year: 2022}
aggregation:
  steps:
    - {op: top_k, field: revenue, k: 3}
  output: {form: entities, entity: symbol}
"""


def errors_of(text: str) -> dict[str, str]:
    with pytest.raises(PlanValidationError) as info:
        Plan.from_yaml(text)
    return dict(info.value.errors)


def test_hand_written_yaml_loads_validates_and_renders() -> None:
    plan = Plan.from_yaml(HAND_WRITTEN)
    assert [f.name for f in plan.fields] == ["revenue", "auditor"]
    assert plan.field("revenue").scale == 1e4
    assert [f.kind for f in plan.filters] == ["equals", "in", "range"]
    plan.validate_against(["symbol", "year", "doctype", "revenue_hint"])
    html = plan._repr_html_()
    assert "<table>" in html and "revenue" in html and "only year 2022" not in html
    assert "year = 2022" in html  # the restriction of `auditor`
    assert "top_k" in html  # the aggregation is shown


def test_example_plan_file_is_valid() -> None:
    plan = Plan.load(EXAMPLE)
    plan.validate_against(["symbol", "year", "doctype"])
    assert plan.aggregation is not None


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_round_trip(tmp_path: Path, suffix: str) -> None:
    plan = Plan.from_yaml(HAND_WRITTEN)
    path = plan.save(tmp_path / f"plan{suffix}")
    again = Plan.load(path)
    assert again == plan


def test_tasks_apply_filters_restrictions_and_templates() -> None:
    plan = Plan.from_yaml(HAND_WRITTEN)
    doc_2021 = {"symbol": "600036", "year": 2021, "doctype": "annual report", "revenue_hint": 5}
    doc_2022 = {**doc_2021, "year": 2022}
    assert [f.name for f, _q in plan.tasks(doc_2021)] == ["revenue"]
    tasks = dict((f.name, q) for f, q in plan.tasks(doc_2022))
    assert tasks["auditor"] == "Which firm audited the 2022 annual report of 600036?"
    assert plan.tasks({**doc_2021, "doctype": "10-K"}) == []
    frame = pl.DataFrame([doc_2021, doc_2022, {**doc_2021, "year": 2019}])
    assert frame.filter(plan.filter_expr()).height == 2


def test_malformed_plans_name_the_bad_key() -> None:
    base = "question: q\nfields:\n  - {name: %s, type: %s, description: d, question: '%s'%s}\n"
    assert "fields[0].name" in errors_of(base % ("Revenue Growth", "number", "q", ""))
    assert "fields[0].type" in errors_of(base % ("a", "float", "q", ""))
    assert errors_of(base % ("a", "number", "q", ", questoin: x"))["fields[0].questoin"] == "unknown key"
    assert "fields[0].question" in errors_of(base % ("a", "number", "{a.b}", ""))
    assert "fields[0].scale" in errors_of(base % ("a", "number", "q", ", scale: lots"))
    assert "fields" in errors_of("question: q\nfields: []\n")
    assert "question" in errors_of("fields:\n  - {name: a, type: number, description: d, question: q}\n")
    assert "filters[0]" in errors_of(base % ("a", "number", "q", "") + "filters: [{column: year}]\n")
    assert "aggregation.output" in " ".join(
        errors_of(base % ("a", "number", "q", "") + "aggregation: {steps: []}\n")
    )


def test_error_message_carries_source_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "question: q\nfields:\n  - {name: a, type: number, description: d, question: q, unit: [1]}\n"
    )
    with pytest.raises(PlanValidationError, match=r"bad\.yaml: fields\[0\]\.unit"):
        Plan.load(bad)


def test_yaml_syntax_error_has_a_line_number() -> None:
    with pytest.raises(PlanValidationError, match="line 2, column 14"):
        Plan.from_yaml("question: q\nfields: [a, b}\n")


def test_duplicate_field_names_are_rejected() -> None:
    spec = {"name": "a", "type": "number", "description": "d", "question": "q"}
    with pytest.raises(PlanValidationError, match="appears twice"):
        Plan.from_dict({"question": "q", "fields": [spec, spec]})


def test_validate_against_names_unknown_columns() -> None:
    plan = Plan.from_yaml(HAND_WRITTEN)
    with pytest.raises(PlanValidationError) as info:
        plan.validate_against(["symbol", "year"])
    keys = [k for k, _m in info.value.errors]
    assert "filters[0].column" in keys  # doctype
    assert "fields[1].question" in keys  # {doctype} in the auditor template


def test_filter_kinds_and_matching() -> None:
    eq = MetadataFilter(column="year", equals=2021)
    member = MetadataFilter.model_validate({"column": "symbol", "in": ["a", "b"]})
    rng = MetadataFilter(column="year", min=2020, max=2022)
    assert eq.matches({"year": 2021}) and not eq.matches({"year": 2020}) and not eq.matches({})
    assert member.matches({"symbol": "b"}) and not member.matches({"symbol": "c"})
    assert rng.matches({"year": 2022}) and not rng.matches({"year": 2023}) and not rng.matches({"year": "x"})
    with pytest.raises(ValueError, match="exactly one"):
        MetadataFilter(column="year", equals=1, min=0)


def test_field_types_cover_the_design() -> None:
    for t in ("number", "integer", "percent", "boolean", "date", "text", "list_text"):
        FieldSpec(name="x", type=t, description="d", question="q")


def test_render_reports_missing_metadata() -> None:
    spec = FieldSpec(name="x", type="number", description="d", question="Value for {symbol}?")
    with pytest.raises(PlanValidationError, match="lacks symbol"):
        spec.render({"year": 2021})
