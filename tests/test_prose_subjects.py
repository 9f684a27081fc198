"""A line item named by a sentence's subject in words of its own order ("Intangible assets amortization
expense was $978 million, …"), on pages drawn here; and the two guards that keep such notes from naming
it by accident: a sentence running past a table's figures is no wrapped label of the row above it, and a
lead-in sentence cannot supply a label's head noun."""

from __future__ import annotations

from pathlib import Path

from mdqa_kernel.readers.confidence import CONFIDENT, REVIEW_BELOW
from mdqa_kernel.readers.table.reader import _lines_by_page
from mdqa_kernel.text.rows import table_rows
from mdqa_kernel.text.statement_context import head_cover
from tests.test_periods import row, text
from tests.test_statement_labels import MILLIONS, WIDE, annual, read

AMORTIZATION = (
    "Amortization of acquired intangible assets expense for the fiscal year of the report, in USD millions"
)
PRIOR = "Amortization of acquired intangible assets expense for the prior fiscal year, in USD millions"


def test_a_sentence_whose_subject_names_the_line_item_in_other_words_is_read(tmp_path: Path) -> None:
    note = [
        text("NOTE 9 — GOODWILL AND INTANGIBLE ASSETS"),
        text("Intangible assets amortization expense was $978 million, $1,304 million, and $845 million"),
        text("for fiscal years 2023, 2022, and 2021, respectively."),
    ]
    doc = annual(tmp_path / "note.pdf", note)
    got = read(doc, AMORTIZATION)
    assert got.status == "found" and got.value == 978 and REVIEW_BELOW <= got.confidence < CONFIDENT, got
    assert read(doc, PRIOR).value == 1304


def test_a_subject_that_adds_a_restricting_word_or_began_on_an_earlier_line_names_nothing(
    tmp_path: Path,
) -> None:
    """ "The amortization expense … included in cost of products sold" is a part of the expense; a
    subject whose sentence began on the line above is not all here to be judged."""
    part = annual(
        tmp_path / "part.pdf",
        [
            text(
                "The amortization expense of intangible assets included in cost of products sold was $4.3 billion."
            )
        ],
    )
    assert read(part, AMORTIZATION).status == "not_found"
    wrapped = annual(
        tmp_path / "wrapped.pdf",
        [
            text("The restructuring costs of the Mexican joint venture and its"),
            text("intangible assets amortization expense was $12 million."),
        ],
    )
    assert read(wrapped, AMORTIZATION).status == "not_found"


def test_an_amortization_line_is_named_without_its_expense_word_or_its_finite_life() -> None:
    """An amortization is an expense, and only finite-lived intangibles are amortized: neither word
    restricts the line; "intangibles" are the intangible assets."""
    for label in (
        "Amortization of acquired intangible assets",
        "Amortization of intangibles",
        "Amortization expense for definite-lived intangible assets",
    ):
        assert head_cover(label, AMORTIZATION) == 0.9, label
    assert head_cover("Total definite-lived intangible assets", AMORTIZATION) == 0.0
    assert head_cover("Depreciation and amortization", AMORTIZATION) == 0.0


def test_a_sentence_under_a_table_is_no_wrapped_label_of_its_last_row(tmp_path: Path) -> None:
    """ "Total $5,512 $2,573" closes a table of gross amounts; the sentence below it runs on over the
    figures' columns, so it is not the row's label: the amortization is the sentence's $272."""
    page = [
        text("NOTE 10 — GOODWILL AND ACQUIRED INTANGIBLES"),
        MILLIONS,
        row("", "Gross Carrying Amount", "Accumulated Amortization", cols=WIDE),
        row("Developed technology", "$3,000", "$1,500", cols=WIDE),
        row("Customer relationships", "2,512", "1,073", cols=WIDE),
        row("Total", "$5,512", "$2,573", cols=WIDE),
        text(
            "Amortization expense for acquired finite-lived intangible assets for the years ended December 31,"
        ),
        text(
            "2023 and 2022 was $272 million and $240 million. Estimated amortization expense for each of the"
        ),
    ]
    doc = annual(tmp_path / "note.pdf", page)
    total = next(r for r in table_rows(_lines_by_page(doc)[2]) if r.label == "Total")
    assert not any("Amortization" in v for v in [total.extended_label, *total.variants]), total
    got = read(doc, AMORTIZATION)
    assert got.value == 272, got


def test_a_lead_in_cannot_supply_the_noun_a_label_leaves_out(tmp_path: Path) -> None:
    """Under "… gross carrying amount and accumulated amortization of our intangible assets were as
    follows:", "Total intangible assets, net" names the intangible assets, not their amortization."""
    page = [
        text(
            "The gross carrying amount and accumulated amortization of our acquired intangible assets were as follows:"
        ),
        MILLIONS,
        row("", "2023", "2022", cols=WIDE),
        row("Total definite-lived intangible assets", "1,828", "1,730", cols=WIDE),
        row("Total intangible assets, net", "531", "735", cols=WIDE),
    ]
    got = read(annual(tmp_path / "lead.pdf", page), AMORTIZATION)
    assert got.status == "not_found", got


UNRECOGNIZED = (
    "Total unrecognized compensation cost related to unvested share-based awards at the end of the fiscal year of"
    " the report, in USD millions"
)


def test_an_amount_stated_as_what_there_was_of_the_item(tmp_path: Path) -> None:
    """ "As of December 31, 2023, there was $372 million of total unrecognized compensation cost …": the amount
    before the item's name is its whole; a sentence dated another year, or "$45 million of" without "there
    was", is not read as it."""

    def note(*sentences: str):
        return annual(
            tmp_path / f"n{len(sentences)}.pdf",
            [text("NOTE 12. SHARE-BASED COMPENSATION"), *map(text, sentences)],
        )

    got = read(
        note(
            "As of December 31, 2023, there was $372 million of total unrecognized compensation cost related to",
            "nonvested share-based compensation awards, expected to be recognized over 2 years.",
        ),
        UNRECOGNIZED,
        name="unrecognized_compensation_cost",  # as a plan names the field
    )
    assert got.value == 372 and got.confidence >= CONFIDENT, got
    decoys = (
        # another year's amount
        "As of December 31, 2022, there was $300 million of total unrecognized compensation cost related to",
        # a part, stated without "there was"
        "We recognized $45 million of unrecognized compensation cost related to performance awards.",
    )
    for k, sentence in enumerate(decoys):
        held = read(
            annual(tmp_path / f"decoy{k}.pdf", [text("NOTE 12. SHARE-BASED COMPENSATION"), text(sentence)]),
            UNRECOGNIZED,
            name="unrecognized_compensation_cost",
        )
        assert held.value is None or held.confidence < REVIEW_BELOW, (sentence, held)
