"""Tool schemas as their readers get them: pydantic's JSON Schema without what only costs
tokens (generated titles; for inputs, the null branch of an optional field)."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema


class _AnswerSchema(GenerateJsonSchema):
    """The schema of what a dump holds (serialization mode), every field required that the
    dump always writes: all of them but those left out while empty (`exclude_if`), whatever
    their defaults. Pydantic's own default would mark each field with a default optional,
    true of an input, not of an answer."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        if field["type"] == "typed-dict-field" or self.mode != "serialization":
            return super().field_is_required(field, total)
        return field.get("serialization_exclude_if") is None


def model_schema(model: Any) -> dict[str, Any]:
    """The input schema of a tool whose arguments are the pydantic model `model`."""
    schema: dict[str, Any] = untitled(model.model_json_schema())
    schema.pop("description", None)  # the model's docstring; the tool has its own
    return schema


@cache
def output_schema(model: Any) -> dict[str, Any]:
    """The JSON Schema of a tool's output model `model`, as an MCP client validates the
    structured content against it. Unlike an input's, a null stays allowed where the output
    has one (`focus_node`, `next_offset`...). Built once per model: the check tools share
    one output model, so they share this one object. Not to be mutated."""
    generated = model.model_json_schema(mode="serialization", schema_generator=_AnswerSchema)
    schema: dict[str, Any] = _compact(untitled(generated, collapse=False))
    schema.pop("description", None)  # the model's docstring; the tool has its own
    return schema


def untitled(schema: Any, *, collapse: bool = True) -> Any:
    """The JSON Schema without pydantic's generated titles: the model reads every token of
    the tool definitions, and a title only repeats the field name. `collapse`: an optional
    input field is said as its type alone (`_optional_collapsed`)."""
    if isinstance(schema, dict):
        if collapse:
            schema = _optional_collapsed(schema)
        return {
            key: (
                untitled(value, collapse=collapse)
                if key != "properties"
                else _props(value, collapse)
            )
            for key, value in schema.items()
            if key != "title"
        }
    if isinstance(schema, list):
        return [untitled(item, collapse=collapse) for item in schema]
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


def _props(properties: Any, collapse: bool) -> Any:
    # Inside "properties" the keys are field names (a field may be called "title").
    if not isinstance(properties, dict):
        return properties
    return {name: untitled(value, collapse=collapse) for name, value in properties.items()}


def _compact(schema: Any) -> Any:
    """The same constraints in fewer characters: `anyOf: [{"type": X}, {"type": "null"}]`
    becomes `"type": [X, "null"]`, and a `"default": null` (an annotation, which validates
    nothing) goes. Field names under "properties" are left alone."""
    if isinstance(schema, list):
        return [_compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    compact: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            compact[key] = {name: _compact(field) for name, field in value.items()}
        elif key == "default" and value is None:
            continue
        else:
            compact[key] = _compact(value)
    options = compact.get("anyOf")
    if (
        isinstance(options, list)
        and len(options) == 2
        and {"type": "null"} in options
        and all(_plain_type(o) for o in options)
    ):
        (kept,) = [o for o in options if o != {"type": "null"}]
        rest = {k: v for k, v in compact.items() if k != "anyOf"}
        return {**rest, "type": [kept["type"], "null"]}
    return compact


def _plain_type(option: Any) -> bool:
    """A schema that only names one type (no items, properties, enum...)."""
    return isinstance(option, dict) and set(option) == {"type"} and isinstance(option["type"], str)
