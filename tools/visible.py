"""Text as a reader sees it: the characters a terminal or a Markdown renderer would not show
are taken out before anything is judged, so what is checked is what is shown.

A model's answer (or cluster text inside it) can hide a command from a checker and still
show it runnable: `kube<U+200E>ctl delete node`, `sudo <U+202E>reboot<U+202C>`, an ANSI
escape that erases a prefix on the terminal. `visible` removes, without a trace, every
character that has no glyph of its own:

- terminal escape sequences (CSI, OSC, two-character escapes), whole;
- C0 and C1 control characters except tab and newline (a carriage return ends a line);
- zero-width and format characters: U+00AD, U+061C, U+115F/U+1160, U+180E, U+200B–U+200F,
  U+2060–U+2064, U+3164, U+FEFF, U+FFA0, and the bidirectional embeddings, overrides and
  isolates U+202A–U+202E, U+2066–U+2069.

It shows a lone surrogate (half of a character, which no encoder can write) as "?", as
the terminal output always has.

Line and paragraph separators (U+2028, U+2029) become newlines, as a renderer breaks on
them. `VisibleStream` does the same to text that arrives in pieces: a piece that ends inside
an escape sequence (or on a carriage return) is held back until the next one completes it.
"""

from __future__ import annotations

import re

# Escape sequences, whole (an unterminated OSC runs to the end of what is there).
_ESCAPE = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erases
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[@-Z\\-_]"  # two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_NO_GLYPH = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
    "\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069"
    "\u3164\ufeff\uffa0]"
)
_HIDDEN = re.compile(f"{_ESCAPE}|{_NO_GLYPH}")
_NEWLINES = re.compile("\r\n?|[\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# The end of a piece that may be the start of an escape sequence.
_OPEN_TAIL = re.compile(r"(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]{0,4096}|)|\x9b[0-?]*[ -/]*)\Z")


def visible(text: str) -> str:
    """`text` without the characters a reader would not see (see the module docstring)."""
    if text.isascii() and text.isprintable():
        return text  # the common case: nothing to take out
    return _SURROGATE.sub("?", _HIDDEN.sub("", _NEWLINES.sub("\n", text)))


class VisibleStream:
    """`visible` for text that arrives in pieces: the joined output of `feed` and `flush`
    equals `visible` of the joined input (an unterminated OSC sequence is held for at most
    4,096 characters)."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        tail = _OPEN_TAIL.search(text)
        # A lone CR may be the first half of CRLF: hold it too.
        cut = tail.start() if tail else (len(text) - 1 if text.endswith("\r") else len(text))
        self._held = text[cut:]
        return visible(text[:cut])

    def flush(self) -> str:
        """The rest: an escape sequence that never completed is dropped."""
        text, self._held = self._held, ""
        return visible(text)
