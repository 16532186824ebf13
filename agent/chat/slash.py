"""Slash commands: what the chat does in code, without the model.

Each command is one `SlashCommand` in `COMMANDS`; the help text, `chat --help` and the
"unknown command" line are made from that list, so a command is listed where it is
defined and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.display import argument as shown_argument

if TYPE_CHECKING:
    from agent.chat.session import ChatSession

Handler = Callable[["ChatSession", str], bool]
"""Runs the command with its argument; False ends the chat."""


@dataclass(frozen=True)
class SlashCommand:
    name: str
    usage: str
    """How it is typed, with its argument: "/save FILE"."""
    summary: str
    run: Handler
    aliases: tuple[str, ...] = ()


def _commands() -> tuple[SlashCommand, ...]:
    from agent.chat import accounting, basic, cluster, copy, verify

    return (
        *basic.COMMANDS,
        copy.COMMAND,
        cluster.COMMAND,
        *accounting.COMMANDS,
        verify.COMMAND,
    )


def commands() -> tuple[SlashCommand, ...]:
    return _commands()


def find(name: str) -> SlashCommand | None:
    for command in commands():
        if name == command.name or name in command.aliases:
            return command
    return None


def _typed(command: SlashCommand) -> str:
    """How a command is typed, its other names after it: "/quit, /exit"."""
    return ", ".join((command.usage, *command.aliases))


def help_lines() -> list[str]:
    """One line per command: its usage (and other names) and what it does."""
    width = max(len(_typed(c)) for c in commands())
    return [f"  {_typed(c).ljust(width)}  {c.summary}" for c in commands()]


def help_epilog() -> str:
    """The slash commands for `chat --help` (the \\b keeps click from rewrapping them)."""
    return "\n".join(["\b", "Inside the chat:", *help_lines()])


def help_text() -> str:
    return "\n".join(
        [
            "Anything you type is a message to the agent (a paste is one message). It "
            "proposes commands for you to run; it never runs them.",
            "Commands:",
            *help_lines(),
        ]
    )


def dispatch(session: ChatSession, message: str) -> bool:
    """Run one slash command; False ends the chat."""
    # A pasted argument may start on the next line ("/explain" then a log).
    name, *rest = message.split(None, 1)
    argument = rest[0] if rest else ""
    command = find(name)
    if command is None:
        session.printer.note(
            f"unknown command {shown_argument(name, 60)}; /help lists the commands"
        )
        return True
    return command.run(session, argument.strip())
