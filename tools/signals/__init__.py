"""Wording families shared by `explain` and the checks' text tables, and the one helper
that turns regex alternatives into a pattern. Importable without the explain engine."""

from __future__ import annotations

from tools.signals.alternation import alternation, compile_alternation, regex_flags, word
from tools.signals.wording import SIGNALS, SIGNALS_BY_ID, Signal, wording

__all__ = [
    "SIGNALS",
    "SIGNALS_BY_ID",
    "Signal",
    "alternation",
    "compile_alternation",
    "regex_flags",
    "word",
    "wording",
]
