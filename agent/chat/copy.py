"""`/copy N`: one suggested command, alone on its line, and on a terminal on the clipboard.

The numbers are those the chat's printer gave the suggestion blocks it showed
(`AnswerPrinter.numbers`, agent/commands/conversation_output.py): stable within the
conversation, listed by `/suggestions`. `/copy` alone takes the latest block shown.

The command is printed undecorated (no Markdown, no colour, no wrapping), so selecting the
line copies it whole. On a terminal it is also sent to the clipboard with OSC 52
(``ESC ] 52 ; c ; <base64> BEL``, from xterm's control sequences): honoured by xterm
(with ``allowWindowOps`` / ``disallowedWindowOps`` letting it through), iTerm2 (when
"Applications in terminal may access clipboard" is on), kitty, WezTerm, Alacritty, foot,
Ghostty and Windows Terminal, among others; tmux passes it on with ``set -g set-clipboard
on``; GNU screen and some VTE-based terminals ignore it. A terminal that does not honour it
shows nothing, which is why the line is printed first. The payload is the command as shown:
redacted, made visible, control characters other than a newline taken out.
"""

from __future__ import annotations

import base64
import unicodedata
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.chat.slash import SlashCommand
from tools.display import argument as shown_argument
from tools.redaction import redact_output
from tools.visible import visible

if TYPE_CHECKING:
    from agent.chat.session import ChatSession

OSC52_MAX_BYTES = 74_994
"""Longest payload sent (base64 of ~56 kB): xterm's and tmux's limits are of this order."""


def clipboard_text(command: str) -> str:
    """What may go to the clipboard: the command as shown, redacted, with no control
    character but the newlines inside it (a pasted carriage return or escape would act in
    the shell), and none at its end (pasted, it would run the command at once)."""
    shown = redact_output(visible(command))
    kept = (c for c in shown if c == "\n" or unicodedata.category(c) not in ("Cc", "Cf"))
    return "".join(kept).strip()


def osc52(text: str) -> str | None:
    """The OSC 52 sequence that puts ``text`` on the clipboard, or None when too long."""
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    if len(payload) > OSC52_MAX_BYTES:
        return None
    return f"\x1b]52;c;{payload}\x07"


def _copy(session: ChatSession, argument: str) -> bool:
    printer = session.printer
    numbers = printer.numbers
    if not len(numbers):
        printer.note("No suggested command has been shown yet.")
        return True
    if not argument:
        number = len(numbers)
    elif argument.isdigit() and numbers.get(int(argument)) is not None:
        number = int(argument)
    else:
        printer.note(
            f"no suggested command {shown_argument(argument, 20)}: "
            f"use /copy 1 to /copy {len(numbers)} (/suggestions lists them)"
        )
        return True
    command = numbers.get(number)
    assert command is not None
    text = clipboard_text(command)
    printer.bare(text)
    if session.interactive:
        sequence = osc52(text)
        if sequence is not None:
            printer.raw(sequence)
            printer.note(f"[{number}] sent to the clipboard (OSC 52); the line above is it")
    return True


def show_suggestions(session: ChatSession) -> None:
    """The pending suggestions, each with its number, and the IaC paragraph once after them."""
    from agent.safety.suggest import render_iac_note, render_suggestion
    from agent.verify import age_note

    agent, printer = session.agent, session.printer
    language = agent.state.language
    now = datetime.now(UTC)
    for suggestion in agent.state.pending:
        # How old the triage behind it is, and stale unless verified past the threshold.
        block = render_suggestion(
            suggestion, language, evidence_age=age_note(suggestion, now, language)
        )
        if not printer.shows_numbers:
            # Plain output shows no number in the heading: say it before the block.
            number = printer.numbers.number(suggestion.command)
            printer.note(f"[{number}] /copy {number}")
        printer(block)
    note = render_iac_note(agent.state.pending, language)
    if note:
        printer(note)


COMMAND = SlashCommand(
    "/copy", "/copy [N]", "print suggested command N (default: the latest) to copy it", _copy
)
