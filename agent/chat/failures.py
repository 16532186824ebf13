"""A failed tool as the chat tells the person: the problem, and the remedy in the chat's
own terms (its commands and options) where it has some, never the words meant for the
model (`agent.toolset.failures`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.chat.session import ChatSession
    from agent.toolset.failures import Failure

NO_CLUSTER = (
    "No cluster yet: /cluster NAME REGION, or start chat with --cluster/--region or "
    "--recorded FILE."
)


def failure_line(session: ChatSession, failure: Failure) -> str:
    """What to show the person for the failure of a tool the chat called itself."""
    from agent.toolset.failures import FailureKind  # the toolset loads when a tool ran

    if failure.kind is FailureKind.NO_CLUSTER:
        return NO_CLUSTER
    if failure.kind is FailureKind.NOT_FOUND and session.agent.toolset.session.target is None:
        return f"{failure.problem}. Check the name and region: /cluster NAME REGION."
    return failure.user_text()
