"""What a played conversation showed, as text a grader can search: every tool result, every
re-triage and the user's own messages. Graders that ask "did this come from somewhere?"
(grounding, the re-triage reading) read the conversation here rather than trusting what the
software or the model say about it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evals.agent_eval.run import ConversationRun

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_SEPARATORS = re.compile(r"[-_:/]+")
_SPACE = re.compile(r"\s+")


def words(text: str) -> str:
    """Lower-case text with identifiers opened into words ("ec2:DescribeSecurityGroups" →
    "ec2 describe security groups", "efa-security-groups" → "efa security groups"), so a
    topic can be looked for in a check name, an IAM action or prose alike."""
    return _SPACE.sub(" ", _SEPARATORS.sub(" ", _CAMEL.sub(" ", text))).lower()


def _leaves(value: object, key: str, out: list[str], skipped: list[str] | None = None) -> None:
    """String leaves of a JSON value, a scalar under its key ("xids: 79"), so numbers and
    ids can be found beside the field that carries them; the leaves under a "skipped" key
    (checks that could not run, and why) also go to `skipped`."""
    if isinstance(value, dict):
        for name, item in value.items():
            if name == "skipped" and skipped is not None:
                _leaves(item, str(name), skipped)
            _leaves(item, str(name), out, skipped)
    elif isinstance(value, list):
        for item in value:
            _leaves(item, key, out, skipped)
    elif isinstance(value, str):
        out.append(value)
        if key:
            out.append(f"{key}: {value}")
    elif value is not None:
        out.append(f"{key}: {value}")


@dataclass(frozen=True)
class Evidence:
    """The conversation's sources: tool-result and re-triage text, and the user's text."""

    tool_text: tuple[str, ...]
    user_text: tuple[str, ...]
    tools_ran: bool
    skipped_text: tuple[str, ...] = ()

    @property
    def all_text(self) -> tuple[str, ...]:
        return self.tool_text + self.user_text

    def contains(self, needle: str) -> bool:
        low = needle.lower()
        return any(low in text.lower() for text in self.all_text)

    def lines_with(self, *markers: str) -> list[str]:
        return [t for t in self.tool_text if any(m in t for m in markers)]


def evidence_of(run: ConversationRun, turn: int | None = None) -> Evidence:
    """What the conversation showed; with ``turn`` (1-based), only what the model had been
    shown by the end of that turn: an answer cannot be grounded in a later tool result."""
    tool: list[str] = []
    skipped: list[str] = []
    tools_ran = False
    events = run.transcript.events if run.transcript is not None else []
    users = 0
    for event in events:
        kind = event.get("type")
        if turn is not None:
            # A re-triage belongs to the turn whose user message follows it.
            if kind == "user":
                users += 1
            if (kind == "user" and users > turn) or (kind == "retriage" and users >= turn):
                break
        if kind == "tool_call" and not event.get("is_error"):
            tools_ran = True
            _leaves(event.get("result"), "", tool, skipped)
        elif kind == "tool_call":
            _leaves(event.get("result"), "", tool, skipped)
        elif kind == "retriage" and not event.get("error"):
            tools_ran = True
            _leaves(event, "", tool, skipped)
    shown = run.turns if turn is None else run.turns[:turn]
    user = tuple(record.turn.user for record in shown)
    return Evidence(tuple(tool), user, tools_ran, tuple(skipped))
