"""Text as a reader sees it: the characters a terminal or a Markdown renderer would not show
are taken out before anything is judged, so what is checked is what is shown.

A model's answer (or cluster text inside it) can hide a command from a checker and still
show it runnable: `kube<U+200E>ctl delete node`, `sudo <U+202E>reboot<U+202C>`, an ANSI
escape that erases a prefix on the terminal. `visible` removes, without a trace, every
character that has no glyph of its own:

- terminal escape sequences (CSI, OSC, two-character escapes), whole;
- C0 and C1 control characters except tab and newline (a carriage return ends a line);
- every Unicode Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 14.0 and
  on; UAX #44): zero-width characters and joiners, the bidirectional marks, embeddings,
  overrides and isolates, the soft hyphen, Hangul fillers, variation selectors, the tag
  characters U+E0000–U+E0FFF and the code points reserved as ignorable — a renderer shows
  none of them; and U+FFF9–U+FFFB (interlinear annotation anchors, not shown either).
  One exception: an emoji presentation selector (U+FE0E, U+FE0F) right after a non-ASCII
  symbol or punctuation mark (``⚠️``) is part of that glyph and stays; after anything else
  (``kubectl\ufe0f``) it hides nothing a reader could see and goes. No command word is
  written in those characters, so the selector kept there cannot split one.

It shows a lone surrogate (half of a character, which no encoder can write) as "?", as
the terminal output always has.

Line and paragraph separators (U+2028, U+2029) become newlines, as a renderer breaks on
them. `VisibleStream` does the same to text that arrives in pieces: a piece that ends inside
an escape sequence (or on a carriage return) is held back until the next one completes it.

This module is the one place that knows these characters. The other makers of safe text
build on its parts: `tools.display` (a whole output: escapes dropped, other controls shown
as \\xNN, format characters dropped), `tools.text` (cluster text quoted on one line) and
the safety gate. Clipping is here too (`clip_line`, `safe_cut`, `safe_start`): a cut never
lands inside a redaction placeholder or a secret-shaped token, so a clip cannot show part
of a secret that redaction would have recognised whole.
"""

from __future__ import annotations

import re
import unicodedata

from tools.redaction import REDACTED

# Escape sequences, whole (an unterminated OSC runs to the end of what is there).
_ESCAPE_PATTERN = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erases
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[@-Z\\-_]"  # two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
# C0 and C1 controls but tab and newline (a carriage return is handled as a line end).
_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
# Bidirectional embeddings, overrides and isolates (LRE .. RLO, LRI .. PDI) and marks.
_BIDI_CHARS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Characters without a glyph of their own: Unicode's Default_Ignorable_Code_Point set
# (https://www.unicode.org/Public/UCD/latest/ucd/DerivedCoreProperties.txt; the list checked
# against its Unicode 14.0 lines), which includes the bidi characters above. U+FFF9-U+FFFB
# anchor interlinear annotations, which a renderer does not show either.
_FORMAT_CHARS = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2065"
    "\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\ufff9-\ufffb"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
    f"{_BIDI_CHARS}"
)
# Emoji presentation selectors: kept after a non-ASCII symbol or punctuation (see above).
_PRESENTATION = frozenset("\ufe0e\ufe0f")

ESCAPE = re.compile(_ESCAPE_PATTERN)
CONTROL = re.compile(f"[{_CONTROLS}\r]")  # what `escape_controls` shows as \xNN
FORMAT = re.compile(f"[{_FORMAT_CHARS}]")
_HIDDEN = re.compile(f"{_ESCAPE_PATTERN}|[{_CONTROLS}{_FORMAT_CHARS}]")
_NEWLINES = re.compile("\r\n?|[\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# The end of a piece that may be the start of an escape sequence.
_OPEN_TAIL = re.compile(r"(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]{0,4096}|)|\x9b[0-?]*[ -/]*)\Z")
_SPACE = re.compile(r"\s+")


def visible(text: str) -> str:
    """`text` without the characters a reader would not see (see the module docstring)."""
    return _visible(text, "")


def _visible(text: str, before: str) -> str:
    """`visible`, for text that follows the character ``before`` (a streamed piece)."""
    if text.isascii() and text.isprintable():
        return text  # the common case: nothing to take out
    return _SURROGATE.sub("?", _taken_out(_HIDDEN, _NEWLINES.sub("\n", text), before))


def _taken_out(pattern: re.Pattern[str], text: str, before: str) -> str:
    """``text`` without what ``pattern`` matches, but an emoji presentation selector right
    after a non-ASCII symbol or punctuation mark (``before`` precedes the text)."""

    def drop(match: re.Match[str]) -> str:
        found = match.group()
        if found in _PRESENTATION:
            start = match.start()
            previous = text[start - 1] if start else before
            if _emoji_base(previous):
                return found
        return ""

    return pattern.sub(drop, text)


def _emoji_base(char: str) -> bool:
    """A character a presentation selector can belong to: a non-ASCII symbol or punctuation
    mark (emoji-variation-sequences.txt also lists the ASCII keycap bases # * 0-9, whose
    selector goes: the keycap is still drawn, and a letter cannot take one)."""
    return bool(char) and not char.isascii() and unicodedata.category(char)[0] in "SP"


def encodable(text: str) -> str:
    """`text` with every lone surrogate replaced by "?" (everything else unchanged)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("?", text)
    return text


def without_escapes(text: str) -> str:
    """`text` without terminal escape sequences (dropped whole)."""
    if "\x1b" in text or "\x9b" in text:
        return ESCAPE.sub("", text)
    return text


def without_format(text: str) -> str:
    """`text` without zero-width, filler and bidirectional characters."""
    return text if text.isascii() else _taken_out(FORMAT, text, "")


def escape_controls(text: str) -> str:
    """Control characters but newline and tab shown as \\xNN (a carriage return too)."""
    return CONTROL.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


# -- clipping --------------------------------------------------------------------------------

# Characters of an opaque token (base64, base64url, hex): a cut inside a run of these that
# looks random would show part of something that may be a secret.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_SECRET_SHAPED = 16
_TOKEN_SCAN = 4096  # a cut looks this far for the ends of a token (bounded: stays linear)


def _token_around(text: str, at: int, *, back: int) -> tuple[int, int] | None:
    """The run of token characters that a cut at `at` would split, if it is secret-shaped
    (16 or more characters mixing upper case, lower case and digits). The scan looks at
    most `back` characters back and 4,096 on from the run's start."""
    if not (0 < at < len(text) and text[at - 1] in _TOKEN_CHARS and text[at] in _TOKEN_CHARS):
        return None
    start = at
    while start > 0 and text[start - 1] in _TOKEN_CHARS and at - start < back:
        start -= 1
    stop = at
    while stop < len(text) and text[stop] in _TOKEN_CHARS and stop - start < _TOKEN_SCAN:
        stop += 1
    token = text[start:stop]
    if len(token) >= _SECRET_SHAPED and _random_looking(token):
        return start, stop
    return None


def _placeholder_around(text: str, at: int) -> tuple[int, int] | None:
    """The redaction placeholder that a cut at `at` would split, if any."""
    opening = text.rfind("<", max(at - len(REDACTED) + 1, 0), at)
    if opening != -1 and text.startswith(REDACTED, opening) and opening + len(REDACTED) > at:
        return opening, opening + len(REDACTED)
    return None


def safe_cut(text: str, end: int) -> int:
    """Where to cut `text` at or before `end` so that the kept part never ends inside a
    redaction placeholder or inside a secret-shaped token (16 or more token characters
    mixing upper case, lower case and digits): the cut moves back to its start."""
    if end >= len(text):
        return len(text)
    end = max(end, 0)
    placeholder = _placeholder_around(text, end)
    if placeholder is not None:
        end = placeholder[0]
    # Back to the token's very start, however long: a clip is cut once.
    token = _token_around(text, end, back=len(text))
    return token[0] if token is not None else end


def safe_start(text: str, start: int) -> int:
    """Where to start a window of `text` at or after `start` so that it never begins
    inside a placeholder or a secret-shaped token: the start moves on past its end."""
    if start <= 0:
        return 0
    if start >= len(text):
        return len(text)
    placeholder = _placeholder_around(text, start)
    if placeholder is not None:
        start = placeholder[1]
    # Bounded both ways: the gate opens a window before every command it finds.
    token = _token_around(text, start, back=_TOKEN_SCAN)
    return token[1] if token is not None else start


def _random_looking(token: str) -> bool:
    return (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
    )


def clip_line(text: str, limit: int) -> str:
    """`text` on one line (runs of white space made one space), at most `limit` characters
    with an ellipsis; the cut never lands inside a placeholder or a secret-shaped token.
    Redact before clipping: a secret cut in half no longer looks like one."""
    text = _SPACE.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    return text[: safe_cut(text, max(limit - 1, 0))].rstrip() + "…"


_LONG_LINES: dict[int, re.Pattern[str]] = {}


def clip_long_lines(text: str, limit: int) -> str:
    """`text` with every line longer than `limit` characters cut to `limit` and marked with
    an ellipsis; other lines are kept as they are. For output that parsers read line by
    line (node probes): one runaway line of megabytes is cut before any parser looks at it.

    Linear: the pattern is anchored at line starts, so each line is scanned once, and the
    whole scan runs in the regex engine (about 0.5 s for 50 MB of short lines)."""
    if len(text) <= limit:
        return text
    pattern = _LONG_LINES.get(limit)
    if pattern is None:
        pattern = _LONG_LINES[limit] = re.compile(rf"(?m)^([^\n]{{{limit}}})[^\n]+")
    return pattern.sub(lambda match: match.group(1) + "…", text)


class VisibleStream:
    """`visible` for text that arrives in pieces: the joined output of `feed` and `flush`
    equals `visible` of the joined input (an unterminated OSC sequence is held for at most
    4,096 characters)."""

    def __init__(self) -> None:
        self._held = ""
        self._before = ""  # the last character let through: a selector after it may stay

    def feed(self, piece: str) -> str:
        text = self._held + piece
        tail = _OPEN_TAIL.search(text)
        # A lone CR may be the first half of CRLF: hold it too.
        cut = tail.start() if tail else (len(text) - 1 if text.endswith("\r") else len(text))
        self._held = text[cut:]
        return self._out(text[:cut])

    def flush(self) -> str:
        """The rest: an escape sequence that never completed is dropped."""
        text, self._held = self._held, ""
        return self._out(text)

    def _out(self, text: str) -> str:
        out = _visible(text, self._before)
        self._before = text[-1:] or self._before
        return out
