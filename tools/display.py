"""Text on its way to a terminal or a file: safe to encode, and unable to drive the terminal.

Values that come from the user (arguments, paths) or from a cluster (status messages, pod
names) can hold anything: lone UTF-16 surrogates (which cannot be encoded as UTF-8 and
would crash the print), terminal escape sequences (colours, cursor moves, a forged window
title), bidirectional overrides (text shown in another order than it reads) and NUL bytes.
`printable` makes a whole output safe; `argument` quotes one value inside an error
message, clipped so a 100,000-character argument is not echoed in full.
"""

from __future__ import annotations

import re

ARGUMENT_LIMIT = 200

# Terminal escape sequences: CSI (colours, cursor), OSC (window title, hyperlinks) and the
# other two-character escapes, dropped whole; then any C0 / C1 control but newline and tab.
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Bidirectional embeddings, overrides and isolates (LRE .. RLO, LRI .. PDI).
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")


def encodable(text: str) -> str:
    """`text` with every lone surrogate replaced by "?" (everything else unchanged)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def printable(text: str) -> str:
    """A whole output made safe: encodable, no escape sequence, no control character but
    newline and tab (others shown as \\xNN), no bidirectional override."""
    text = encodable(text)
    if "\x1b" in text or "\x9b" in text:
        text = _ESCAPE.sub("", text)
    text = _CONTROL.sub(_escaped, text)
    return _BIDI.sub("", text)


def one_line(text: str) -> str:
    """`printable`, on one line: a newline from cluster text shows as \\n, so it cannot
    forge a line of its own in a report."""
    return printable(text).replace("\n", "\\n").replace("\t", " ")


def _escaped(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def argument(value: object, limit: int = ARGUMENT_LIMIT) -> str:
    """One user-supplied value as an error message shows it: on one line, control
    characters escaped, at most `limit` characters, and when clipped its full length."""
    text = encodable(str(value))
    length = len(text)
    text = _ESCAPE.sub("", text)
    text = _CONTROL.sub(_escaped, text.replace("\n", "\\n"))
    text = _BIDI.sub("", text.replace("\t", " "))
    if len(text) > limit:
        return f"{text[: max(limit - 1, 0)]}… ({length:,} characters)"
    return text
