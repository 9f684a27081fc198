"""The table reader on value cells of generated PDFs: numbers inside labels are never values (Scope 1,
CO2, note references, dates, footnote marks), Indian grouping and the mangled rupee sign, a dash that
holds its column, a "Note" column, a scale printed in the cell, points that are not a percentage."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers import Status, view_from_parse
from mdqa_kernel.readers.table.reader import TableReader
from tests._extract_fixtures import table_pdf


def fld(name: str, description: str, type: str = "number", unit: str | None = None):
    return SimpleNamespace(name=name, type=type, description=description, question="", unit=unit, scale=1.0)


def view(path: Path, year: int):
    return view_from_parse(parse_pdf(path), path.stem, {"year": year})


@pytest.fixture(scope="module")
def brsr(tmp_path_factory: pytest.TempPathFactory):
    """A sustainability and financial page as Indian filings print them (current year left)."""
    path = tmp_path_factory.mktemp("brsr") / "brsr.pdf"
    table_pdf(
        path,
        [
            [
                ("ENVIRONMENTAL INDICATORS",),
                ("Parameter", "FY 2025", "FY 2024"),
                ("Scope 1 emissions (tCO2e)", "12,345", "11,002"),
                ("Scope 2 emissions (tCO2e)", "8,001", "7,502"),
                ("CH4 emissions (tonnes)", "36", "41"),
                ("Water withdrawal (kilolitres)", "—", "9,876"),
                ("",),
                ("BALANCE SHEET",),
                ("Particulars", "Note", "2025", "2024"),
                ("Trade receivables", "7", "4,567", "3,210"),
                ("Revenue from operations (Note 4)", "", "1,23,45,678", "1,10,00,000"),
                ("",),
                ("Paid-up capital as on March 31, 2025    ` 85,12,14,381",),
                ("Net worth    H1,23,456",),
            ]
        ],
        columns=(40, 250, 330, 430),
    )
    return view(path, 2025)


def test_scope_and_formula_numbers_stay_in_the_label(brsr):
    reader = TableReader()
    scope1 = reader.read(brsr, fld("scope_1", "Scope 1 emissions (tCO2e)"), "")
    assert scope1.status == Status.FOUND and scope1.value == 12345
    scope2 = reader.read(brsr, fld("scope_2", "Scope 2 emissions"), "")
    assert scope2.value == 8001
    ch4 = reader.read(brsr, fld("ch4", "CH4 emissions"), "")
    assert ch4.value == 36


def test_a_dash_is_no_value_and_holds_its_column(brsr):
    water = TableReader().read(brsr, fld("water", "Water withdrawal"), "")
    assert water.value != 9876  # the prior year's number never stands in for the dash
    assert water.status != Status.FOUND or water.confidence < 0.8


def test_note_column_and_indian_grouping(brsr):
    reader = TableReader()
    receivables = reader.read(brsr, fld("receivables", "Trade receivables"), "")
    assert receivables.value == 4567 and receivables.confidence >= 0.8
    revenue = reader.read(brsr, fld("revenue", "Revenue from operations"), "")
    assert revenue.value == 12345678


def test_mangled_rupee_and_date_in_label(brsr):
    reader = TableReader()
    capital = reader.read(brsr, fld("capital", "Paid-up capital"), "")
    assert capital.value == 851214381  # not 31 (the date) nor 85 (the first group)
    worth = reader.read(brsr, fld("net_worth", "Net worth"), "")
    assert worth.value == 123456


def test_scale_in_the_cell_and_points(tmp_path):
    path = table_pdf(
        tmp_path / "cells.pdf",
        [
            [
                ("Highlights", "2025", "2024"),
                ("Total income", "1,234 crore", "1,100 crore"),
                ("EBITDA margin", "18.5%", "17.3%"),
                ("Change in EBITDA margin", "120 bps", "(40) bps"),
                ("Net margin", "-%", "4.2%"),
            ]
        ],
    )
    doc = view(path, 2025)
    reader = TableReader()
    income = reader.read(doc, fld("income", "Total income"), "")
    assert income.value == pytest.approx(1234e7) and income.scale == 1e7
    margin = reader.read(doc, fld("margin", "EBITDA margin", type="percent"), "")
    assert margin.value == pytest.approx(18.5)
    change = reader.read(doc, fld("change", "Change in EBITDA margin", type="percent"), "")
    assert change.status != Status.FOUND  # 120 bps is a change in points, not a percentage
    net = reader.read(doc, fld("net", "Net margin", type="percent"), "")
    assert net.value != pytest.approx(4.2)  # "-%" is this year's dash: last year's value never stands in


def test_footnote_marks(tmp_path):
    path = table_pdf(
        tmp_path / "notes.pdf",
        [
            [
                ("(in millions)", "2023", "2022"),
                ("Revenue (1)", "5,432", "5,001"),
                ("Operating income¹", "1,234", "1,111"),
            ]
        ],
    )
    doc = view(path, 2023)
    reader = TableReader()
    assert reader.read(doc, fld("revenue", "Revenue"), "").value == 5432e6
    assert reader.read(doc, fld("op_income", "Operating income"), "").value == 1234e6


def test_a_dash_without_header_is_no_value(tmp_path):
    path = table_pdf(
        tmp_path / "dash.pdf",
        [[("Other income", "—", "1,234"), ("Finance costs", "-", "(567)"), ("Total expenses", "8,900", "—")]],
    )
    doc = view(path, 2025)
    reader = TableReader()
    for name, label in (("other", "Other income"), ("finance", "Finance costs")):
        got = reader.read(doc, fld(name, label), "")
        assert got.value not in (1234, -567), got  # the dash is the first column's value: none
    total = reader.read(doc, fld("total", "Total expenses"), "")
    assert total.value == 8900
