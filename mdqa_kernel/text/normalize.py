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

from mdqa_kernel.errors import UnknownNameError
from mdqa_kernel.text.datafiles import string_list

ExprNormalizer = Callable[[pl.Expr], pl.Expr]


class UnknownNormalizerError(UnknownNameError):
    """A `ChangeOp.normalizer` name that no `register_entity_normalizer` call registered."""


# Whitespace, punctuation and symbols; same class in Python `re` (approximated) and polars' Rust regex.
_PL_STRIP = r"[\s\p{P}\p{S}]+"
# Legal-form suffixes removed by the default entity normaliser, longest first (text/data/words.json).
LEGAL_SUFFIXES: tuple[str, ...] = string_list("words.json", "legal_suffixes")
_SUFFIX_RE = "(?:" + "|".join(LEGAL_SUFFIXES) + ")+$"


def comparison_key(value: str | None) -> str | None:
    """The key two writings of a text are compared by: NFKC, case-folded, whitespace, punctuation and
    symbols dropped ("KPMG, LLP" and "kpmg llp" share one). None stays None."""
    if value is None:
        return None
    text = unicodedata.normalize("NFKC", value).casefold()
    return "".join(ch for ch in text if not _is_strippable(ch))


def _is_strippable(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return ch.isspace() or cat.startswith("P") or cat.startswith("S")


def comparison_key_expr(expr: pl.Expr) -> pl.Expr:
    """`comparison_key` as a polars expression."""
    return expr.str.normalize("NFKC").str.to_lowercase().str.replace_all(_PL_STRIP, "")


def default_entity(value: str | None) -> str | None:
    text = comparison_key(value)
    if text is None:
        return None
    stripped = re.sub(_SUFFIX_RE, "", text)
    return stripped or text  # never normalise a name to nothing


def default_entity_expr(expr: pl.Expr) -> pl.Expr:
    text = comparison_key_expr(expr)
    stripped = text.str.replace(_SUFFIX_RE, "")
    return pl.when(stripped.str.len_chars() > 0).then(stripped).otherwise(text)


# Parts of an address that one year's report writes and the other's leaves out: the country, the
# administrative level words (北京 / 北京市, 浙江省杭州市), a road's type word before its number
# (商务外环22号 / 商务外环路22号).
_COUNTRY = re.compile(r"^中国")
_LEVEL_WORDS = re.compile(r"[省市区县]")
_ROAD_TYPE = re.compile(r"(?:大道|大街|路|街|道)(?=\d+号)")
_MIN_SHARED = 0.6  # the shorter address must be most of the longer one


def place_key(address: str | None) -> str | None:
    """An address reduced to what every writing of the place keeps (see `same_place`)."""
    text = comparison_key(address)
    if text is None:
        return None
    return _LEVEL_WORDS.sub("", _ROAD_TYPE.sub("", _COUNTRY.sub("", text)))


def _in_order(short: str, long: str) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)


def same_place(a: str | None, b: str | None) -> bool:
    """Two writings of one address: equal once reduced, or the shorter one's characters all in the
    longer one in order (a district or a building name left out: "中国浙江省杭州市庆春路288号" and
    "浙江省杭州市上城区庆春路288号"), covering most of it. A moved office has another road or number."""
    ka, kb = place_key(a), place_key(b)
    if ka is None or kb is None:
        return ka == kb
    short, long = sorted((ka, kb), key=len)
    return short == long or (len(short) >= _MIN_SHARED * len(long) and _in_order(short, long))


_ENTITY_NORMALIZERS: dict[str, ExprNormalizer] = {"default": default_entity_expr}


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
            return comparison_key_expr(expr).map_elements(py_fn, return_dtype=pl.String)

        _ENTITY_NORMALIZERS[name] = wrapped
    else:
        _ENTITY_NORMALIZERS[name] = fn  # type: ignore[assignment]


def entity_normalizer(name: str) -> ExprNormalizer:
    """The entity normaliser registered as `name`; UnknownNormalizerError names the registered ones."""
    try:
        return _ENTITY_NORMALIZERS[name]
    except KeyError:
        known = ", ".join(sorted(_ENTITY_NORMALIZERS))
        raise UnknownNormalizerError(
            f"unknown entity normaliser {name!r}; use one of {known}, or register it with "
            "mdqa_kernel.text.normalize.register_entity_normalizer"
        ) from None


def normalizer_expr(mode: str, name: str = "default") -> ExprNormalizer:
    """The expression normaliser for a ChangeOp `normalize` mode: exact | text | entity."""
    if mode == "exact":
        return lambda e: e
    if mode == "text":
        return comparison_key_expr
    if mode == "entity":
        return entity_normalizer(name)
    raise ValueError(f"unknown normalisation mode {mode!r}; expected exact, text or entity")
