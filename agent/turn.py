"""One turn's result and the small pure rules of the loop: when the user reports a change
made, which sections an answer cites, how tool output is delimited for the model."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from agent.providers.base import Usage
from agent.safety.model import Suggestion
from tools.sections import SECTIONS

_SECTION_CITE = re.compile(r"§\s*([A-O](?:\.\d+(?:\.[a-z])?)?)")
# "Done" means the proposed change was made: a bare "done" / "applied", or "I ran / did /
# applied it (that, the command, the change...)", or a past-tense change verb. Negations
# ("not yet", "didn't", "还没") and questions are never a report.
_DONE_EN = re.compile(
    r"^\s*(?:ok(?:ay)?[,.!]?\s*)?(?:it'?s |all )?(?:done|applied|finished|completed)\b|"
    r"\b(?:i|we)(?:'ve| have)? (?:just )?(?:ran|run|did|done|applied|executed) "
    r"(?:it|that|this|them|those|both|all of them|the (?:command|change|fix|suggest\w*|"
    r"reboot|replacement|rule))\b|"
    r"\b(?:i|we)(?:'ve| have)? (?:just )?(?:rebooted|replaced|restarted|added|changed|"
    r"fixed|updated|resumed|applied)\b",
    re.IGNORECASE,
)
_DONE_ZH = re.compile(
    r"已(?:经)?(?:完成|执行|运行|应用|修改|重启|替换|处理|改好|添加)|做完了|搞定了|改好了"
)
_NOT_DONE = re.compile(
    r"\b(?:not|never|yet|didn'?t|haven'?t|hasn'?t|won'?t|can'?t|cannot|couldn'?t|unable|"
    r"failed|before)\b|还没|没有|尚未|未能|不能|失败",
    re.IGNORECASE,
)
_CLOSING_TAG = re.compile("</tool_output", re.IGNORECASE)


class ToolCallRecord(BaseModel):
    name: str
    input: dict[str, Any]
    is_error: bool


class TurnResult(BaseModel):
    """One user turn, as `ask --format json` prints it."""

    answer: str
    suggested_commands: list[Suggestion] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    cited_sections: list[str] = Field(default_factory=list)
    awaiting_approval: bool = False
    usage: Usage = Field(default_factory=Usage)
    model_text: str = Field(
        default="",
        description="What the model wrote, guarded, without the blocks and the re-triage "
        "header the software adds (graders read it).",
    )
    retriage: dict[str, Any] | None = None
    tool_rounds: int = Field(default=0, description="Model responses that called tools.")
    model_calls: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "suggested_commands": [
                s.model_dump(
                    mode="json",
                    include={
                        "command",
                        "kind",
                        "mutating",
                        "purpose",
                        "targets",
                        "blast_radius",
                        "iac_warning",
                        "flags",
                    },
                )
                for s in self.suggested_commands
            ],
            "tool_calls": [c.model_dump(mode="json") for c in self.tool_calls],
            "cited_sections": self.cited_sections,
            "awaiting_approval": self.awaiting_approval,
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
                "cache_creation_input_tokens": self.usage.cache_creation_input_tokens,
                "cache_read_input_tokens": self.usage.cache_read_input_tokens,
            },
        }


def reports_done(text: str) -> bool:
    """Does the user say the proposed change was made? (Only asked while one is pending.)"""
    if text.rstrip().endswith(("?", "？")) or _NOT_DONE.search(text):
        return False  # a question, or a negation, is not a report that it was made
    return bool(_DONE_EN.search(text) or _DONE_ZH.search(text))


def cited_sections(text: str) -> list[str]:
    found: dict[str, None] = {}
    for match in _SECTION_CITE.finditer(text):
        if match.group(1) in SECTIONS:
            found.setdefault(match.group(1), None)
    return list(found)


def tool_output(name: str, text: str) -> str:
    """Tool output, delimited so the model reads it as data; the closing tag cannot be
    forged from inside (cluster text may contain anything)."""
    safe = _CLOSING_TAG.sub("<\\\\/tool_output", text)
    return f'<tool_output name="{name}">\n{safe}\n</tool_output>'
