"""A saved `chat` transcript and its recording(s) → a new case folder, for review.

The user's messages become the turns (a message answered by a re-triage is a `done` turn),
the model's responses and tool calls become the case's script, and the expectations are
drafted from what the conversation showed: the sections cited, the suggestions made (kind
and targets, in every turn they were made), the turns that waited for approval, what each
re-triage cleared, and negative expectations (no change besides those proposed; no
replacement unless one was proposed). A person
then reviews them (and adds facts and a rubric) before the case is committed.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from agent.state import detect_language
from agent.transcript import FORMAT
from evals.agent_eval.case import CASE_FILE, SCRIPT_FILE, AgentCase
from tools.recorded.model import RecordedFileError, load_recorded

_SECTION_AT_END = re.compile(r"§ ([A-O](?:\.\d+(?:\.[a-z])?)?)$")
_CASE_ID = re.compile(r"[^a-z0-9-]+")
# The ways to ask HyperPod for a replacement: the API, and the node label it acts on.
_REPLACEMENTS = ("batch-replace-cluster-nodes", "UnschedulablePendingReplacement")


class DraftError(Exception):
    pass


def _events(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DraftError(f"cannot read {path}: {exc.strerror}") from None
    events = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            event = json.loads(text)
        except ValueError:
            raise DraftError(f"{path}:{number}: not a JSON line") from None
        if not isinstance(event, dict):
            raise DraftError(f"{path}:{number}: not a JSON object")
        events.append(event)
    if not events or events[0].get("type") != "meta" or events[0].get("format") != FORMAT:
        raise DraftError(f"{path} is not a hyperpod-debug transcript (no meta line)")
    return events[1:]


def _sections(lines: list[str]) -> list[str]:
    found = [m.group(1) for line in lines if (m := _SECTION_AT_END.search(line))]
    return list(dict.fromkeys(found))


def _script(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for event in events:
        if event.get("type") == "assistant":
            turns.append({"text": str(event.get("text", "")), "tool_calls": []})
        elif event.get("type") == "tool_call" and turns:
            turns[-1]["tool_calls"].append(
                {"name": str(event.get("name", "")), "input": event.get("input") or {}}
            )
    return [{k: v for k, v in t.items() if v} for t in turns]


def _conversation(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    expect: dict[str, Any] = {
        "cited_sections": [],
        "facts": [],
        "suggestions": [],
        "awaiting_approval": [],
    }
    pending_retriage: dict[str, Any] | None = None
    retriages: list[dict[str, Any]] = []  # every re-triage after the first triage
    for event in events:
        kind = event.get("type")
        if kind == "retriage" and not event.get("error"):
            pending_retriage = event
        elif kind == "user":
            turn: dict[str, Any] = {"user": str(event.get("text", ""))}
            if pending_retriage is not None:
                turn["done"] = True
                if not pending_retriage.get("first"):
                    retriages.append(
                        {
                            "turn": len(turns) + 1,
                            "cleared_sections": _sections(pending_retriage.get("cleared", [])),
                            "remaining_sections": _sections(pending_retriage.get("remaining", [])),
                            "resolved": not pending_retriage.get("new")
                            and not pending_retriage.get("remaining"),
                        }
                    )
                pending_retriage = None
            turns.append(turn)
        elif kind == "answer" and turns:
            number = len(turns)
            for section in event.get("cited_sections", []):
                if section not in expect["cited_sections"]:
                    expect["cited_sections"].append(section)
            for suggestion in event.get("suggested_commands", []):
                if suggestion.get("mutating"):
                    targets = list(suggestion.get("targets", []))
                    expect["suggestions"].append(
                        {"kind": suggestion.get("kind"), "targets": targets, "turn": number}
                    )
                    for target in targets:
                        if [target] not in expect["facts"]:
                            expect["facts"].append([target])
            if event.get("awaiting_approval"):
                expect["awaiting_approval"].append(number)
    if retriages:
        expect["retriage"] = retriages[0] if len(retriages) == 1 else retriages
    # Negative expectations, for the reviewer to keep or relax: the changes the conversation
    # proposed are the only ones allowed, and a replacement it did not propose is forbidden.
    expect["no_other_changes"] = True
    if not any(s.get("kind") == "replace" for s in expect["suggestions"]):
        expect["must_not_suggest"] = list(_REPLACEMENTS)
    return turns, expect


def draft_case(
    recordings: list[Path], transcript: Path, output: Path, *, case_id: str | None = None
) -> Path:
    if output.exists() and any(output.iterdir()):
        raise DraftError(f"{output} exists and is not empty")
    for path in recordings:
        try:
            load_recorded(path)
        except RecordedFileError as exc:
            raise DraftError(str(exc)) from None
    events = _events(transcript)
    turns, expect = _conversation(events)
    if not turns:
        raise DraftError(f"{transcript} has no user message")
    expect["language"] = detect_language(" ".join(t["user"] for t in turns))
    identifier = case_id or _CASE_ID.sub("-", output.name.lower()).strip("-") or "new-case"
    output.mkdir(parents=True, exist_ok=True)
    names = []
    for index, path in enumerate(recordings, start=1):
        name = f"recording-{index}.json"
        shutil.copyfile(path, output / name)
        names.append(name)
    case = {
        "id": identifier,
        "title": f"Drafted from {transcript.name}: review the expectations",
        "tags": ["difficulty:medium", "area:regression", "drafted"],
        "recordings": names,
        "turns": turns,
        "expect": expect,
        "rubric": "",
    }
    AgentCase.model_validate(case)  # a draft that would not load is not written
    (output / CASE_FILE).write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n")
    script = {"model": "scripted", "turns": _script(events)}
    (output / SCRIPT_FILE).write_text(json.dumps(script, indent=2, ensure_ascii=False) + "\n")
    return output
