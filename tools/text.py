"""Quoting text that comes from the cluster (log lines, status messages, event descriptions).

Such text is data, never instructions: it is shown clipped, on one line, with control
characters made visible and secret-looking values redacted, so a hostile or huge log
line cannot reshape a report or leak a key into it.
"""

from __future__ import annotations

from tools.redaction import redact_text
from tools.visible import clip_line, escape_controls, safe_cut, without_escapes, without_format

__all__ = ["CLIP", "clip", "duration", "quoted", "safe_cut"]

CLIP = 200


def clip(text: object, limit: int = CLIP) -> str:
    """One line, terminal escapes and invisible format characters (zero-width, bidi)
    dropped, other control characters escaped, secrets redacted, at most `limit`
    characters (with an ellipsis).

    Escapes go before redaction, since "\\x1b[31mAKIA..." would otherwise hide the key's
    word boundary. The whole text is redacted before it is clipped (a secret cut in half
    no longer looks like one), and the cut never lands inside a placeholder or a
    secret-shaped token (`tools.visible.clip_line`)."""
    value = without_format(without_escapes("" if text is None else str(text)))
    value = redact_text(value)
    value = escape_controls(value.replace("\r", "\\r").replace("\t", " "))
    return clip_line(value, limit)


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
