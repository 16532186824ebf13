"""Tool input schemas as the model reads them: pydantic's JSON Schema, without what only
costs tokens (generated titles, the null branch of an optional field)."""

from __future__ import annotations

from typing import Any


def model_schema(model: Any) -> dict[str, Any]:
    """The input schema of a tool whose arguments are the pydantic model `model`."""
    schema: dict[str, Any] = untitled(model.model_json_schema())
    schema.pop("description", None)  # the model's docstring; the tool has its own
    return schema


def untitled(schema: Any) -> Any:
    """The JSON Schema without pydantic's generated titles: the model reads every token of
    the tool definitions, and a title only repeats the field name."""
    if isinstance(schema, dict):
        schema = _optional_collapsed(schema)
        return {
            key: (untitled(value) if key != "properties" else _props(value))
            for key, value in schema.items()
            if key != "title"
        }
    if isinstance(schema, list):
        return [untitled(item) for item in schema]
    return schema


def _optional_collapsed(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, null]` with a null default is an optional field: say X and let the model
    leave the field out (the input model still accepts null)."""
    options = schema.get("anyOf")
    if (
        isinstance(options, list)
        and len(options) == 2
        and {"type": "null"} in options
        and schema.get("default", "missing") is None
    ):
        (kept,) = [o for o in options if o != {"type": "null"}]
        rest = {k: v for k, v in schema.items() if k not in ("anyOf", "default")}
        return {**kept, **rest}
    return schema


def _props(properties: Any) -> Any:
    # Inside "properties" the keys are field names (a field may be called "title").
    if not isinstance(properties, dict):
        return properties
    return {name: untitled(value) for name, value in properties.items()}
