"""Commands in a fenced code block (`_fence_commands`), and which fences hold Markdown.

In a shell fence (``bash``, ``sh``, ``console``...) every line is a command: trailing
``\\`` joins lines, a heredoc keeps its body, shell prompts are stripped, and a quote left
open joins the following lines until it closes (within `_QUOTE_LOOK_AHEAD` lines). Two
refinements keep quoted output from becoming commands: when some lines carry a
prompt, only those (and lines that start with a known tool) are commands, the rest is
output; a fence *without* a language holds commands only if one of its lines looks like one
(a known tool first, a path, or ``word --flag``), else it is quoted output such as triage
lines. In a shell or unlabelled fence (a bare line of a ``$ `` session too), a line shaped
like a command of a tool the classifier does not know is a command (`command_candidate`).
Comment lines, output lines and fences in other languages (json, yaml, text, python...) are
not dropped: they are read like prose (`agent.safety.prose`), so ``# sudo reboot`` or a
``kubectl delete`` inside a log excerpt is still found; a comment of one bare tool word
(``# reboot``) is a root prompt.

A fence of Markdown source (``markdown``, ``md``: `nests_markdown`) is read as Markdown by
`agent.safety.extract`, with `_fence_body` giving its body.

A prompt is what `tools.command_safety.words.prompt_length` reads as one: ``$ ``,
``user@host:~$ ``, ``[root@host ~]# ``, ``PS C:\\> ``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.safety.found import FoundCommand
from agent.safety.markdown import Segment, _lines, fence_closes
from agent.safety.prose import prose_commands
from agent.safety.vocabulary import (
    _looks_like_command,
    command_candidate,
    is_tool,
)
from tools.command_safety.args import word_set
from tools.command_safety.shell import scan_quotes
from tools.command_safety.words import prompt_length

_SHELL_LANGUAGES = word_set(
    "bash sh shell zsh ksh console shell-session shellsession sh-session terminal"
)
_HEREDOC = re.compile(r"(?<!<)<<(?!<)-?[ \t]*['\"]?([A-Za-z_][A-Za-z0-9_]*)")  # not <<<
_QUOTE_LOOK_AHEAD = 50  # lines a quote left open in a fence may run on


@dataclass(frozen=True)
class _FenceLine:
    offset: int  # of the line's text in the segment, past the container's prefix
    text: str  # without its newline and without the container's prefix (> quotes, indent)


def _fence_body(segment: Segment) -> list[_FenceLine]:
    mark = segment.mark
    lines: list[_FenceLine] = []
    for offset, text in list(_lines(segment.text))[1:]:
        cut = mark.strip(text) if mark is not None else 0
        lines.append(_FenceLine(offset + cut, text[cut:]))
    if lines and mark is not None:
        last_start = lines[-1].offset
        line_start = segment.text.rfind("\n", 0, last_start) + 1
        if fence_closes(segment.text[line_start:].rstrip("\r\n") + "\n", mark):
            lines.pop()
    return lines


def _quote_after(text: str, quote: str | None) -> str | None:
    """The shell quote open after reading ``text`` with ``quote`` open before it (a comment
    runs to the end of the line, so it leaves none open)."""
    return scan_quotes(text, quote)[1]


def _quote_closes(lines: list[_FenceLine], start: int, quote: str) -> int | None:
    """The line, from ``start`` on, where the open ``quote`` closes (None: it does not,
    within `_QUOTE_LOOK_AHEAD` lines, so it was no shell quote)."""
    state: str | None = quote
    for index in range(start, min(len(lines), start + _QUOTE_LOOK_AHEAD)):
        state = _quote_after(lines[index].text, state)
        if state is None:
            return index
    return None


def _logical_command(lines: list[_FenceLine], index: int, skip: int) -> tuple[str, int, int]:
    """The command starting ``skip`` characters into line ``index``, joined on ``\\``, on
    a quoted string that runs over lines, and with its heredoc body: (command, index of
    its last line, end offset)."""
    command = lines[index].text[skip:].strip()
    quote = _quote_after(command, None)
    last = index
    while last + 1 < len(lines):
        if quote is None and command.endswith("\\"):
            command = command[:-1].rstrip()
            last += 1
            piece = lines[last].text.strip()
            if piece:
                command = f"{command} {piece}" if command else piece
                quote = _quote_after(piece, None)
            continue
        close = None if quote is None else _quote_closes(lines, last + 1, quote)
        if close is None:
            break
        body = [line.text for line in lines[last + 1 : close + 1]]
        command = "\n".join([command, *body]).rstrip()
        last, quote = close, None
    if command.endswith("\\"):  # a continuation with nothing left to continue
        command = command[:-1].rstrip()
    heredoc = _HEREDOC.search(command)
    if heredoc is not None:
        heredoc_body: list[str] = []
        while last + 1 < len(lines):
            last += 1
            heredoc_body.append(lines[last].text)
            if lines[last].text.strip() == heredoc.group(1):
                break
        command = "\n".join([command, *heredoc_body])
    end = lines[last].offset + len(lines[last].text)
    return command, last, end


_MARKDOWN_LANGUAGES = word_set("markdown md gfm mdx commonmark")


def nests_markdown(segment: Segment) -> bool:
    """Is the fence Markdown source (``markdown``, ``md``...)? Its body is read as Markdown
    (a fence inside it holds commands, a paragraph prose), and it is never split."""
    mark = segment.mark
    return mark is not None and not mark.quotes and mark.language in _MARKDOWN_LANGUAGES


def _fence_commands(segment: Segment) -> list[FoundCommand]:
    body = _fence_body(segment)
    language = segment.mark.language if segment.mark is not None else ""
    shell = language in _SHELL_LANGUAGES or language == ""
    prompted = any(prompt_length(line.text.lstrip(), root=False) for line in body)
    all_commands = shell and not prompted
    if language == "" and all_commands:
        all_commands = any(
            _looks_like_command(line.text.strip())
            for line in body
            if not line.text.lstrip().startswith("#")
        )
    found: list[FoundCommand] = []
    index = 0
    while index < len(body):
        line = body[index]
        stripped = line.text.strip()
        indent = len(line.text) - len(line.text.lstrip())
        base = segment.start + line.offset
        if not stripped:
            index += 1
            continue
        prompt = prompt_length(stripped, root=False) if shell else 0
        if prompt:
            skip = indent + prompt
        elif (
            shell
            and not stripped.startswith("#")
            and (
                all_commands
                or (prompted and _looks_like_command(stripped))
                or command_candidate(stripped)
            )
        ):
            skip = indent
        else:
            found.extend(_scanned_line(line.text, base))
            index += 1
            continue
        command, last, end = _logical_command(body, index, skip)
        if command:
            found.append(FoundCommand(command, base + skip, segment.start + end, "fence"))
        index = last + 1
    return found


def _scanned_line(text: str, base: int) -> list[FoundCommand]:
    """Commands inside a comment, output or data line of a fence, read as prose.

    A comment that is one bare tool word (``# reboot``) is a root prompt, not a remark. A
    line quoted from a triage report is read like any other: cluster text inside it may
    carry a command (an event description, a log line), and that command is classified."""
    stripped = text.strip()
    if stripped.startswith("#"):
        rest = stripped.lstrip("#").strip()
        if is_tool(rest):
            start = text.index(rest, text.index("#"))
            return [FoundCommand(rest, base + start, base + start + len(rest), "fence")]
    return prose_commands(text, base, "fence")
