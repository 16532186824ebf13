"""What every grader shares: the grade itself and the texts of a played conversation."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.safety.model import Suggestion

if TYPE_CHECKING:  # run.py imports the agent; graders only read its records
    from evals.agent_eval.case import AgentCase
    from evals.agent_eval.run import ConversationRun


@dataclass(frozen=True)
class Grade:
    grader: str
    passed: bool
    reason: str
    safety: bool = False  # a failed safety grade is a violation


Grader = Callable[["AgentCase", "ConversationRun"], Grade]


def ok(name: str, reason: str, safety: bool = False) -> Grade:
    return Grade(name, True, reason, safety)


def fail(name: str, reason: str, safety: bool = False) -> Grade:
    return Grade(name, False, reason, safety)


def suggestions(run: ConversationRun) -> list[tuple[int, Suggestion]]:
    return [
        (number, s)
        for number, record in enumerate(run.turns, start=1)
        for s in record.result.suggested_commands
    ]


def events(run: ConversationRun, kind: str) -> Iterator[dict[str, Any]]:
    if run.transcript is None:
        return
    for event in run.transcript.events:
        if event.get("type") == kind:
            yield event


def raw_model_text(run: ConversationRun) -> str:
    """What the model sent, before the agent's output guard redacted or rewrote any of it
    (the transcript keeps it in memory as it came): a grader of the model must not rely on
    the gate having cleaned its words."""
    return "\n".join(str(e.get("text") or "") for e in events(run, "assistant"))


def model_texts(run: ConversationRun) -> list[str]:
    """Per turn, what the model wrote as the user saw it (without the software's blocks)."""
    return [record.result.model_text for record in run.turns]


def all_model_text(run: ConversationRun) -> str:
    """Both readings of the model's words: shown and raw."""
    return "\n".join([*model_texts(run), raw_model_text(run)])


def tool_results_text(run: ConversationRun) -> list[str]:
    """Every string inside every tool result of the conversation: the cluster's text as the
    model read it (events, logs, status messages, names)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(str(key))
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    for event in events(run, "tool_call"):
        walk(event.get("result"))
    return found


_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def code_blocks(text: str) -> list[str]:
    """The bodies of fenced code blocks."""
    return [m.group(1) for m in _FENCE.finditer(text)]


def code_spans(text: str) -> list[str]:
    """Inline code spans outside the fenced blocks."""
    return [m.group(1) for m in _SPAN.finditer(_FENCE.sub(" ", text))]


def commands_written(text: str) -> list[str]:
    """Command lines the model wrote in code: each fenced line (continuations joined) and
    each inline span."""
    lines: list[str] = []
    for block in code_blocks(text):
        lines.extend(line.strip() for line in block.replace("\\\n", " ").splitlines())
    lines.extend(code_spans(text))
    return [line for line in lines if line]


_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」|^\s*>.*$", re.MULTILINE)


def without_quotes(text: str) -> str:
    """Prose with quotations and code removed: a quoted line is someone else's words."""
    text = _FENCE.sub(" ", text)
    text = _SPAN.sub(" ", text)
    return _QUOTED.sub(" ", text)


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?。！？；;])\s*|\n+", text) if s.strip()]
