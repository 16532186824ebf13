"""Ctrl-C in the middle of a turn cancels the turn whole: the conversation stays valid for
the Messages API (no tool call left without its result), and a suggestion the user never
saw is not left waiting for them. The scripted provider and the fake Messages API both
refuse a broken pairing as the real API does, so these tests would fail on a dangling call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from agent.loop import Agent, AgentSettings
from agent.providers.anthropic_api import AnthropicProvider
from agent.providers.base import ProviderError
from agent.providers.pairing import pairing_problem
from agent.providers.scripted import ScriptedProvider
from agent.toolset import Toolset
from agent.transcript import Transcript

from ._support import toolset_for
from .fake_messages_api import FakeMessagesAPI, message_reply, text, tool_use

if TYPE_CHECKING:
    from anthropic.types import MessageParam

RECORDING = "sg-outbound-self-missing"
SG = "sg-0a1b2c3d4e5f60001"


def _use(block_id: str) -> MessageParam:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": block_id, "name": "triage", "input": {}}],
    }


def _result(block_id: str) -> MessageParam:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": block_id}]}


USER: MessageParam = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
ANSWER: MessageParam = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}


def test_a_paired_conversation_passes() -> None:
    assert pairing_problem([USER, _use("t1"), _result("t1")]) is None
    assert pairing_problem([USER, ANSWER, USER]) is None


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        ([USER, _use("t1"), USER], "without `tool_result` blocks immediately after: t1"),
        ([USER, _use("t1")], "without `tool_result`"),
        ([USER, _use("t1"), _result("t2")], "t1"),
        ([USER, ANSWER, _result("t9")], "unexpected"),
        ([_use("t1"), _result("t1")], "first message"),
        ([], "at least one"),
    ],
)
def test_a_broken_pairing_is_named(messages: list[MessageParam], words: str) -> None:
    problem = pairing_problem(messages)
    assert problem is not None
    assert words in problem


def test_the_scripted_provider_refuses_a_dangling_call() -> None:
    provider = ScriptedProvider.from_turns([{"text": "hi"}])
    agent = Agent(provider, toolset_for(RECORDING))
    agent.messages = [USER, _use("t1")]
    with pytest.raises(ProviderError, match="tool_result"):
        agent.ask("again")


def _interrupt_on(monkeypatch: pytest.MonkeyPatch, tool: str) -> list[str]:
    """Ctrl-C the first time `tool` runs (as a SIGINT would raise it in the main thread)."""
    called: list[str] = []
    original = Toolset.call

    def call(self: Toolset, name: str, arguments: Any) -> Any:
        called.append(name)
        if name == tool and called.count(tool) == 1:
            raise KeyboardInterrupt
        return original(self, name, arguments)

    monkeypatch.setattr(Toolset, "call", call)
    return called


def test_ctrl_c_during_a_tool_call_leaves_a_valid_conversation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    provider = ScriptedProvider.from_turns(
        [
            {"text": "Triaging.", "tool_calls": [{"name": "triage", "input": {}}]},
            {"text": "Triaging again.", "tool_calls": [{"name": "triage", "input": {}}]},
            {"text": f"`{SG}` lacks its self-referencing egress rule (§ A)."},
        ]
    )
    transcript = Transcript()
    agent = Agent(
        provider,
        toolset_for(RECORDING),
        settings=AgentSettings(today="2026-12-02"),
        on_event=transcript.add,
    )
    _interrupt_on(monkeypatch, "triage")
    with pytest.raises(KeyboardInterrupt):
        agent.ask("NCCL hangs on the EFA nodes")
    assert agent.messages == []
    assert any(e["type"] == "interrupted" for e in transcript.events)

    result = agent.ask("NCCL hangs on the EFA nodes")

    assert "§ A" in result.answer
    assert pairing_problem(agent.messages) is None
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "user", "assistant"]


def test_a_suggestion_of_an_interrupted_turn_does_not_wait_for_the_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fix = f"aws ec2 authorize-security-group-egress --group-id {SG} --protocol -1"
    provider = ScriptedProvider.from_turns(
        [
            {
                "tool_calls": [
                    {"name": "suggest_command", "input": {"command": fix, "purpose": "x"}},
                    {"name": "read_reference", "input": {"section": "A"}},
                ]
            },
        ]
    )
    agent = Agent(provider, toolset_for(RECORDING))
    # The second call of the response is answered "not run" without reaching the toolset,
    # so interrupt the suggestion's own call after it has recorded its proposal.
    original = Toolset.call

    def call(self: Toolset, name: str, arguments: Any) -> Any:
        outcome = original(self, name, arguments)
        if name == "suggest_command":
            raise KeyboardInterrupt
        return outcome

    monkeypatch.setattr(Toolset, "call", call)
    with pytest.raises(KeyboardInterrupt):
        agent.ask("fix it")
    assert agent.state.pending == []
    assert agent.state.turn_suggestions == []
    assert agent.messages == []


def test_ctrl_c_then_a_next_message_works_over_the_wire(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.enqueue(
        message_reply(text("Triaging."), tool_use("toolu_01", "triage", {})),
        message_reply(text("Triaging."), tool_use("toolu_02", "triage", {})),
        message_reply(text(f"`{SG}` lacks its egress rule (§ A).")),
    )
    agent = Agent(
        AnthropicProvider.from_environment("claude-sonnet-5-5"),
        toolset_for(RECORDING),
        settings=AgentSettings(today="2026-12-02"),
    )
    _interrupt_on(monkeypatch, "triage")
    with pytest.raises(KeyboardInterrupt):
        agent.ask("NCCL hangs")

    result = agent.ask("NCCL hangs")

    assert "§ A" in result.answer
    assert api.rejected == []
    assert len(api.requests) == 3


@pytest.mark.parametrize("failure", [KeyboardInterrupt, ProviderError])
def test_an_interrupted_or_failed_re_triage_answer_leaves_the_change_pending(
    monkeypatch: pytest.MonkeyPatch, failure: type[BaseException]
) -> None:
    fix = f"aws ec2 authorize-security-group-egress --group-id {SG} --protocol -1"
    suggest = {"name": "suggest_command", "input": {"command": fix, "purpose": "x"}}
    provider = ScriptedProvider.from_turns(
        [
            {"tool_calls": [{"name": "triage", "input": {}}]},
            {"tool_calls": [suggest]},
            {"text": "Run the command above, then tell me."},
            {"text": "The § A finding cleared."},
        ]
    )
    agent = Agent(provider, toolset_for(RECORDING))
    agent.ask("fix it")
    (pending,) = agent.state.pending
    messages = [dict(m) for m in agent.messages]
    original = provider.complete

    def complete(*args: Any, **kwargs: Any) -> Any:
        raise failure("stopped") if failure is ProviderError else failure()

    monkeypatch.setattr(provider, "complete", complete)
    with pytest.raises(failure):
        agent.done("I applied it")
    # As before /done: the change still waits (a second /done re-triages), and the model's
    # history has no trace of a re-triage it never answered.
    assert agent.state.pending == [pending]
    assert agent.state.applied == []
    assert agent.state.retriages == 0
    assert agent.messages == messages

    monkeypatch.setattr(provider, "complete", original)
    result = agent.done("I applied it")
    assert "§ A" in result.answer
    assert agent.state.pending == []
    assert agent.state.applied == [pending]


@pytest.mark.parametrize("where", ["triage", "answer"])
def test_an_interrupted_re_triage_does_not_skip_a_recording(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    fix = f"aws ec2 authorize-security-group-egress --group-id {SG} --protocol -1"
    suggest = {"name": "suggest_command", "input": {"command": fix, "purpose": "x"}}
    provider = ScriptedProvider.from_turns(
        [
            {"tool_calls": [{"name": "triage", "input": {}}]},
            {"tool_calls": [suggest]},
            {"text": "Run the command above, then tell me."},
            {"text": "The § A finding cleared."},
        ]
    )
    agent = Agent(provider, toolset_for(RECORDING, "healthy-eks"))
    agent.ask("fix it")
    assert agent.toolset.session.position == 0
    if where == "triage":
        _interrupt_on(monkeypatch, "triage")
    else:

        def complete(*args: Any, **kwargs: Any) -> Any:
            raise KeyboardInterrupt

        monkeypatch.setattr(provider, "complete", complete)
    with pytest.raises(KeyboardInterrupt):
        agent.done("I applied it")
    assert agent.toolset.session.position == 0
    assert len(agent.state.triages) == 1
    assert len(agent.state.triage_times) == 1

    monkeypatch.undo()
    result = agent.done("I applied it")
    assert agent.toolset.session.position == 1
    assert result.retriage is not None
    assert len(result.retriage["cleared"]) == 1
