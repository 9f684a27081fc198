"""The text layer's vocabulary as package data: JSON files under `mdqa_kernel/text/data/`.

Word lists (the glossary, the verbs of yes/no facts, known sets, legal suffixes) are data, not code:
they are read once through `importlib.resources` (so an installed wheel finds them) and cached.
JSON, not YAML: the text layer depends on nothing beyond the standard library and polars.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from mdqa_kernel.errors import MdqaError


class TextDataError(MdqaError):
    """A vocabulary file of the text layer is missing, malformed or lacks a list it must have."""


@cache
def load(name: str) -> dict[str, Any]:
    """The parsed data file `name` (e.g. "words.json"), read once."""
    source = resources.files("mdqa_kernel.text").joinpath("data", name)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise TextDataError(f"cannot read text data file {name}: {e}") from e
    if not isinstance(data, dict):
        raise TextDataError(f"text data file {name} must hold a JSON object, not {type(data).__name__}")
    return data


def entry(name: str, key: str) -> Any:
    """One entry of a data file; a missing one is an error that names the file and the key."""
    data = load(name)
    if key not in data:
        raise TextDataError(f"text data file {name} has no {key!r}; it has {', '.join(sorted(data))}")
    return data[key]


def string_list(name: str, key: str) -> tuple[str, ...]:
    """An entry that must be a list of strings, as a tuple (order kept: regex alternatives)."""
    value = entry(name, key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TextDataError(f"{name}: {key!r} must be a list of strings")
    return tuple(value)


def string_groups(name: str, key: str) -> tuple[tuple[str, ...], ...]:
    """An entry that must be a list of lists of strings, as tuples."""
    value = entry(name, key)
    if not isinstance(value, list) or not all(
        isinstance(g, list) and all(isinstance(v, str) for v in g) for g in value
    ):
        raise TextDataError(f"{name}: {key!r} must be a list of lists of strings")
    return tuple(tuple(g) for g in value)
