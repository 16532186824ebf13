"""Literal anchors: a cheap pre-check that skips regexes which cannot match.

For each signature we derive, from the regex source, lower-cased literals of which every
match must contain at least one. ``literal in text.lower()`` is far cheaper than running a
case-insensitive alternation over 200 KB, and most signatures do not match most texts.
The scan is conservative: when in doubt it returns ``None`` and the regex always runs.
"""

from __future__ import annotations

import re

_CLASS_ESCAPES = frozenset("sSdDwWbBAZ")
# "(?:", and scoped inline flags such as "(?-i:" or "(?i:": the group's body follows.
_INLINE_FLAGS = re.compile(r"^\?[aiLmsux]*(?:-[imsx]+)?:")
_LOOKAROUNDS = ("?=", "?!", "?<=", "?<!")
_MIN_ANCHOR = 3  # display columns: an ASCII character counts 1, a CJK character 2

Anchors = tuple[str, ...]


def _width(text: str) -> int:
    return sum(2 if ord(c) > 0x2E7F else 1 for c in text)


def _closing(source: str, i: int, opener: str, closer: str) -> int:
    """Index of the bracket that closes the one at ``i`` (``len(source)`` if none)."""
    depth, j = 0, i
    while j < len(source):
        char = source[j]
        if char == "\\":
            j += 2
            continue
        if char == "[" and opener != "[":
            j = _closing(source, j, "[", "]")
        elif char == opener:
            depth += 1
        elif char == closer:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(source)


def _split_top(source: str) -> list[str]:
    """Split on ``|`` outside groups and classes."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i = _closing(source, i, "[", "]")
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(source[start:i])
            start = i + 1
        i += 1
    return [*parts, source[start:]]


def _optional_at(source: str, i: int) -> bool:
    """Is the atom just before ``i`` made optional by a quantifier?"""
    return source[i : i + 1] in ("?", "*") or source[i : i + 2] == "{0"


class _Sequence:
    """Scan one branch (no top-level ``|``) and collect candidate anchor sets."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.candidates: list[Anchors] = []
        self.run: list[str] = []

    def end_run(self) -> None:
        if self.run:
            self.candidates.append(("".join(self.run).lower(),))
            self.run.clear()

    def group(self, i: int) -> int:
        close = _closing(self.source, i, "(", ")")
        inner = self.source[i + 1 : close]
        self.end_run()
        if not inner.startswith(_LOOKAROUNDS) and not _optional_at(self.source, close + 1):
            nested = literal_anchors(_INLINE_FLAGS.sub("", inner, count=1))
            if nested is not None:
                self.candidates.append(nested)
        return close + 1

    def literal(self, i: int) -> int:
        char = self.source[i]
        i += 1
        if char == "\\":
            char = self.source[i : i + 1]
            i += 1
            if not char or char.isalnum() or char in _CLASS_ESCAPES:
                self.end_run()
                return i
        if _optional_at(self.source, i):
            self.end_run()
            return i
        self.run.append(char)
        if self.source[i : i + 1] == "+":
            self.end_run()
        return i

    def scan(self) -> list[Anchors]:
        i = 0
        while i < len(self.source):
            char = self.source[i]
            if char == "(":
                i = self.group(i)
            elif char in "[{":
                self.end_run()
                i = _closing(self.source, i, char, "]" if char == "[" else "}") + 1
            elif char in "?*+.^$":
                self.end_run()
                i += 1
            else:
                i = self.literal(i)
        self.end_run()
        return self.candidates


def literal_anchors(source: str) -> Anchors | None:
    """Lower-cased literals of which every match of ``source`` contains at least one."""
    branches = _split_top(source)
    if len(branches) > 1:
        found = [literal_anchors(b) for b in branches]
        if any(f is None for f in found):
            return None
        return tuple(dict.fromkeys(a for f in found if f is not None for a in f))
    candidates = _Sequence(source).scan()
    best = max(candidates, key=lambda c: min(_width(a) for a in c), default=None)
    if best is None or min(_width(a) for a in best) < _MIN_ANCHOR:
        return None
    return best


def anchors_for(alternatives: tuple[str, ...]) -> Anchors | None:
    return literal_anchors("|".join(f"(?:{a})" for a in alternatives))
