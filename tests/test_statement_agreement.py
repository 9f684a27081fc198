"""How the chosen reading's confidence weighs a disagreeing reading (orchestration of `best_reading` on
candidates made here, with the pages' statements given): a note's row that disagrees puts no doubt on a value a
primary statement's row agrees with, even where the chosen reading is a summary's row ranked above the
statement's; two readings of neither kind that disagree still do."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import RIVALS_FACTOR
from mdqa_kernel.readers.table.candidates import Candidate
from mdqa_kernel.readers.table.choice import best_reading
from tests.test_periods import text
from tests.test_statement_labels import annual, fld

REVENUE = "Total revenue (net sales) for the fiscal year of the report, in USD millions"
SUMMARY, STATEMENT, NOTE = 2, 3, 4


def _cand(page: int, raw: str, score: float) -> Candidate:
    return Candidate(
        "table", page, raw, f"row {raw}", score, scale=1e6, scale_word="millions", number=float(raw)
    )


def test_a_statement_s_agreeing_row_shields_a_summary_s_reading_from_a_note_s(tmp_path: Path) -> None:
    doc = annual(tmp_path / "doc.pdf", [text("page")])
    pages = {SUMMARY: None, STATEMENT: "income", NOTE: None}
    readings = [_cand(SUMMARY, "6489", 0.95), _cand(STATEMENT, "6489", 0.9), _cand(NOTE, "52", 0.9)]
    got = best_reading(doc, fld(REVENUE), readings, "table", lambda: pages)
    assert got.value == 6489 and got.confidence == 0.95, got
    # no statement's row agrees: the note's disagreeing row of the same rank puts it in doubt
    alone = [_cand(SUMMARY, "6489", 0.95), _cand(NOTE, "52", 0.9)]
    doubted = best_reading(doc, fld(REVENUE), alone, "table", lambda: pages)
    assert doubted.confidence == round(0.95 * RIVALS_FACTOR, 4), doubted
