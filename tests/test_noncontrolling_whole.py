"""Net income with the noncontrolling interests' share, on income statements drawn here: printed as "Net
income before allocation to noncontrolling interests" it is that line; where the filing deducts a
noncontrolling share, the line left to the company's own shareholders is never the whole."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.text.statement_context import head_cover
from tests.test_periods import text
from tests.test_statement_labels import annual, millions_page, read

WHOLE = (
    "Net income including the part attributable to noncontrolling interests (before the noncontrolling "
    "share is deducted) for the fiscal year of the report, in USD millions"
)
COMPANY = "Net income attributable to the company for the fiscal year of the report, in USD millions"
BEFORE = ("Net income before allocation to noncontrolling interests", "8,324", "9,216")
NCI = ("Less: Net income attributable to noncontrolling interests", "31", "40")
OWNERS = ("Net income attributable to Acme Inc. common shareholders", "$ 8,293", "$ 9,176")


def _income(path: Path, *rows: tuple[str, ...]):
    return annual(
        path,
        millions_page(
            "CONSOLIDATED STATEMENTS OF INCOME",
            ("2023", "2022"),
            ("Revenues", "$ 48,210", "$ 45,902"),
            ("Income before provision for taxes on income", "9,768", "7,002"),
            ("Provision for taxes on income", "1,444", "(2,214)"),
            *rows,
        ),
    )


def test_net_income_before_allocation_to_noncontrolling_interests_is_the_whole(tmp_path: Path) -> None:
    doc = _income(tmp_path / "i.pdf", BEFORE, NCI, OWNERS)
    whole = read(doc, WHOLE)
    assert (whole.status, whole.value) == ("found", 8324)
    assert whole.confidence >= CONFIDENT
    assert (read(doc, COMPANY).status, read(doc, COMPANY).value) == ("found", 8293)


def test_the_owners_share_is_not_the_whole_where_a_noncontrolling_share_is_deducted(tmp_path: Path) -> None:
    doc = _income(tmp_path / "i.pdf", NCI, OWNERS)
    res = read(doc, WHOLE)
    assert not (res.status == "found" and res.value == 8293)


def test_the_owners_share_stays_the_whole_where_the_statement_deducts_none(tmp_path: Path) -> None:
    """A filing naming a noncontrolling share only in a note prints its owners' net income as the whole;
    it is read, below the score of a line naming the whole."""
    note = [text("Net income attributable to noncontrolling interests was not material in any year.")]
    doc = annual(
        tmp_path / "i.pdf",
        millions_page(
            "CONSOLIDATED STATEMENTS OF INCOME",
            ("2023", "2022"),
            ("Revenues", "$ 48,210", "$ 45,902"),
            OWNERS,
        ),
        note,
    )
    assert doc.noncontrolling_income()
    res = read(doc, WHOLE)
    assert (res.status, res.value) == ("found", 8293)


def test_the_words_for_the_included_share_are_harmless_only_as_a_phrase() -> None:
    """ "Interest income" adds "interest" to "income": it names neither net income nor the whole with the
    noncontrolling interests' share."""
    assert head_cover("Net income before allocation to noncontrolling interests", WHOLE) == 0.9
    assert head_cover("Net income (including noncontrolling interests)", WHOLE) == 0.9
    assert head_cover("Interest income", WHOLE) == 0.0
    assert head_cover("Net income before allocation to noncontrolling interests", COMPANY) == 0.0
