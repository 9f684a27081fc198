"""Per-document rendering state: the record, a seeded RNG, layout choices, prior-year lookup, and the
bookkeeping that turns recorded spans into the document's manifest."""

from __future__ import annotations

import random
from typing import Any

from mdqa_kernel.benchmarks.mudabench import DocumentRecord
from mdqa_kernel.benchmarks.render.fields import FieldSpec, Scale, plausible_other, spec_for
from mdqa_kernel.benchmarks.render.models import (
    HONESTY_NOTE_EN,
    DocumentManifest,
    Evidence,
    FactManifest,
    RenderOptions,
)
from mdqa_kernel.benchmarks.render.writer import PageWriter

RecordIndex = dict[tuple[str, str, int], DocumentRecord]


class RenderContext:
    def __init__(
        self, record: DocumentRecord, options: RenderOptions, index: RecordIndex, noise: bool = False
    ) -> None:
        self.record = record
        self.options = options
        self.index = index
        self.noise = noise
        self.lang = record.language
        self.rng = random.Random(f"{options.seed}:{record.doc_id}")
        self.current_left = (
            options.current_left if options.current_left is not None else self.rng.random() < 0.5
        )
        self.scale_pref = options.scale_pref or self.rng.choice(["coarse", "fine"])
        self.year = record.year
        self.handled: set[str] = set()
        self.scales: dict[str, Scale] = {}
        self.notes: dict[str, str] = {}
        self._occurrences: dict[str, int] = {}

    # -- values ------------------------------------------------------------------------------
    def has(self, field: str) -> bool:
        return self.record.values.get(field) is not None

    def value(self, field: str) -> Any:
        return self.record.values.get(field)

    def spec(self, field: str) -> FieldSpec:
        return spec_for(field, self.value(field), self.record.schema_.get(field, ""))

    def label(self, field: str) -> str:
        return self.spec(field).label(self.lang)

    def prior(self, field: str, years_back: int = 1) -> float | None:
        """The same company's value for an earlier year, when MuDABench has that document."""
        rec = self.index.get((self.record.symbol, self.record.doctype, self.year - years_back))
        value = rec.values.get(field) if rec else None
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def prior_or_plausible(self, field: str, current: float) -> float:
        found = self.prior(field)
        return float(found) if found is not None else plausible_other(current, self.rng)

    def pair(self, current: Any, prior: Any) -> list[Any]:
        """Order a (current, prior) pair by the layout variant."""
        return [current, prior] if self.current_left else [prior, current]

    # -- tags --------------------------------------------------------------------------------
    def tag(self, field: str) -> str:
        """A tag for one printed occurrence of a field (the first occurrence is the primary one)."""
        self.handled.add(field)
        n = self._occurrences.get(field, 0)
        self._occurrences[field] = n + 1
        return f"{field}#{n}"

    def mark(self, field: str, note: str = "") -> None:
        """Mark a field handled without printing it (a False boolean: its statement is absent)."""
        self.handled.add(field)
        if note:
            self.notes[field] = note

    def pending(self) -> list[str]:
        return [f for f in sorted(self.record.values) if f not in self.handled]

    # -- manifest ----------------------------------------------------------------------------
    def manifest(self, writer: PageWriter, pages: int, title: str) -> DocumentManifest:
        facts = [self._fact(f, writer.spans) for f in sorted(self.record.values)]
        return DocumentManifest(
            doc_id=self.record.doc_id,
            symbol=self.record.symbol,
            year=self.year,
            doctype=self.record.doctype,
            language=self.lang,
            title=title,
            pages=pages,
            seed=self.options.seed,
            noise=self.noise,
            note=HONESTY_NOTE_EN,
            facts=facts,
            layout={"current_left": self.current_left, "scale_pref": self.scale_pref},
        )

    def _fact(self, field: str, spans: dict[str, list[Evidence]]) -> FactManifest:
        spec = self.spec(field)
        evidence: list[Evidence] = []
        n = self._occurrences.get(field, 0)
        for k in range(n):
            evidence.extend(spans.get(f"{field}#{k}", []))
        primary = [e for e in spans.get(f"{field}#0", [])]
        if primary:
            first_page = primary[0].page
            on_page = [e for e in primary if e.page == first_page]
            box = (
                min(e.bbox[0] for e in on_page),
                min(e.bbox[1] for e in on_page),
                max(e.bbox[2] for e in on_page),
                max(e.bbox[3] for e in on_page),
            )
            sep = "、" if spec.kind in ("list", "events") and len(on_page) > 1 else ""
            printed, page = sep.join(e.text for e in on_page), first_page
        else:
            box, printed, page = None, None, None
        scale = self.scales.get(field)
        return FactManifest(
            field=field,
            label=spec.label(self.lang),
            description=self.record.schema_.get(field, ""),
            value=self.value(field),
            kind=spec.kind,
            placement=spec.placement,
            status="printed" if primary else "absent",
            printed=printed,
            page=page,
            bbox=box,
            scale=scale.label if scale else None,
            scale_factor=scale.factor if scale else None,
            evidence=evidence,
            note=self.notes.get(field, ""),
        )
