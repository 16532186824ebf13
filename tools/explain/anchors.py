"""Literal anchors: a cheap pre-check that skips regexes which cannot match.

For each signature we derive, from the regex source, lower-cased literals of which every
match must contain at least one. ``literal in fold(text)`` is far cheaper than running a
case-insensitive alternation over 200 KB, and most signatures do not match most texts.
The scan is conservative: when in doubt it returns ``None`` and the regex always runs.

Scanning every table's regexes costs more at start-up than a short text's whole match, so
the anchors are looked up in ``anchors.json``, an index keyed by regex source that
``python -m tools.explain.anchors`` rewrites (a test keeps it exact); a source missing
from it is scanned on first use. A regex is compiled only when its anchors are present
(``Regex``): for a short text most of the ~200 patterns are never compiled.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from functools import cache, lru_cache

_CLASS_ESCAPES = frozenset("sSdDwWbBAZ")
# "(?:", scoped inline flags such as "(?-i:" or "(?i:", and a named group "(?P<name>": the
# group's body follows. Any other "(?" construct is not scanned (no anchors from it).
_GROUP_PREFIX = re.compile(r"^\?(?:[aiLmsux]*(?:-[imsx]+)?:|P<\w+>)")
# Display columns: an ASCII character counts 1, a CJK character 2. Two ASCII characters
# ("CG", "96") still rule most texts out; a single one is in nearly every text.
_MIN_ANCHOR = 2

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
        body = _GROUP_PREFIX.sub("", inner, count=1)
        if not body.startswith("?") and not _optional_at(self.source, close + 1):
            nested = literal_anchors(body)
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


# Characters that re.IGNORECASE matches to an ASCII letter but str.lower() does not turn
# into one ("İ" lowers to "i" plus a combining dot): folded first, so that an anchor check
# never rules out text that the case-insensitive regex would match.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def fold(text: str) -> str:
    """Lower-case ``text`` the way the anchor checks expect (see ``Regex.may_match``)."""
    return text.translate(_FOLD).lower()


INDEX_PATH = os.path.join(os.path.dirname(__file__), "anchors.json")


@cache
def _index() -> dict[str, Anchors | None]:
    try:
        with open(INDEX_PATH, encoding="utf-8") as stream:
            stored: dict[str, list[str] | None] = json.load(stream)
    except (OSError, ValueError):  # no index (or a damaged one): every source is scanned
        return {}
    return {source: None if found is None else tuple(found) for source, found in stored.items()}


_MISSING: tuple[str, ...] = ("\0missing",)


@cache
def anchors_of(source: str) -> Anchors | None:
    """``literal_anchors(source)``, from the index when it holds the source."""
    found = _index().get(source, _MISSING)
    return literal_anchors(source) if found is _MISSING else found


# Bounded: the instruction check compiles one alternation per set of parts a text needs.
@lru_cache(maxsize=1024)
def compiled(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


class Regex:
    """A regex that is compiled on first use and knows its literal anchors.

    Callers check ``may_match`` on the folded text before they search: when no anchor is
    present the pattern cannot match, and is never compiled.
    """

    __slots__ = ("flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r}, {self.flags})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Regex) and (self.pattern, self.flags) == (
            other.pattern,
            other.flags,
        )

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    @property
    def compiled(self) -> re.Pattern[str]:
        return compiled(self.pattern, self.flags)

    @property
    def anchors(self) -> Anchors | None:
        return anchors_of(self.pattern)

    def may_match(self, folded: str) -> bool:
        """Can the pattern match the text whose ``fold()`` is ``folded``?"""
        keys = anchors_of(self.pattern)
        return keys is None or any(key in folded for key in keys)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(text, pos, endpos)

    def finditer(
        self, text: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text, pos, endpos)


def indexed_sources() -> list[str]:
    """Every regex source that the explain tables check anchors for (the index's keys)."""
    from tools.explain.guesses import FAMILIES
    from tools.explain.identifiers import PATTERNS
    from tools.explain.sanitize import INSTRUCTION_PARTS
    from tools.explain.signatures import ALL_SIGNATURES

    sources = [s.regex for s in ALL_SIGNATURES]
    for family in FAMILIES:
        sources.append(family.terms.pattern)
        if family.context is not None:
            sources.append(family.context.pattern)
    sources += [p.pattern for p in PATTERNS]
    sources += [p.pattern for p in INSTRUCTION_PARTS]
    return list(dict.fromkeys(sources))


def build_index() -> dict[str, Anchors | None]:
    return {source: literal_anchors(source) for source in indexed_sources()}


def write_index() -> None:
    """Rewrite ``anchors.json`` from the current tables."""
    index = build_index()
    lines = [
        f"{json.dumps(source, ensure_ascii=False)}: {json.dumps(found, ensure_ascii=False)}"
        for source, found in sorted(index.items())
    ]
    with open(INDEX_PATH, "w", encoding="utf-8") as stream:
        stream.write("{\n" + ",\n".join(lines) + "\n}\n")  # one regex a line


if __name__ == "__main__":
    write_index()
