"""Pydantic models of the rendered corpus: options, evidence of one printed fact, manifests."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

HONESTY_NOTE_EN = "rendered from MuDABench's annotated values; not the original filings"
HONESTY_NOTE_ZH = "根据 MuDABench 标注数据生成，并非原始披露文件"

Placement = Literal["table", "prose", "key_value", "statement"]
FactStatus = Literal["printed", "absent"]


class RenderOptions(BaseModel):
    """Difficulty knobs. `current_left=None` / `scale_pref=None` let the seed choose per document."""

    seed: int = 0
    current_left: bool | None = None
    scale_pref: Literal["coarse", "fine"] | None = None
    min_pages: int | None = None


class Evidence(BaseModel):
    """Where one printed piece of a fact sits. bbox = (x0, top, x1, bottom) in PDF points,
    origin at the top-left of the page (pdfplumber's convention)."""

    page: int
    text: str
    bbox: tuple[float, float, float, float]
    snippet: str = ""


class FactManifest(BaseModel):
    """Ground truth for one gold field of one document: what was printed, where, at which scale."""

    field: str
    label: str
    description: str = ""
    value: Any = None
    kind: str
    placement: Placement
    status: FactStatus
    printed: str | None = None
    page: int | None = None
    bbox: tuple[float, float, float, float] | None = None
    scale: str | None = None
    scale_factor: float | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    note: str = ""


class DocumentManifest(BaseModel):
    doc_id: str
    symbol: str
    year: int
    doctype: str
    language: str
    title: str
    pages: int
    seed: int
    layout: dict[str, Any] = Field(default_factory=dict)
    noise: bool = False
    note: str = HONESTY_NOTE_EN
    facts: list[FactManifest] = Field(default_factory=list)

    def fact(self, field: str) -> FactManifest:
        for f in self.facts:
            if f.field == field:
                return f
        raise KeyError(field)
