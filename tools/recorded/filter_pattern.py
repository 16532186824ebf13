"""CloudWatch Logs filter patterns over unstructured events, for replay.

A recording holds what FilterLogEvents returned for the pattern the triage sent then. A
newer triage may send another pattern; when the recorded one is broader (or empty), the
recorded events answer the new one, filtered here as the service would.

The forms implemented are the unstructured-term forms of "Filter pattern syntax for metric
filters, subscription filters, filter log events, and Live Tail" (Amazon CloudWatch Logs
User Guide, FilterAndPatternSyntax.html): an empty pattern matches every event; `ERROR`
matches events holding the term; `"exact phrase"` a phrase (double quotes also enclose
terms with non-alphanumeric characters); `ERROR Exception` events holding both;
`?ERROR ?Exception` events holding either; `ERROR -Exception` holding ERROR but not
Exception. Terms are case-sensitive. Every other form (JSON `{ $.x = 1 }`, space-delimited
`[a, b]`, regular expressions `%re%`, and mixes the guide does not define, such as `?a b`
or `?a -b`) is not implemented: `parse` returns None and replay says the call was not
recorded.

Whether the service matches a term as a whole word or anywhere inside one is not spelled
out in the guide (unverified). Replay leans towards keeping lines: a wanted term matches
anywhere (a word match is also a substring match, so no line the service returns is
dropped) and an excluding term only as a whole word. The checks classify every line with
their own rules afterwards, so an extra line costs nothing, a missing one a finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A token: an optional ? or - and a quoted phrase or a bare run of non-blank characters.
_TOKEN = re.compile(r'\s*([?-]?)(?:"([^"]*)"|([^\s"]+))')
_STRUCTURED = ("{", "[", "%")  # JSON, space-delimited and regex patterns: not implemented


@dataclass(frozen=True, slots=True)
class Alternative:
    """Events holding every `wanted` term and no `excluded` one."""

    wanted: frozenset[str]
    excluded: frozenset[str] = frozenset()

    def matches(self, message: str) -> bool:
        return all(term in message for term in self.wanted) and not any(
            _holds_word(message, term) for term in self.excluded
        )


@dataclass(frozen=True, slots=True)
class TermPattern:
    """A parsed unstructured pattern: events matching any of its alternatives."""

    text: str
    alternatives: tuple[Alternative, ...]

    def matches(self, message: str) -> bool:
        return any(a.matches(message) for a in self.alternatives)

    def within(self, broader: TermPattern) -> bool:
        """Whether every event this pattern matches is matched by `broader` too, decided
        on the terms alone (so it holds however the service splits words): each of this
        pattern's alternatives wants every term, and excludes every term, of one of the
        broader pattern's alternatives. Sound, not complete: `"timed out"` is not taken to
        be within `timed`."""
        return all(
            any(b.wanted <= a.wanted and b.excluded <= a.excluded for b in broader.alternatives)
            for a in self.alternatives
        )


def parse(pattern: str) -> TermPattern | None:
    """The pattern, or None for a form replay does not implement (see the module note)."""
    text = pattern.strip()
    if not text:
        return TermPattern(pattern, (Alternative(frozenset()),))
    if text.startswith(_STRUCTURED):
        return None
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            return None  # an unbalanced quote
        sign, phrase, bare = match.groups()
        term = phrase if phrase is not None else bare
        if not term:
            return None  # `""` or a lone `?`: nothing the guide defines
        tokens.append((sign, term))
        position = match.end()
        if position < len(text) and not text[position].isspace():
            return None  # `"a"b`: a phrase run into a term
    optional = [term for sign, term in tokens if sign == "?"]
    if optional:
        if len(optional) != len(tokens):
            return None  # ?a mixed with b or -b: not defined by the guide
        return TermPattern(pattern, tuple(Alternative(frozenset({t})) for t in optional))
    wanted = frozenset(term for sign, term in tokens if sign == "")
    excluded = frozenset(term for sign, term in tokens if sign == "-")
    return TermPattern(pattern, (Alternative(wanted, excluded),))


def _holds_word(message: str, term: str) -> bool:
    """`term` in `message` with no letter or digit glued to either end of it."""
    start = message.find(term)
    while start >= 0:
        end = start + len(term)
        before = message[start - 1] if start else " "
        after = message[end] if end < len(message) else " "
        if not (before.isalnum() and term[0].isalnum()) and not (
            after.isalnum() and term[-1].isalnum()
        ):
            return True
        start = message.find(term, start + 1)
    return False
