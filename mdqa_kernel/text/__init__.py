"""A lower layer of text knowledge shared by the planner, the readers, answers and judges:
labels and their glossary (`labels`), page layout into lines, rows and period headers (`layout`),
periods of headers, fields and reports (`periods`) and whether a column holds the asked one (`period_fit`),
numbers, scales, dates and typed values (`values`), the plan's field types and the one `coerce`
(`fieldtypes`), the CJK class and the zh/en detector (`language`), Chinese numerals (`numerals`),
normalisation for comparing text and entities (`normalize`), and the word lists the readers and the
planner share (`words`), kept as data files under `data/` (`datafiles`). It imports no stage."""

from __future__ import annotations


def clear_caches() -> None:
    """Forget the label caches (normalised labels, label scores, label words, description heads).

    They pay off within one document (every field is read against the same rows); an extraction
    clears them after each document, so a worker's memory does not grow with the documents it has
    read and a collection of near-copies is not read faster than one of distinct filings."""
    from mdqa_kernel.text import labels, statement_context, values

    for cached in (labels.normalize_label, labels.label_score, labels.sign_of_pair, statement_context._words,
                   statement_context.head_cover, values.is_number_shaped):  # fmt: skip
        cached.cache_clear()
