"""The cascade: the cheap deterministic reader first, the LLM only where it is not confident.

Where the first reader is not confident, the LLM chooses, it does not write: it is shown the first
reader's ranked candidates (`candidates(doc, field, question)`: value, row label, column, page,
snippet) and answers with a candidate's number or "none" (`choose`); the chosen candidate's value and
evidence are returned as they are. On unseen filings the model, writing its own answers, replaced right
table readings with a subsidiary's figure, a change for the level or a rounded prose figure; choosing
keeps every answer a number the document prints where the reader found it. Only where the first reader
has no candidate does the LLM answer freely (and its number must then be printed in what it read).

Per field, a threshold (and optionally the reader order) can be set: `CascadeReader(table, llm,
threshold=0.8, fields={"office_address": {"readers": ["llm"]}, "net_profit": {"threshold": 0.9}})`.
The result says which readers were tried (`trail`) and how many LLM calls were made.
"""

from __future__ import annotations

from typing import Any

from mdqa_kernel.readers.base import (
    READERS,
    Choice,
    DocumentView,
    FieldLike,
    Reader,
    ReadResult,
    Status,
    error_result,
    make_reader,
    pick_options,
    timed_read,
)
from mdqa_kernel.readers.confidence import CONFIDENT
from mdqa_kernel.readers.plausibility import checked

DEFAULT_THRESHOLD = CONFIDENT  # the table reader's levels are named beside it (readers/confidence.py)
# Enters every cascade task key: a change in how answers are chosen re-reads (LLM calls stay cached).
# The LLM's own cache keys hash its prompt and schema (llm/client.py cache_key), so a new prompt never
# reuses an old answer.
CASCADE_VERSION = "cascade-4"  # 3: implausible answers capped (readers/plausibility.py)
# 4: the LLM chooses among the table reader's candidates (or none) instead of writing a value


@READERS.register("cascade")
class CascadeReader:
    name = "cascade"
    needs_llm = True  # its second reader is the LLM reader

    def __init__(
        self,
        first: Reader,
        second: Reader,
        threshold: float = DEFAULT_THRESHOLD,
        fields: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.first = first
        self.second = second
        self.threshold = threshold
        self.fields = fields or {}

    @classmethod
    def from_options(cls, **options: Any) -> CascadeReader:
        """The table reader, then the LLM reader, each given the options it takes."""
        return cls(
            make_reader("table", **options),
            make_reader("llm", **options),
            **pick_options(options, "threshold", "fields"),
        )

    def config(self) -> dict[str, Any]:
        return {
            "version": CASCADE_VERSION,
            "threshold": self.threshold,
            "fields": self.fields,
            "readers": [
                {"name": self.first.name, **self.first.config()},
                {"name": self.second.name, **self.second.config()},
            ],
        }

    def field_config(self, name: str) -> dict[str, Any]:
        """The part of the configuration that concerns one field (enters that field's task key only)."""
        return {k: v for k, v in self.config().items() if k != "fields"} | {
            "field": self.fields.get(name, {})
        }

    def read(self, doc: DocumentView, field: FieldLike, question: str) -> ReadResult:
        cfg = self.fields.get(field.name, {})
        threshold = float(cfg.get("threshold", self.threshold))
        order = cfg.get("readers") or [self.first.name, self.second.name]
        readers = {self.first.name: self.first, self.second.name: self.second}
        chain = [readers[n] for n in order if n in readers]
        trail: list[str] = []
        results: list[ReadResult] = []
        choices: list[Choice] = []  # the candidates of the first reader that has any
        source = ""
        chose = False  # whether a reader chose among another's candidates
        for reader in chain:
            if choices and hasattr(reader, "choose"):
                result = _choose_among(reader, doc, field, question, choices, source)
                step, chose = f"{reader.name}(choice of {len(choices)})", True
            else:
                result, _seconds = timed_read(reader, doc, field, question)
                step = reader.name
            result = checked(field, result)  # an implausible value is never confident, whoever read it
            trail.append(f"{step}:{result.status.value}:{result.confidence:.2f}")
            results.append(result)
            # a sure absence ("no assurance, so no assurance provider") is an answer too
            if (result.found or result.status == Status.ABSENT) and result.confidence >= threshold:
                break
            if not choices and hasattr(reader, "candidates"):
                choices, source = _candidates(reader, doc, field, question), reader.name
        # A choice of the first reader's own reading is no second opinion (a small model leans to the
        # first candidate shown): agreement lifts confidence only between readers that read on their own.
        best = checked(field, _choose(results, threshold, lift=not chose))  # nor lift an implausible one
        return best.model_copy(
            update={
                "trail": trail,
                "llm_calls": sum(r.llm_calls for r in results),
                "cache_hits": sum(r.cache_hits for r in results),
            }
        )


def _candidates(reader: Any, doc: DocumentView, field: FieldLike, question: str) -> list[Choice]:
    """A reader's ranked candidates for the cell; none where listing them fails (the LLM then reads)."""
    try:
        return list(reader.candidates(doc, field, question))
    except Exception:  # a reader's bug must not stop the cell: the LLM reads it freely instead
        return []


def _choose_among(
    reader: Any, doc: DocumentView, field: FieldLike, question: str, choices: list[Choice], source: str
) -> ReadResult:
    """The reader's choice among `choices`; any exception becomes an error result, as in timed_read."""
    try:
        result: ReadResult = reader.choose(doc, field, question, choices, source)
    except Exception as exc:  # one bad cell must not stop the run: it becomes a row with the message
        result = error_result(doc.doc_id, field.name, reader.name, exc)
    return result


def _choose(results: list[ReadResult], threshold: float, lift: bool = True) -> ReadResult:
    """The confident answer if any; else agreement raises confidence (where `lift`); else the most
    confident found (a "none" from the chooser leaves the first reader's reading below the threshold)."""
    confident = [r for r in results if r.found and r.confidence >= threshold]
    if confident:
        return confident[0]
    found = [r for r in results if r.found]
    if lift and len(found) >= 2 and found[0].value == found[1].value:
        return found[-1].model_copy(update={"confidence": max(r.confidence for r in found) + 0.1})
    supported = [r for r in found if r.supported is not False]
    if supported:
        return max(supported, key=lambda r: r.confidence)
    # Only unsupported answers (a quote not in the text, a "yes" off the topic): an answer without
    # evidence is no answer, so the first reader's not-found stands, with the guess in the message.
    unsupported = max(found, key=lambda r: r.confidence) if found else None
    missing = [r for r in results if r.status == Status.NOT_FOUND]
    if unsupported is not None and missing:
        return missing[0].model_copy(
            update={"message": f"{missing[0].message}; unsupported guess: {unsupported.value!r}"}
        )
    if unsupported is not None:
        return unsupported
    errors = [r for r in results if r.status == Status.ERROR]
    absent = [r for r in results if r.status == Status.ABSENT]
    return (absent or errors or results)[-1]
