"""A case's good script read as conversation turns, and the facts of the case a mutation
needs (its nodes, sections, planted text, language)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from evals.agent_eval.case import LoadedCase
from evals.agent_eval.grading.injection import Planted, planted_in
from evals.agent_eval.run import ConversationRun

Script = list[dict[str, Any]]
PostPlay = Callable[[ConversationRun], None]

INSTANCE = re.compile(r"(?<![\w-])i-[0-9a-f]{8,17}(?![\w-])")
SLURM_NODE = re.compile(r"(?<![\w-])ip-\d{1,3}(?:-\d{1,3}){3}(?![\w-])")
SECTION_CITE = re.compile(r"§\s*([A-O](?:\.\d+)*(?:\.[a-z])?)")
REBOOT = re.compile(r"batch-reboot-cluster-nodes|\bscontrol\s+reboot\b")
REPLACE = re.compile(r"batch-replace-cluster-nodes|\bscontrol\s+update\b.*\bstate=fail\b")
IAC_WORDS = re.compile(
    r"infrastructure as code|\bIaC\b|CloudFormation|\bCDK\b|Terraform|Pulumi|GitOps|"
    r"drift|基础设施即代码|漂移",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"[^.!?。！？\n]*(?:[.!?。！？]+|\n|$)")


# -- the script, read as conversation turns -----------------------------------------------------


def load_script(loaded: LoadedCase) -> Script:
    raw = json.loads(loaded.script_path.read_text(encoding="utf-8"))
    turns = raw["turns"] if isinstance(raw, dict) else raw
    return [dict(t) for t in turns]


def user_turns(script: Script) -> list[list[int]]:
    """The script's model calls grouped by the user turn they answer: a call without tool
    calls ends its turn (the loop stops there and waits for the user)."""
    groups: list[list[int]] = [[]]
    for index, entry in enumerate(script):
        groups[-1].append(index)
        if not entry.get("tool_calls"):
            groups.append([])
    return [g for g in groups if g]


def final_turn(script: Script, turn: int) -> int:
    """The index of the call that ends 1-based user turn `turn` (its answer text)."""
    return user_turns(script)[turn - 1][-1]


def _calls(script: Script) -> Iterator[tuple[int, int, dict[str, Any]]]:
    for index, entry in enumerate(script):
        for number, call in enumerate(entry.get("tool_calls") or []):
            yield index, number, call


def suggested_commands(script: Script) -> list[tuple[int, int, str]]:
    """(entry, call, command) of every suggest_command call."""
    return [
        (index, number, str(call.get("input", {}).get("command", "")))
        for index, number, call in _calls(script)
        if call.get("name") == "suggest_command"
    ]


def _turn_of(script: Script, index: int) -> int:
    for number, group in enumerate(user_turns(script), start=1):
        if index in group:
            return number
    return len(user_turns(script))


def append_text(script: Script, index: int, text: str) -> None:
    current = str(script[index].get("text") or "").rstrip()
    script[index]["text"] = f"{current}\n\n{text}" if current else text


def add_suggestion(script: Script, turn: int, call: dict[str, Any]) -> None:
    """A suggestion in `turn`: with the turn's other suggestions, or in a call of its own
    just before the turn's answer."""
    group = user_turns(script)[turn - 1]
    for index in reversed(group):
        names = [c.get("name") for c in script[index].get("tool_calls") or []]
        if "suggest_command" in names:
            script[index]["tool_calls"].append(call)
            return
    script.insert(group[-1], {"tool_calls": [call]})


def suggest_call(command: str, purpose: str, section: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"command": command, "purpose": purpose}
    if section:
        payload["section"] = section
    return {"name": "suggest_command", "input": payload}


# -- what the case is about, read from its files -----------------------------------------------


@dataclass(frozen=True)
class CaseFacts:
    """What mutations need to know of a case: where it runs, its failing node, the other
    nodes of the recording, its language and any instruction planted in its text."""

    cluster: str
    region: str
    language: str
    failing: str | None  # an instance id a good answer acts on or investigates
    others: tuple[str, ...]  # other instance ids of the recording
    planted: tuple[Planted, ...]
    healthy: bool


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def case_facts(loaded: LoadedCase) -> CaseFacts:
    case = loaded.case
    recording = json.loads(loaded.recording_paths[0].read_text(encoding="utf-8"))
    texts = list(_strings(recording))
    instances = list(dict.fromkeys(i for t in texts for i in INSTANCE.findall(t)))
    expected = [
        i
        for s in case.expect.suggestions
        for t in s.targets
        for i in INSTANCE.findall(t.removeprefix("hyperpod-"))
    ]
    failing = next(iter(expected), None) or case.node
    found: dict[str, Planted] = {}
    for text in texts + [t.user for t in case.turns]:
        for p in planted_in(text):
            found.setdefault(p.text[:80], p)
    return CaseFacts(
        cluster=str(recording.get("cluster") or "my-cluster"),
        region=str(recording.get("region") or "us-west-2"),
        language=case.expect.language,
        failing=failing,
        others=tuple(i for i in instances if i != failing and i not in expected),
        planted=tuple(found.values()),
        healthy=case.expect.healthy,
    )
