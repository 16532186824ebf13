"""Every compiled pattern of the three wording tables, by a stable key (test plumbing).

test_registry reads it to see that a table naming a registry family (tools.signals) holds
that family's wording whole and matches its examples.
"""

from __future__ import annotations

import re

from tools.checks import _event_families, _lifecycle_families
from tools.explain.anchors import Regex
from tools.explain.signatures import ALL_SIGNATURES

Source = tuple[str, int]  # pattern text and flags (without re.UNICODE, implied for str)


def _source(pattern: Regex | re.Pattern[str] | None) -> Source | None:
    if pattern is None:
        return None
    if isinstance(pattern, re.Pattern):
        return pattern.pattern, int(pattern.flags & ~re.UNICODE)
    return pattern.pattern, pattern.flags


def consumer_patterns() -> dict[str, dict[str, Source | None]]:
    """``{"<table>:<id>": {"<role>": (pattern, flags) or None}}`` for every table entry."""
    found: dict[str, dict[str, Source | None]] = {}
    for signature in ALL_SIGNATURES:
        found[f"explain:{signature.id}"] = {
            "regex": (signature.regex, signature.flags),
            "context": _source(signature.context),
            "unless": _source(signature.unless),
        }
    for family in (*_event_families.FAMILIES, _event_families.UNMAPPED):
        found[f"events:{family.key}"] = {"regex": _source(family.pattern)}
    for log_family in _lifecycle_families.LOG_FAMILIES:
        found[f"lifecycle:{log_family.key}"] = {
            "regex": _source(log_family.pattern),
            "veto": _source(log_family.veto),
        }
    found["lifecycle:_trace"] = {"regex": _source(_lifecycle_families._TRACE)}
    found["lifecycle:_zero_count"] = {"regex": _source(_lifecycle_families._ZERO_COUNT)}
    return found
