"""How a shell reads a command found in text: its comments, and the verdict `judge`.

A ``#`` at the start of a word, outside quotes, begins a comment that runs to the end of its
line (`comment_regions`, `without_comments`). `judge` classifies without comments, as bash
reads a pasted line, and with ``#`` as an ordinary word, as an interactive zsh reads it by
default; the worse reading counts (fail closed).
"""

from __future__ import annotations

from functools import lru_cache

from tools.command_safety import CommandClass, classify
from tools.command_safety.result import combine


def scan_quotes(text: str, quote: str | None = None) -> tuple[list[tuple[int, int]], str | None]:
    """Read ``text`` as a shell does, starting with ``quote`` open (or none): the comments
    found (a ``#`` starting a word, outside quotes, to the end of its line; ``$#`` and
    ``a#b`` start none) and the quote still open at the end."""
    regions: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        char = text[i]
        if quote is not None:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = None
        elif char == "\\":
            i += 1
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or text[i - 1] in " \t\n;|&("):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            regions.append((i, end))
            i = end
            continue
        i += 1
    return regions, quote


def comment_regions(command: str) -> list[tuple[int, int]]:
    """The shell comments of ``command`` (see `scan_quotes`)."""
    return scan_quotes(command)[0]


def without_comments(command: str) -> str:
    """``command`` with its shell comments removed (see `comment_regions`)."""
    if "#" not in command:
        return command
    pieces: list[str] = []
    previous = 0
    for start, end in comment_regions(command):
        pieces.append(command[previous:start])
        previous = end
    pieces.append(command[previous:])
    return "".join(pieces).rstrip()


def _hash_as_word(command: str) -> str:
    """``command`` as an interactive zsh reads it by default: ``#`` is an ordinary word,
    not a comment (zsh without INTERACTIVE_COMMENTS, the macOS default shell)."""
    pieces: list[str] = []
    previous = 0
    for start, _ in comment_regions(command):
        pieces.append(command[previous:start] + "\\#")
        previous = start + 1
    pieces.append(command[previous:])
    return "".join(pieces)


@lru_cache(maxsize=4096)
def judge(command: str) -> CommandClass:
    """The classifier's verdict, remembered: the same command often recurs in one answer.

    The user may paste a line into bash, where ``#`` starts a comment, or into zsh, where by
    default it does not: ``ls # && reboot`` only lists in bash but reboots in zsh. Both
    readings are classified and the worse one counts (fail closed)."""
    if not comment_regions(command):
        return classify(command)
    code = without_comments(command)
    bash = classify(code if code.strip() else command)
    zsh = classify(_hash_as_word(command))
    return combine([bash, zsh])
