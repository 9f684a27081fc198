"""Structured output: JSON schemas from pydantic models, parsing, validation and repair prompts.

On the local backend a llama.cpp grammar makes every answer valid JSON of the schema; servers
may honour `response_format`, or may not. Either way the text is parsed and validated here, so a
caller always gets a validated instance or a StructuredOutputError, never half-checked data.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from mdqa_kernel.errors import MdqaError

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


class OutputInvalid(MdqaError, ValueError):
    """The text is not JSON of the schema; the message is what we tell the model on a repair."""


@dataclass(frozen=True)
class Schema:
    """A requested output shape: the JSON schema sent to the backend and how to validate answers."""

    json_schema: dict[str, Any]
    model: type[BaseModel] | None = None

    @classmethod
    def of(cls, schema: type[BaseModel] | dict[str, Any]) -> Schema:
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return cls(json_schema=schema.model_json_schema(), model=schema)
        if isinstance(schema, dict):
            return cls(json_schema=schema)
        raise TypeError(
            f"schema must be a pydantic model class or a JSON-schema dict, not {type(schema).__name__}"
        )

    @property
    def name(self) -> str:
        return str(self.json_schema.get("title") or "output")

    def validate_text(self, text: str) -> BaseModel | dict[str, Any]:
        """Parse and validate one answer; raises OutputInvalid with a message fit for the model."""
        data = extract_json(text)
        if self.model is not None:
            try:
                return self.model.model_validate(data)
            except ValidationError as e:
                details = "; ".join(
                    f"{'.'.join(map(str, err['loc'])) or '(root)'}: {err['msg']}" for err in e.errors()
                )
                raise OutputInvalid(f"the JSON does not match the schema: {details}") from None
        check_json_schema(data, self.json_schema)
        return data


def extract_json(text: str) -> Any:
    """The JSON value in a model's answer, tolerating code fences and prose around one object."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    start = min((i for i in (stripped.find("{"), stripped.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise OutputInvalid("the answer contains no JSON object")
    try:
        value, _end = json.JSONDecoder().raw_decode(stripped[start:])
    except json.JSONDecodeError as e:
        raise OutputInvalid(f"the answer is not valid JSON ({e.msg} at position {e.pos})") from None
    return value


def check_json_schema(data: Any, schema: dict[str, Any], path: str = "") -> None:
    """A small validator for plain dict schemas: type, required and properties, recursively.

    Enough for the flat schemas the readers use; pydantic models get full validation instead.
    """
    where = path or "(root)"
    expected = schema.get("type")
    if isinstance(expected, str) and expected in _JSON_TYPES:
        ok = isinstance(data, _JSON_TYPES[expected]) and not (
            expected in {"number", "integer"} and isinstance(data, bool)
        )
        if not ok:
            raise OutputInvalid(f"{where}: expected {expected}, got {type(data).__name__}")
    if "enum" in schema and data not in schema["enum"]:
        raise OutputInvalid(f"{where}: {data!r} is not one of {schema['enum']}")
    if isinstance(data, dict):
        missing = [k for k in schema.get("required", []) if k not in data]
        if missing:
            raise OutputInvalid(f"{where}: missing keys {missing}")
        for key, sub in schema.get("properties", {}).items():
            if key in data and isinstance(sub, dict):
                check_json_schema(data[key], sub, f"{path}.{key}" if path else key)
    if isinstance(data, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(data):
            check_json_schema(item, schema["items"], f"{path}[{i}]")


def schema_instruction(schema: Schema) -> str:
    """The system-prompt text used where the backend cannot enforce the schema itself."""
    return (
        "Reply with one JSON object and nothing else (no code fences, no prose). "
        f"It must match this JSON schema:\n{json.dumps(schema.json_schema, ensure_ascii=False)}"
    )


def repair_message(error: str) -> str:
    return f"That reply was not usable: {error}. Reply again with only the corrected JSON object."
