"""One bounded loader for every YAML (and JSON) document a person hands to mdqa.

Plans (`mdqa plan check`, `mdqa extract --plan`, `Plan.from_yaml`, `%%plan` cells), magic bodies
(`%%collection`, `%%extract`, `%%aggregate`), field lists and the LLM config file are all written by
hand or pasted from somewhere; `yaml.safe_load` accepts too much of that: an alias bomb (`&a [..]`
nested nine times, 500 bytes) is cheap to parse but expands to billions of items in whatever walks
it next (a repr in an error message, `to_json`, `pl.col().is_in`), duplicate keys are silently
last-wins, a 20,000-deep `[[[…]]]` is a RecursionError, and non-UTF-8 bytes a UnicodeDecodeError.

`load_yaml`/`load_json` refuse all of that before anything walks the data, each with one line that
names the source, the line (or byte) and the limit:

- anchors (`&name`) and aliases (`*name`) are refused: a plan writes each value out;
- a key given twice in one mapping is refused, naming the key;
- input over `MAX_BYTES` and nesting deeper than `MAX_DEPTH` are refused, naming the limit;
- bytes that are not UTF-8 are refused, naming the byte offset and line.

Messages never show a value longer than `clip` allows. `dump_yaml` writes YAML this loader reads back
(it never writes anchors, even for an object that appears twice).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node

from mdqa_kernel.errors import MdqaError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "YamlLoadError",
    "YamlSyntaxError",
    "clip",
    "decode_utf8",
    "dump_yaml",
    "load_json",
    "load_yaml",
    "read_document",
]

# A plan of 50 fields with long questions is about 20 KB; the MuDABench gold plans (46 fields, each
# restricted to a list of document ids) are about 135 KB. 1 MB leaves room and bounds the work.
MAX_BYTES = 1_000_000
# The deepest real plan is about 6 levels (aggregation -> steps -> [i] -> where -> column -> in).
MAX_DEPTH = 50
_CLIP = 80


class YamlLoadError(MdqaError, ValueError):
    """A YAML/JSON document was refused before use: not UTF-8, too large, too deep, an anchor or alias,
    a duplicate key, or a syntax error. `source` names the file (or cell); `line`/`column` are 1-based
    or None; `located` is the message without the source ("line 4: aliases ...")."""

    def __init__(
        self, problem: str, source: str | None = None, line: int | None = None, column: int | None = None
    ) -> None:
        self.problem, self.source, self.line, self.column = problem, source, line, column
        where = f"line {line}, column {column}: " if line and column else f"line {line}: " if line else ""
        self.located = where + problem
        super().__init__(f"{source}: {self.located}" if source else self.located)


class YamlSyntaxError(YamlLoadError):
    """The text is not YAML (or JSON) at all; callers that also accept code (an %%aggregate body)
    take this one to mean "not YAML", while every other YamlLoadError is a refusal."""


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip(value: object, limit: int = _CLIP) -> str:
    """repr(value) cut to `limit` characters, so no message ever carries a huge value.

    Long containers are not repr'd in full first: only their first items are looked at."""
    if isinstance(value, list | tuple | set | dict) and len(value) > 8:
        head = list(value.items() if isinstance(value, dict) else value)[:8]
        text = f"{type(value).__name__} of {len(value)} items starting {head!r}"
    else:
        text = repr(value)
    return _short(text, limit)


def decode_utf8(data: bytes, source: str | None = None) -> str:
    """UTF-8 bytes -> text (a leading byte-order mark dropped); otherwise one line naming the byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise YamlLoadError(
            f"not UTF-8 text (byte {e.start}: 0x{data[e.start]:02x}); save the file as UTF-8", source, line
        ) from None


def _check_size(size: int, source: str | None) -> None:
    if size > MAX_BYTES:
        raise YamlLoadError(
            f"{size:,} bytes is over the limit of {MAX_BYTES:,} bytes for a plan or configuration; "
            "a plan this large is almost certainly not written by hand",
            source,
        )


def _text_size(text: str) -> int:
    # Characters <= bytes: a text over the limit in characters is refused without encoding it.
    return len(text) if len(text) > MAX_BYTES else len(text.encode("utf-8", "surrogatepass"))


def read_document(path: str | Path) -> str:
    """A file's text, refused (without reading it all) when over MAX_BYTES or not UTF-8."""
    p = Path(path)
    with p.open("rb") as f:
        data = f.read(MAX_BYTES + 1)
    _check_size(p.stat().st_size if len(data) > MAX_BYTES else len(data), str(p))
    return decode_utf8(data, str(p))


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses anchors, aliases, duplicate keys and deep nesting while composing,
    i.e. before any value is constructed, let alone expanded."""

    source: str | None = None
    what = "a plan"

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            raise YamlLoadError(
                f"aliases (*{_short(event.anchor, 40)}) are not allowed in {self.what}; write the value out",
                self.source,
                event.start_mark.line + 1,
            )
        event = self.peek_event()
        if event.anchor is not None:
            name = _short(event.anchor, 40)
            raise YamlLoadError(
                f"anchors (&{name}) and aliases (*{name}) are not allowed in {self.what}; write the value out",
                self.source,
                event.start_mark.line + 1,
            )
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise YamlLoadError(
                f"nested more than {MAX_DEPTH} levels deep (the limit); a plan needs about 6",
                self.source,
                event.start_mark.line + 1,
            )
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _value in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<:` merges (of inline mappings: aliases never get here) may override keys
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:
                continue  # an unhashable key: the base class reports it
            if duplicate:
                raise YamlLoadError(
                    f"duplicate key {clip(key)}: each key may appear once in a mapping "
                    "(the second would silently replace the first)",
                    self.source,
                    key_node.start_mark.line + 1,
                )
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str | bytes, source: str | None = None, *, what: str = "a plan") -> Any:
    """Parse one YAML document within the limits above; YamlLoadError otherwise.

    `source` (a file name, "%%plan cell") and `what` ("a plan", "an LLM config") go into messages."""
    if isinstance(text, bytes):
        _check_size(len(text), source)
        text = decode_utf8(text, source)
    else:
        _check_size(_text_size(text), source)
    loader = None
    try:
        loader = _BoundedLoader(text)  # the reader checks for non-printable characters here already
        loader.source, loader.what = source, what
        return loader.get_single_data()
    except (ComposerError, ConstructorError, yaml.YAMLError) as e:
        mark = getattr(e, "problem_mark", None)
        problem = str(getattr(e, "problem", None) or e).splitlines()[0]
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        raise YamlSyntaxError(f"not valid YAML ({_short(problem, 160)})", source, line, column) from None
    finally:
        if loader is not None:
            loader.dispose()


def _json_pairs(source: str | None) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise YamlLoadError(
                    f"duplicate key {clip(key)}: each key may appear once in an object", source
                )
            out[key] = value
        return out

    return hook


def _json_depth(text: str) -> int:
    """Deepest bracket nesting outside strings, found without recursion (json.loads would recurse)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def load_json(text: str | bytes, source: str | None = None) -> Any:
    """Parse one JSON document within the same limits (JSON has no aliases)."""
    if isinstance(text, bytes):
        _check_size(len(text), source)
        text = decode_utf8(text, source)
    else:
        _check_size(_text_size(text), source)
    if _json_depth(text) > MAX_DEPTH:
        raise YamlLoadError(
            f"nested more than {MAX_DEPTH} levels deep (the limit); a plan needs about 6", source
        )
    try:
        return json.loads(text, object_pairs_hook=_json_pairs(source))
    except json.JSONDecodeError as e:
        raise YamlSyntaxError(f"not valid JSON ({e.msg})", source, e.lineno, e.colno) from None


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # an object that appears twice is written out twice: load_yaml refuses aliases


def dump_yaml(data: Any, **options: Any) -> str:
    """yaml.safe_dump without anchors/aliases, so that load_yaml reads the text back."""
    return yaml.dump(data, Dumper=_NoAliasDumper, **options)
