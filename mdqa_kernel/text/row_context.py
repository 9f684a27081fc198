"""Where an English table row sits on its page: the heading of its block (the outdented label-only line
above it, or for a bare "Diluted" the line opening its block), the "Total …" row closing its block, and
the row below that deducts from it. `naming` judges a row by them: "Diluted" under "Earnings per common
share:" is the diluted EPS; a row of a deferred-tax table or of an adjusted (non-GAAP) block is not the
statement's line item; a row above "Less: accumulated depreciation" is the gross amount; a row that
"Total current assets" closes is a current line, one that a revenue total closes is operating.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from mdqa_kernel.text.layout import Cell, Line
from mdqa_kernel.text.sections import CHANGE_ONLY, asks_net, asks_non_operating, says_net
from mdqa_kernel.text.statement_context import is_english, words
from mdqa_kernel.text.values import decimal_places, is_scale_caption, parse_number

_SECTION_LOOKUP = 40  # lines above a row searched for its heading


def section_heading(lines: list[Line], row_index: int) -> str:
    """The heading of the block a row sits in: the nearest label-only English line above it that is
    outdented from the row's label; '' when an outdented data row comes first (another block)."""
    row = lines[row_index]
    x0 = row.words[0].x0
    for j in range(row_index - 1, max(row_index - _SECTION_LOOKUP, -1), -1):
        line = lines[j]
        if line.words[0].x0 >= x0 - 2:
            continue
        _label, cells, _units = line.split()
        text = line.text.strip()
        return "" if cells or not _heading_like(text) else _wrapped_heading(lines, j, text)
    return ""


def _heading_like(text: str) -> bool:
    """A label-only line's text can be a block's heading: English, a dozen words at most."""
    return is_english(text) and len(text.split()) <= 12


def _wrapped_heading(lines: list[Line], j: int, text: str) -> str:
    """A heading wrapped over lines ("Weighted-average shares used to compute Adjusted Net" / "Income
    (Loss) Per Share:"): label-only lines just above at the same indent belong to it."""
    x0 = lines[j].words[0].x0
    for k in range(j - 1, max(j - 3, -1), -1):
        above = lines[k]
        _label, cells, _units = above.split()
        line_text = above.text.strip()
        if (
            cells
            or abs(above.words[0].x0 - x0) > 2
            or line_text.endswith((":", "."))
            or not is_english(line_text)
        ):
            break
        text = f"{line_text} {text}"
    return text


# A block of adjusted (non-GAAP) figures, introduced by a label-only line ("Adjusted earnings before provision
# for taxes and net earnings", "Non-GAAP measures"): its rows repeat the statement's labels with other values.
_ADJUSTED = re.compile(r"\badjusted\b|\bnon-?\s?gaap\b|\bexcluding\s+special\s+items\b", re.IGNORECASE)
_BLOCK_LOOKUP = 12  # lines above a row searched for the label-only line that opens its block


# A row whose label is only its share basis ("Diluted", "Basic and diluted:"): the line opening its block
# names the figure, outdented or flush with it
_BARE_BASIS = re.compile(r"^\W*(?:basic|diluted)(?:\s*(?:and|&)\s*(?:basic|diluted))?\W*$", re.I)


# A row naming only the date of its balance ("Balance at beginning of year", "End of period"): a roll-forward's
# opening or closing row, the line item named by the line that opens its block ("CASH AND CASH EQUIVALENTS")
_BARE_BALANCE = re.compile(
    r"^\W*(?:balances?,?\s+)?(?:(?:at|as\s+of)\s+)?(?:the\s+)?(?:beginning|start|end)\s+of\s+(?:the\s+)?"
    r"(?:fiscal\s+)?(?:year|period|quarter)\W*$",
    re.I,
)


# A row labelled only "Total" ("Number of stores" / "Domestic" / "International" / "Total"): its block's total
_BARE_TOTAL = re.compile(r"^\W*total\W*(?:\(\d{1,2}\)\W*)?$", re.I)


# A total row naming only the part of a measure it closes ("Total current", "Total deferred") under the line
# that names the measure ("Income tax expense (benefit):" / "Current:" / … / "Total current"); the parts' own
# one-word headings ("Current:", "Deferred:") between them
_QUALIFIED_TOTAL = re.compile(r"^\W*total\s+(current|deferred)\W*$", re.I)
_PART_HEADING = re.compile(r"^\W*(?:current|deferred)\W*$", re.I)


# The column header's period line above a table ("YEAR ENDED MAY 31,", "Fiscal Years Ended January 31,"): it names
# no measure
_PERIOD_HEADER = re.compile(
    r"^\W*(?:for\s+the\s+)?(?:(?:fiscal\s+)?(?:years?|months?|quarters?|weeks?|periods?)\s+ended|as\s+of)\b",
    re.I,
)
# A lead-in sentence's frame around the measure it names: the measure is what comes before the sentence's verb,
# less a parenthesised caption ("A summary of the provision for income taxes is as follows:", "The components of
# income tax expense were as follows ($ in millions):", "Income tax expense was comprised of the following …:")
_LEAD_IN_FRAME = re.compile(
    r"^\W*(?:an?\s+summary\s+of\s+|the\s+(?:components|details)\s+of\s+)?(?:the\s+|our\s+)?"
    r"|\s*\([^)]*\)"
    r"|\s+(?:is|are|was|were|consists?|consisted|comprised?)\b.*$",
    re.I,
)


def qualified_total(lines: list[Line], row_index: int, label: str) -> str:
    """For a "Total current" / "Total deferred" row, the line its block opens with when that names the part
    ("Current tax expense"), else the part and the measure named above the part's own heading ("Current:"
    under "Income tax expense (benefit):" gives "current Income tax expense (benefit)"); '' for any other row
    or when no English line names it."""
    m = _QUALIFIED_TOTAL.match(label)
    if not m:
        return ""
    part = m.group(1).lower()
    passed = False  # the part's own heading ("Current:") is above: the next heading names the measure
    for text in _headings_above(lines, row_index, 2 * _BLOCK_LOOKUP):
        if not is_english(text):
            return ""
        if _PART_HEADING.match(text):
            passed = True
        elif passed and not (is_scale_caption(text) or _PERIOD_HEADER.match(text)):
            return f"{part} {_LEAD_IN_FRAME.sub('', text).rstrip(':').strip()}"
        elif text.lower().startswith(part):
            return text.rstrip(":").strip()  # "Current tax expense" opens the block
    return ""


def unlabeled_total(lines: list[Line], row_index: int, cells: Sequence[Cell]) -> str:
    """The name of a row printing figures only ("| 408 | 455 | 438") that closes the rows its block's heading
    opens ("Current:" over "Federal", "State", "Foreign"): "Total Current" when each of its figures adds up
    its column over those rows (two or more, as printed, within their rounding); '' otherwise."""
    parts: list[list[float]] = []
    for j in range(row_index - 1, max(row_index - _BLOCK_LOOKUP, -1), -1):
        label, values, _units = lines[j].split()
        if not values:
            heading = lines[j].text.strip()
            break
        numbers = [parse_number(w.text) for w in values]
        if not label or len(numbers) != len(cells) or None in numbers:
            return ""  # a header line, another figures-only row, or a row of other columns
        parts.append([n or 0.0 for n in numbers])
    else:
        return ""
    if len(parts) < 2 or not is_english(heading) or not re.search(r"[A-Za-z]{3}", heading):
        return ""
    for k, cell in enumerate(cells):
        if cell.value is None:
            return ""
        if abs(sum(p[k] for p in parts) - cell.value) > 0.5 * len(parts) * 10.0 ** -decimal_places(cell.text):
            return ""
    return f"Total {heading.rstrip(':').strip()}"


def row_heading(lines: list[Line], row_index: int, label: str) -> str:
    """The heading a row is read under: its outdented section's; for a row naming only its share basis
    ("Diluted" flush with "Earnings per common share" above it), only its balance's date ("Balance at
    beginning of year" flush with "CASH AND CASH EQUIVALENTS" above it), only a change ("Net increase
    (decrease) during the year") or only "Total", the line that opens its block."""
    section = section_heading(lines, row_index)
    bare = (_BARE_BASIS, _BARE_BALANCE, _BARE_TOTAL, CHANGE_ONLY)
    if section or not any(p.match(label.strip()) for p in bare):
        return section
    return block_heading(lines, row_index)


def _headings_above(lines: list[Line], row_index: int, lookup: int) -> Iterator[str]:
    """The label-only lines with a word in them above a row, nearest first, within `lookup` lines."""
    for j in range(row_index - 1, max(row_index - lookup, -1), -1):
        _label, cells, _units = lines[j].split()
        text = lines[j].text.strip()
        if not cells and re.search(r"[A-Za-z]{3}", text):
            yield text


def block_heading(lines: list[Line], row_index: int) -> str:
    """The nearest label-only English line above a row (at any indent): the line that opens its block."""
    text = next(_headings_above(lines, row_index, _BLOCK_LOOKUP), "")
    return text if is_english(text) else ""


_INDENT_SLACK = 2.0  # points a heading may sit right of the row it opens and still be at its indent


def enclosing_heading(lines: list[Line], row_index: int) -> str:
    """The nearest label-only English line above a row at the row's indent or left of it: the block a total
    closes. "United States" indented under "Current:" opens a sub-block; the "Total" at the margin below
    "Foreign" closes "Current:"."""
    left = lines[row_index].words[0].x0 if lines[row_index].words else 0.0
    for j in range(row_index - 1, max(row_index - _BLOCK_LOOKUP, -1), -1):
        _label, cells, _units = lines[j].split()
        text = lines[j].text.strip()
        if cells or not re.search(r"[A-Za-z]{3}", text):
            continue
        if lines[j].words[0].x0 <= left + _INDENT_SLACK:
            return text if is_english(text) else ""
    return ""


def adjusted_block(lines: list[Line], row_index: int, description: str) -> bool:
    """The row sits in a block of adjusted (non-GAAP) figures and the description does not ask for one."""
    return bool(_ADJUSTED.search(block_heading(lines, row_index))) and not _ADJUSTED.search(description)


# A deferred-tax table lists the tax effect of temporary differences under the line items' own names
# ("Inventory (37) (24)", "Property and equipment (169) (270)"): the row is a tax amount, not the item.
_DEFERRED_TAX = re.compile(r"\bdeferred\s+(?:income\s+)?tax(?:es)?\b|\btax\s+effects?\b", re.IGNORECASE)
_TOTAL_LOOKDOWN = 25  # lines below a row searched for the total that closes its block


TOTAL_LABEL = re.compile(r"\s*total\b", re.IGNORECASE)  # a "Total …" row or head


def closing_total(lines: list[Line], row_index: int) -> str:
    """The label of the first English "Total …" row below a row, when no label-only line (a new
    block's heading) comes first: the measure the row is a part of."""
    for j in range(row_index + 1, min(row_index + _TOTAL_LOOKDOWN, len(lines))):
        label, cells, _units = lines[j].split()
        text = " ".join(w.text for w in label).strip()
        if not cells:
            return ""
        if TOTAL_LABEL.match(text) and is_english(text):
            return text
    return ""


# "Total net revenue", "Total noninterest revenue", "Total net sales": the total a block of revenue lines closes with
_REVENUE_TOTAL = re.compile(
    r"^\W*total\s+(?:net\s+)?(?:non-?interest\s+)?(?:revenues?|sales)\b", re.IGNORECASE
)


def revenue_part(lines: list[Line], row_index: int, description: str) -> bool:
    """A row that the revenue total closes is a part of revenue, so operating: a description asking a
    non-operating item does not read it, however it is named ("Other income" among a bank's fees, above
    "Total net revenue")."""
    return asks_non_operating(description) and bool(_REVENUE_TOTAL.match(closing_total(lines, row_index)))


# "Prepaid expenses and other assets": the class a balance-sheet row ends on
_CLASS_NOUN = re.compile(r"\b(assets|liabilities)\s*$", re.IGNORECASE)


def as_current_line(lines: list[Line], row_index: int, label: str, description: str) -> str | None:
    """A balance-sheet row named without its section word, in the block that "Total current assets"
    closes ("Prepaid expenses and other assets"), read as the current line it is ("Prepaid expenses and
    other current assets") for a description that asks a current line; None otherwise."""
    asked = words(description.split("(")[0])
    m = _CLASS_NOUN.search(label)
    if m is None or "current" not in asked or {"current", "noncurrent"} & set(words(label)):
        return None
    total = closing_total(lines, row_index).lower()
    if "current" not in words(total) or m.group(1).lower() not in total:
        return None
    return f"{label[: m.start()]}current {label[m.start() :]}"


# "Total long-term debt" above "Less: current portion" (or "Less current maturities of long-term debt"): the
# debt's kind, not its non-current part; the row below it deducts the part due within a year
_LONG_TERM_DEBT = re.compile(r"^\W*(?:total\s+)?long[\s-]term\s+debt\W*$", re.IGNORECASE)
_LESS_CURRENT = re.compile(
    r"^\W*less\b\W*(?:the\s+)?current\s+(?:portions?|maturities|installments)\b", re.IGNORECASE
)


def debt_with_current_part(lines: list[Line], row_index: int, label: str) -> str:
    """ "Total debt" for a "(Total) long-term debt" row that the next row deducts the current portion from: the
    row holds every borrowing, current and long-term; '' for any other row."""
    if not _LONG_TERM_DEBT.match(label) or row_index + 1 >= len(lines):
        return ""
    below, cells, _units = lines[row_index + 1].split()
    text = " ".join(w.text for w in below)
    return "Total debt" if cells and _LESS_CURRENT.match(text) else ""


# The deduction that turns a gross amount into its net one: "Less: accumulated depreciation", "Allowance
# for doubtful accounts"
_DEDUCTION = re.compile(
    r"\baccumulated\s+(?:depreciation|amortization)|\ballowances?\s+for\s+(?:doubtful|credit|uncollectible)",
    re.I,
)


def gross_before_deduction(lines: list[Line], row_index: int, description: str) -> bool:
    """The description asks a net amount ("Property, plant and equipment, net") and the next row deducts
    accumulated depreciation or an allowance from this one: this row is the gross amount, whatever its
    label ("Total property, plant and equipment" above "Less: accumulated depreciation"). A row printing
    "net" itself is the net amount."""
    own, _cells, _units = lines[row_index].split()
    if not asks_net(description) or says_net(" ".join(w.text for w in own)):
        return False
    for j in range(row_index + 1, min(row_index + 3, len(lines))):
        label, cells, _units = lines[j].split()
        if _DEDUCTION.search(" ".join(w.text for w in label)):
            return True
        if cells:
            return False
    return False


def next_row(lines: list[Line], row_index: int) -> tuple[int, str] | None:
    """The next line with figures below a row (label-only lines between skipped, two lines at most), and
    its label; None when there is none."""
    for j in range(row_index + 1, min(row_index + 3, len(lines))):
        label, cells, _units = lines[j].split()
        if cells:
            return j, " ".join(w.text for w in label)
    return None


def names_deduction(label: str, deduction: str) -> bool:
    """The label names the deduction ("Less: Accumulated depreciation and amortization" names
    "accumulated depreciation"; "Valuation allowances" names "valuation allowance")."""
    return set(words(deduction)) <= set(words(label))


_NET_LEAD = re.compile(r"^\W*net\b", re.IGNORECASE)


def before_deduction(lines: list[Line], row_index: int, deduction: str) -> str | None:
    """The row is the gross amount the next row deducts `deduction` from ("Total deferred tax assets 928 /
    Valuation allowance (88)"): the label of the row after the deduction (the net amount: "Property and
    equipment, net"), '' when there is none; None when the next row deducts nothing so. One other row may stand
    between them when the row after the deduction is this one's net ("Net deferred tax assets/(liabilities)")."""
    below = next_row(lines, row_index)
    if below is None:
        return None
    if names_deduction(below[1], deduction):
        after = next_row(lines, below[0])
        return after[1] if after else ""
    # "Deferred tax assets / Deferred tax liabilities / Valuation allowance / Net deferred tax assets/(liabilities)":
    # one row between, when the row after the deduction nets this one ("Net …" stating its words)
    further = next_row(lines, below[0])
    if further is None or not names_deduction(further[1], deduction):
        return None
    after = next_row(lines, further[0])
    label = " ".join(w.text for w in lines[row_index].split()[0])
    if after and _NET_LEAD.match(after[1]) and set(words(label)) <= set(words(after[1])):
        return after[1]
    return None


def deferred_tax_block(lines: list[Line], row_index: int, description: str) -> bool:
    """The row is a line of a deferred-tax table (its heading or its block's total names deferred
    taxes) and the description does not ask about taxes."""
    if _DEFERRED_TAX.search(description):
        return False
    heads = (
        section_heading(lines, row_index),
        flush_heading(lines, row_index),
        closing_total(lines, row_index),
    )
    return bool(_DEFERRED_TAX.search(" ".join(heads)))


def flush_heading(lines: list[Line], row_index: int) -> str:
    """The label-only line that opens a row's block at the row's own indent (a bold heading set flush
    with its rows: "Deferred Income Tax Assets" over "Unearned revenue 494 520"); '' when a line of
    another indent, or text that is no heading, comes first."""
    x0 = lines[row_index].words[0].x0
    for j in range(row_index - 1, max(row_index - _SECTION_LOOKUP, -1), -1):
        line = lines[j]
        if abs(line.words[0].x0 - x0) > 2:
            return ""
        _label, cells, _units = line.split()
        if cells:
            continue
        text = line.text.strip()
        return text if _heading_like(text) and not text.endswith(".") else ""
    return ""


_LEAD_IN_WORDS = 6  # a lead-in is a sentence, not a block heading ("Effect of:")
_PROSE_WORDS = 12  # a label-only line this long, not ending in a colon, is prose: no lead-in above it


def prose_line(line: Line, min_words: int = _PROSE_WORDS) -> bool:
    """A line of a paragraph or a footnote: one run of words (no column gap) ending a sentence, or `min_words`
    long; a column header spread over a table is none, however many words it has."""
    text = line.text.strip()
    return line.one_group and (text.endswith(".") or len(text.split()) >= min_words)


def lead_in(lines: list[Line], row_index: int) -> str:
    """The sentence that introduces a row's table ("The items accounting for the difference between income
    taxes computed at the U.S. federal statutory rate and our effective rate were as follows:"): the nearest
    label-only sentence above the row ending in a colon, with the lines it wraps from, or a paragraph presenting
    the table ("The following table summarizes …"), whatever it ends with; '' when other prose comes first (the
    table has no lead-in, or the row is below the text). A column header spread over the table is no prose."""
    for j in range(row_index - 1, max(row_index - _SECTION_LOOKUP, -1), -1):
        _label, cells, _units = lines[j].split()
        text = lines[j].text.strip()
        if cells:
            continue
        if text.endswith(":"):
            sentence = _wrapped_sentence(lines, j, text)
            if len(sentence.split()) >= _LEAD_IN_WORDS and is_english(sentence):
                return sentence
            continue
        # a column header spread over the table ("Description of Commitment   Cash Payments Due During the Year
        # Ending May 31,") is no prose, however many words it has
        if prose_line(lines[j]):
            # "The following table summarizes … obligations … . To satisfy these obligations, …": a paragraph
            # that presents the table introduces it, whatever it ends with
            sentence = _wrapped_sentence(lines, j, text)
            return sentence if _PRESENTS_TABLE.search(sentence) and is_english(sentence) else ""
    return ""


_PRESENTS_TABLE = re.compile(r"\b(?:the\s+following\s+table|the\s+table\s+below)\b", re.IGNORECASE)


# A lead-in that restricts its table to some of the items: "For these plans, …", "plans with projected benefit
# obligations in excess of plan assets", "for those contracts"
_SUBSET = re.compile(
    r"\bfor\s+(?:these|those|such)\s+(?:\w+\s+){0,2}\w+,"
    r"|\bwith\s+(?:an?\s+)?(?:\w+\s+){1,5}in\s+excess\s+of\b",
    re.IGNORECASE,
)


def subset_table(lines: list[Line], row_index: int, description: str) -> bool:
    """The row's table is introduced as covering only some of the items ("For these plans, the projected
    benefit obligations … were as follows:") and the description does not restrict itself the same way."""
    sentence = lead_in(lines, row_index)
    return bool(sentence and _SUBSET.search(sentence)) and not _SUBSET.search(description)


def _wrapped_sentence(lines: list[Line], j: int, text: str) -> str:
    """A sentence ending on line j with the label-only lines above it that it wraps from (up to three,
    back to the line ending the sentence before or to the table's scale caption)."""
    for k in range(j - 1, max(j - 4, -1), -1):
        _label, cells, _units = lines[k].split()
        above = lines[k].text.strip()
        if cells or above.endswith((".", ":")) or is_scale_caption(above):
            break
        text = f"{above} {text}"
    return text
