"""Issue 22, class 7: a change proposed in the model's text ends tool use for the turn, as a
suggest_command call does. The tool calls of the same response after the proposal are not
run (each is answered "not run"), and the next request forbids tools. The model texts are
cases of the adversarial corpus (tests/safety/data/adversarial.jsonl), read as strings."""

from __future__ import annotations

import pytest
from safety.corpus import Case, judge_case, load_cases

from ._support import toolset_for
from .test_agent_workflow import agent_for, call, tool_results
from .test_compound_targets import compound_cases

HELD = [c for c in load_cases() if not c.benign and not c.known_gap and c.cls in ("1", "4", "6")]
BENIGN = [c for c in load_cases() if c.benign and not c.known_gap]


def pick(cases: list[Case], count: int) -> list[Case]:
    step = max(1, len(cases) // count)
    return cases[::step][:count]


@pytest.mark.parametrize("case", pick(HELD, 6), ids=lambda c: c.id)
def test_a_change_in_text_ends_tool_use_like_suggest_command(case: Case) -> None:
    assert judge_case(case) == []  # the gate makes the block this test relies on
    agent, provider = agent_for(
        toolset_for("demo-eks"),
        [
            {"tool_calls": [call("triage")]},
            {"text": case.text, "tool_calls": [call("list_checks"), call("triage")]},
            {"text": "That is the change to consider; tell me when it is done."},
        ],
    )
    result = agent.ask("What is wrong with the cluster?")
    assert result.awaiting_approval
    assert any(s.source == "text" and s.mutating for s in result.suggested_commands)
    # The calls after the proposal were answered, not run.
    assert [(c.name, c.is_error) for c in result.tool_calls] == [
        ("triage", False),
        ("list_checks", True),
        ("triage", True),
    ]
    answered = tool_results(provider)[-2:]
    assert all(r["is_error"] and "not run" in r["content"] for r in answered)
    assert len(agent.state.triages) == 1
    assert provider.requests[2].tool_choice == {"type": "none"}


@pytest.mark.parametrize("case", pick(BENIGN, 4), ids=lambda c: c.id)
def test_read_only_text_leaves_tool_use_open(case: Case) -> None:
    agent, provider = agent_for(
        toolset_for("demo-eks"),
        [
            {"tool_calls": [call("triage")]},
            {"text": case.text, "tool_calls": [call("list_checks")]},
            {"text": "Nothing to change."},
        ],
    )
    result = agent.ask("What is wrong with the cluster?")
    assert [(c.name, c.is_error) for c in result.tool_calls] == [
        ("triage", False),
        ("list_checks", False),
    ]
    assert provider.requests[2].tool_choice is None
    assert not result.awaiting_approval


def test_calls_after_suggest_command_in_the_same_response_are_not_run() -> None:
    # Mirrors the text rule: the proposal, then a further proposal (run: it only adds a
    # block) and a read (not run).
    command = compound_cases()[0][2]  # a reboot, from a data file
    agent, _ = agent_for(
        toolset_for("demo-eks"),
        [
            {"tool_calls": [call("triage")]},
            {
                "tool_calls": [
                    call("suggest_command", command=command, purpose="Reboot it."),
                    call("suggest_command", command="sinfo -R", purpose="Check the nodes."),
                    call("list_checks"),
                ]
            },
            {"text": "Consider the change above."},
        ],
    )
    result = agent.ask("Xid 79 on a node")
    assert [(c.name, c.is_error) for c in result.tool_calls] == [
        ("triage", False),
        ("suggest_command", False),
        ("suggest_command", False),
        ("list_checks", True),
    ]
