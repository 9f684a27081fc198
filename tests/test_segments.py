"""Fields about one segment ("Revenue of the Intelligent Cloud segment"): the segment's row under the
measure's heading, or the measure's row under the segment's heading — on segment notes this test draws."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.table.reader import TableReader
from mdqa_kernel.text.segments import segment_ask
from tests.test_periods import draw, row, text, view


def seg(description: str) -> SimpleNamespace:
    return SimpleNamespace(
        name="segment_field", type="number", description=description, question="", unit="USD", scale=1e6
    )


@pytest.fixture(scope="module")
def note(tmp_path_factory):
    """The segment note, drawn and parsed once for every test here."""
    return view(segment_note(tmp_path_factory.mktemp("seg") / "seg.pdf"), year=2022, doctype="10k")


def segment_note(path):
    """A 10-K segment note: measures as block headings over the segments, then a product-category block
    that reuses a segment's name, then an MD&A-style block with a segment as the heading."""
    return draw(
        path,
        [
            [
                text("Note 19. Segment Information"),
                text("(Dollars in millions)"),
                row("Years ended December 31,", "2022", "2021", "2020"),
                text("Revenues:"),
                row("Commercial Airplanes", "$25,867", "$19,493", "$16,162"),
                row("Defense, Space & Security", "23,162", "26,540", "26,257"),
                row("Global Services", "17,611", "16,328", "15,543"),
                row("Total revenues", "$66,640", "$62,361", "$57,962"),
                text("(Loss)/earnings from operations:"),
                row("Commercial Airplanes", "($2,370)", "($6,475)", "($13,847)"),
                row("Defense, Space & Security", "(3,544)", "1,544", "1,539"),
                row("Global Services", "2,727", "2,017", "450"),
                text("Revenue by product category"),
                row("Global Services", "9,100", "8,700", "8,200"),
                row("Other", "8,511", "7,628", "7,343"),
            ],
            [
                text("Segment results"),
                text("(in millions)"),
                row("", "2022", "2021", "2020"),
                text("Frito-Lay North America"),
                row("Net revenue", "23,291", "19,608", "18,189"),
                row("Operating profit", "6,135", "5,633", "5,340"),
            ],
        ],
    )


@pytest.mark.parametrize(
    "description, value",
    [
        ("Revenue of the Commercial Airplanes segment for the fiscal year of the report, in USD millions", 25_867),
        ("Revenue of the Defense, Space & Security segment for the fiscal year of the report, in USD millions",
         23_162),
        ("Operating income (loss) of the Defense, Space & Security segment for the fiscal year of the report, in "
         "USD millions", -3_544),
        ("Net revenue of the Frito-Lay North America (FLNA) division for the fiscal year, in USD millions", 23_291),
        ("Operating profit of the Frito-Lay North America (FLNA) division for the fiscal year, in USD millions",
         6_135),
    ],
)  # fmt: skip
def test_a_segment_measure_under_its_heading(note, description, value):
    got = TableReader().read(note, seg(description), "")
    assert got.value == pytest.approx(value), got.message
    assert got.confidence >= CONFIDENT, got.message


def test_a_segment_name_under_another_heading_is_not_the_segment(note):
    """ "Global Services" is a segment and a product category: two revenue readings that disagree are a
    doubt, never a sure value; a segment the note does not print is not found."""
    services = TableReader().read(
        note, seg("Revenue of the Global Services segment for the fiscal year, in USD millions"), ""
    )
    assert services.value == pytest.approx(17_611) and services.confidence >= CONFIDENT
    missing = TableReader().read(note, seg("Revenue of the Boeing Capital segment for the fiscal year"), "")
    assert missing.value is None


def test_descriptions_that_name_no_segment():
    assert segment_ask("Total revenue (net sales) for the fiscal year of the report, in USD millions") is None
    assert segment_ask("Revenue from products only (the product sub-total, not total revenue)") is None
    ask = segment_ask(
        "Net revenue of the PepsiCo Beverages North America (PBNA) division for the fiscal year"
    )
    assert ask is not None and ask.measure == "Net revenue"
    assert ask.members == ("PepsiCo Beverages North America", "PBNA")


def division_columns(path):
    """Divisions down the rows, each measure a run of year columns: "Net Revenue | Operating Profit/(Loss)"
    over "2022 2021 2020 | 2022 2021 2020"."""
    cols = (250.0, 300.0, 350.0, 430.0, 480.0, 530.0)
    years = ("2022", "2021", "2020") * 2
    return draw(
        path,
        [
            [
                text("Net Revenue and Operating Profit/(Loss)"),
                text("(in millions)"),
                [(300, "Net Revenue", "r"), (500, "Operating Profit/(Loss)", "r")],
                [(x, y, "r") for x, y in zip(cols, years, strict=True)],
                row("FLNA", "$ 23,291", "$ 19,608", "$ 18,189", "$ 6,135", "$ 5,633", "$ 5,340", cols=cols),
                row("PBNA", "26,213", "25,276", "22,559", "2,442", "2,442", "1,937", cols=cols),
                row("Total division", "49,504", "44,884", "40,748", "8,577", "8,075", "7,277", cols=cols),
            ]
        ],
    )


@pytest.mark.parametrize(
    "description, value",
    [
        ("Net revenue of the Frito-Lay North America (FLNA) division for the fiscal year, in USD millions", 23_291),
        ("Operating profit of the Frito-Lay North America (FLNA) division for the fiscal year, in USD millions",
         6_135),
        ("Net revenue of the PepsiCo Beverages North America (PBNA) division for the prior fiscal year, in USD "
         "millions", 25_276),
    ],
)  # fmt: skip
def test_a_segment_measure_heading_a_run_of_columns(tmp_path, description, value):
    doc = view(division_columns(tmp_path / "div.pdf"), year=2022, doctype="10k")
    got = TableReader().read(doc, seg(description), "")
    assert got.value == pytest.approx(value), got.message
    assert got.confidence >= CONFIDENT, got.message


def test_a_measure_no_run_of_columns_names_is_not_read_from_the_runs(tmp_path):
    doc = view(division_columns(tmp_path / "div.pdf"), year=2022, doctype="10k")
    got = TableReader().read(doc, seg("Capital spending of the FLNA division for the fiscal year"), "")
    assert got.value is None or got.confidence < CONFIDENT
