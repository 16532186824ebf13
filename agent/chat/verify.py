"""`/verify [N]`, and the lines that name what the user is about to approve.

`/verify N` re-reads what suggestion N (the number its block was shown with, as for `/copy`)
rests on and says whether it is still valid or stale (agent/verify.py); `/verify` alone
takes every pending one. A replay verifies against the last recording given, the latest
state known of the cluster, without moving the replay on.

`pending_lines` names each pending suggestion (number, kind, the command cut short) with the
age of its evidence when that matters, marked stale unless verified past the threshold:
the re-triage question and `/done` show them, so the user approves a named suggestion.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.chat.slash import SlashCommand
from tools.display import argument as shown_argument

if TYPE_CHECKING:
    from agent.chat.session import ChatSession
    from agent.safety.model import Suggestion

COMMAND_CHARS = 90


def numbered_pending(session: ChatSession) -> list[tuple[int, Suggestion]]:
    """The pending suggestions with the numbers their blocks are shown with."""
    numbers = session.printer.numbers
    return [(numbers.number(s.command), s) for s in session.agent.state.pending]


def pending_lines(session: ChatSession, now: datetime | None = None) -> list[str]:
    """One line per pending suggestion: its number, kind and command, and its evidence age
    when older than a few minutes."""
    from agent.verify import age_note

    clock = now or datetime.now(UTC)
    language = session.agent.state.language
    lines = []
    for number, suggestion in numbered_pending(session):
        line = (
            f"  [{number}] {suggestion.kind}: {shown_argument(suggestion.command, COMMAND_CHARS)}"
        )
        note = age_note(suggestion, clock, language)
        lines.append(line + (f" ({note})" if note else ""))
    return lines


def approval_note(session: ChatSession) -> str:
    """What the user approves by saying it is done: the pending suggestions, named."""
    heading = {"en": "Applied, as you report:", "zh": "您报告已执行："}[
        session.agent.state.language
    ]
    return "\n".join([heading, *pending_lines(session)])


def _verify(session: ChatSession, argument: str) -> bool:
    from agent.toolset.failures import describe_failure
    from agent.verify import render_text, verify_suggestions

    printer = session.printer
    pending = numbered_pending(session)
    if not pending:
        printer.note("No suggested command is waiting for you: nothing to verify.")
        return True
    if argument:
        chosen = [(n, s) for n, s in pending if argument.isdigit() and n == int(argument)]
        if not chosen:
            numbers = ", ".join(str(n) for n, _ in pending)
            printer.note(
                f"no pending suggestion {shown_argument(argument, 20)}: pending are {numbers} "
                "(/suggestions shows them)"
            )
            return True
    else:
        chosen = pending
    try:
        data, checked_at = session.agent.toolset.session.fresh_data()
        verdicts = verify_suggestions(chosen, data, checked_at=checked_at)
    except Exception as exc:  # the cluster could not be opened: say why, keep chatting
        printer.note(f"could not verify: {describe_failure(exc).user_text()}")
        return True
    printer.note(render_text(verdicts))
    return True


COMMAND = SlashCommand(
    "/verify",
    "/verify [N]",
    "re-read what suggestion N rests on: still valid, or stale (default: every pending one)",
    _verify,
)
