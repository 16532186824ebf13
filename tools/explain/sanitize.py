"""Make pasted text safe to match: cap its size, drop escapes and invisible characters.

The text is data. Nothing in it is executed or followed; cleaning only keeps the matcher
fast and the quotes it returns printable.
"""

from __future__ import annotations

import re
import unicodedata

MAX_INPUT_CHARS = 200_000

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)?|[@-Z\\-_])")
# C0/C1 controls except tab and newline, plus zero-width, bidi and BOM format characters.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"
)


def clean_text(text: str) -> tuple[str, bool]:
    """Return the cleaned text and whether the input was cut at ``MAX_INPUT_CHARS``."""
    truncated = len(text) > MAX_INPUT_CHARS
    text = text[:MAX_INPUT_CHARS]
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFKC", text)
    return _INVISIBLE.sub("", text), truncated


def quote(fragment: str, limit: int = 80) -> str:
    """A short single-line excerpt of matched text."""
    one_line = " ".join(fragment.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
