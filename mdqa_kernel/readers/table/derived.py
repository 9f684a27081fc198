"""Values that no single label prints but a fixed, explainable rule derives from what is printed.

- "第一大股东持股比例" / "largest shareholder's holding": the top shareholders table is read and the
  largest percentage in its holding column is taken (the table is a ranking; its first row is the answer).
- "女性高管人数": prose that states the count after the group ("…高级管理人员中女性共3人").
- "女性高管姓名列表": the names in a roster table (姓名 / 性别 / 职务 …) whose row marks the group
  ("女" under 性别, "独立董事" under 职务), checked against the group count the report prints.
- "是否为四大会计师事务所客户" / "Big Four auditor": the auditor named on an auditor line, checked against
  the Big Four firms' Chinese and English names (`text.words.KNOWN_SETS`).
- "第三方审验机构": absent, for sure, from a report whose third-party assurance is a sure "no"
  (`presupposed_fact`), so such reports cost no LLM call and get no made-up firm.

Each finder returns `Candidate`s with the line that supports them as evidence, like the other
deterministic finders; the table reader chooses among all candidates.
"""

from __future__ import annotations

import re
import unicodedata

from mdqa_kernel.readers.confidence import LISTED_AGREES, LISTED_DISAGREES, LISTED_UNCHECKED
from mdqa_kernel.readers.table.candidates import Candidate, line_bbox, line_span
from mdqa_kernel.text.layout import Line
from mdqa_kernel.text.rows import table_rows
from mdqa_kernel.text.words import KNOWN_SETS, NAMES_ASKED

_LARGEST = re.compile(r"第一大股东|控股股东|largest\s+shareholder|principal\s+shareholder", re.IGNORECASE)
_HOLDING_HEADER = re.compile(
    r"持股比例|持股比率|shareholding|percentage\s+of\s+(?:shares|holding)", re.IGNORECASE
)
_GROUP_COUNT = re.compile(r"^(?P<who>女性|男性|独立|外籍|female|women|independent)", re.IGNORECASE)
# The cell a roster row carries for each group: a gender cell ("女"), or a role cell naming the group.
_GROUP_CELLS: dict[str, re.Pattern[str]] = {
    "女性": re.compile(r"^女$"), "female": re.compile(r"^(?:f|female)$", re.IGNORECASE),
    "women": re.compile(r"^(?:f|female)$", re.IGNORECASE), "男性": re.compile(r"^男$"),
    "独立": re.compile(r"独立董事"), "independent": re.compile(r"independent", re.IGNORECASE),
}  # fmt: skip
_NAME_HEADER = re.compile(r"^(?:姓名|name)$", re.IGNORECASE)
_COUNT_AFTER = r"[^，。；\d]{0,6}?(?:共|为|有|计|合计|达)?\s*(?P<n>\d+)\s*(?:名|人|位)"

_AUDITOR_LINE = re.compile(r"审计机构|审计师|会计师事务所名称|境内会计师事务所|auditor", re.IGNORECASE)
_ASSURANCE_LINE = re.compile(r"审验|鉴证|assurance", re.IGNORECASE)
_FIRM = re.compile(r"会计师事务所|llp|certified public accountants|& co", re.IGNORECASE)


# A name that exists only when a fact holds: a report with no third-party assurance names no assurance
# provider. (pattern on the name field's description, the yes/no fact it presupposes)
_PRESUPPOSES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"审验机构|鉴证机构|assurance\s+(?:provider|org)", re.IGNORECASE), "是否经第三方机构审验"),
)


def presupposed_fact(description: str) -> str | None:
    """The yes/no fact a named value exists only under ("第三方审验机构" -> "是否经第三方机构审验")."""
    return next((fact for pattern, fact in _PRESUPPOSES if pattern.search(description)), None)


def largest_holding(lines_by_page: dict[int, list[Line]], description: str) -> list[Candidate]:
    """The largest percentage in a table whose header names the holding ratio."""
    if not _LARGEST.search(description):
        return []
    out: list[Candidate] = []
    for page, lines in lines_by_page.items():
        header = next((ln for ln in lines if _HOLDING_HEADER.search(ln.text)), None)
        if header is None:
            continue
        rows = [r for r in table_rows(lines) if r.line.index > header.index]
        best = None
        for row in rows:
            for cell in row.cells:
                if cell.percent and cell.value is not None and (best is None or cell.value > best[1].value):
                    best = (row, cell)
        if best is None:
            continue
        row, cell = best
        out.append(
            Candidate(
                "ranked_table",
                page,
                cell.text,
                f"{header.text} | {row.snippet}",
                0.85,
                cell.bbox,
                None,
                scale=1.0,
            )
        )
    return out


def group_count(lines_by_page: dict[int, list[Line]], description: str) -> list[Candidate]:
    """'…中女性共3人' for '女性高管人数': the group word, then a count of persons."""
    core = unicodedata.normalize("NFKC", description).strip()
    m = _GROUP_COUNT.match(core)
    if not m:
        return []
    pattern = re.compile(re.escape(m.group("who")) + _COUNT_AFTER, re.IGNORECASE)
    out = []
    for page, lines in lines_by_page.items():
        for line in lines:
            hit = pattern.search(line.text.replace(" ", ""))
            if hit:
                n = hit.group("n")
                out.append(
                    Candidate(
                        "count", page, n, line.text, 0.85, line_bbox(line), line_span(line), number=float(n)
                    )
                )
    return out


def membership(lines_by_page: dict[int, list[Line]], description: str) -> list[Candidate]:
    """Whether the auditor named on an auditor line belongs to a known set (the Big Four).

    Only lines that name the financial-statement auditor count: an ESG report's assurance provider
    ("审验机构：毕马威…") is often a Big Four firm too, and is not the auditor."""
    desc = unicodedata.normalize("NFKC", description).lower()
    members = next((names for key, names in KNOWN_SETS.items() if re.search(key, desc)), None)
    if members is None:
        return []
    out = []
    for page, lines in lines_by_page.items():
        for line in lines:
            text = unicodedata.normalize("NFKC", line.text).lower()
            if not _AUDITOR_LINE.search(text) or _ASSURANCE_LINE.search(text):
                continue
            inside = any(m in text for m in members)
            if not inside and not _FIRM.search(text):
                continue  # an auditor heading with no firm on the line says nothing either way
            out.append(
                Candidate(
                    "membership",
                    page,
                    line.text,
                    line.text,
                    0.9,
                    line_bbox(line),
                    line_span(line),
                    boolean=inside,
                )
            )
    # The auditor may be named on several lines; any Big Four mention among them settles it.
    if any(c.boolean for c in out):
        out = [c for c in out if c.boolean]
    return out


def group_members(lines_by_page: dict[int, list[Line]], description: str) -> list[Candidate]:
    """'女性高管姓名列表': every name in a roster table whose row carries the group's cell ("女").

    The rows of every roster in the document are read (a roster may continue on the next page, its
    header repeated); a name listed twice (现任 and 离任 rows) counts once. The reading is sure when
    the report's own group count ("…中女性共8人") agrees with the number of names, unsure (the
    cascade asks the LLM) when it disagrees, and fairly sure when no count is printed."""
    core = unicodedata.normalize("NFKC", description).strip()
    m = _GROUP_COUNT.match(core)
    if not m or not NAMES_ASKED.search(core):
        return []
    marker = _GROUP_CELLS.get(m.group("who").lower())
    if marker is None:
        return []
    names: list[str] = []
    shown: list[Line] = []  # the header and the group's rows, on the first page that has any
    for page, lines in lines_by_page.items():
        for i, line in enumerate(lines):
            head = next((w for w in line.words if _NAME_HEADER.match(w.text.strip())), None)
            if head is None or len(line.words) < 3:
                continue
            for row in lines[i + 1 :]:
                cell = [w for w in row.words if w.x0 - 4 <= head.x1 and head.x0 - 4 <= w.x1]
                if not cell or len(row.words) < 3:
                    break  # the table ended
                if not any(marker.search(w.text.strip()) for w in row.words if w not in cell):
                    continue
                name = "".join(w.text for w in cell).strip()
                if name not in names:
                    names.append(name)
                if not shown or shown[0].page == page:
                    shown += [line, row] if not shown else [row]
    if not names:
        return []
    printed = {int(c.raw) for c in group_count(lines_by_page, core)}
    score = (
        LISTED_UNCHECKED if not printed else (LISTED_AGREES if printed == {len(names)} else LISTED_DISAGREES)
    )
    region = Line(shown[0].page, shown[0].index, [w for x in shown for w in x.words])  # header to last row
    snippet = " / ".join(x.text for x in shown[:4]) + (" …" if len(shown) > 4 else "")
    return [
        Candidate(
            "roster", region.page, "、".join(names), snippet, score, line_bbox(region), line_span(region)
        )
    ]
