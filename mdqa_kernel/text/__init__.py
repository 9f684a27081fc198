"""A lower layer of text knowledge shared by the planner, the readers, answers and judges:
labels and their glossary (`labels`), page layout into lines, rows and period headers (`layout`),
numbers, scales, dates and typed values (`values`), normalisation for comparing text and entities
(`normalize`). It imports no stage."""

from __future__ import annotations
