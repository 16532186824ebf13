"""Keeping tool results small: a model reads every character of them on every round.

Sizes are estimated as characters / 4 (there is no offline tokenizer); the budgets below are
in characters so the estimate is never hidden in a constant.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from tools.visible import safe_cut

if TYPE_CHECKING:
    from pydantic import BaseModel

CHARS_PER_TOKEN = 4
# The triage result must stay under 4,000 tokens even for a 20,000-node cluster.
TRIAGE_RESULT_CHARS = 15_000
CHECK_RESULT_CHARS = 12_000
DEFAULT_RESULT_CHARS = 12_000
LINE_CHARS = 400


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def dumps(payload: Any) -> str:
    """Compact, stable JSON: what the model reads."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)


def clip_line(text: str, limit: int = LINE_CHARS) -> str:
    """At most `limit` characters; the cut never lands inside a redaction placeholder or a
    secret-shaped token (`tools.visible.safe_cut`)."""
    if len(text) <= limit:
        return text
    return text[: safe_cut(text, max(limit - 1, 0))].rstrip() + "…"


def fit(payload: dict[str, Any], limit: int, shrinkable: tuple[str, ...]) -> dict[str, Any]:
    """Drop items from the end of the `shrinkable` lists (first key first) until the JSON
    fits `limit`; count what was dropped under `<key>_not_shown` so nothing disappears
    silently."""
    for key in shrinkable:
        items = payload.get(key)
        if not isinstance(items, list):
            continue
        dropped = 0
        while items and len(dumps(payload)) > limit:
            items.pop()
            dropped += 1
        if dropped:
            counter = f"{key}_not_shown"
            payload[counter] = int(payload.get(counter, 0)) + dropped
        if len(dumps(payload)) <= limit:
            break
    return payload


Output = TypeVar("Output", bound="BaseModel")


def fit_output(output: Output, limit: int, shrinkable: tuple[str, ...]) -> Output:
    """`fit` on a typed tool output: the same items dropped (measured on the JSON dump the
    model reads), the `<key>_not_shown` counters set; a trimmed copy, or `output` itself
    when it fits. The model must declare each counter it may need."""
    payload = output.model_dump(mode="json")
    fit(payload, limit, shrinkable)
    update: dict[str, Any] = {}
    for key in shrinkable:
        counter = f"{key}_not_shown"
        if counter in payload:
            if counter not in type(output).model_fields:
                raise TypeError(f"{type(output).__name__} does not declare {counter}")
            update[key] = getattr(output, key)[: len(payload[key])]
            update[counter] = payload[counter]
    return output.model_copy(update=update) if update else output
