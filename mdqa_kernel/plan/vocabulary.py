"""The collection's vocabulary: the labels its documents actually print, to ground a plan's fields.

A small model asked "which values does this question need?" often answers with words the documents
never use ("companies", "exact operating revenue amounts"). The documents themselves say which names
exist: table row labels ("净利润", "Net profit"), key-value labels ("审计机构：…") and section headings
("职工权益保护"). `Vocabulary.of(collection)` reads them from a sample of documents (deterministic,
no model), and the planner uses it twice:

- `matches(question)`: the labels the question names verbatim, longest first ("净利润或营业总成本" →
  净利润, 营业总成本), each with the type its printed form implies (a row of numbers → number,
  a heading → a disclosure flag, a key-value line → text);
- `ground(phrase)`: the printed label closest to a model's phrase, or None when nothing printed is
  close (the phrase is then not a readable field).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from mdqa_kernel.text.labels import SYNONYM_GROUPS, normalize_label
from mdqa_kernel.text.language import CJK
from mdqa_kernel.text.layout import Line, page_lines
from mdqa_kernel.text.numerals import NUMBERING_CHARS
from mdqa_kernel.text.rows import table_rows

# Labels that name the company, the period or the document rather than a value read from it.
_GENERIC = re.compile(
    r"^(?:公司|本公司|项目|名称|合计|总计|其中|单位|年度|报告期|上年|本期|上期|期末|期初|附注|备注|"
    r"股票代码|证券代码|股票简称|证券简称|公司名称|company|item|total|notes?|year|period|symbol|ticker)$",
    re.IGNORECASE,
)
_HEADING = re.compile(
    rf"^(?:[{NUMBERING_CHARS}]+[、.．]|[(（][{NUMBERING_CHARS}\d]+[)）]|\d+(?:\.\d+)*[.、]?)?\s*(?P<t>.+)$"
)
_KV = re.compile(r"^(?P<k>[^:：。，,]{2,20})[:：]")
_HAS_DIGIT = re.compile(r"\d")
_CODE = re.compile(r"\d{4,}")
_ENUM = re.compile(rf"{CJK}{{1,12}}(?:[、，,]{CJK}{{1,12}}){{2,}}")


@dataclass(frozen=True)
class Term:
    """One printed label: its text as printed, normalised form, the type it implies, and in how many
    of the sampled documents it was seen."""

    text: str
    norm: str
    type: str  # number | percent | boolean | text
    docs: int


@dataclass
class Vocabulary:
    terms: dict[str, Term] = field(default_factory=dict)  # by normalised label
    sampled_docs: int = 0

    @classmethod
    def of(cls, collection: Any, max_docs: int = 24) -> Vocabulary:
        """Labels from up to `max_docs` documents, spread over the collection's document types."""
        docs = collection.documents
        if "status" in docs.columns:
            docs = docs.filter(docs["status"] == "ok")
        if "doctype" in docs.columns:
            # Round-robin over document types, so a small sample still sees every kind of document.
            groups = [g["doc_id"].to_list() for _, g in docs.group_by("doctype", maintain_order=True)]
            order = [
                ids[i] for i in range(max(map(len, groups), default=0)) for ids in groups if i < len(ids)
            ]
        else:
            order = docs["doc_id"].to_list()
        seen: Counter[str] = Counter()
        kinds: dict[str, Counter[str]] = {}
        texts: dict[str, str] = {}
        sampled = 0
        for doc_id in order[:max_docs]:
            words = collection.words(doc_id)
            if words.height == 0:
                continue
            sampled += 1
            found: dict[str, tuple[str, str]] = {}
            for page in words["page"].unique().sort().to_list():
                for text, kind in _labels(page_lines(words, page)):
                    norm = normalize_label(text)
                    if _usable(norm):
                        found.setdefault(norm, (text, kind))
            for norm, (text, kind) in found.items():
                seen[norm] += 1
                kinds.setdefault(norm, Counter())[kind] += 1
                texts.setdefault(norm, text)
        terms = {n: Term(texts[n], n, kinds[n].most_common(1)[0][0], c) for n, c in seen.items()}
        return cls(terms, sampled)

    def matches(self, question: str) -> list[Term]:
        """Labels printed in the documents that the question names verbatim, longest first, without
        overlaps (净利润 inside 归属于母公司股东的净利润 is not matched twice)."""
        q = normalize_label(question)
        hits: list[tuple[int, int, Term]] = []
        for norm, term in self.aliases.items():
            if len(norm) < 3:
                continue  # "A股" in "针对中国A股市场" names the market, not a value
            start = q.find(norm)
            if start >= 0:
                hits.append((start, start + len(norm), term))
        hits.sort(key=lambda h: (-(h[1] - h[0]), -h[2].docs))
        taken: list[tuple[int, int]] = []
        out: list[Term] = []
        for s, e, term in hits:
            if any(s < te and ts < e for ts, te in taken):
                continue
            taken.append((s, e))
            out.append(_quantity_under(term, q, s, e))
        out += [t for t in self.enumerated(question) if t not in out]
        return sorted(out, key=lambda t: q.find(t.norm) if t.norm in q else len(q))

    def enumerated(self, question: str) -> list[Term]:
        """Labels an enumeration names with a shared word: "股东、债权人、职工、供应商、客户权益" →
        股东权益保护, 债权人权益保护, …: each item starts a printed label, the labels continue with a
        word the enumeration itself says (权益), and at least two items resolve so."""
        out: list[Term] = []
        text = unicodedata.normalize("NFKC", question)
        for m in _ENUM.finditer(text):
            items = [normalize_label(i) for i in re.split(r"[、，,]", m.group(0))]
            said = normalize_label(text[m.start() : m.end() + 8])
            picks = []
            for item in items:
                # the label's continuation after the item must be words the enumeration says
                ok = [
                    t
                    for t, n in self._starting(item)
                    if any(t.norm[i : i + 2] in said for i in range(n, len(t.norm) - 1))
                ]
                if ok:
                    picks.append(max(ok, key=lambda t: t.docs))
            if len(picks) >= 2:
                out += [t for t in picks if t not in out]
        return out

    def _starting(self, item: str) -> list[tuple[Term, int]]:
        """(label, shared length) for printed labels that begin with the item, or with the item minus a
        lead-in ("包括股东" → 股东…) or a remainder ("客户权益四个方面" → 客户…); longest start wins."""
        best: list[tuple[Term, int]] = []
        best_len = 1
        for a in range(len(item) - 1):
            rest = item[a:]
            for term in self.terms.values():
                n = 0
                while n < min(len(rest), len(term.norm)) and rest[n] == term.norm[n]:
                    n += 1
                if n > best_len:
                    best, best_len = [(term, n)], n
                elif n == best_len and n >= 2:
                    best.append((term, n))
        return best

    @cached_property
    def aliases(self) -> dict[str, Term]:
        """Printed labels plus their glossary synonyms ("net profit" for a printed "Net income"); a
        synonym maps to a Term whose text is the synonym itself, so the field is named as asked."""
        out = dict(self.terms)
        for group in SYNONYM_GROUPS:
            normed = [normalize_label(g) for g in group]
            printed = next((self.terms[n] for n in normed if n in self.terms), None)
            if printed is None:
                continue
            for g, n in zip(group, normed, strict=True):
                if _usable(n):
                    out.setdefault(n, Term(g, n, printed.type, printed.docs))
        return out

    def ground(self, phrase: str) -> Term | None:
        """The printed label a phrase means: equal, or one containing the other (the longer, more
        frequent first); None when nothing printed is close enough."""
        p = normalize_label(phrase)
        if not _usable(p):
            return None
        terms = self.aliases
        if p in terms:
            return terms[p]
        inside = [n for n in terms if len(n) >= 2 and n in p]
        if len({n for n in inside if not any(n != m and n in m for m in inside)}) >= 2:
            return None  # "净利润或营业总成本" names two printed values: not one field
        near = [
            t
            for n, t in terms.items()
            if (n in p and len(n) >= 0.5 * len(p)) or (p in n and len(p) >= 0.5 * len(n))
        ]
        if not near:
            return None
        return max(near, key=lambda t: (t.docs, -abs(len(t.norm) - len(p))))


_PER = ("每股", "每10股", "人均")
_QUANTITY_TAIL = re.compile(r"(?:总额|金额|比例|比率|[值额率数])")


def _quantity_under(term: Term, q: str, start: int, end: int) -> Term:
    """A heading the question names inside a quantity ("每股社会贡献值" around the heading 社会贡献) is
    that quantity, a number printed under the heading, not the heading's yes/no disclosure."""
    if term.type != "boolean":
        return term
    head = next((p for p in _PER if q[max(0, start - len(p)) : start] == p), "")
    tail = _QUANTITY_TAIL.match(q, end)
    if not head and not tail:
        return term
    text = head + q[start:end] + (tail.group(0) if tail else "")
    return Term(text, normalize_label(text), "number", term.docs)


def _usable(norm: str) -> bool:
    if len(norm) < 2 or _GENERIC.match(norm) or norm.isdigit():
        return False
    ascii_only = norm.isascii()
    return len(norm) >= 5 if ascii_only else len(norm) <= 20


def _labels(lines: list[Line]) -> list[tuple[str, str]]:
    """(label, implied type) for every row label, key-value label and heading-like line of a page."""
    out: list[tuple[str, str]] = []
    row_lines: set[int] = set()
    for row in table_rows(lines):
        row_lines.add(row.line.index)
        kind = "percent" if any(c.percent for c in row.cells) else "number"
        for label in dict.fromkeys([row.label, row.extended_label]):
            # A page header or a sentence with a code in it is not a line item.
            if label and not _CODE.search(label):
                out.append((label, kind))
    for line in lines:
        if line.index in row_lines:
            continue
        text = line.text.strip()
        kv = _KV.match(text)
        if kv:
            out.append((kv.group("k"), "text"))
            continue
        head = _HEADING.match(text)
        title = head.group("t").strip() if head else text
        # A short line without digits or sentence punctuation reads as a heading: a topic the
        # document covers (its presence is what a disclosure flag asks about).
        if 2 <= len(title) <= 16 and not _HAS_DIGIT.search(title) and not re.search(r"[。，,；;：:]", title):
            out.append((title, "boolean"))
    return out
