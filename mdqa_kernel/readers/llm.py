"""The LLM reader: the top-k chunks of one document + the field's question → a schema-constrained answer.

Lessons from a naive extractor on real filings (shared/NOTES.md) shape the prompt and schema:
- the value is typed as a number for numeric fields (a string-typed value made the small model drop
  the first digit);
- the prompt is plain prose: no template syntax for the model to echo back;
- the fiscal year, and that the prior-year column is not the answer, are said explicitly;
- the quote must occur in the retrieved text (whitespace-normalised), or the answer is marked
  unsupported and gets a low confidence.
The scale is taken from the page where the page declares one ("单位：万元", "in millions"): the
model's own reading of the scale is used only when the page says nothing.

A number the model writes itself must be printed in the retrieved text (as it is, or before the page's
declared scale), or the answer is "not found": a number no excerpt prints is the model's own arithmetic
or memory. Where a deterministic reader has candidates, `choose` asks the model to pick one of them
(a JSON enum of the candidates' printed values tagged with their numbers, "28,455 (#1)", or "none")
and returns that candidate's own value and evidence: the model never retypes a number there.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

import polars as pl
from pydantic import BaseModel, Field, create_model

from mdqa_kernel.readers.base import (
    READERS,
    Choice,
    DocumentView,
    Evidence,
    FieldLike,
    ReaderError,
    ReadResult,
    Status,
)
from mdqa_kernel.readers.retrieval import ChunkIndex, field_query
from mdqa_kernel.readers.table.candidates import statement_phrase, topic_cover
from mdqa_kernel.text.fieldtypes import NUMERIC_TYPES, coerce
from mdqa_kernel.text.periods import ReportPeriod, wanted_period
from mdqa_kernel.text.values import (
    find_numbers,
    last_declared_scale,
    scale_factor,
    to_field_scale,
)

LLM_READER_VERSION = "llm-4"  # 3: answers typed by text.fieldtypes.coerce ("1 234", "+5", "1e6" are numbers)
# 4: a number the model writes must be printed in the retrieved text, else not found; `choose` picks
# one of a deterministic reader's candidates (new prompt and schema, so new LLM cache keys)
# The confidence of an answer: a supported free answer, a chosen candidate, a chosen candidate whose
# column header names another period than the fiscal year's (the model took the prior-year figure).
SUPPORTED = 0.75
CHOSEN = 0.75
CHOSEN_OTHER_PERIOD = 0.3
NONE = "none"  # the choice that rejects every candidate
SNIPPET_CHARS = 160  # of each candidate's row or line shown to the model
# A "yes, disclosed" must quote words of the topic: at least this share of its character pairs.
TOPIC_COVER = 0.5
STAGE = "extract"
_PER_SHARE = re.compile(r"每股|per\s+share|/share", re.IGNORECASE)
MAX_CHUNK_CHARS = 900

_VALUE_TYPES: dict[str, Any] = {
    "number": float | None,
    "percent": float | None,
    "integer": float | None,  # a float keeps "1,234.0" answers valid; coerced to int afterwards
    "boolean": bool | None,
    "date": str | None,
    "text": str | None,
    "list_text": list[str] | None,
}

_TYPE_HINTS = {
    "number": "Give the number as printed (digits only, no thousands separators).",
    "integer": "Give the whole number as printed.",
    "percent": "Give the percentage as a number of percent points (12.5 for 12.5%).",
    "boolean": "Answer true if the document states it, false if it states the opposite or clearly lacks it.",
    "date": "Give the date as YYYY-MM-DD.",
    "text": "Copy the text value exactly as printed.",
    "list_text": "List each item as printed.",
}


class LLMReaderError(ReaderError):
    """The LLM reader has no client (no backend configured)."""


def answer_schema(field_type: str) -> type[BaseModel]:
    """The JSON schema the model must fill. Every key is required (a small model skips optional ones),
    the quote comes first (copy, then read), the status last (decided after reading, not before)."""
    return create_model(
        "Answer",
        quote=(str, Field(description="words copied exactly from the excerpt, containing the answer")),
        value=(_VALUE_TYPES.get(field_type, str | None), ...),
        page=(int | None, ...),
        status=(Literal["found", "not_found", "absent"], Field(description="found, not_found, or absent")),
    )


def _squash(text: str) -> str:
    """Whitespace-free NFKC form used to check that a quote occurs in the retrieved text."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def _prompt_head(doc: DocumentView, field: FieldLike, question: str) -> list[str]:
    """The lines every reading prompt starts with: the document, the question, what to find."""
    meta = doc.metadata
    who = " ".join(str(meta[k]) for k in ("symbol", "doctype") if meta.get(k))
    return [
        f"Document: {who or doc.doc_id}" + (f", fiscal year {doc.year}." if doc.year else "."),
        f"Question: {question or field.description}",
        f"What to find: {field.description}",
    ]


def build_prompt(doc: DocumentView, field: FieldLike, question: str, hits: pl.DataFrame) -> str:
    year = doc.year
    lines = _prompt_head(doc, field, question)
    if year and field.type in ("number", "integer", "percent"):
        lines.append(_period_hint(field, year))
    lines.append(_TYPE_HINTS.get(field.type, ""))
    lines.append(
        "In quote, copy a few words exactly as they are written in the excerpt, including the number or "
        "name you answer with; do not rephrase. Then give the value and the page. "
        "If the excerpts do not contain the answer, set status to not_found."
    )
    lines.append("")
    lines.append("Excerpts:")
    for page, text in hits.select("page", "text").iter_rows():
        lines.append(f"[page {page}] {text[:MAX_CHUNK_CHARS]}")
    return "\n".join(lines)


def choice_options(choices: list[Choice]) -> tuple[str, ...]:
    """The answers a choice allows: each candidate's printed value tagged with its number ("28,455
    (#1)"), then "none". The printed value comes first because the 1.5B model, asked for a bare number
    "1" or "2", answered "2" whatever the candidates were, and picked the current-year value when it
    copied the value it meant; the tag keeps two candidates that print the same text apart."""
    return (*(f"{_short(c.printed)} (#{i})" for i, c in enumerate(choices, 1)), NONE)


def choice_schema(choices: list[Choice]) -> type[BaseModel]:
    """The answer to a choice: one of `choice_options` (a grammar on the local backend, so the model
    can write nothing else)."""
    return create_model(
        "Choice",
        choice=(
            Literal[choice_options(choices)],  # type: ignore[valid-type]
            Field(description="the chosen value as listed, with its number, or none"),
        ),
    )


def chosen_index(answer: str, n: int) -> int | None:
    """The 1-based candidate number an answer names ("28,455 (#2)", or a bare "2"), or None."""
    m = re.fullmatch(r"\s*(\d+)\s*", answer) or re.search(r"\(#(\d+)\)\s*$", answer)
    if m is None or not 1 <= int(m.group(1)) <= n:
        return None
    return int(m.group(1))


def build_choice_prompt(doc: DocumentView, field: FieldLike, question: str, choices: list[Choice]) -> str:
    """The candidates, numbered, each with its printed value, row label, column and page (the line it
    is printed in where no row and column say what it is)."""
    year = doc.year
    lines = [
        *_prompt_head(doc, field, question),
        "These values are printed in the document. Answer with the one that answers the question.",
    ]
    if field.type in NUMERIC_TYPES:
        period = f"fiscal year {year}" if year else "the reporting period"
        lines.append(
            f"It must be the value for the period the question asks for ({period} unless it names "
            "another); of the company as a whole, not of a segment, a "
            "subsidiary or the parent company alone, unless the question asks for one; the amount "
            "itself, not a change or a growth rate."
        )
    lines.append(f"If none of them answers the question, answer {NONE}.")
    lines.append("")
    for i, choice in enumerate(choices, 1):
        lines.append(f"{i}. {_describe(choice)}")
    return "\n".join(lines)


def _period_hint(field: FieldLike, year: int) -> str:
    """Which column to take: the fiscal year's, unless the field names another period (a prior-year
    field must not be told to avoid the prior year)."""
    want = wanted_period(field.description, ReportPeriod(year=year))
    if want.offset == 0 and want.year in (None, year) and want.end is None and not want.opening:
        return (
            f"Use the value for fiscal year {year}, the current-period column. Tables often print the "
            f"prior year ({year - 1}) beside it: do not take that number."
        )
    return "Use the value for the period the question names, not the column of another period beside it."


def _describe(choice: Choice) -> str:
    head = _short(choice.printed) + (f" ({choice.scale_word})" if choice.scale_word else "")
    parts = []
    if choice.label:
        parts.append(f"row {choice.label}")
    if choice.column:
        period = {"asked": "the period asked for", "other": "another period"}.get(
            choice.period or "", "period?"
        )
        parts.append(f"column {choice.column} ({period})")
    parts.append(f"page {choice.page}")
    if not (choice.label and choice.column):
        parts.append(f'in "{_around(choice.snippet, choice.printed)}"')
    return f"{head}: " + ", ".join(parts)


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _around(snippet: str, printed: str, width: int = SNIPPET_CHARS) -> str:
    """At most `width` characters of the snippet, centred on the printed value."""
    text = " ".join(snippet.split())
    if len(text) <= width:
        return text
    at = text.find(printed)
    start = max(0, min(at - width // 2, len(text) - width)) if at >= 0 else 0
    return ("…" if start else "") + text[start : start + width] + ("…" if start + width < len(text) else "")


@READERS.register("llm")
class LLMReader:
    """Retrieval (k chunks) + one structured LLM call per cell."""

    name = "llm"
    needs_llm = True
    options = ("client", "k", "llm_config", "workspace", "embedder", "embedding_model")

    def __init__(
        self,
        client: Any = None,
        k: int = 5,
        llm_config: Any = None,
        workspace: Any = None,
        embedder: Any = None,
        embedding_model: str | None = None,
    ) -> None:
        self.k = k
        self._client = client
        self.llm_config = llm_config
        self.workspace = workspace
        self.embedder = embedder
        self.embedding_model = embedding_model
        self.journal: str | None = None  # where new answers are also written (a worker away: see extract)

    def config(self) -> dict[str, Any]:
        cfg = self.llm_config.model_dump(mode="json") if hasattr(self.llm_config, "model_dump") else None
        if cfg is None and self._client is not None and hasattr(self._client, "config"):
            c = self._client.config
            cfg = c.model_dump(mode="json") if hasattr(c, "model_dump") else repr(c)
        for volatile in ("n_threads", "timeout", "max_retries", "backoff_base", "backoff_max"):
            if isinstance(cfg, dict):
                cfg.pop(volatile, None)  # how fast or how patiently we ask does not change the answer
        return {
            "version": LLM_READER_VERSION,
            "k": self.k,
            "llm": cfg,
            "embedding_model": self.embedding_model if self.embedder else None,
        }

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        client = state.get("_client")
        if not _picklable_client(client):
            # Each worker process opens its own client (and model) from the same configuration.
            state["_client"] = None
            if state.get("llm_config") is None:
                state["llm_config"] = getattr(client, "config", None)
            if state.get("workspace") is None and getattr(client, "workspace", None) is not None:
                state["workspace"] = str(client.workspace.path)
        return state

    def relocate(self, workspace: Any, journal: Any) -> None:
        """Ask through another workspace (a scratch one on a worker's machine) and journal the answers.
        Only a reader whose client is opened from its configuration can move; a given client stays."""
        if self._client is not None and _picklable_client(self._client):
            return
        if (self.workspace, self.journal) == (str(workspace), str(journal)):
            return  # already there: keep the open client (and its loaded model)
        self._client = None
        self.workspace = str(workspace)
        self.journal = str(journal)

    @property
    def client(self) -> Any:
        if self._client is None:
            if self.llm_config is None:
                raise LLMReaderError(
                    "the llm reader needs an LLM client or an LLMConfig (backend local|openai|ollama)"
                )
            from mdqa_kernel.llm import LLMClient

            self._client = LLMClient(self.llm_config, self.workspace, journal=self.journal)
        return self._client

    def retrieve(self, doc: DocumentView, field: FieldLike, question: str) -> pl.DataFrame:
        index = doc.memo("chunk_index", lambda: ChunkIndex(doc.chunks, self.embedder))
        return index.search(field_query(field.description, question), self.k)

    def read(self, doc: DocumentView, field: FieldLike, question: str) -> ReadResult:
        hits = self.retrieve(doc, field, question)
        base = {"doc_id": doc.doc_id, "field": field.name, "reader": self.name}
        if hits.height == 0:
            return ReadResult(
                **base, status=Status.NOT_FOUND, message="the document has no text to retrieve from"
            )
        prompt = build_prompt(doc, field, question, hits)
        answer = self.client.structured(prompt, answer_schema(field.type), stage=STAGE)
        return self._result(doc, field, hits, answer, base)

    def choose(
        self, doc: DocumentView, field: FieldLike, question: str, choices: list[Choice], source: str = ""
    ) -> ReadResult:
        """One of `choices` (a deterministic reader's candidates, ranked), as the model picks it: that
        candidate's value and evidence as they are. "none" or an answer naming no candidate is not
        found, with the reason in the message. `source` names the reader the choices come from."""
        base = {"doc_id": doc.doc_id, "field": field.name, "reader": self.name}
        if not choices:
            return ReadResult(**base, status=Status.NOT_FOUND, message="no candidates to choose from")
        prompt = build_choice_prompt(doc, field, question, choices)
        answer = self.client.structured(prompt, choice_schema(choices), stage=STAGE)
        data = answer.model_dump() if hasattr(answer, "model_dump") else dict(answer)
        said = str(data.get("choice", "")).strip()
        of = f"of {len(choices)} candidates" + (f" of the {source} reader" if source else "")
        if said.lower() == NONE:
            return ReadResult(
                **base, status=Status.NOT_FOUND, confidence=0.5, llm_calls=1, message=f"model: none {of}"
            )
        picked = chosen_index(said, len(choices))
        if picked is None:
            return ReadResult(
                **base,
                status=Status.NOT_FOUND,
                llm_calls=1,
                message=f"model chose {data.get('choice')!r}, not one {of}",
            )
        choice = choices[picked - 1]
        message = f"chose {picked} {of}: {choice.kind} {choice.printed!r}" + (
            f" ×{choice.scale:g} ({choice.scale_word})" if choice.scale and choice.scale != 1 else ""
        )
        confidence = CHOSEN
        if choice.period == "other":
            # the header says this column is another period: a reviewer looks before anyone trusts it
            confidence = CHOSEN_OTHER_PERIOD
            message += f"; its column {choice.column!r} is not the period asked for"
        return ReadResult(
            **base,
            status=Status.FOUND,
            value=choice.value,
            unit=field.unit,
            scale=choice.scale,
            confidence=confidence,
            evidence=choice.evidence(doc.doc_id, source or self.name),
            supported=True,  # printed where the candidate was read
            llm_calls=1,
            message=message,
        )

    def _result(
        self, doc: DocumentView, field: FieldLike, hits: pl.DataFrame, answer: Any, base: dict[str, Any]
    ) -> ReadResult:
        data = answer.model_dump() if hasattr(answer, "model_dump") else dict(answer)
        status = data.get("status") or "not_found"
        quote = (data.get("quote") or "").strip()
        where = _locate(quote, hits)
        supported = where is not None
        # A value with a quote found in the text is an answer, whatever status word came with it.
        if data.get("value") is None or (status != "found" and not supported):
            st = Status.ABSENT if status == "absent" else Status.NOT_FOUND
            return ReadResult(**base, status=st, confidence=0.5, llm_calls=1, message=f"model: {status}")
        page = int(where["page"]) if where else data.get("page")
        before = doc.page_text(int(where["page"]))[: int(where["char_end"])] if where else ""
        try:
            value, applied = self._typed(field, data, before, (where or {}).get("text") or "")
        except ValueError as exc:
            return ReadResult(
                **base, status=Status.NOT_FOUND, llm_calls=1, message=f"model answer not usable: {exc}"
            )
        if field.type in NUMERIC_TYPES and not _printed_in(
            float(coerce(data["value"], field.type)), hits, before
        ):
            # A number no excerpt prints is the model's own arithmetic or memory: never an answer.
            return ReadResult(
                **base,
                status=Status.NOT_FOUND,
                confidence=0.5,
                llm_calls=1,
                message=f"unsupported guess: {data['value']!r} is not printed in the retrieved text",
            )
        message = "" if supported else "unsupported: the quote does not occur in the retrieved text"
        phrase = statement_phrase(field.description) if field.type == "boolean" else None
        if supported and value is True and phrase and topic_cover(phrase, quote) < TOPIC_COVER:
            # Small models answer "yes" quoting any sentence of the report; a disclosure needs its topic.
            supported = False
            message = f"unsupported: the quote does not mention {phrase!r}"
        evidence = Evidence(
            doc_id=doc.doc_id,
            page=page,
            bbox=(where["x0"], where["top"], where["x1"], where["bottom"]) if where else None,
            char_span=(where["char_start"], where["char_end"]) if where else None,
            snippet=quote,
            reader=self.name,
        )
        return ReadResult(
            **base,
            status=Status.FOUND,
            value=value,
            unit=field.unit,
            scale=applied,
            confidence=SUPPORTED if supported else 0.1,
            evidence=evidence,
            supported=supported,
            llm_calls=1,
            message=message,
        )

    def _typed(
        self, field: FieldLike, data: dict[str, Any], page_before: str, chunk_text: str = ""
    ) -> tuple[Any, float | None]:
        value = coerce(data["value"], field.type)
        if field.type not in ("number", "integer"):
            return value, None
        scale = 1.0
        if not _PER_SHARE.search(field.description):
            # The page's own declaration in force at the quote beats the model's reading of the scale.
            declared = last_declared_scale(page_before)
            if declared is not None:
                scale = declared[0]
            elif data.get("scale"):
                try:
                    scale = scale_factor(data["scale"])
                except ValueError:
                    scale = 1.0
        if (
            scale != 1.0
            and _printed(float(value) / scale, chunk_text)
            and not _printed(float(value), chunk_text)
        ):
            scale = 1.0  # the model already multiplied the printed number out; do not apply the scale twice
        converted = to_field_scale(float(value), scale, field.scale or 1.0)
        return coerce(converted, field.type), scale


def _printed(number: float, text: str) -> bool:
    """Whether a number is printed in the text (as its digits, any thousands separators)."""
    return any(abs(v - number) <= 1e-9 * max(1.0, abs(number)) for v, *_ in find_numbers(text))


def _printed_in(number: float, hits: pl.DataFrame, page_before: str) -> bool:
    """Whether the retrieved text prints the number as it is, or before the scale the quote's page
    declares (28,455 "in thousands" answered as 28455000)."""
    text = "\n".join(t or "" for t in hits["text"].to_list())
    if _printed(number, text):
        return True
    declared = last_declared_scale(page_before)
    return declared is not None and declared[0] != 1 and _printed(number / declared[0], text)


def _picklable_client(client: Any) -> bool:
    import pickle

    try:
        pickle.dumps(client)
        return True
    except Exception:
        return False


def _locate(quote: str, hits: pl.DataFrame) -> dict[str, Any] | None:
    """The retrieved chunk containing the quote (whitespace-normalised), or None: unsupported."""
    q = _squash(quote)
    if len(q) < 2:
        return None
    for row in hits.iter_rows(named=True):
        if q in _squash(row["text"] or ""):
            return row
    return None
