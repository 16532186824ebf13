"""The one regex helper of the wording tables: alternatives joined into one pattern.

`explain`'s signatures, the cluster-event families and the lifecycle-log families all write
a wording family as a list of regex alternatives; this module is the only place that turns
such a list into a pattern, so the three tables cannot drift apart in how they join or
which case rule they use.
"""

from __future__ import annotations

import re


def alternation(alternatives: tuple[str, ...]) -> str:
    """One pattern that matches where any alternative matches, tried in the given order.

    Each alternative is wrapped in a non-capturing group, so one holding its own ``|``
    stays whole and its capturing groups keep their numbers.
    """
    return "|".join(f"(?:{a})" for a in alternatives)


def regex_flags(case: bool) -> int:
    """Case-insensitive unless ``case``: wording is matched the way people type it."""
    return 0 if case else re.IGNORECASE


def compile_alternation(*alternatives: str, case: bool = False) -> re.Pattern[str]:
    """``alternation`` compiled now, for the first-match tables of the checks.

    `explain` compiles lazily instead (tools.explain.anchors.Regex): it holds hundreds of
    patterns and a short text needs few of them.
    """
    return re.compile(alternation(alternatives), regex_flags(case))


def word(text: str) -> str:
    """A regex for ``text`` bounded by non-ASCII-word characters.

    Unlike ``\\b`` this also matches inside Chinese text, where customers write English
    terms with no spaces around them (e.g. "被OOM了").
    """
    return rf"(?<![A-Za-z0-9_])(?:{text})(?![A-Za-z0-9_])"
