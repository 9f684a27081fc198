"""Cell accuracy with MuDABench's numeric rule, text/date/boolean matching and evidence accuracy."""

from __future__ import annotations

import json

import polars as pl
import pytest

from mdqa_kernel.benchmarks.metrics import (
    GOLD_SCHEMA,
    cell_accuracy,
    manifest_pages,
    numbers_agree,
    realdocs_gold,
    values_agree,
)


@pytest.mark.parametrize(
    ("pred", "gold", "ok"),
    [
        (15.44, 15.4, True),  # integer digits and first decimal
        (15.49, 15.41, True),
        (15.5, 15.4, False),
        (3239006323.23, 3239006323.2, True),
        (3239006323.23, 3239006333.23, False),
        (0.5886, 0.588559, True),  # fractions compared in percent points: 58.8 vs 58.8
        (0.5786, 0.588559, False),
        (-162003000.0, -162003000.0, True),
        (23.11, 0.2311, True),  # the same ratio read in percent points (a printed 23.11%), q_56ecd6f2
        (23.21, 0.2311, False),
    ],
)
def test_numeric_rule(pred, gold, ok):
    assert numbers_agree(pred, gold) is ok


def test_values_of_every_type():
    assert values_agree(True, True) and not values_agree(False, True) and not values_agree(1, True)
    assert values_agree("2022-06-07", "2022-06-07") and not values_agree("2022-06-08", "2022-06-07")
    assert values_agree("2022-07-20", "07-20")  # MM-DD gold against a full date
    assert values_agree("德勤华永会计师事务所（特殊普通合伙）", "德勤华永会计师事务所(特殊普通合伙)")
    assert values_agree("KPMG", "KPMG LLP")
    assert values_agree(["网络投票", "现场投票"], ["现场投票", "网络投票"])
    assert not values_agree(["现场投票"], ["现场投票", "网络投票"])
    # free-text systems write lists as enumerations
    assert values_agree("逐项表决", ["逐项表决"])
    assert values_agree("网络投票、现场投票", ["现场投票", "网络投票"])
    assert values_agree("现场投票 and 网络投票", ["现场投票", "网络投票"])
    assert not values_agree("现场投票", ["现场投票", "网络投票"])
    assert values_agree("现场投票和网络投票相结合", ["现场投票和网络投票相结合"])
    assert not values_agree(5, ["5"])
    assert values_agree("1,234.5", 1234.5)


def _cells(rows):
    return pl.DataFrame(
        rows,
        schema={
            "doc_id": pl.String,
            "field": pl.String,
            "status": pl.String,
            "value_json": pl.String,
            "page": pl.Int64,
        },
        orient="row",
    )


def test_cell_accuracy_per_field_and_overall():
    gold = pl.DataFrame(
        [
            ("d1", "revenue", json.dumps(100.0), 3),
            ("d2", "revenue", json.dumps(200.0), 4),
            ("d1", "auditor", json.dumps("KPMG LLP"), None),
            ("d2", "auditor", json.dumps(None), None),  # gold says absent
            ("d3", "revenue", json.dumps(5.0), 1),  # no cell at all: wrong
        ],
        schema=GOLD_SCHEMA,
        orient="row",
    )
    cells = _cells(
        [
            ("d1", "revenue", "found", json.dumps(100.04), 3),
            ("d2", "revenue", "found", json.dumps(210.0), 5),
            ("d1", "auditor", "found", json.dumps("KPMG"), 9),
            ("d2", "auditor", "not_found", None, None),
        ]
    )
    table = {r["field"]: r for r in cell_accuracy(cells, gold).iter_rows(named=True)}
    assert table["revenue"]["n"] == 3 and table["revenue"]["correct"] == 1
    assert table["auditor"]["accuracy"] == 1.0
    assert table["ALL"]["correct"] == 3 and table["ALL"]["n"] == 5
    assert table["revenue"]["evidence_n"] == 2 and table["revenue"]["evidence_correct"] == 1


def test_realdocs_gold_and_manifests(realdocs, tmp_path):
    gold = realdocs_gold(realdocs / "gold.jsonl")
    assert gold.height == 30
    row = gold.filter(pl.col("field") == "total_revenue").row(0, named=True)
    assert json.loads(row["gold"]) == 211915e6 and row["page"] == 58
    date = gold.filter(pl.col("field") == "dividend_record_date").row(0, named=True)
    assert json.loads(date["gold"]) == "2023-02-03"
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "d1.json").write_text(
        json.dumps(
            {
                "doc_id": "d1",
                "facts": [
                    {"field": "f", "status": "printed", "page": 7},
                    {"field": "g", "status": "absent", "page": None},
                ],
            }
        )
    )
    assert manifest_pages(tmp_path) == {("d1", "f"): 7}


def test_cascade_estimate_counts_confident_cells_exactly_and_estimates_routed_ones():
    from mdqa_kernel.benchmarks.metrics import cascade_estimate, wilson

    # 10 cells: 6 the table reader is confident in (5 right), 4 routed to the LLM.
    table = pl.DataFrame(
        {
            "doc_id": [f"d{i}" for i in range(10)],
            "field": ["f"] * 10,
            "status": ["found"] * 6 + ["found", "found", "not_found", "found"],
            "confidence": [0.9] * 6 + [0.5, 0.6, 0.0, 0.79],
            "correct": [True] * 5 + [False] + [False] * 4,
        }
    )
    # The cascade ran on documents d4..d9: of the 4 routed cells, it got 3 right.
    sample = pl.DataFrame(
        {
            "doc_id": [f"d{i}" for i in range(4, 10)],
            "field": ["f"] * 6,
            "correct": [True, False, True, True, False, True],
        }
    )
    est = cascade_estimate(table, sample)
    assert (est["confident_cells"], est["confident_correct"], est["routed_cells"]) == (6, 5, 4)
    assert (est["sample_routed_cells"], est["sample_routed_correct"]) == (4, 3)
    assert est["estimate"] == pytest.approx((5 + 0.75 * 4) / 10)
    lo, hi = wilson(3, 4)
    assert est["estimate_low"] == pytest.approx((5 + lo * 4) / 10, abs=1e-4)
    assert est["estimate_high"] == pytest.approx((5 + hi * 4) / 10, abs=1e-4)
    assert est["estimate_low"] < est["estimate"] < est["estimate_high"]
