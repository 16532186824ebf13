"""Quoting text that comes from the cluster (log lines, status messages, event descriptions).

Such text is data, never instructions: it is shown clipped, on one line, with control
characters made visible and secret-looking values redacted, so a hostile or huge log
line cannot reshape a report or leak a key into it.
"""

from __future__ import annotations

import re

from tools.redaction import REDACTED, redact_text

CLIP = 200

# Terminal escape sequences (colours, cursor moves, window titles): dropped whole before
# redaction, since "\x1b[31mAKIA..." would otherwise hide the key's word boundary.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window title, hyperlinks
    r"|\x1b[@-Z\\-_]"  # other two-character escapes
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SPACE = re.compile(r"\s+")


# Characters of an opaque token (base64, base64url, hex): a cut inside a run of these that
# looks random would show part of something that may be a secret.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_SECRET_SHAPED = 16


def safe_cut(text: str, end: int) -> int:
    """Where to cut `text` at or before `end` so that the kept part never ends inside a
    redaction placeholder or inside a secret-shaped token (16 or more token characters
    mixing upper case, lower case and digits): the cut moves back to its start."""
    if end >= len(text):
        return len(text)
    end = max(end, 0)
    opening = text.rfind("<", max(end - len(REDACTED) + 1, 0), end)
    if opening != -1 and text.startswith(REDACTED, opening) and opening + len(REDACTED) > end:
        end = opening
    if 0 < end < len(text) and text[end - 1] in _TOKEN_CHARS and text[end] in _TOKEN_CHARS:
        start = end
        while start > 0 and text[start - 1] in _TOKEN_CHARS:
            start -= 1
        stop = end
        while stop < len(text) and text[stop] in _TOKEN_CHARS and stop - start < 4096:
            stop += 1
        token = text[start:stop]
        if len(token) >= _SECRET_SHAPED and _random_looking(token):
            end = start
    return end


def _random_looking(token: str) -> bool:
    return (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
    )


def clip(text: object, limit: int = CLIP) -> str:
    """One line, terminal escapes dropped, other control characters escaped, secrets
    redacted, at most `limit` characters (with an ellipsis).

    The whole text is redacted before it is clipped (a secret cut in half no longer looks
    like one), and the cut never lands inside a placeholder or a secret-shaped token."""
    value = _ANSI.sub("", "" if text is None else str(text))
    value = redact_text(value)
    value = value.replace("\r", "\\r").replace("\t", " ")
    value = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", value)
    value = _SPACE.sub(" ", value).strip()
    if len(value) > limit:
        value = value[: safe_cut(value, max(limit - 1, 0))].rstrip() + "…"
    return value


def quoted(text: object, limit: int = CLIP) -> str:
    """`clip` inside double quotes, for use in a finding message."""
    return f'"{clip(text, limit)}"'


def duration(seconds: float) -> str:
    """A span for a message: "3d 4h", "2h 05m", "7m"."""
    whole = max(int(seconds), 0)
    days, rest = divmod(whole, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes = rest // 60
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m"
