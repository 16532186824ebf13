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
# Only this much beyond the limit is looked at: escapes, format characters and secrets are
# found within it, and a value of megabytes costs no more than one of 64 KiB. A secret (a PEM
# block is a few KiB) that starts within the shown part ends well within the window.
WINDOW = 65_536


def clip(text: object, limit: int = CLIP) -> str:
    """One line, terminal escapes and invisible format characters (zero-width, bidi)
    dropped, other control characters escaped, secrets redacted, at most `limit`
    characters (with an ellipsis).

    Escapes go before redaction, since "\\x1b[31mAKIA..." would otherwise hide the key's
    word boundary. The whole text is redacted before it is clipped (a secret cut in half
    no longer looks like one), and the cut never lands inside a placeholder or a
    secret-shaped token (`tools.visible.clip_line`). Only the first `limit` + 64 KiB
    characters are looked at (a huge value is cut before any per-character work), and a
    value cut there always ends with the ellipsis."""
    value = "" if text is None else str(text)
    cut = len(value) > limit + WINDOW
    if cut:
        value = value[: limit + WINDOW]
    value = without_format(without_escapes(value))
    value = redact_text(value)
    value = escape_controls(value.replace("\r", "\\r").replace("\t", " "))
    clipped = clip_line(value, limit)
    if cut and not clipped.endswith("…"):
        # What was left of the window fits the limit (it was mostly invisible characters):
        # it still was not the whole value.
        clipped = clipped[: safe_cut(clipped, max(limit - 1, 0))].rstrip() + "…"
    return clipped


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
