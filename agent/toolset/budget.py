"""Keeping tool results small: a model reads every character of them on every round.

Sizes are estimated as characters / 4 (there is no offline tokenizer); the budgets below are
in characters so the estimate is never hidden in a constant.
"""

from __future__ import annotations

import json
from typing import Any

from tools.visible import safe_cut

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
