"""The number grammar (`text.values`) and label/value separation (`text.layout.Line.split`).

One parser reads every printed number: Western and Indian digit grouping (a malformed grouping is not
a number), negatives in parentheses or with a minus, dashes for "no value", full-width digits, currency
signs including the mangled rupee ("`", "H"), percentages kept apart from points, and a scale word in
the cell. A row's label keeps the numbers that belong to it ("Scope 1", "CO 2", "Note 12", a date, a
footnote mark); its values are the cells right of it.
"""

from __future__ import annotations

import pytest

from mdqa_kernel.text.layout import Line, Word
from mdqa_kernel.text.values import (
    find_numbers,
    is_absent,
    is_number_shaped,
    is_valid_grouping,
    parse_number,
    read_number,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,234.5", 1234.5),
        ("1234567", 1234567.0),
        ("(1,234)", -1234.0),
        ("（1,234）", -1234.0),
        ("-1,234", -1234.0),
        ("−42", -42.0),
        ("–7.5", -7.5),
        ("+5", 5.0),
        ("$(1,234)", -1234.0),
        ("$ 1,234", 1234.0),
        ("(12)%", -12.0),
        ("(12%)", -12.0),
        ("12.5%", 12.5),
        ("12.5 %", 12.5),
        (".5", 0.5),
        # Indian grouping: two-digit groups before the last three
        ("85,12,14,381", 851214381.0),
        ("1,23,45,678", 12345678.0),
        ("1,00,000", 100000.0),
        ("12,34,567.89", 1234567.89),
        # full-width digits, comma and period
        ("７，１７６．５", 7176.5),
        ("８５，１２，１４，３８１", 851214381.0),
        # currency signs, the rupee as extraction mangles it
        ("₹ 1,234", 1234.0),
        ("Rs. 500", 500.0),
        ("Rs 1,00,000", 100000.0),
        ("INR 2,500", 2500.0),
        ("` 85,12,14,381", 851214381.0),
        ("`1,234", 1234.0),
        ("H85,12,14,381", 851214381.0),
        ("H 1,234.50", 1234.5),
        ("US$5", 5.0),
        ("¥3,000", 3000.0),
    ],
)
def test_numbers(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize(
    "text",
    [
        # malformed groupings are not numbers (a wrapped cell's piece, two numbers run together)
        "1,234,56",
        "12,34",
        "5,634,27",
        "1,2345",
        "12,345,6789",
        "1,23,4567",
        "123,45,678",
        "7,176,243,",
        # dashes and words: no value
        "-",
        "—",
        "–",
        "--",
        "N/A",
        "不适用",
        "abc",
        # two numbers, dates, versions, a label's number
        "12 34",
        "31.03.2025",
        "1.2.3",
        "CO2",
        "PM2.5",
        "H1",  # a half year, not a mangled rupee: no grouping after it
        "12)",  # the end of "(Note 12)"
        # units that change what the number means are for read_number
        "120 bps",
        "1.2 pp",
        "1,234 crore",
        "1,768万元",
    ],
)
def test_not_plain_numbers(text):
    assert parse_number(text) is None


def test_percent_points_and_scale_words_are_kept_apart():
    pct = read_number("12.5%")
    assert pct is not None and pct.percent and pct.points is None and pct.value == 12.5
    bps = read_number("120 bps")
    assert bps is not None and bps.points == "bps" and not bps.percent and bps.value == 120
    pp = read_number("-1.2 pp")
    assert pp is not None and pp.points == "pp" and pp.value == -1.2
    assert read_number("(0.5) p.p.").points == "pp"
    crore = read_number("1,234 crore")
    assert crore is not None and crore.scale_word == "crore" and crore.value == 1234
    assert read_number("12,34,567 lakhs").scale_word == "lakhs"
    assert read_number("1,768万元").scale_word == "万元"
    assert read_number("` 1,234").currency == "`" and read_number("₹1,234").currency == "₹"


def test_dashes_are_absent_not_numbers():
    for dash in ("-", "—", "–", "--", "N/A", "n/a", "nil", "不适用", "-%"):
        assert is_absent(dash) and read_number(dash) is None
    assert not is_absent("-5") and not is_absent("Revenue")


def test_grouping_and_shape():
    for good in ("5,634,274,230.28", "85,12,14,381", "1,234", "(1,234)", "12.5%", "`1,234", "H1,234"):
        assert is_valid_grouping(good), good
    for bad in ("5,634,27", "7,176,243,", "1,23,4567", "12,34"):
        assert not is_valid_grouping(bad), bad
    # a wrapped cell's pieces are number-shaped (the layout joins them and then checks the grouping)
    for piece in ("7,176,243,", ",955.66", "5,634,27", "743.45", "(1,234", "４，５６７", "120bps"):
        assert is_number_shaped(piece), piece
    for word in ("Revenue", "CO2", "31.03.2025", "1.2.3", "-", "2023年", "H1"):
        assert not is_number_shaped(word), word


def test_find_numbers_in_text():
    text = "CO2 fell 12% in FY2023; capital 85,12,14,381 and ranges 2020-2021, not 12,34 or 5,634,27."
    found = [(v, text[s:e], pct) for v, s, e, pct in find_numbers(text)]
    assert found == [
        (12.0, "12%", True),
        (851214381.0, "85,12,14,381", False),
        (2020.0, "2020", False),
        (2021.0, "2021", False),  # a range's hyphen is not a minus
    ]
    # the span stops before a scale word, which callers read after it
    [(value, _start, end, _pct)] = find_numbers("社会捐赠额：1,768万元")
    assert value == 1768 and "社会捐赠额：1,768万元"[end:] == "万元"
    assert find_numbers("净利润为（1,234）元")[0][0] == -1234


# -- label / value separation -----------------------------------------------------------------


def _line(*cells: tuple[float, str], size: float = 10.0, raised: set[int] = frozenset()) -> Line:
    """A visual line from (x0, text) words; a word's width is 0.5 em per character."""
    words = []
    for k, (x0, text) in enumerate(cells):
        h = 0.6 * size if k in raised else size
        top = 100.0 - (0.5 * size if k in raised else 0.0)
        words.append(Word(text, x0, top, x0 + 0.5 * h * len(text), top + h))
    return Line(1, 0, words)


def _phrase(x0: float, text: str, size: float = 10.0) -> list[tuple[float, str]]:
    """The words of a phrase set with ordinary spaces (a quarter em) from x0."""
    out, x = [], x0
    for word in text.split():
        out.append((x, word))
        x += 0.5 * size * len(word) + 0.25 * size
    return out


def _split(line: Line) -> tuple[str, list[str]]:
    label, cells, units = line.split()
    return " ".join(w.text for w in label), [
        w.text + (f" {units[id(w)]}" if id(w) in units else "") for w in cells
    ]


@pytest.mark.parametrize(
    ("label", "values", "want_label", "want_cells"),
    [
        ("Scope 1 emissions (tCO 2 e)", ["12,345", "11,002"], None, ["12,345", "11,002"]),
        ("Emissions Scope 1", ["12,345", "11,002"], None, ["12,345", "11,002"]),
        ("Scope 1, 2 and 3", ["40,000"], None, ["40,000"]),
        ("Additions, net of $48, $92 and $14 of accruals", ["(582)", "(649)"], None, ["(582)", "(649)"]),
        ("Additions, net of $48, $92 and $14 of non-cash", [], None, []),
        ("Emissions of CO 2", ["5,000"], None, ["5,000"]),
        ("PM 2.5 concentration", ["35"], None, ["35"]),
        ("Revenue (Note 4)", ["1,23,45,678"], None, ["1,23,45,678"]),
        ("Trade receivables Note 12", ["4,567", "3,210"], None, ["4,567", "3,210"]),
        ("Paid-up capital as on March 31, 2025", ["85,12,14,381"], None, ["85,12,14,381"]),
        ("Balance as at 31 March 2025", ["1,234"], None, ["1,234"]),
        ("Revenue for fiscal 2023", ["9,876"], None, ["9,876"]),
        ("Revenue (1)", ["1,234", "1,100"], None, ["1,234", "1,100"]),
        ("1. Revenue from operations", ["1,234"], None, ["1,234"]),
        ("(a) Other income", ["567"], None, ["567"]),
        ("Other income", ["—", "1,234"], None, ["—", "1,234"]),
        ("Revenue — Americas", ["1,234"], None, ["1,234"]),
        ("Translation adjustments", ["(207", ")"], "Translation adjustments", ["(207 )"]),
        ("Revenue from operations", ["1,234", "crore"], None, ["1,234 crore"]),
        ("Margin change", ["120", "bps"], None, ["120 bps"]),
    ],
)
def test_label_keeps_its_numbers(label, values, want_label, want_cells):
    words = _phrase(72, label)
    x = 300.0
    for v in values:
        if v in (")", "crore", "bps"):  # a unit set right after its number
            last_x, last = words[-1]
            words.append((last_x + 0.5 * 10 * len(last) + 2.0, v))
            continue
        words.append((x, v))
        x += 90
    got_label, got_cells = _split(_line(*words))
    assert got_label == (want_label or label)
    assert got_cells == want_cells


def test_mangled_rupee_and_footnote_marks():
    # "` 85,12,14,381": the backtick is the rupee sign; "H 1,234" too, but not "H" in a label
    assert _split(_line(*_phrase(72, "Share capital"), (300, "`"), (308, "85,12,14,381"))) == (
        "Share capital",
        ["85,12,14,381"],
    )
    assert _split(_line(*_phrase(72, "Net worth"), (300, "H"), (308, "1,23,456"))) == (
        "Net worth",
        ["1,23,456"],
    )
    assert _split(_line(*_phrase(72, "Class H shares"), (300, "1,234"))) == ("Class H shares", ["1,234"])
    # a raised, smaller digit right after the label is a footnote mark; so is a superscript
    raised = _line((72, "Revenue"), (108, "2"), (300, "1,234"), (390, "1,100"), raised={1})
    assert _split(raised) == ("Revenue 2", ["1,234", "1,100"])
    assert _split(_line((72, "Revenue"), (108, "¹"), (300, "1,234"))) == ("Revenue ¹", ["1,234"])


def test_rows_without_label_and_headers():
    # the wrapped tail of a row above has no label: all cells
    assert _split(_line((300, "743.45"), (390, "4,230.28"))) == ("", ["743.45", "4,230.28"])
    # a date in a header is not a value: "December 31, 2023" holds no cell
    assert _split(_line(*_phrase(72, "December 31, 2023"))) == ("December 31, 2023", [])
    # a year after a column gap heads its column, though it would complete the date before it
    header = _line(*_phrase(72, "Year Ended December 31,"), (430, "2017"), (490, "2016"), (550, "2015"))
    assert _split(header) == ("Year Ended December 31,", ["2017", "2016", "2015"])
    # a sentence's numbers stay in it; only a number after a column gap is a value
    assert _split(_line(*_phrase(72, "Revenue grew 12% in 2023 to"), (400, "5,000"))) == (
        "Revenue grew 12% in 2023 to",
        ["5,000"],
    )


def test_chinese_labels_keep_their_numbers():
    # words as a Chinese PDF gives them when the label is set with spaces: "2023 年 12 月 31 日"
    date = _line(*_phrase(72, "截至 2023 年 12 月 31 日 余额", size=10), (300, "1,234.56"))
    assert _split(date)[1] == ["1,234.56"]
    note = _line(*_phrase(72, "应收账款 附注五、 1", size=10), (300, "5,678.00"), (400, "4,321.00"))
    assert _split(note) == ("应收账款 附注五、 1", ["5,678.00", "4,321.00"])
    # a column gap in a Chinese table is about an em: the number after it is a value
    shares = _line((72, "沪深"), (92, "300"), (110, "指数基金"), (300, "8,373,323"), (355, "人民币普通股"))
    assert _split(shares) == ("沪深 300 指数基金", ["8,373,323"])


@pytest.mark.parametrize(
    "words",
    [
        [(72, "The"), (90, "Company"), (140, "sells"), (175, "products")],  # prose: the fast path
        [(72, "Revenue"), (300, "$"), (310, "Americas")],  # a lone currency sign is never label text
        [(72, "Other"), (300, "—"), (390, "N/A")],  # dash cells
        [(72, "Total"), (300, "nil"), (390, "－")],  # a full-width dash
        [(72, "Sales"), (300, "１２３"), (390, "²")],  # full-width and superscript digits
        [(72, "Net"), (90, "worth"), (300, "H"), (308, "1,23,456")],  # a mangled rupee before an amount
        [(72, "Class"), (100, "H"), (115, "shares")],  # "H" inside a label
        [(72, "无"), (100, "不适用")],  # Chinese dashes
        [(72, "¥"), (80, "€")],  # currency signs only
        [(72, "(see"), (100, "Note"), (130, "three)")],
    ],
)
def test_the_prose_fast_path_splits_as_the_full_rules_do(words):
    """`Line.split` skips the cell rules for a line without a digit or a dash; the result must be the
    one the full rules give (text.layout.split_words)."""
    from mdqa_kernel.text.layout import split_words

    line = _line(*words)
    fast = line.split()
    full = split_words(_line(*words).words)
    assert [w.text for w in fast[0]] == [w.text for w in full[0]]
    assert [w.text for w in fast[1]] == [w.text for w in full[1]]
    assert sorted(fast[2].values()) == sorted(full[2].values())
