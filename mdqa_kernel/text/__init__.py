"""A lower layer of text knowledge shared by the planner, the readers, answers and judges:
labels and their glossary (`labels`), page layout into lines, rows and period headers (`layout`),
numbers, scales, dates and typed values (`values`), the plan's field types and the one `coerce`
(`fieldtypes`), the CJK class and the zh/en detector (`language`), Chinese numerals (`numerals`),
normalisation for comparing text and entities (`normalize`), and the word lists the readers and the
planner share (`words`), kept as data files under `data/` (`datafiles`). It imports no stage."""

from __future__ import annotations
