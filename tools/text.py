"""Quoting text that comes from the cluster (log lines, status messages, event descriptions).

Such text is data, never instructions: it is shown clipped, on one line, with control
characters made visible and secret-looking values redacted, so a hostile or huge log
line cannot reshape a report or leak a key into it.
"""

from __future__ import annotations

import re

from tools.redaction import redact_text

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


def clip(text: object, limit: int = CLIP) -> str:
    """One line, terminal escapes dropped, other control characters escaped, secrets
    redacted, at most `limit` characters (with an ellipsis)."""
    value = _ANSI.sub("", "" if text is None else str(text))
    value = redact_text(value)
    value = value.replace("\r", "\\r").replace("\t", " ")
    value = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", value)
    value = _SPACE.sub(" ", value).strip()
    if len(value) > limit:
        value = value[: max(limit - 1, 0)].rstrip() + "…"
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
