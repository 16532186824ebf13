"""Pasted error text → ranked reference sections, offline and deterministic.

Imports nothing heavy (no boto3, kubernetes, anthropic or pydantic): ``hyperpod-debug
explain`` and the agent can call it on any machine. The names below load on first use, so
importing one submodule (the sanitizer, the Xid table) does not load the whole engine.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.explain.engine import DEFAULT_TOP, explain
    from tools.explain.identifiers import Identifiers, TimeWindow, extract_identifiers
    from tools.explain.models import ExplainResult, Match
    from tools.explain.sanitize import MAX_INPUT_CHARS
    from tools.explain.xid_catalog import classify_xid, find_xids

_WHERE = {
    "DEFAULT_TOP": "tools.explain.engine",
    "explain": "tools.explain.engine",
    "Identifiers": "tools.explain.identifiers",
    "TimeWindow": "tools.explain.identifiers",
    "extract_identifiers": "tools.explain.identifiers",
    "ExplainResult": "tools.explain.models",
    "Match": "tools.explain.models",
    "MAX_INPUT_CHARS": "tools.explain.sanitize",
    "classify_xid": "tools.explain.xid_catalog",
    "find_xids": "tools.explain.xid_catalog",
}

__all__ = [
    "DEFAULT_TOP",
    "MAX_INPUT_CHARS",
    "ExplainResult",
    "Identifiers",
    "Match",
    "TimeWindow",
    "classify_xid",
    "explain",
    "extract_identifiers",
    "find_xids",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value
