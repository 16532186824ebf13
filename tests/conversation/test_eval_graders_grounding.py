"""Grounding, language and the re-triage reading, each on good and bad answers (data:
data/grader_grounding_conversations.json), judged against a conversation's own tool results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.transcript import Transcript
from agent.turn import TurnResult
from evals.agent_eval import graders
from evals.agent_eval.case import AgentCase, Turn
from evals.agent_eval.run import ConversationRun, TurnRecord

_DATA_FILE = Path(__file__).parent / "data" / "grader_grounding_conversations.json"
DATA = json.loads(_DATA_FILE.read_text(encoding="utf-8"))


def case(**expect: Any) -> AgentCase:
    return AgentCase.model_validate(
        {
            "id": "tt",
            "title": "t",
            "recordings": ["x.json"],
            "turns": [{"user": "u"}],
            "expect": expect,
        }
    )


def conversation(text: str, retriage: dict[str, Any] | None = None) -> ConversationRun:
    transcript = Transcript({})
    for event in DATA["evidence"]:
        transcript.add(dict(event))
    result = TurnResult(answer=text, model_text=text, retriage=retriage)
    turns = [TurnRecord(Turn(user=DATA["user"]), result, 0.1)]
    return ConversationRun(case_id="t", repeat=1, turns=turns, transcript=transcript)


@pytest.mark.parametrize("text", DATA["grounded"])
def test_grounded_answers_pass(text: str) -> None:
    grade = graders.nothing_invented(case(), conversation(text))
    assert grade.passed, grade.reason


@pytest.mark.parametrize("text", DATA["invented"])
def test_invented_facts_fail(text: str) -> None:
    grade = graders.nothing_invented(case(), conversation(text))
    assert not grade.passed, text
    assert grade.safety


def test_a_real_warn_line_on_a_healthy_cluster_is_not_flagged() -> None:
    grade = graders.nothing_invented(case(healthy=True), conversation(DATA["grounded"][0]))
    assert grade.passed, grade.reason


@pytest.mark.parametrize("text", DATA["zh_good"])
def test_chinese_prose_with_english_commands_passes(text: str) -> None:
    grade = graders.answered_in_language(case(language="zh"), conversation(text))
    assert grade.passed, grade.reason


@pytest.mark.parametrize("text", DATA["zh_bad"])
def test_english_prose_quoting_the_user_fails_a_chinese_case(text: str) -> None:
    assert not graders.answered_in_language(case(language="zh"), conversation(text)).passed


@pytest.mark.parametrize("text", DATA["retriage_good"])
def test_a_re_triage_read_right_passes(text: str) -> None:
    grade = graders.retriage_read(case(), conversation(text, DATA["retriage"]))
    assert grade.passed, grade.reason


@pytest.mark.parametrize("text", DATA["retriage_bad"])
def test_a_re_triage_misread_fails(text: str) -> None:
    assert not graders.retriage_read(case(), conversation(text, DATA["retriage"])).passed


def test_an_answer_is_grounded_only_in_what_came_before_it() -> None:
    """Turn 1 cannot know what a tool showed in turn 2: the same words are invented in turn 1
    and grounded in turn 2."""
    transcript = Transcript({})
    transcript.add({"type": "user", "text": "first"})
    transcript.add({"type": "user", "text": "second"})
    for event in DATA["evidence"]:
        transcript.add(dict(event))
    text = DATA["grounded"][0]
    first = TurnRecord(Turn(user="first"), TurnResult(answer=text, model_text=text), 0.1)
    second = TurnRecord(Turn(user="second"), TurnResult(answer=text, model_text=text), 0.1)
    early = ConversationRun(case_id="t", repeat=1, turns=[first, second], transcript=transcript)
    grade = graders.nothing_invented(case(), early)
    assert not grade.passed
    assert grade.reason.startswith("turn 1:"), grade.reason
    late = ConversationRun(
        case_id="t",
        repeat=1,
        turns=[TurnRecord(Turn(user="first"), TurnResult(answer="", model_text=""), 0.1), second],
        transcript=transcript,
    )
    assert graders.nothing_invented(case(), late).passed
