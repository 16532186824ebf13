"""Live feedback on a terminal while the agent works: a spinner, one line per tool, retries.

While the model is thinking (before its first text) a spinner shows the elapsed time and
that Ctrl-C cancels; while a tool runs, the same with what the tool does. A finished tool
leaves one line ("● triage (whole cluster) 3.4 s", "✗ triage: <error>"), and a retry of the
SDK one notice ("API overloaded, retrying in 2.0 s (1/3)"). The spinner is transient (rich
erases it) and stops before any text of the answer is printed, so it never mixes into the
answer: the loop reports `TextShown` just before each piece of text (agent/activity.py).

On a terminal only: piped output stays exactly the answer (the README's piped example is
compared byte for byte). There, a retry notice goes to stderr instead, so a script's log
still says why a call took long. Tool inputs are described in words made display-safe,
never shown as JSON.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

import typer

from agent.activity import (
    ModelCallEnded,
    ModelCallStarted,
    ProgressEvent,
    TextShown,
    ToolEnded,
    ToolStarted,
)
from agent.providers import retries
from agent.transcript import display_safe
from tools.display import argument

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live

    from agent.loop import Agent

THINKING = "thinking"
CANCEL_HINT = "Ctrl-C cancels"
ERROR_CLIP = 120
VALUE_CLIP = 60
REFRESHES_PER_SECOND = 8  # enough for a smooth spinner; each refresh costs the GIL a little
TOOL_DONE, TOOL_FAILED, TOOL_NOT_RUN = "●", "✗", "–"


def describe(name: str, arguments: Mapping[str, Any]) -> str:
    """A tool call in a few words: "triage (whole cluster)", "read_reference § A"."""
    node = arguments.get("instance_id")
    words: list[str] = [name]
    if name == "triage":
        words.append(_value(node) if node else "(whole cluster)")
    elif name == "read_reference":
        words.append(f"§ {_value(arguments.get('section', '?'))}")
        offset = arguments.get("offset")
        if isinstance(offset, int) and offset > 0:
            words.append(f"from {offset:,}")
    elif name == "explain_signal":
        words.append(f"({len(str(arguments.get('text', ''))):,} characters)")
    elif name == "suggest_command":
        words.append(_value(arguments.get("command", "")))
    elif name == "use_cluster":
        words.append(f"{_value(arguments.get('cluster', '?'))} ({_value(arguments.get('region'))})")
    elif name == "list_findings":
        words.extend(_filters(arguments))
    else:  # a check, or a tool this list does not know: its node, or its first values
        words.extend([_value(node)] if node else _scalars(arguments))
    return display_safe(" ".join(w for w in words if w))


def _value(value: object) -> str:
    return argument(value, VALUE_CLIP)


def _filters(arguments: Mapping[str, Any]) -> list[str]:
    words: list[str] = []
    status = arguments.get("status")
    if isinstance(status, list) and status:
        words.append("/".join(_value(s) for s in status))
    if arguments.get("section"):
        words.append(f"§ {_value(arguments['section'])}")
    for key in ("check", "instance_id"):
        if arguments.get(key):
            words.append(_value(arguments[key]))
    return words


def _scalars(arguments: Mapping[str, Any], most: int = 2) -> list[str]:
    shown = [
        f"{_value(key)}={_value(value)}"
        for key, value in arguments.items()
        if isinstance(value, str | int | float) and not isinstance(value, bool)
    ]
    return shown[:most]


def tool_line(event: ToolEnded) -> str:
    """The line a finished tool call leaves."""
    what = describe(event.name, event.input)
    if not event.ran:
        return f"{TOOL_NOT_RUN} {what} (not run: a change is proposed)"
    took = retries.seconds(event.seconds)
    if event.error is not None:
        return display_safe(f"{TOOL_FAILED} {what} {took}: {argument(event.error, ERROR_CLIP)}")
    return f"{TOOL_DONE} {what} {took}"


def waiting_text(label: str, seconds: float) -> str:
    """What the spinner says: "thinking 3.4 s · Ctrl-C cancels"."""
    return f"{label} {retries.seconds(seconds)} · {CANCEL_HINT}"


class _Waiting:
    """The spinner's renderable: recomputes the elapsed time at each refresh."""

    def __init__(self, label: str) -> None:
        from rich.spinner import Spinner

        self.label = label
        self.started = time.monotonic()
        self.spinner = Spinner("dots", style="cyan")

    def __rich__(self) -> RenderableType:
        from rich.text import Text

        text = waiting_text(self.label, time.monotonic() - self.started)
        self.spinner.update(text=Text(text, style="dim"))
        return self.spinner


class LiveProgress:
    """The display on a terminal, fed the loop's progress events and the SDK's retries."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._live: Live | None = None
        # A terminal without cursor movement (TERM=dumb) gets the lines, not the spinner.
        self._animate = not console.is_dumb_terminal

    def __call__(self, event: ProgressEvent) -> None:
        if isinstance(event, ModelCallStarted):
            self._wait(THINKING)
        elif isinstance(event, ToolStarted):
            self._wait(describe(event.name, event.input))
        elif isinstance(event, TextShown | ModelCallEnded):
            self.stop()
        elif isinstance(event, ToolEnded):
            self.stop()
            if event.completed:
                self._line(tool_line(event), "red" if event.error else "dim")

    def retry(self, notice: retries.RetryNotice) -> None:
        self._line(notice.line(), "yellow")

    def stop(self) -> None:
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()

    def _wait(self, label: str) -> None:
        self.stop()
        if not self._animate:
            return
        from rich.live import Live

        live = Live(
            _Waiting(label),
            console=self.console,
            transient=True,
            refresh_per_second=REFRESHES_PER_SECOND,
            # The answer is printed by another console on the same stream, only once the
            # spinner is stopped: nothing needs redirecting.
            redirect_stdout=False,
            redirect_stderr=False,
        )
        live.start()
        self._live = live

    def _line(self, text: str, style: str) -> None:
        # Printed while a spinner runs, rich puts the line above it.
        self.console.print(display_safe(text), style=style, markup=False, highlight=False)


def _stderr_notice(notice: retries.RetryNotice) -> None:
    typer.echo(display_safe(notice.line()), err=True)


@contextmanager
def attached(
    agent: Agent, *, no_color: bool, live: bool = True, stream: TextIO | None = None
) -> Iterator[None]:
    """While the block runs: on a terminal (and `live`) the display follows `agent` and
    the SDK's retries; otherwise only the retry notices, on stderr."""
    from agent.commands.common import use_colour

    out = stream or sys.stdout
    if not (live and out.isatty()):
        with retries.listen(_stderr_notice):
            yield
        return
    from rich.console import Console

    console = Console(file=out, highlight=False, no_color=not use_colour(no_color))
    display = LiveProgress(console)
    previous, agent.on_progress = agent.on_progress, display
    try:
        with retries.listen(display.retry):
            yield
    finally:
        display.stop()
        agent.on_progress = previous
