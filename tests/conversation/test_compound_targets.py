"""Issue 22, class 7: a compound suggestion marks as rebooted only the nodes its changing
stages act on. A node a read-only stage merely names keeps the replace-before-reboot flag
when it is replaced later (commands from data/compound_reboots.txt, read as strings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.safety.model import FLAG_REPLACE_BEFORE_REBOOT
from agent.safety.suggest import SuggestionContext, build_suggestion
from agent.safety.targets import targets_acted_on, targets_of
from agent.state import ConversationState

from ._support import toolset_for
from .test_agent_workflow import agent_for, call

DATA = Path(__file__).parent / "data" / "compound_reboots.txt"


def compound_cases() -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []
    for line in DATA.read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rebooted, read, command = (part.strip() for part in line.split("|", 2))
            cases.append((rebooted, read, command))
    return cases


CASES = compound_cases()


def replacement_of(node: str) -> str:
    return (
        f"aws sagemaker batch-replace-cluster-nodes --cluster-name ml-cluster-eks --node-ids {node}"
    )


@pytest.mark.parametrize(("rebooted", "read", "command"), CASES)
def test_only_the_changing_stage_counts_as_rebooted(rebooted: str, read: str, command: str) -> None:
    suggestion = build_suggestion(command, purpose="x", context=SuggestionContext(triage_done=True))
    assert suggestion.kind == "reboot"
    assert read in targets_of(command)  # the command does name it...
    assert read not in suggestion.targets  # ...but does not act on it
    assert rebooted in targets_acted_on(command)
    state = ConversationState()
    state.propose(suggestion)
    state.mark_applied()
    assert rebooted in state.rebooted
    assert read not in state.rebooted
    context = SuggestionContext(triage_done=True, rebooted=frozenset(state.rebooted))
    later = build_suggestion(replacement_of(read), purpose="x", context=context)
    assert FLAG_REPLACE_BEFORE_REBOOT in later.flags


def test_a_command_all_of_whose_stages_change_keeps_every_target() -> None:
    # Both stages reboot: both nodes count (the read-only filter takes nothing away).
    rebooted, read, _ = CASES[0]
    command = f"{replacement_of(rebooted).replace('replace', 'reboot')} && " + replacement_of(
        read
    ).replace("replace", "reboot")
    assert set(targets_acted_on(command)) >= {rebooted, read}


def test_in_a_conversation_the_read_node_keeps_the_flag_after_done() -> None:
    rebooted, read, command = CASES[0]
    agent, _ = agent_for(
        toolset_for("demo-eks", "demo-eks"),
        [
            {"tool_calls": [call("triage")]},
            {"tool_calls": [call("suggest_command", command=command, purpose="Reboot it.")]},
            {"text": "Reboot the node first (§ G.2), then tell me."},
            {"tool_calls": [call("suggest_command", command=replacement_of(read), purpose="x")]},
            {"text": "Replace the other node (§ F)."},
        ],
    )
    agent.ask(f"Xid 79 on {rebooted}")
    second = agent.done("rebooted")
    assert rebooted in agent.state.rebooted
    assert read not in agent.state.rebooted
    (replace,) = second.suggested_commands
    assert FLAG_REPLACE_BEFORE_REBOOT in replace.flags
