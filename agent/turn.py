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
# "Done" means the proposed change was made. In English: a sentence that is only "done" /
# "applied" (with "ok", "both", "all three", "that's", "everything is"...: "Both done.",
# "OK, that's done", "Removed them. Done."); "I/we/they/the team + ran/did/applied +
# it/them/both/all three/the command..." ("I did all three"); a subject and a past-tense
# change verb ("I rebooted", "the customer re-associated"); or a message that opens with
# one ("Rebooted it with...", "Cordoned, drained and rebooted. It's back."). In Chinese:
# 已/已经 + a verb, or a verb with a completing particle ("三条命令都执行了", "重启好了").
# Negations ("not yet", "didn't", "还没") and questions are never a report.
_CHANGE_VERBS = (
    r"rebooted|replaced|restarted|drained|cordoned|uncordoned|resumed|removed|deleted|"
    r"added|attached|applied|changed|fixed|updated|deployed|redeployed|re-?associated|"
    r"re-?attached|re-?added|re-?created|recreated|enabled|disabled|reverted|rolled back|"
    r"raised|increased|detached|associated|granted|scaled|patched|edited|set"
)
_SUBJECT = (
    r"(?:i|we|they|(?:the|our|my) (?:\w+ )?(?:team|customer|admin|colleague|engineer|"
    r"sre|ops|operator)s?)"
)
_DONE_EN = re.compile(
    r"(?:^|[.!;:]\s*|,\s*)(?:ok(?:ay)?[,.!]?\s*)?"
    r"(?:(?:it|that|this|everything|all|both|all (?:two|three|four|five|of them|of those)|"
    r"those|these)(?:'s|'re| is| are| was| were| have been| has been)?\s+)?"
    r"(?:done|applied|finished|completed)\b|"
    rf"\b{_SUBJECT}(?:'ve| have| has)? (?:just |now |already |both |all )?"
    r"(?:ran|run|did|done|applied|executed|made) "
    r"(?:it|that|this|them|those|these|both|all|every|each|your|two|three|four|five|"
    r"the (?:\w+ )?(?:commands?|changes?|fix(?:es)?|suggest\w*|steps?|reboot|replacement|"
    r"rule|update|policy|patch))(?![\w-])|"
    rf"\b{_SUBJECT}(?:'ve| have| has)? (?:just |now |already )?(?:{_CHANGE_VERBS})\b|"
    rf"^\s*(?:ok(?:ay)?[,.!]?\s*)?(?:{_CHANGE_VERBS})\b",
    re.IGNORECASE,
)
_DONE_ZH = re.compile(
    r"已(?:经)?(?:完成|执行|运行|应用|修改|重启|替换|处理|改好|添加|删除|恢复|部署|更新)|"
    r"(?:执行|运行|跑|做|处理|弄|搞|改|重启|替换|添加|删除|部署|更新|应用)(?:完|好)了|"
    r"都(?:已)?(?:执行|运行|跑|做|重启|完成|应用|改)(?:过|完|好)?了|做完了|搞定了|改好了"
)
# A message that may mean "done" but does not say it plainly: "back up", "works now",
# "please look again", a change verb somewhere in the message, "好了". While a change is
# pending the chat asks "Re-triage now?" rather than guess.
_MAYBE_DONE = re.compile(
    rf"\b(?:{_CHANGE_VERBS}|ran|executed|done|finished)\b|"
    r"\b(?:it'?s|they'?re|is|are) back\b|\bworks? (?:now|again)\b|"
    r"\b(?:look|check|triage|try) (?:it )?again\b|\bre-?(?:check|triage|run)\b|"
    r"好了|完成|执行|重启|替换|再(?:看|查|检查|诊断)|重新(?:检查|诊断|看)",
    re.IGNORECASE,
)
_NOT_DONE = re.compile(
    r"\b(?:not|never|yet|didn'?t|haven'?t|hasn'?t|won'?t|can'?t|cannot|couldn'?t|unable|"
    r"before|going to|about to|shall i)\b|"
    # "failed" as the outcome ("it failed", "failed to"), not "no failed ids".
    r"\bfailed(?=\s+(?:to|with|again)\b|\s*[.!,;]|\s*$)|"
    r"\b(?:it|that|this|they|command|reboot|replacement|change) (?:has |have )?failed\b|"
    r"还没|没有|尚未|未能|不能|失败|要不要|是否|打算|准备",
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
                        "iac_owner",
                        "flags",
                        "evidence",
                        "preconditions",
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


def may_report_done(text: str) -> bool:
    """Might the message mean the change was made, without saying it plainly? (Asked only
    when `reports_done` said no and a change is pending: the chat then asks whether to
    re-triage now.) A negation is no; a question about running it is no."""
    if reports_done(text) or _NOT_DONE.search(text) or text.rstrip().endswith(("?", "？")):
        return False
    return bool(_MAYBE_DONE.search(text))


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
