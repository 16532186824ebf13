"""How a shell reads a command found in text: its comments, and the verdict `judge`.

A ``#`` at the start of a word, outside quotes, begins a comment that runs to the end of its
line (`tools.command_safety.shell.comment_regions`, the tokeniser's own reading). `judge`
classifies without comments, as bash reads a pasted line, and with ``#`` as an ordinary
word, as an interactive zsh reads it by default; the worse reading counts (fail closed).
"""

from __future__ import annotations

from functools import lru_cache

from tools.command_safety import CommandClass, classify
from tools.command_safety.result import combine
from tools.command_safety.shell import comment_regions, strip_comments


def without_comments(command: str) -> str:
    """``command`` as bash reads it: its shell comments removed (see `comment_regions`)."""
    return strip_comments(command).rstrip() if "#" in command else command


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
