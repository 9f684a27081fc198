"""Which filings a question names: the entity among a collection's metadata values, the fiscal years,
and the annual report or quarterly filing to read (used by the statement planner, plan/analyst.py,
and by retrieval over the filings a question names)."""

from __future__ import annotations

import re

import polars as pl

from mdqa_kernel.plan.ir import MetadataFilter

__all__ = [
    "FY_YEAR",
    "annual_report_filters",
    "entities_named",
    "entity_words",
    "find_entity",
    "fiscal_years",
    "only_entity_of_years",
    "select_filings",
]

_ANNUAL_TYPE = re.compile(r"10-?k\b|annual|年报|年度报告", re.I)
_ENTITY_COLUMNS = ("company", "entity", "issuer", "name", "symbol")
FY_YEAR = re.compile(r"\bfy\s*'?((?:19|20)\d\d)\b|\bfiscal(?:\s+year)?\s+((?:19|20)\d\d)\b", re.I)
_RANGE = re.compile(r"\bfy\s*((?:19|20)\d\d)\s*(?:-|–|to|through)\s*fy\s*((?:19|20)\d\d)\b", re.I)
_FROM_TO = re.compile(r"\bfrom\s+fy\s*((?:19|20)\d\d)\s+(?:to|through)\s+fy\s*((?:19|20)\d\d)\b", re.I)


def fiscal_years(text: str) -> list[int]:
    """The fiscal years a text names: "FY2019", "fiscal 2019", and every year of a range ("FY2015 - FY2017",
    "from FY2016 to FY2018")."""
    years = sorted({int(a or b) for a, b in FY_YEAR.findall(text)})
    for rx in (_RANGE, _FROM_TO):
        for a, b in rx.findall(text):
            lo, hi = sorted((int(a), int(b)))
            if hi - lo <= 10:
                years = sorted({*years, *range(lo, hi + 1)})
    return years


def entity_words(name: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", name.lower().replace("&", " and "))


def find_entity(question: str, metadata: pl.DataFrame) -> tuple[str, str] | None:
    """(column, value) of the one entity of the metadata the question names (whole words, case and
    punctuation ignored: "Coca Cola" names "Coca-Cola"; else by the initials of a name of three or more
    words, "JnJ" or "J&J" for "Johnson & Johnson"); None when it names none or several."""
    column, found = entities_named(question, metadata)
    return (column, next(iter(found))) if column is not None and len(found) == 1 else None


def entities_named(question: str, metadata: pl.DataFrame) -> tuple[str | None, set[str]]:
    """(column, values) of the entities the question names, in the first entity column that has any
    (see `find_entity`); (None, set()) when it names none."""
    words = " " + " ".join(entity_words(question)) + " "
    tokens = set(re.findall(r"[a-z0-9&]+", question.lower()))
    for column in _entity_columns(metadata):
        values = metadata[column].cast(pl.String).drop_nulls().unique().to_list()
        found = {v for v in values if (key := " ".join(entity_words(v))) and f" {key} " in words}
        # a name inside another ("Block" in "Block Inc") is the longer one's
        found = {
            v
            for v in found
            if not any(v != o and " ".join(entity_words(v)) in " ".join(entity_words(o)) for o in found)
        }
        if not found:
            found = {v for v in values if tokens & _initials(v)}
        if found:
            return column, found
    return None, set()


def _entity_columns(metadata: pl.DataFrame) -> list[str]:
    """The metadata's text columns that name an entity (company, issuer, …), in order of preference."""
    return [
        c
        for c in _ENTITY_COLUMNS
        if c in metadata.columns and metadata.schema[c] in (pl.String, pl.Categorical)
    ]


def _initials(name: str) -> set[str]:
    """A name's initials as questions write them: "Johnson & Johnson" → jj, jnj, j&j. Names of three
    or more words only (with "and"/"&"), so that a two-letter word is never taken for a company."""
    words = entity_words(name)
    if len(words) < 3:
        return set()
    heads = ["" if w == "and" else w[0] for w in words]
    return {"".join(heads), "".join(h or "n" for h in heads), "".join(h or "&" for h in heads)}


def annual_report_filters(
    company: str, entity_column: str, asked_years: list[int], metadata: pl.DataFrame
) -> tuple[list[MetadataFilter], int] | None:
    """Filters that select the company's earliest annual report whose fiscal year is the latest one
    asked or later (a 10-K prints the prior years beside its own), and that report's year."""
    if "year" not in metadata.columns:
        return None
    rows = metadata.filter(pl.col(entity_column).cast(pl.String) == company)
    type_col = next((c for c in ("doc_type", "doctype") if c in metadata.columns), None)
    annual = None
    if type_col is not None:
        kinds = [
            k
            for k in rows[type_col].cast(pl.String).drop_nulls().unique().to_list()
            if _ANNUAL_TYPE.search(k)
        ]
        if len(kinds) == 1:
            annual = kinds[0]
            rows = rows.filter(pl.col(type_col).cast(pl.String) == annual)
    years = sorted(int(y) for y in rows["year"].cast(pl.Int64, strict=False).drop_nulls().unique().to_list())
    fitting = [y for y in years if y >= max(asked_years)]
    if not fitting:
        return None
    year = fitting[0]
    # the filter's value in the column's own type (a metadata CSV may keep years as text)
    as_stored: int | str = year if metadata.schema["year"].is_numeric() else str(year)
    filters = [
        MetadataFilter(column=entity_column, equals=company),
        MetadataFilter(column="year", equals=as_stored),
    ]
    if annual is not None and type_col is not None:
        filters.append(MetadataFilter(column=type_col, equals=annual))
    return filters, year


_QUARTER = re.compile(r"\bQ[1-4]\b|\b[1-4]Q\b|\bquarter(?:ly)?\b|\bthree months\b", re.I)
_ANY_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


def select_filings(question: str, metadata: pl.DataFrame) -> list[str]:
    """doc_ids of the filings a question names: its company's, narrowed to the years it names and to
    quarterly or annual filings when it names a quarter or only fiscal years; [] when it names no
    company of the collection and no years only one company's filings cover, or several companies (the
    caller decides what to search then)."""
    years = fiscal_years(question) or sorted({int(y) for y in _ANY_YEAR.findall(question)})
    column, named = entities_named(question, metadata)
    if column is not None:
        entity = (column, next(iter(named))) if len(named) == 1 else None
    else:
        entity = only_entity_of_years(years, metadata)
    if entity is None or "doc_id" not in metadata.columns:
        return []
    column, name = entity
    rows = metadata.filter(pl.col(column).cast(pl.String) == name)
    if years and "year" in rows.columns:
        hit = rows.filter(pl.col("year").cast(pl.Int64, strict=False).is_in(years))
        rows = hit if hit.height else rows
    type_col = next((c for c in ("doc_type", "doctype") if c in rows.columns), None)
    if type_col is not None:
        annual = rows[type_col].cast(pl.String).fill_null("").str.contains("(?i)" + _ANNUAL_TYPE.pattern)
        quarterly = bool(_QUARTER.search(question))
        narrowed = rows.filter(~annual if quarterly else annual)
        rows = narrowed if narrowed.height else rows
    return rows["doc_id"].to_list()


def only_entity_of_years(years: list[int], metadata: pl.DataFrame) -> tuple[str, str] | None:
    """(column, value) of the one entity whose filings cover every year a question names, when the
    question names no entity ("Was there any drop in cash between FY 2023 and Q2 of FY2024?" where one
    company's filings reach FY2024); None when it names no year, or several entities or none cover them."""
    if not years or "year" not in metadata.columns:
        return None
    columns = _entity_columns(metadata)
    if not columns:
        return None
    column = columns[0]  # the column entities_named reads first
    covered = (
        metadata.select(pl.col(column).cast(pl.String), pl.col("year").cast(pl.Int64, strict=False))
        .drop_nulls()
        .group_by(column)
        .agg(pl.col("year").unique())
        .filter(pl.col("year").list.set_intersection(years).list.len() == len(set(years)))
    )
    return (column, covered[column][0]) if covered.height == 1 else None
