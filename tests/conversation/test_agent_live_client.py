"""The agent loop with the real anthropic client against the loopback fake Messages API:
what goes over the wire (system prompt, tools with schemas, cache control, max_tokens), tool
use round trips, streaming and not, a 529 retried by the SDK, and the key kept out of every
output and transcript."""

from __future__ import annotations

import json

import pytest

from agent.loop import Agent, AgentSettings
from agent.providers.anthropic_api import AnthropicProvider
from agent.transcript import Transcript

from ._support import toolset_for
from .conftest import FAKE_KEY
from .fake_messages_api import FakeMessagesAPI, message_reply, overloaded, text, tool_use

MODEL = "claude-sonnet-5-5"


def _agent(stream: bool, transcript: Transcript | None = None) -> Agent:
    provider = AnthropicProvider.from_environment(MODEL)
    return Agent(
        provider,
        toolset_for("sg-outbound-self-missing"),
        settings=AgentSettings(stream=stream, today="2026-12-01"),
        on_event=transcript.add if transcript else None,
    )


@pytest.mark.parametrize("stream", [True, False])
def test_a_tool_round_trip_over_the_wire(api: FakeMessagesAPI, stream: bool) -> None:
    api.enqueue(
        message_reply(text("Triaging."), tool_use("toolu_01", "triage", {})),
        message_reply(text("Found `sg-0a1b2c3d4e5f60001` missing its egress rule (§ A).")),
    )
    shown: list[str] = []
    result = _agent(stream).ask("NCCL hangs", emit=shown.append)

    assert [c.name for c in result.tool_calls] == ["triage"]
    assert result.cited_sections == ["A"]
    assert "".join(shown).startswith("Triaging.")
    first, second = api.requests
    body = first.body
    assert body["model"] == MODEL
    assert body["max_tokens"] > 0
    assert bool(body.get("stream")) is stream
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "read-only" in body["system"][0]["text"]
    names = [t["name"] for t in body["tools"]]
    assert {"triage", "check_efa_security_groups", "suggest_command"} <= set(names)
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all(t["input_schema"]["type"] == "object" for t in body["tools"])
    # The tool result went back as delimited data, tied to the call's id.
    sent = second.body["messages"][-1]["content"][0]
    assert sent["type"] == "tool_result"
    assert sent["tool_use_id"] == "toolu_01"
    assert sent["content"].startswith('<tool_output name="triage">')
    assert result.usage.input_tokens == 24


def test_an_overloaded_api_is_retried_by_the_sdk(api: FakeMessagesAPI) -> None:
    api.enqueue(overloaded(), message_reply(text("Hello.")))
    result = _agent(stream=True).ask("hi")
    assert result.answer == "Hello."
    assert len(api.requests) == 2


def test_the_key_appears_in_no_output_or_transcript(api: FakeMessagesAPI) -> None:
    api.enqueue(
        message_reply(tool_use("toolu_01", "explain_signal", {"text": f"key {FAKE_KEY}"})),
        message_reply(text(f"Never echo secrets like {FAKE_KEY}.")),
    )
    transcript = Transcript()
    result = _agent(stream=True, transcript=transcript).ask(f"my key is {FAKE_KEY}")
    assert FAKE_KEY in api.requests[0].headers.get("x-api-key", "") + api.requests[0].headers.get(
        "authorization", ""
    )
    saved = "\n".join(transcript.lines())
    assert FAKE_KEY not in saved
    assert "<redacted>" in saved
    assert all(json.loads(line) for line in transcript.lines())
    assert FAKE_KEY not in result.answer
    assert "Never echo secrets like <redacted>." in result.answer
