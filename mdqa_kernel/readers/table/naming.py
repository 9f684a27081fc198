"""How well a table row or a "label: value" line names a field: the field's labels, and the score a
row's label, its wrapped fragments and its section heading earn against them (string match, head words
covered, how specific the label is for the description)."""

from __future__ import annotations

import re
from dataclasses import replace

from mdqa_kernel.readers.base import FieldLike
from mdqa_kernel.readers.confidence import (
    ADJUSTED_BLOCK,
    GROSS_UNSAID,
    LEAD_IN_NAMED,
    NET_UNSAID,
    PART_OF_ASKED_TOTAL,
    SUBSET_TABLE,
)
from mdqa_kernel.readers.semantics import field_basis
from mdqa_kernel.readers.table.arithmetic import sums_to
from mdqa_kernel.readers.table.candidates import Candidate, label_before
from mdqa_kernel.readers.table.columns import qualified_columns
from mdqa_kernel.text.deductions import GROSS_WORDS, asked_deduction
from mdqa_kernel.text.headers import spanning_headers
from mdqa_kernel.text.holders import class_first, without_attributable
from mdqa_kernel.text.label_periods import balance_name
from mdqa_kernel.text.labels import LabelSet, field_labels, label_score, normalize_label
from mdqa_kernel.text.layout import Cell, Line
from mdqa_kernel.text.row_context import (
    TOTAL_LABEL,
    adjusted_block,
    as_current_line,
    before_deduction,
    block_heading,
    closing_total,
    debt_with_current_part,
    deferred_tax_block,
    enclosing_heading,
    gross_before_deduction,
    lead_in,
    names_deduction,
    next_row,
    qualified_total,
    revenue_part,
    row_heading,
    subset_table,
    unlabeled_total,
)
from mdqa_kernel.text.rows import Row
from mdqa_kernel.text.sections import (
    asks_net,
    basic_count_label,
    change_row,
    operating_adjustment,
    other_share_basis,
    says_net,
    section_refuses,
    share_bases,
    with_section,
)
from mdqa_kernel.text.segments import SEGMENT_FIT, measure_columns, segment_ask, segment_fit
from mdqa_kernel.text.statement_context import (
    balance_words_left,
    bare_balance,
    description_heads,
    head_cover,
    head_needs,
    head_words_left,
    heads_left_to_lead_in,
    heads_left_to_total,
    is_english,
    lead_in_names,
    specificity,
    words,
)
from mdqa_kernel.text.values import is_scale_caption


def field_label_set(field: FieldLike) -> LabelSet:
    """The field's labels; for an English description also the line item without its qualifiers and
    its alternative name ("Total revenue (net sales) …" names "net sales")."""
    labels = field_labels(field.name, field.description)
    if not is_english(field.description):
        return labels
    heads = [normalize_label(h) for h in description_heads(field.description)]
    extra = tuple(h for h in heads if len(h) >= 2 and h not in labels.all)
    return LabelSet(labels.primary + extra, labels.synonyms)


def row_score(page_ls: list[Line], row: Row, labels: LabelSet, field: FieldLike) -> float:
    """How well a table row names the field. English statements: its section counts too (no amount
    from a per-share block, no balance from a "changes in …" block: 0) and how specific its label is."""
    # "| 408 | 455 | 438" adding up "Federal", "State", "Foreign" under "Current:" is their total
    if not row.label:
        row = _named_unlabeled(page_ls, row, field.description)
    # A row without label fragments has one text three times over (label, extended label, its one
    # variant): each distinct text is scored once, the best score is the same.
    texts = list(dict.fromkeys([row.label, row.extended_label, *row.variants]))
    if not (is_english(row.label or row.extended_label) and is_english(field.description)):
        return max(label_score(v, labels) for v in texts)
    if (ask := segment_ask(field.description)) is not None:
        # "Revenue of the Intelligent Cloud segment": the segment's row under the measure's heading
        fit = segment_fit(row.label, block_heading(page_ls, row.line.index), ask)
        # "FLNA" under the "Net Revenue" run of columns (`qualified_columns` keeps the run's cells)
        if not fit and measure_columns(row.label, spanning_headers(page_ls, row.line.index, row.cells), ask):
            fit = SEGMENT_FIT
        return fit
    if refused_row(page_ls, row, field):
        return 0.0
    section = row_heading(page_ls, row.line.index, row.label)
    if section:
        texts.append(with_section(section, row.label))
    if current := as_current_line(page_ls, row.line.index, row.label, field.description):
        texts.append(current)
    if part := qualified_total(page_ls, row.line.index, row.label):
        texts.append(part)
    # "Change in deferred income taxes" among the operating adjustments the description places its line in
    own = operating_adjustment(row.label, field.description)
    texts = [operating_adjustment(t, field.description) for t in texts]
    fit = max(_english_fit(v, labels, field.description, own) for v in texts)
    # "Total long-term debt" above "Less: current portion": its "long-term" restricts nothing, it is the total
    if debt := debt_with_current_part(page_ls, row.line.index, row.label):
        fit = max(fit, _english_fit(debt, labels, field.description, debt))
    fit = fit or _context_fit(page_ls, row, labels, field.description)
    if deduction := asked_deduction(field.description):
        fit = _gross_fit(page_ls, row, field.description, deduction, fit)
    if fit and adjusted_block(page_ls, row.line.index, field.description):
        fit = round(fit * ADJUSTED_BLOCK, 4)
    if fit and subset_table(page_ls, row.line.index, field.description):
        fit = round(fit * SUBSET_TABLE, 4)
    if fit and _part_of_asked_total(page_ls, row, labels, field, fit):
        fit = round(fit * PART_OF_ASKED_TOTAL, 4)
    return fit


def _context_fit(page_ls: list[Line], row: Row, labels: LabelSet, description: str) -> float:
    """A label naming the line item with words the table around it states, ranked below a label that names
    it alone: its lead-in sentence's (`lead_in_names`; a bare "Total" closing the table its lead-in names,
    for a total), the words its heading, lead-in or one column header states (`head_words_left`), a block's
    total its heading and lead-in (`_block_total_named`), a roll-forward's bare balance its block heading
    (`balance_words_left`), the noun its block's total, heading or lead-in states (`heads_left_to_total`), a
    dated balance's item its heading or lead-in states (`_heads_left_to_table`), or a basic block heading's
    share basis (`basic_count_label`).
    The lines above a row are looked at only for a label that can be so named."""
    index = row.line.index
    heads = heads_left_to_lead_in(row.label, description)
    left = head_words_left(row.label, description)
    if (
        (heads and lead_in_names(heads, lead_in(page_ls, index)))
        # "Operating cash flows from operating leases" under "Cash paid for amounts included in the measurement
        # of lease liabilities:": the heading states the words the label leaves out
        or (left and any(missing <= _table_words(page_ls, index, closing=False) for missing in left))
        # "Total future undiscounted lease payments | 3,033 | 46" under "Operating Leases | Finance Leases"
        or (left and qualified_columns(page_ls, row, row.cells, description))
        # "Total Deferred" closing "Deferred:" in "The provision for income taxes consisted of the following:"
        or _block_total_named(page_ls, row, description)
    ):
        return _named_by_table(row, description)
    # "Ending balance" under "Change in benefit obligation", in the column headed "Pension"
    balance = (
        balance_words_left(row.label, block_heading(page_ls, index), description)
        if bare_balance(row.label)
        else ()
    )
    if any(not missing for missing in balance) or (
        balance and qualified_columns(page_ls, row, row.cells, description)
    ):
        return round(0.9 * LEAD_IN_NAMED, 4)
    # "Total" closing the table "The following table summarizes our contractual obligations …:" introduces
    if (
        _closing_bare_total(page_ls, row)
        and _asks_total(description)
        and lead_in_names(head_needs(description), lead_in(page_ls, index))
    ):
        return round(0.9 * LEAD_IN_NAMED, 4)
    # "Finished goods" above "Total inventories", under "Inventories:" or "… inventories were comprised of:"
    nouns = heads_left_to_total(row.label, description)
    if nouns and any(noun <= _table_words(page_ls, index) for noun in nouns):
        return _named_by_table(row, description)
    # "Outstanding at December 31, 2022" in the table "A summary of our stock option activity …:"
    states = _heads_left_to_table(row.label, description)
    if states and any(need <= _table_words(page_ls, index, closing=False) for need in states):
        return round(0.9 * LEAD_IN_NAMED, 4)
    basic = basic_count_label(row.label, description)
    if basic and share_bases(block_heading(page_ls, index)) == {"basic"}:
        return round(_english_fit(basic, labels, description, row.label) * LEAD_IN_NAMED, 4)
    return 0.0


def _block_total_named(page_ls: list[Line], row: Row, description: str) -> bool:
    """A total closing the block its heading opens ("Total Deferred" under "Deferred:", "Total current" or a bare
    "Total" under "Current:") in a table whose lead-in states the rest of a head ("The provision for income taxes
    consisted of the following:" for "Deferred income tax expense"): the label says nothing besides "total" but
    the heading's words, each a word of the head."""
    said = words(row.label)
    rest = set(said) - {"total"}
    heading = set(words(enclosing_heading(page_ls, row.line.index)))
    if "total" not in said or not heading or rest not in (set(), heading):
        return False
    lead = set(words(lead_in(page_ls, row.line.index)))
    return any(heading <= need <= heading | lead for need in head_needs(description))


def _named_by_table(row: Row, description: str) -> float:
    """The score of a label its table completes: a full name's, less for needing the table, times how specific
    the label's own words are."""
    return round(0.9 * specificity(row.label, description, row.label) * LEAD_IN_NAMED, 4)


def _gross_fit(page_ls: list[Line], row: Row, description: str, deduction: str, fit: float) -> float:
    """An amount asked before a deduction (text/deductions.py): the row the deduction's row follows is the
    gross amount, a bare "Total" or "Total, at cost" there too when its table's lead-in or the net row below
    the deduction names the line item ("Total, at cost / Accumulated depreciation / Total, net" under "The
    components of property and equipment were as follows:"). A row naming the line item elsewhere without
    printing its gross basis may be the net amount (GROSS_UNSAID)."""
    net_label = before_deduction(page_ls, row.line.index, deduction)
    if net_label is not None:
        if fit == 0.0 and _bare_total(row.label):
            needs = head_needs(description)
            named = any(
                lead_in_names(needs, text)
                for text in (
                    lead_in(page_ls, row.line.index),
                    net_label,
                    block_heading(page_ls, row.line.index),
                )
            )
            return round(0.9 * LEAD_IN_NAMED, 4) if named else 0.0
        return fit
    if fit and not GROSS_WORDS & set(words(row.label)):
        return round(fit * GROSS_UNSAID, 4)
    return fit


def _named_unlabeled(page_ls: list[Line], row: Row, description: str) -> Row:
    """A row printing figures only, named by what it adds up: "| 408 | 455 | 438" under "Current:" over
    "Federal", "State", "Foreign" is "Total Current"; for an amount asked before a deduction, one the next row
    turns into the net row ("| 49,784 | 46,828" over "Accumulated depreciation | (25,493)" and "Total | 24,291")
    is the table's total at cost, a bare "Total" whose table names it (`_gross_fit`), whatever the heading
    over its block ("Property, plant and equipment, net", "Assets")."""
    deduction = asked_deduction(description)
    if deduction and _gross_of_net(page_ls, row, deduction):
        name = "Total"
    else:
        name = unlabeled_total(page_ls, row.line.index, row.cells)
    return replace(row, label=name, extended_label=name, variants=[name]) if name else row


def _gross_of_net(page_ls: list[Line], row: Row, deduction: str) -> bool:
    """The next row deducts `deduction` from this one and the row after it is the net amount: in every column,
    this row's figure less the deduction is the net figure, to the rounding of the printed figures (the
    deduction printed "(25,493)" or "25,493" under "Less")."""
    below = next_row(page_ls, row.line.index)
    if below is None or not names_deduction(below[1], deduction):
        return False
    after = next_row(page_ls, below[0])
    if after is None:
        return False
    deducted, net = (_line_cells(page_ls[j]) for j in (below[0], after[0]))
    if not len(row.cells) == len(deducted) == len(net) >= 1:
        return False
    return all(
        g.value is not None
        and d.value is not None
        and n.value is not None
        and sums_to(n.value, [g.value, -abs(d.value)], (g, d, n))
        for g, d, n in zip(row.cells, deducted, net, strict=True)
    )


def _line_cells(line: Line) -> list[Cell]:
    """A line's value cells, one word each."""
    _label, cells, units = line.split()
    return [Cell(w.text, [w], units.get(id(w))) for w in cells]


def _heads_left_to_table(label: str, description: str) -> tuple[frozenset[str], ...]:
    """The words a roll-forward's dated balance row leaves to its table: the row names only the state of the
    line item ("Outstanding at December 31, 2022" for "Stock options outstanding"), each head's other words
    when there are two or more. () for a row that is not a dated balance or names a word outside the head."""
    name = balance_name(label)
    if name == label:
        return ()
    have = set(words(name))
    # one word left ("share" of "Common shares outstanding") is named by chance ("market-based share awards")
    return tuple(
        need - have for need in head_needs(description) if have and have < need and len(need - have) >= 2
    )


def _bare_total(label: str, basis: frozenset[str] = GROSS_WORDS) -> bool:
    """A total row that names nothing but its basis: "Total", "Total, at cost"."""
    said = set(words(label))
    return bool(said) and said <= basis | {"total"}


def _net_of(label: str, deduction: str) -> bool:
    """For an amount asked before `deduction`: the label states the deduction made ("Total deferred tax
    assets after valuation allowance", "Property and equipment, net"), or is the deduction's own row."""
    return says_net(label) or (
        names_deduction(label, deduction) and not re.search(r"\bbefore\b", label, re.I)
    )


def _asks_total(description: str) -> bool:
    """The description's line item is a total ("Total contractual obligations …")."""
    heads = description_heads(description)
    return bool(heads) and bool(TOTAL_LABEL.match(heads[0]))


def _closing_bare_total(page_ls: list[Line], row: Row) -> bool:
    """A bare "Total" row that closes its table: no row with figures follows it."""
    return _bare_total(row.label, frozenset()) and next_row(page_ls, row.line.index) is None


def _table_words(page_ls: list[Line], index: int, closing: bool = True) -> set[str]:
    """The words of what names a row's table: its heading, its lead-in and (`closing`) the total closing its
    block. A column header does not: "Number of Shares" heads an option table's counts as well as a share
    count's."""
    named = (
        closing_total(page_ls, index) if closing else "",
        block_heading(page_ls, index),
        lead_in(page_ls, index),
    )
    return {w for text in named for w in words(text)}


def _part_of_asked_total(
    page_ls: list[Line], row: Row, labels: LabelSet, field: FieldLike, fit: float
) -> bool:
    """The description asks for a total ("Total revenue (net sales)") and the row's block closes with a
    "Total …" row that names the field as well as the row does ("Revenues: / Net sales / Membership and
    other income / Total revenues"): the row is a part of the asked total, whatever its other name."""
    if not _asks_total(field.description) or TOTAL_LABEL.match(row.label):
        return False
    total = closing_total(page_ls, row.line.index)
    return bool(total) and _english_fit(total, labels, field.description, total) >= fit


# A row label that states its per-share amount in parentheses ("Cash dividends declared ($5.97 per share)",
# "Dividends (per share — $1.48, $1.40 and $1.32 in …)"): the row's figures are the total amounts.
_PER_SHARE_NOTE = re.compile(
    r"\([^)]*(?:\$\s?\d[^)]*\bper\s+(?:common\s+)?share\b|\bper\s+(?:common\s+)?share\b[^)]*\$\s?\d)", re.I
)


_ASKS_NONCURRENT = re.compile(
    r"\b(?:excluding|excludes|less|net\s+of|without)\s+(?:the\s+)?current\s+(?:portions?|maturities)\b"
    r"|\bnon-?\s?current\b",
    re.IGNORECASE,
)


def refused_row(page_ls: list[Line], row: Row, field: FieldLike) -> bool:
    """The row cannot hold the field, whatever else its label says: an amount in a per-share block, a
    balance in a block of changes or on a row naming a change, a row of the other share basis's block
    (outdented heading or not), a deferred-tax table's "Inventory (37) (24)" (a tax amount), a part of
    revenue for a non-operating item; for a per-share field, a row whose label states its per-share
    amount in a note (the row holds the totals); a header line labelled only by the table's scale caption; for
    an amount asked before a deduction, a row stating the deduction made; for debt asked without its current
    portion, the long-term debt the next row deducts it from."""
    if is_scale_caption(row.label):
        return True  # "(In millions) 2017 2018-2019 … Total": the table's header line, its years no values
    per_share = field_basis(field) is not None
    if per_share and _PER_SHARE_NOTE.search(row.line.text):  # the note's amounts may be read as cells
        return True
    section = row_heading(page_ls, row.line.index, row.label)
    if section_refuses(section, field.description, per_share, row.label):
        return True
    # only a field naming its share basis looks further up for the heading of the row's block
    if share_bases(field.description) and other_share_basis(
        section or block_heading(page_ls, row.line.index), field.description, row.label
    ):
        return True
    if not is_english(field.description):
        return False
    deduction = asked_deduction(field.description)
    return (
        bool(deduction and _net_of(row.label, deduction))
        or change_row(row.label, field.description)
        or deferred_tax_block(page_ls, row.line.index, field.description)
        or gross_before_deduction(page_ls, row.line.index, field.description)
        or revenue_part(page_ls, row.line.index, field.description)
        # "Total long-term debt" above "Less: current portion" holds the current part the field leaves out
        or bool(
            _ASKS_NONCURRENT.search(field.description)
            and debt_with_current_part(page_ls, row.line.index, row.label)
        )
    )


def _english_fit(text: str, labels: LabelSet, description: str, own_label: str) -> float:
    """An English row label's score: the string match, the label without its "attributable to …"
    clause, or its words covering the description's head — times how specific it is (a component or
    a noncontrolling share scores lower or zero; see text/statement_context.py)."""
    if not is_english(text):
        return label_score(text, labels)
    base = max(
        label_score(text, labels),
        label_score(without_attributable(text), labels),
        label_score(class_first(text), labels),
        label_score(balance_name(text), labels),  # "Unrecognized tax benefits – December 31"
        head_cover(text, description),
    )
    if base == 0.0:
        return 0.0  # no name of the field: how specific the label is does not matter
    if asks_net(description) and not says_net(text):
        base *= NET_UNSAID
    # "Accrued compensation and employee benefit costs", a glossary name of accrued compensation and
    # benefits: the row's own words are the name, no component's restriction (a heading over the row, such
    # as "Revenue" over "Transaction-based revenue", is no name of the row)
    norm = normalize_label(text)
    known = norm in labels.all and norm == normalize_label(own_label)
    return round(base * specificity(text, description, own_label, known_name=known), 4)


def specific(cand: Candidate, description: str) -> Candidate:
    """A "label: value" line judged like a table row's label: how specific it is for the description
    (so "Net income $ 20,234" does not outrank "Net income attributable to X" in the statements)."""
    label = label_before(cand)
    if is_english(label) and is_english(description):
        cand.score = round(cand.score * specificity(label, description), 4)
    return cand


def gross_unsaid(cand: Candidate, description: str) -> Candidate:
    """A sentence or "label: value" line read for an amount asked before a deduction that prints no gross
    basis ("proceeds from the sale of property and equipment of $0.3 million" for the gross property and
    equipment): held for review, as a table row naming the line item elsewhere is (`_gross_fit`)."""
    if asked_deduction(description) and not GROSS_WORDS & set(words(cand.snippet)):
        cand.score = round(cand.score * GROSS_UNSAID, 4)
    return cand
