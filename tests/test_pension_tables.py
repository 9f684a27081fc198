"""A benefit plans note's roll-forward, on pages drawn here: the pension plans' and the other benefit plans'
columns under one header each ("Pension Benefits | Other Benefits", set over its own two years wherever in
them), the rows naming the benefit obligation or the plan assets without saying "pension"; a label set a
few points above its figures by a raised footnote mark is still that row's; a roll-forward's "Beginning
balance" and "Ending balance" are named by the heading of their block ("Change in benefit obligation")."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from mdqa_kernel.parsing.pdf import parse_pdf
from mdqa_kernel.readers.base import Status
from mdqa_kernel.readers.confidence import REVIEW_BELOW
from mdqa_kernel.text.layout import page_lines
from tests.test_periods import view
from tests.test_statement_labels import read

PBO_END = (
    "Projected benefit obligation of the pension plans at the end of the fiscal year of the report (the"
    " obligation roll-forward's closing balance), in USD millions"
)
PBO_BEGIN = PBO_END.replace("at the end", "at the beginning").replace("closing", "opening")
ASSETS_END = (
    "Fair value of pension plan assets at the end of the fiscal year of the report (the plan-asset"
    " roll-forward's closing balance), in USD millions"
)
COLS = (330.0, 400.0, 480.0, 555.0)

# (x, text, how, raise, size): `raise` lifts the text above its line's baseline
Item = tuple[float, str, str, float, float]


def _line(label: str, *values: str, lift: float = 0.0, mark: str = "") -> list[Item]:
    items: list[Item] = [(72, label, "l", lift, 9)]
    if mark:  # a footnote mark, smaller and higher than the label
        items.append((72 + stringWidth(label, "Helvetica", 9) + 1, mark, "l", lift + 3.5, 5))
    return items + [(x, v, "r", 0.0, 9) for x, v in zip(COLS, values, strict=False)]


def _text(line: str, x: float = 72) -> list[Item]:
    return [(x, line, "l", 0.0, 9)]


def _draw(path: Path, pages: list[list[list[Item]]]) -> Path:
    c = canvas.Canvas(str(path), pagesize=A4)
    for lines in [
        [_text("Acme Inc. ANNUAL REPORT ON FORM 10-K"), _text("For the fiscal year ended December 31, 2023")],
        *pages,
    ]:
        y = 790.0
        for items in lines:
            for x, text, how, lift, size in items:
                c.setFont("Helvetica", size)
                {"l": c.drawString, "r": c.drawRightString}[how](x, y + lift, text)
            y -= 15
        c.showPage()
    c.save()
    return path


def _groups(first: str, second: str) -> list[Item]:
    # each group set from the left edge of its first year, not centred over its two years
    return [(300, first, "l", 0.0, 9), (452, second, "l", 0.0, 9)]


def _funded_status(lift: float) -> list[list[Item]]:
    return [
        _text("NOTE 12. PENSION AND OTHER POSTRETIREMENT BENEFIT PLANS"),
        _text(
            "The following table sets forth the changes in benefit obligations and plan assets of our benefit plans"
        ),
        _text("(in millions):"),
        _groups("Pension Benefits", "Other Benefits"),
        [
            (72, "Year Ended December 31,", "l", 0.0, 9),
            *((x, y, "r", 0.0, 9) for x, y in zip(COLS, ("2023", "2022") * 2, strict=True)),
        ],
        _line(
            "Benefit obligation at beginning of year",
            "$ 9,428",
            "$ 9,159",
            "$ 962",
            "$ 940",
            lift=lift,
            mark="1",
        ),
        _line("Service cost", "197", "239", "17", "22"),
        _line("Interest cost", "306", "319", "29", "31"),
        _line("Benefits paid", "(341)", "(346)", "(71)", "(64)", lift=lift, mark="2"),
        _line(
            "Benefit obligation at end of year", "$ 9,590", "$ 9,428", "$ 937", "$ 962", lift=lift, mark="1"
        ),
        _line("Fair value of plan assets at beginning of year", "$ 8,371", "$ 7,689", "$ 255", "$ 245"),
        _line("Actual return on plan assets", "1,139", "690", "31", "8"),
        _line("Fair value of plan assets at end of year", "$ 9,510", "$ 8,371", "$ 286", "$ 255"),
    ]


def test_a_raised_label_is_its_figures_row(tmp_path: Path) -> None:
    path = _draw(tmp_path / "raised.pdf", [_funded_status(lift=6.0)])
    texts = [line.text for line in page_lines(parse_pdf(path).words, 2)]
    assert any(t.startswith("Benefit obligation at end of year") and "9,590" in t for t in texts)
    # a wrapped label starts a line's height away from its neighbour: it stays a line of its own
    wrapped = _draw(
        tmp_path / "wrapped.pdf", [[_text("Benefit obligation at"), _line("end of year", "9,590", "9,428")]]
    )
    assert "Benefit obligation at" in [line.text for line in page_lines(parse_pdf(wrapped).words, 2)]


def test_figures_centred_on_a_wrapped_label_join_no_line(tmp_path: Path) -> None:
    """A label wrapped over two lines, its figures set midway between them: the lines stay apart (the row
    takes both label lines); the first line's words never run into the figures."""
    wrapped = [
        (72, "Net income attributable to shareholders (a loss with a -", "l", 6.0, 9),
        (72, "sign)", "l", -6.0, 9),
        *((x, v, "r", 0.0, 9) for x, v in zip(COLS, ("2,352", "2,959"), strict=False)),
    ]
    path = _draw(tmp_path / "centred.pdf", [[_text("(in millions)"), wrapped]])
    texts = [line.text for line in page_lines(parse_pdf(path).words, 2)]
    assert texts[1:] == ["Net income attributable to shareholders (a loss with a -", "2,352 2,959", "sign)"]


def test_the_pension_columns_hold_the_rows_that_name_no_plan(tmp_path: Path) -> None:
    doc = view(_draw(tmp_path / "note.pdf", [_funded_status(lift=6.0)]), year=2023, doctype="10-K")
    for description, value in ((PBO_END, 9590), (PBO_BEGIN, 9428), (ASSETS_END, 9510)):
        found = read(doc, description)
        assert found.status is Status.FOUND and found.value == value, description
        assert found.confidence >= REVIEW_BELOW


def test_without_a_pension_header_no_row_is_the_pension_plans(tmp_path: Path) -> None:
    pages = [_funded_status(lift=0.0)]
    pages[0][3] = _groups("U.S. Plans", "Non-U.S. Plans")
    doc = view(_draw(tmp_path / "plans.pdf", pages), year=2023, doctype="10-K")
    for description in (PBO_END, ASSETS_END):
        found = read(doc, description)
        assert found.value is None or found.confidence < REVIEW_BELOW, description


def _roll_forward(obligation_heading: str) -> list[list[Item]]:
    return [
        _text("(Dollars in millions)"),
        _groups("Pension", "Other Postretirement Benefits"),
        [(x, y, "r", 0.0, 9) for x, y in zip(COLS, ("2023", "2022") * 2, strict=True)],
        _text(obligation_heading, x=60),
        _line("Beginning balance", "$80,393", "$76,745", "$6,085", "$6,431"),
        _line("Service cost", "430", "402", "94", "106"),
        _line("Gross benefits paid", "(4,700)", "(4,658)", "(487)", "(481)"),
        _line("Ending balance", "$71,424", "$80,393", "$5,114", "$6,085"),
        _text("Change in plan assets", x=60),
        _line("Beginning balance at fair value", "$64,011", "$56,692", "$143", "$134"),
        _line("Benefits paid", "(4,557)", "(4,530)", "(17)", "(16)"),
        _line("Ending balance at fair value", "$56,102", "$64,011", "$132", "$143"),
    ]


def test_a_block_heading_names_its_bare_balances(tmp_path: Path) -> None:
    doc = view(
        _draw(tmp_path / "rollforward.pdf", [_roll_forward("Change in benefit obligation")]),
        year=2023,
        doctype="10-K",
    )
    for description, value in ((PBO_END, 71424), (PBO_BEGIN, 80393), (ASSETS_END, 56102)):
        found = read(doc, description)
        assert found.status is Status.FOUND and found.value == value, description
        assert found.confidence >= REVIEW_BELOW


def test_a_heading_naming_another_item_names_no_balance(tmp_path: Path) -> None:
    doc = view(
        _draw(tmp_path / "other.pdf", [_roll_forward("Change in accrued retiree health care")]),
        year=2023,
        doctype="10-K",
    )
    for description in (PBO_END, PBO_BEGIN):
        found = read(doc, description)
        assert found.value is None or found.confidence < REVIEW_BELOW, description


def test_retirement_plans_columns_are_the_pension_plans(tmp_path: Path) -> None:
    """ "Retirement Plans | Other Benefit Plans": the defined benefit retirement plans are the pension plans;
    "Retirement Savings Plans" (a defined contribution plan) over the same figures names no pension column."""
    pages = [_funded_status(lift=0.0)]
    pages[0][3] = _groups("Retirement Plans", "Other Benefit Plans")
    doc = view(_draw(tmp_path / "retirement.pdf", pages), year=2023, doctype="10-K")
    for description, value in ((PBO_END, 9590), (ASSETS_END, 9510)):
        found = read(doc, description)
        assert found.status is Status.FOUND and found.value == value, description
        assert found.confidence >= REVIEW_BELOW
    pages[0][3] = _groups("Retirement Savings Plans", "Other Benefit Plans")
    savings = view(_draw(tmp_path / "savings.pdf", pages), year=2023, doctype="10-K")
    for description in (PBO_END, ASSETS_END):
        found = read(savings, description)
        assert found.value is None or found.confidence < REVIEW_BELOW, description
