"""Showing the agent's answer: Markdown through rich on a terminal, plain text otherwise.

On a terminal a command is never hard-wrapped (issue 24): rich draws a code block as a
padded `Syntax` panel wrapped at the console width, so a long ``aws ec2 ...`` line became
three lines with real newlines and padding, and copying it ran a partial command. Here a
code block is printed by us instead: each line of it one logical line, highlighted, with no
padding, left for the terminal to soft-wrap (indented when it sits in a list item or a
quote). The Markdown around it still goes through rich.

Each suggestion block the printer shows gets a number, stable within the conversation (a
command shown again keeps its number), for `/copy N` (agent/chat/copy.py). A chat on a
terminal shows the number in the block's heading; piped output stays plain text, byte for
byte as before.
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

import typer

from agent.commands.common import use_colour
from agent.transcript import display_safe
from tools.display import printable

if TYPE_CHECKING:
    from markdown_it.token import Token
    from rich.console import Console


@dataclass
class SuggestionNumbers:
    """The commands of the suggestion blocks shown in a conversation, numbered from 1 in
    the order first shown."""

    commands: list[str] = field(default_factory=list)

    def number(self, command: str) -> int:
        """The command's number, given now if it has none. A command is known by its lines
        as its block shows them (a carriage return shows as a line break)."""
        command = command.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
        if command not in self.commands:
            self.commands.append(command)
        return self.commands.index(command) + 1

    def get(self, number: int) -> str | None:
        return self.commands[number - 1] if 1 <= number <= len(self.commands) else None

    def __len__(self) -> int:
        return len(self.commands)


@dataclass(frozen=True)
class _Block:
    """A suggestion block found in a segment: the line of its heading, its command."""

    heading_line: int
    command: str


def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")  # as rich.markdown has it


def _headings() -> dict[str, str]:
    from agent.safety.suggest import block_heading

    return {f"**{block_heading(language)}**": language for language in ("en", "zh")}


def suggestion_blocks(markdown: str) -> list[_Block]:
    """The suggestion blocks of a Markdown text: a paragraph that is the block's heading,
    then the first code block after it (the command, as shown)."""
    headings = _headings()
    tokens = _parser().parse(markdown)
    found: list[_Block] = []
    heading: int | None = None
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None:
            continue
        if token.type == "paragraph_open":
            inline = tokens[index + 1].content.strip() if index + 1 < len(tokens) else ""
            if inline in headings:
                heading = token.map[0]
        elif token.type in ("fence", "code_block") and heading is not None:
            found.append(_Block(heading, token.content.rstrip("\n")))
            heading = None
    return found


def _numbered_heading(line: str, number: int) -> str:
    """The heading line with its number and how to copy it: **[1] Suggested ...** · /copy 1."""
    at = line.index("**") + 2
    return f"{line[:at]}[{number}] {line[at:].rstrip()} · /copy {number}\n"


def print_markdown(
    console: Console,
    markdown: str,
    numbers: SuggestionNumbers | None = None,
    *,
    indent: int = 0,
    after_code: bool = False,
) -> None:
    """Draw Markdown on a terminal console: rich for the text, code blocks printed as whole
    lines (see the module docstring); with ``numbers``, suggestion headings carry their
    numbers. ``indent``: the text sits in a list item or a quote cut out of its container."""
    # Cut at "\n" only, as markdown-it counts lines (splitlines also cuts at \x0c, \u2028...).
    lines = re.split(r"(?<=\n)", markdown)
    if numbers is not None:
        for block in suggestion_blocks(markdown):
            number = numbers.number(block.command)
            lines[block.heading_line] = _numbered_heading(lines[block.heading_line], number)
        markdown = "".join(lines)
    start = 0
    for code in _code_blocks(_parser().parse(markdown)):
        if code.first < start:
            continue  # inside the rest of a container, printed below
        text = "".join(lines[start : code.first])
        _print_text(console, text, indent=indent, after_code=start > 0 or after_code)
        # A blank line above and below, where rich's padded panel had its padding.
        console.print()
        _print_code(console, code.token, indent + code.indent)
        console.print()
        start = code.end
        if code.container_end > start:
            # The rest of the list item or quote the code block sits in, taken out of it.
            rest = _dedent(lines[start : code.container_end], quoted=code.quoted)
            print_markdown(console, rest, indent=indent + code.indent, after_code=True)
            start = code.container_end
    text = "".join(lines[start:])
    _print_text(console, text, indent=indent, after_code=start > 0 or after_code)


@dataclass(frozen=True)
class _Code:
    """A code block, and the list item or quote it sits in (lines of the Markdown)."""

    token: Token
    first: int
    end: int
    indent: int
    container_end: int
    quoted: bool


def _code_blocks(tokens: list[Token]) -> list[_Code]:
    """Every code block, with the indentation of the list items and quotes around it.

    A code block in a list item or a quote is printed by us too: rich would draw it inside
    its container, which wraps or crops each line to the container's width. The Markdown
    is cut around it; a list that goes on after it keeps its numbering (rich reads the
    list's start)."""
    found: list[_Code] = []
    containers: list[Token] = []
    for token in tokens:
        if token.type in ("list_item_open", "blockquote_open"):
            containers.append(token)
        elif token.type in ("list_item_close", "blockquote_close") and containers:
            containers.pop()
        elif token.type in ("fence", "code_block") and token.map is not None:
            inner = containers[-1] if containers else None
            indent = sum(3 if c.type == "list_item_open" else 2 for c in containers)
            end = inner.map[1] if inner is not None and inner.map is not None else 0
            quoted = inner is not None and inner.type == "blockquote_open"
            found.append(_Code(token, token.map[0], token.map[1], indent, end, quoted))
    return found


_QUOTE_MARK = re.compile(r"^[ ]{0,3}>[ ]?")


def _dedent(lines: list[str], *, quoted: bool) -> str:
    if quoted:
        return "".join(_QUOTE_MARK.sub("", line, count=1) for line in lines)
    return textwrap.dedent("".join(lines))


def _print_text(console: Console, markup: str, *, indent: int, after_code: bool) -> None:
    """Markdown through rich. After a code block, without the blank line rich opens a list,
    a quote or a table with: the code block is followed by one already."""
    from rich.padding import Padding

    if not markup.strip():
        return
    shown: Any = _markdown(markup)
    if indent:
        shown = Padding(shown, (0, 0, 0, indent))
    if not after_code:
        console.print(shown)
        return
    with console.capture() as capture:
        console.print(shown)
    console.file.write(capture.get().lstrip("\n"))
    console.file.flush()


def _print_code(console: Console, token: Token, indent: int = 0) -> None:
    """Each line of the code as one logical line: highlighted, no padding, no wrapping
    (``soft_wrap``: rich inserts no newline and crops nothing; the terminal wraps it)."""
    from rich.syntax import Syntax
    from rich.text import Text

    code = token.content.rstrip("\n")
    lexer = (token.info or "").partition(" ")[0] or "text"
    text = Syntax(code, lexer, theme="monokai").highlight(code)
    text.rstrip()
    for line in text.split("\n", allow_blank=True):
        console.print(Text(" " * indent) + line if indent else line, soft_wrap=True)


def _markdown(markup: str) -> Any:
    return _unpadded_markdown()(markup)


@cache
def _unpadded_markdown() -> Any:
    """rich's Markdown with code blocks left unpadded: spaces around a command get copied.
    Made on first use, as rich is imported only on a terminal."""
    from rich.markdown import CodeBlock, Markdown
    from rich.syntax import Syntax

    class UnpaddedCode(CodeBlock):
        def __rich_console__(self, console: Any, options: Any) -> Any:
            code = str(self.text).rstrip()
            yield Syntax(code, self.lexer_name, theme=self.theme, word_wrap=True, padding=0)

    class Unpadded(Markdown):
        elements: ClassVar[dict[str, Any]] = {
            **Markdown.elements,
            "fence": UnpaddedCode,
            "code_block": UnpaddedCode,
        }

    return Unpadded


class AnswerPrinter:
    """Prints each guarded segment as it is released (streaming by paragraph)."""

    def __init__(self, no_color: bool, *, stream: Any = None, numbered: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.rich = use_colour(no_color) and self.stream.isatty()
        self.numbered = numbered
        """Show each suggestion block's number in its heading (a chat on a terminal)."""
        self.numbers = SuggestionNumbers()
        self._console: Any = None
        if self.rich:
            from rich.console import Console

            self._console = Console(file=self.stream, highlight=False)

    @property
    def shows_numbers(self) -> bool:
        """Whether the blocks show their numbers (a chat on a terminal)."""
        return self.numbered and self._console is not None

    def __call__(self, segment: str) -> None:
        segment = display_safe(segment)
        if not segment.strip():
            return
        if self._console is not None:
            print_markdown(self._console, segment, self.numbers if self.numbered else None)
            return
        # Plain text is printed as it is; the blocks are numbered all the same, for /copy.
        for block in suggestion_blocks(segment):
            self.numbers.number(block.command)
        typer.echo(printable(segment.rstrip("\n")) + "\n", file=self.stream)

    def note(self, text: str) -> None:
        """A line from the tool itself (not the model): dim on a terminal."""
        text = display_safe(text)
        if self._console is not None:
            self._console.print(text, style="dim", markup=False)
        else:
            typer.echo(printable(text), file=self.stream)

    def bare(self, text: str) -> None:
        """Text alone on its lines, undecorated and unwrapped (a command to copy)."""
        self.stream.write(printable(display_safe(text)).rstrip("\n") + "\n")
        self.stream.flush()

    def raw(self, data: str) -> None:
        """A terminal control sequence, written as it is (only on a terminal)."""
        if self.stream.isatty():
            self.stream.write(data)
            self.stream.flush()
