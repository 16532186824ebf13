"""Showing the agent's answer: Markdown through rich on a terminal, plain text otherwise."""

from __future__ import annotations

import sys
from typing import Any

import typer

from agent.commands.common import use_colour
from agent.transcript import display_safe
from tools.display import printable


class AnswerPrinter:
    """Prints each guarded segment as it is released (streaming by paragraph)."""

    def __init__(self, no_color: bool, *, stream: Any = None) -> None:
        self.stream = stream or sys.stdout
        self.rich = use_colour(no_color) and self.stream.isatty()
        self._console: Any = None
        if self.rich:
            from rich.console import Console

            self._console = Console(file=self.stream, highlight=False)

    def __call__(self, segment: str) -> None:
        segment = display_safe(segment)
        if not segment.strip():
            return
        if self._console is not None:
            from rich.markdown import Markdown

            self._console.print(Markdown(segment))
        else:
            typer.echo(printable(segment.rstrip("\n")) + "\n", file=self.stream)

    def note(self, text: str) -> None:
        """A line from the tool itself (not the model): dim on a terminal."""
        text = display_safe(text)
        if self._console is not None:
            self._console.print(text, style="dim", markup=False)
        else:
            typer.echo(printable(text), file=self.stream)
