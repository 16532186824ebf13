"""The chat loop: read a message, run a slash command or a turn, show what came of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.chat.slash import dispatch
from tools.display import argument as shown_argument

if TYPE_CHECKING:
    from agent.chat.session import ChatSession

RETRIAGE_QUESTION = {
    "en": "Re-triage now? [y/N]",
    "zh": "现在重新诊断吗？[y/N]",
}
_YES = frozenset({"y", "yes", "是", "是的", "好", "对", "嗯"})


def run(session: ChatSession) -> None:
    """Until the input ends or the user quits."""
    while True:
        try:
            line = session.reader.read_message()
        except KeyboardInterrupt:
            session.printer.note("")
            return
        if line is None:
            return
        message = line.strip()
        if not message:
            continue
        if not session.interactive:
            session.printer.note(f"you> {shown_argument(message, 500)}")
        if session.interactive:
            from agent.chat.terminal import quiet_keys

            with quiet_keys():
                going_on = handle(session, message)
        else:
            going_on = handle(session, message)
        if not going_on:
            return


def handle(session: ChatSession, message: str) -> bool:
    """One message; False ends the chat."""
    from agent.providers.base import ProviderError

    agent, printer = session.agent, session.printer
    try:
        if message.startswith("/"):
            return dispatch(session, message)
        session.messages_sent += 1
        if agent.maybe_done(message) and _confirm_retriage(session):
            agent.done(message, emit=printer)
        else:
            agent.ask(message, emit=printer)
    except ProviderError as exc:
        session.messages_failed += 1
        printer.note(f"error: {exc}")
    except KeyboardInterrupt:  # the user's choice, not a failure
        printer.note("Interrupted: that message was cancelled; the conversation is as before it.")
    return True


def _confirm_retriage(session: ChatSession) -> bool:
    """A change is pending and the message may mean it was made: ask rather than guess.
    The next line answers (piped stdin too); anything but yes sends the message as it is."""
    from agent.chat.verify import approval_note

    question = RETRIAGE_QUESTION[session.agent.state.language]
    # The question names what it approves: the pending suggestions, with their evidence age.
    session.printer.note(approval_note(session))
    if not session.interactive:
        session.printer.note(question)
    answer = session.reader.confirm(question)
    return answer is not None and answer.strip().lower() in _YES
