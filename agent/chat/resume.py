"""`chat --resume FILE`: continue a saved conversation where it stopped.

A transcript of format version 2 ends with a state line (written by `/save`, `/save!` and
`--transcript`): the model messages, the workflow state (agent.state: cluster, triages,
pending and applied suggestions, reboots ...), the token counts and the recording being
replayed. Resuming reads it back, checks that the messages form a request the Messages API
accepts (roles alternate, every tool call answered by its result), opens the same cluster
(the recordings named in the file when they are here, else the live cluster and region it
names; the command line overrides both) and continues.

The file is data. Its text becomes the model-visible history it was, and nothing else:
only text, tool-call and tool-result blocks are taken, each rebuilt from its known fields,
and no line of it is run as a command. It was redacted when saved, so the resumed
conversation continues from the redacted text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.transcript import STATE, VERSION, SavedTranscript, TranscriptError, read_transcript
from tools.display import argument

if TYPE_CHECKING:
    from anthropic.types import (
        MessageParam,
        TextBlockParam,
        ToolResultBlockParam,
        ToolUseBlockParam,
    )

    from agent.loop import Agent
    from agent.providers.pairing import RuleBreak
    from agent.safety.model import Suggestion
    from agent.transcript import Transcript

    # The blocks a saved conversation may hold: those this program writes (agent.loop).
    SavedBlock: TypeAlias = TextBlockParam | ToolUseBlockParam | ToolResultBlockParam

__all__ = ["Resumed", "TranscriptError", "attach", "load", "recap", "restore", "snapshot"]


class SavedUsage(BaseModel):
    """Token counts, under names the redaction leaves alone (it hides any key holding
    "token")."""

    model_config = ConfigDict(extra="forbid")

    input: int = Field(default=0, ge=0)
    output: int = Field(default=0, ge=0)
    cache_write: int = Field(default=0, ge=0)
    cache_read: int = Field(default=0, ge=0)


class StateLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: str = STATE
    time: str = ""
    messages: list[Any]
    conversation: dict[str, Any]
    usage: SavedUsage = Field(default_factory=SavedUsage)
    recording: int = Field(default=0, ge=0)


def snapshot(agent: Agent) -> dict[str, Any]:
    """The state line's content for this agent, now."""
    usage = agent.usage
    return {
        "messages": agent.messages,
        "conversation": agent.state.to_json(),
        "usage": SavedUsage(
            input=usage.input_tokens,
            output=usage.output_tokens,
            cache_write=usage.cache_creation_input_tokens,
            cache_read=usage.cache_read_input_tokens,
        ).model_dump(),
        "recording": agent.toolset.session.position,
    }


def attach(transcript: Transcript, agent: Agent) -> None:
    """Every save of `transcript` ends with the agent's state line, as it is at that save."""
    transcript.snapshot = lambda: snapshot(agent)


@dataclass(frozen=True)
class Resumed:
    """A saved conversation, read and checked, ready to continue."""

    path: Path
    saved: SavedTranscript
    messages: list[MessageParam]
    conversation: dict[str, Any]
    usage: SavedUsage
    recording: int
    saved_at: str
    dropped_incomplete_turn: bool

    @property
    def turns(self) -> int:
        """The user's turns so far (messages and re-triages that reached the agent)."""
        return sum(1 for event in self.saved.events if event.get("type") == "user")

    @property
    def recorded(self) -> list[str]:
        paths = self.saved.meta.get("recorded")
        if not isinstance(paths, list):
            return []
        return [p for p in paths if isinstance(p, str) and p]

    def saved_text(self, key: str) -> str | None:
        """A string of the saved state (e.g. cluster, region), else of the meta line."""
        for source in (self.conversation, self.saved.meta):
            value = source.get(key)
            if isinstance(value, str) and value:
                return value
        return None


def load(path: Path) -> Resumed:
    """Read FILE for resuming; TranscriptError with one line saying why it cannot be."""
    from agent.state import ConversationState

    saved = read_transcript(path)
    shown = argument(path)
    if saved.version == 1:
        raise TranscriptError(
            f"{shown} is a version 1 transcript: it holds the conversation's events but not "
            "its state, so it cannot be resumed (it can still be read, and `eval new` drafts "
            "a case from it)"
        )
    if saved.version > VERSION:
        raise TranscriptError(
            f"{shown} was written by a newer hyperpod-debug (transcript version "
            f"{saved.version}); this one reads up to version {VERSION}"
        )
    if saved.version < 1:
        raise TranscriptError(f"{shown} is not a hyperpod-debug transcript (no version)")
    if saved.state is None:
        raise TranscriptError(
            f"{shown} holds no conversation state (written by `ask`, or cut short before "
            "its last line), so it cannot be resumed"
        )
    try:
        line = StateLine.model_validate(saved.state)
        messages, dropped = checked_messages(line.messages)
        ConversationState().load(line.conversation)  # checked now, taken over in restore
    except (ValidationError, ValueError) as exc:
        raise TranscriptError(f"{shown} is damaged: its state line {_reason(exc)}") from None
    return Resumed(
        path=path,
        saved=saved,
        messages=messages,
        conversation=line.conversation,
        usage=line.usage,
        recording=line.recording,
        saved_at=line.time,
        dropped_incomplete_turn=dropped,
    )


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "it"
        return f"does not match ({argument(where, 80)}: {argument(first['msg'], 120)})"
    return argument(str(exc), 200)


# -- the messages -------------------------------------------------------------------------------


def checked_messages(raw: list[Any]) -> tuple[list[MessageParam], bool]:
    """The saved messages rebuilt from their known fields and checked against the Messages
    API's rule in its strict form (agent.providers.pairing): the first from the user, roles
    alternating, each assistant tool call answered by a tool result (first in the next user
    message), no result without its call. A last turn left incomplete (the file saved while
    a turn ran) is dropped, back to the last answer; the second value says whether one was.
    ValueError when anything else is wrong."""
    from agent.providers.blocks import content_blocks, is_tool_use
    from agent.providers.pairing import rule_break

    messages = [_message(number, item) for number, item in enumerate(raw, start=1)]
    found = rule_break(messages, strict=True, open_ended=True)
    if found is not None:
        raise ValueError(_broken(found, messages))
    # The end of the last answer: an assistant message that calls no tool.
    complete = max(
        (
            index + 1
            for index, message in enumerate(messages)
            if message["role"] == "assistant"
            and not any(is_tool_use(b) for b in content_blocks(message))
        ),
        default=0,
    )
    return messages[:complete], complete < len(messages)


def _broken(found: RuleBreak, messages: list[MessageParam]) -> str:
    """A break of the rule as the person resuming the file is told it."""
    from agent.providers.pairing import Broken

    number = found.index + 1
    if found.kind in (Broken.FIRST_NOT_USER, Broken.SAME_ROLE_TWICE):
        role = messages[found.index]["role"]
        expected = "user" if found.index % 2 == 0 else "assistant"
        return f"message {number}: a {role} message where a {expected} one is due"
    if found.kind is Broken.RESULT_WITHOUT_CALL:
        return f"message {number}: a tool result without its call"
    if found.kind is Broken.CALL_ID_TWICE:
        return f"message {number}: two tool calls with one id"
    if found.kind is Broken.EMPTY_CONTENT:
        # An empty model answer an earlier version kept (agent.loop.empty), for one.
        return f"message {number} has no content"
    if found.kind is Broken.BLANK_TEXT:
        return f"message {number} has a text block with no visible text"
    return f"message {number}: the tool results do not answer the calls"


def _message(number: int, item: Any) -> MessageParam:
    if not isinstance(item, dict) or item.get("role") not in ("user", "assistant"):
        raise ValueError(f"message {number} is not a user or an assistant message")
    role = str(item["role"])
    content = item.get("content")
    if isinstance(content, str):
        # An empty string is no content, not an empty text block (which the API refuses too).
        content = [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list) or (role == "user" and not content):
        raise ValueError(f"message {number} has no content")
    blocks = [_block(number, role, block) for block in content]
    if role == "user":
        return {"role": "user", "content": blocks}
    return {"role": "assistant", "content": blocks}


def _block(number: int, role: str, block: Any) -> SavedBlock:
    """One content block, rebuilt from the fields this program writes: nothing else of the
    file (a document or image source, a cache mark) reaches a request."""
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if kind == "tool_use" and role == "assistant":
        ident, name, arguments = block.get("id"), block.get("name"), block.get("input")
        if isinstance(ident, str) and ident and isinstance(name, str) and name:
            return {
                "type": "tool_use",
                "id": ident,
                "name": name,
                "input": arguments if isinstance(arguments, dict) else {},
            }
    if kind == "tool_result" and role == "user":
        ident, content = block.get("tool_use_id"), block.get("content")
        if isinstance(content, list):
            parts = [p.get("text") for p in content if isinstance(p, dict)]
            content = "\n".join(p for p in parts if isinstance(p, str))
        if isinstance(ident, str) and ident and isinstance(content, str):
            return {
                "type": "tool_result",
                "tool_use_id": ident,
                "content": content,
                "is_error": block.get("is_error") is True,
            }
    shown = argument(kind, 40) if isinstance(kind, str) else "unknown"
    raise ValueError(f"message {number} has a {shown} block this program does not write")


# -- continuing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Where:
    """The cluster a resumed chat opens: as chat's --cluster, --region and --recorded."""

    cluster: str | None
    region: str | None
    recorded: list[Path]


def where(
    resumed: Resumed, *, cluster: str | None, region: str | None, recorded: list[Path]
) -> Where:
    """The command line's --cluster / --region / --recorded when given; else the recordings
    the file replayed (looked for as saved, then beside the file), else the live cluster and
    region it names. A recording that is nowhere is an error rather than a silent switch to
    the live cluster of that name."""
    if recorded:
        return Where(cluster, region, recorded)
    if cluster is None and resumed.recorded:
        found = [_beside(Path(p), resumed.path) for p in resumed.recorded]
        missing = [p for p, f in zip(resumed.recorded, found, strict=True) if f is None]
        if missing:
            raise TranscriptError(
                f"{argument(resumed.path)} replayed {argument(missing[0], 120)}, which is not "
                "here: give it with --recorded FILE (or --cluster NAME --region REGION for "
                "the live cluster)"
            )
        return Where(None, region, [f for f in found if f is not None])
    return Where(
        cluster or resumed.saved_text("cluster"),
        region or resumed.saved_text("region"),
        [],
    )


def _beside(path: Path, transcript: Path) -> Path | None:
    for candidate in (path, transcript.parent / path.name):
        if candidate.is_file():
            return candidate
    return None


def restore(agent: Agent, resumed: Resumed) -> None:
    """The agent takes over the saved messages, state, token counts and recording."""
    from agent.providers.base import Usage
    from agent.state import reboot_targets

    agent.state.load(resumed.conversation)
    # The file's verdicts are not trusted: each pending or applied command is judged again
    # by the safety layer, as if proposed now, so a forged file cannot present a change as
    # read-only, drop its blast radius or flags, or mark a node rebooted.
    # The applied ones first: the nodes rebooted follow from them (not from the file's list),
    # and the pending ones are judged knowing those.
    state = agent.state
    state.applied = [_judged(agent, s) for s in state.applied]
    state.rebooted = reboot_targets(state.applied)
    # Only a change waits for the user (as ConversationState.propose keeps it).
    state.pending = [j for j in (_judged(agent, s) for s in state.pending) if j.mutating]
    usage = resumed.usage
    agent.restore(
        list(resumed.messages),
        Usage(
            input_tokens=usage.input,
            output_tokens=usage.output,
            cache_creation_input_tokens=usage.cache_write,
            cache_read_input_tokens=usage.cache_read,
        ),
    )
    session = agent.toolset.session
    if session.recorded:
        session.seek(resumed.recording)


def _judged(agent: Agent, suggestion: Suggestion) -> Suggestion:
    """The command judged again, and pinned again to the restored triages: the file's own
    evidence and preconditions are not trusted either (a forged precondition could make
    `verify` call a change still valid on grounds it never had)."""
    from agent.safety.evidence import pin
    from agent.safety.suggest import build_suggestion

    judged = build_suggestion(
        suggestion.command,
        purpose=suggestion.purpose,
        context=agent.suggestion_context(),
        section=suggestion.section,
        source=suggestion.source,
    )
    return pin(judged, agent.state)


def recap(agent: Agent, resumed: Resumed) -> str:
    """A few lines on where the conversation stands, shown before the first prompt."""
    from agent.chat.accounting import triage_counts
    from tools.display import age

    state, session = agent.state, agent.toolset.session
    where = "no cluster yet"
    if state.cluster:
        where = f"cluster {argument(state.cluster, 100)} ({argument(state.region or '?', 40)})"
    if session.recorded:
        where += f", recording {session.position + 1} of {len(session.recordings)}"
    saved = f", saved {argument(resumed.saved_at, 40)}" if resumed.saved_at else ""
    lines = [
        f"Resumed {argument(resumed.path.name, 100)}: {resumed.turns} turn(s) so far{saved} · "
        + where
    ]
    if resumed.dropped_incomplete_turn:
        lines.append("The last turn was cut short when the file was saved: it is left out.")
    report = state.latest
    if report is None:
        lines.append("No triage yet.")
    else:
        fails, warns = triage_counts(report)
        when = age(state.latest_time, datetime.now(UTC))
        lines.append(f"Last triage ({when}): {fails} FAIL, {warns} WARN")
    for number, suggestion in enumerate(state.pending, start=1):
        lines.append(f"  pending {number}. [{suggestion.kind}] {argument(suggestion.command, 120)}")
    if state.pending:
        lines.append("/suggestions shows them in full; /done once you applied them.")
    lines.append("The conversation continues from the saved (redacted) text. /context, /cost.")
    return "\n".join(lines)
