"""Pasted error text → ranked reference sections, offline and deterministic.

Imports nothing heavy (no boto3, kubernetes or anthropic): ``hyperpod-debug explain`` and
the agent can call it on any machine.
"""

from __future__ import annotations

from tools.explain.engine import DEFAULT_TOP, explain
from tools.explain.identifiers import Identifiers, TimeWindow, extract_identifiers
from tools.explain.models import ExplainResult, Match
from tools.explain.sanitize import MAX_INPUT_CHARS
from tools.explain.xid import classify_xid, find_xids

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
