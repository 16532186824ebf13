"""Text on its way to a terminal or a file: safe to encode, and unable to drive the terminal.

Values that come from the user (arguments, paths) or from a cluster (status messages, pod
names) can hold anything: lone UTF-16 surrogates (which cannot be encoded as UTF-8 and
would crash the print), terminal escape sequences (colours, cursor moves, a forged window
title), bidirectional overrides (text shown in another order than it reads) and NUL bytes.
`printable` makes a whole output safe; `argument` quotes one value inside an error
message, clipped so a 100,000-character argument is not echoed in full.
"""

from __future__ import annotations

from datetime import datetime

from tools.visible import encodable, escape_controls, safe_cut, without_escapes, without_format

__all__ = ["ARGUMENT_LIMIT", "argument", "encodable", "one_line", "printable"]

ARGUMENT_LIMIT = 200


def printable(text: str) -> str:
    """A whole output made safe (`tools.visible` parts): encodable, no escape sequence, no
    control character but newline and tab (others shown as \\xNN), no bidirectional
    override or other invisible format character."""
    return without_format(escape_controls(without_escapes(encodable(text))))


def one_line(text: str) -> str:
    """`printable`, on one line: a newline from cluster text shows as \\n, so it cannot
    forge a line of its own in a report."""
    return printable(text).replace("\n", "\\n").replace("\t", " ")


def argument(value: object, limit: int = ARGUMENT_LIMIT) -> str:
    """One user-supplied value as an error message shows it: on one line, control
    characters escaped, at most `limit` characters, and when clipped its full length."""
    text = encodable(str(value))
    length = len(text)
    text = escape_controls(without_escapes(text).replace("\n", "\\n"))
    text = without_format(text.replace("\t", " "))
    if len(text) > limit:
        return f"{text[: safe_cut(text, max(limit - 1, 0))]}… ({length:,} characters)"
    return text


def age(then: datetime | None, now: datetime) -> str:
    """How long ago, in the largest whole unit: "40 s ago", "3 min ago", "2 h ago"."""
    if then is None:
        return "time unknown"
    seconds = max(0, int((now - then).total_seconds()))
    if seconds < 60:
        return f"{seconds} s ago"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86_400:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86_400} d ago"
