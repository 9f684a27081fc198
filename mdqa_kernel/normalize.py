"""Text and entity normalisation for comparing extracted values across documents and years.

"Did the company change auditor?" must not flag 德勤华永会计师事务所（特殊普通合伙） vs
德勤华永会计师事务所(特殊普通合伙) (full-width parentheses), nor "KPMG LLP" vs "KPMG". Two levels:
- text: Unicode NFKC (full-width forms → ASCII), case-folded, whitespace/punctuation/symbols removed;
- entity: text plus a pluggable entity normaliser (default: strip legal-form suffixes).
Each normaliser exists as a polars expression (fast over many rows) and as a plain Python function
(for judges and answers). Register new ones with `register_entity_normalizer`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import polars as pl

ExprNormalizer = Callable[[pl.Expr], pl.Expr]

# Whitespace, punctuation and symbols; same class in Python `re` (approximated) and polars' Rust regex.
_PL_STRIP = r"[\s\p{P}\p{S}]+"
# Legal-form suffixes removed by the default entity normaliser (already text-normalised: lower case,
# no punctuation), longest first so that "股份有限公司" wins over "有限公司".
LEGAL_SUFFIXES: tuple[str, ...] = (
    "特殊普通合伙",
    "普通合伙",
    "股份有限公司",
    "有限责任公司",
    "有限公司",
    "coltd",
    "corporation",
    "company",
    "limited",
    "corp",
    "llp",
    "llc",
    "inc",
    "ltd",
    "plc",
)  # no bare "co": it would eat the end of names such as "costco"
_SUFFIX_RE = "(?:" + "|".join(LEGAL_SUFFIXES) + ")+$"


def normalize_text(value: str | None) -> str | None:
    """NFKC, case-fold, drop whitespace/punctuation/symbols. None stays None."""
    if value is None:
        return None
    text = unicodedata.normalize("NFKC", value).casefold()
    return "".join(ch for ch in text if not _is_strippable(ch))


def _is_strippable(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return ch.isspace() or cat.startswith("P") or cat.startswith("S")


def normalize_text_expr(expr: pl.Expr) -> pl.Expr:
    return expr.str.normalize("NFKC").str.to_lowercase().str.replace_all(_PL_STRIP, "")


def default_entity(value: str | None) -> str | None:
    text = normalize_text(value)
    if text is None:
        return None
    stripped = re.sub(_SUFFIX_RE, "", text)
    return stripped or text  # never normalise a name to nothing


def default_entity_expr(expr: pl.Expr) -> pl.Expr:
    text = normalize_text_expr(expr)
    stripped = text.str.replace(_SUFFIX_RE, "")
    return pl.when(stripped.str.len_chars() > 0).then(stripped).otherwise(text)


# A road's type word before its number is often left out ("商务外环路22号" / "商务外环22号"): the same place.
_ROAD_TYPE = r"(?:大道|大街|路|街|道)(\d+号)"


def address_expr(expr: pl.Expr) -> pl.Expr:
    """Addresses compared as places: text normalisation, and a road's type word before its number dropped."""
    return normalize_text_expr(expr).str.replace_all(_ROAD_TYPE, "${1}")


_ENTITY_NORMALIZERS: dict[str, ExprNormalizer] = {"default": default_entity_expr, "address": address_expr}


def register_entity_normalizer(
    name: str, fn: Callable[[str], str] | ExprNormalizer, *, python: bool = False
) -> None:
    """Register an entity normaliser by name (for `ChangeOp.normalizer`).

    `fn` maps a polars string expression to one (fast), or, with `python=True`, a str to a str
    (applied element-wise after text normalisation; fine for the few thousand values of a result).
    """
    if python:
        py_fn = fn

        def wrapped(expr: pl.Expr) -> pl.Expr:
            return normalize_text_expr(expr).map_elements(py_fn, return_dtype=pl.String)

        _ENTITY_NORMALIZERS[name] = wrapped
    else:
        _ENTITY_NORMALIZERS[name] = fn  # type: ignore[assignment]


def entity_normalizer(name: str) -> ExprNormalizer:
    try:
        return _ENTITY_NORMALIZERS[name]
    except KeyError:
        known = ", ".join(sorted(_ENTITY_NORMALIZERS))
        raise KeyError(f"unknown entity normaliser {name!r}; registered: {known}") from None


def normalizer_expr(mode: str, name: str = "default") -> ExprNormalizer:
    """The expression normaliser for a ChangeOp `normalize` mode: exact | text | entity."""
    if mode == "exact":
        return lambda e: e
    if mode == "text":
        return normalize_text_expr
    if mode == "entity":
        return entity_normalizer(name)
    raise ValueError(f"unknown normalisation mode {mode!r}; expected exact, text or entity")
