"""AnthropicProvider with the real anthropic client against the loopback fake Messages API.

The provider finds the fake only through ANTHROPIC_BASE_URL and the key only through
ANTHROPIC_API_KEY, as it would find a real deployment's settings.
"""

from __future__ import annotations

import socket
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from agent.providers.anthropic_api import AnthropicProvider
from agent.providers.base import ModelRequest, ProviderError, ProviderUnavailable
from agent.providers.factory import DEFAULT_MODELS, make_provider

from .conftest import FAKE_KEY
from .fake_messages_api import (
    FakeMessagesAPI,
    error_reply,
    message_reply,
    overloaded,
    stream_cut,
    stream_error,
    text,
    tool_use,
)

if TYPE_CHECKING:
    from anthropic.types import CacheControlEphemeralParam, ToolParam

MODEL = "claude-sonnet-5-5"
EPHEMERAL: CacheControlEphemeralParam = {"type": "ephemeral"}
TOOL: ToolParam = {
    "name": "list_cluster_nodes",
    "description": "List the nodes of a HyperPod cluster.",
    "input_schema": {
        "type": "object",
        "properties": {"cluster": {"type": "string"}},
        "required": ["cluster"],
    },
    "cache_control": EPHEMERAL,
}


def make_request(*, max_tokens: int = 1024, tools: list[ToolParam] | None = None) -> ModelRequest:
    return ModelRequest(
        model=MODEL,
        system=[
            {"type": "text", "text": "You diagnose HyperPod nodes."},
            {"type": "text", "text": "Cluster facts follow.", "cache_control": EPHEMERAL},
        ],
        tools=tools if tools is not None else [TOOL],
        messages=[{"role": "user", "content": "Why is node i-0abc unhealthy?"}],
        max_tokens=max_tokens,
    )


def provider(**options: Any) -> AnthropicProvider:
    return AnthropicProvider.from_environment(MODEL, **options)


def test_the_provider_talks_only_to_the_loopback_fake(api: FakeMessagesAPI) -> None:
    assert provider().base_url.startswith(api.url)


def test_non_streaming_text(api: FakeMessagesAPI) -> None:
    api.enqueue(message_reply(text("Node i-0abc lost a GPU.")))

    response = provider().complete(make_request())

    assert response.content == [{"type": "text", "text": "Node i-0abc lost a GPU."}]
    assert response.text == "Node i-0abc lost a GPU."
    assert response.stop_reason == "end_turn"
    assert response.model == MODEL
    assert response.usage.input_tokens == 12
    assert response.usage.output_tokens == 7
    assert response.usage.cache_creation_input_tokens == 0
    assert response.usage.cache_read_input_tokens == 0
    assert api.requests[0].path == "/v1/messages"
    assert "stream" not in api.requests[0].body


def test_streaming_sends_each_text_delta_in_order(api: FakeMessagesAPI) -> None:
    usage = {
        "input_tokens": 40,
        "output_tokens": 9,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 2048,
    }
    answer = "Xid 79: the GPU fell off the bus; replace the node."
    api.enqueue(message_reply(text(answer), usage=usage, chunk_size=7))
    deltas: list[str] = []

    response = provider().complete(make_request(), on_text=deltas.append)

    assert len(deltas) > 1
    assert "".join(deltas) == answer == response.text
    assert response.stop_reason == "end_turn"
    assert response.usage.input_tokens == 40
    assert response.usage.output_tokens == 9
    assert response.usage.cache_read_input_tokens == 2048
    assert api.requests[0].body["stream"] is True


@pytest.mark.parametrize("streamed", [False, True], ids=["create", "stream"])
def test_tool_use_reply(api: FakeMessagesAPI, streamed: bool) -> None:
    tool_input = {"cluster": "ml-cluster", "group": "workers"}
    api.enqueue(
        message_reply(
            text("Listing the nodes."),
            tool_use("toolu_01", "list_cluster_nodes", tool_input),
            chunk_size=4,
        )
    )
    deltas: list[str] = []

    response = provider().complete(make_request(), on_text=deltas.append if streamed else None)

    assert response.stop_reason == "tool_use"
    assert response.tool_uses == [
        {"type": "tool_use", "id": "toolu_01", "name": "list_cluster_nodes", "input": tool_input}
    ]
    assert response.content[0] == {"type": "text", "text": "Listing the nodes."}
    assert "".join(deltas) == ("Listing the nodes." if streamed else "")


def test_large_max_tokens_is_streamed_even_without_a_callback(api: FakeMessagesAPI) -> None:
    api.enqueue(message_reply(text("long answer")))

    response = provider().complete(make_request(max_tokens=64_000))

    assert response.text == "long answer"
    assert api.requests[0].body["stream"] is True


def test_overloaded_then_success_is_retried_by_the_sdk(api: FakeMessagesAPI) -> None:
    api.enqueue(overloaded(retry_after_ms=5), message_reply(text("recovered")))

    response = provider().complete(make_request())

    assert response.text == "recovered"
    assert len(api.requests) == 2
    assert api.requests[1].headers["x-stainless-retry-count"] == "1"


def test_overloaded_after_every_retry(api: FakeMessagesAPI) -> None:
    api.enqueue(overloaded(), overloaded())

    with pytest.raises(ProviderError) as raised:
        provider(max_retries=1).complete(make_request())

    assert str(raised.value) == (
        "the Anthropic API is overloaded, still failing after retries (HTTP 529)"
    )
    assert len(api.requests) == 2


def test_rate_limited_after_every_retry(api: FakeMessagesAPI) -> None:
    limited = error_reply(429, "rate_limit_error", "slow down", {"retry-after-ms": "5"})
    api.enqueue(limited, limited)

    with pytest.raises(ProviderError, match=r"still failing after retries \(HTTP 429\)"):
        provider(max_retries=1).complete(make_request())


def test_refused_key_names_the_variable_and_hides_the_key(api: FakeMessagesAPI) -> None:
    api.enqueue(error_reply(401, "authentication_error", f"invalid x-api-key {FAKE_KEY}"))

    with pytest.raises(ProviderError) as raised:
        provider().complete(make_request())

    line = str(raised.value)
    assert line == "the Anthropic API refused the API key (401): check ANTHROPIC_API_KEY"
    assert FAKE_KEY not in line
    assert raised.value.__cause__ is None
    assert raised.value.__suppress_context__
    assert len(api.requests) == 1


def test_a_key_echoed_by_the_api_is_scrubbed(api: FakeMessagesAPI) -> None:
    api.enqueue(error_reply(400, "invalid_request_error", f"bad header: Bearer {FAKE_KEY}"))

    with pytest.raises(ProviderError) as raised:
        provider().complete(make_request())

    assert FAKE_KEY not in str(raised.value)
    assert "<redacted>" in str(raised.value)  # the one placeholder, tools.redaction's


def test_a_key_at_the_clip_is_scrubbed_before_the_cut(api: FakeMessagesAPI) -> None:
    """Scrubbed after a clip, a key cut in half would no longer match its value (issue 22)."""
    api.enqueue(error_reply(400, "invalid_request_error", "x " * 140 + f"key {FAKE_KEY} end"))

    with pytest.raises(ProviderError) as raised:
        provider().complete(make_request())

    assert FAKE_KEY[:8] not in str(raised.value)


def test_bad_request_message_is_clipped_to_one_line(api: FakeMessagesAPI) -> None:
    api.enqueue(error_reply(400, "invalid_request_error", "tools.0: bad schema\n" + "x" * 2000))

    with pytest.raises(ProviderError) as raised:
        provider().complete(make_request())

    line = str(raised.value)
    assert line.startswith("the Anthropic API rejected the request (400): tools.0: bad schema x")
    assert "\n" not in line
    assert len(line) < 360


def test_permission_denied(api: FakeMessagesAPI) -> None:
    api.enqueue(error_reply(403, "permission_error", "key not allowed for this model"))

    with pytest.raises(ProviderError, match=r"denied .* model claude-sonnet-5-5 \(403\)"):
        provider().complete(make_request())


def test_unknown_model_names_the_model(api: FakeMessagesAPI) -> None:
    api.enqueue(error_reply(404, "not_found_error", "model: claude-nonesuch-9"))
    request = replace(make_request(), model="claude-nonesuch-9")

    with pytest.raises(ProviderError) as raised:
        provider().complete(request)

    assert str(raised.value).startswith("unknown model claude-nonesuch-9")
    assert "--model" in str(raised.value)


def test_an_error_event_mid_stream(api: FakeMessagesAPI) -> None:
    """An error event inside a stream (HTTP 200) is not retried by the SDK."""
    api.enqueue(stream_error(message_reply(text("Partial answer")), "overloaded_error", "Over"))
    deltas: list[str] = []

    with pytest.raises(ProviderError) as raised:
        provider().complete(make_request(), on_text=deltas.append)

    assert deltas == ["Parti"]
    assert str(raised.value) == "the Anthropic API broke off the answer (overloaded_error): Over"
    assert len(api.requests) == 1


@pytest.mark.parametrize("events_before", [0, 4, 7], ids=["empty", "mid-text", "no-stop"])
def test_a_stream_cut_short(api: FakeMessagesAPI, events_before: int) -> None:
    api.enqueue(stream_cut(message_reply(text("Partial")), events_before))

    with pytest.raises(ProviderError) as raised:
        provider().complete(make_request(), on_text=lambda _: None)

    assert str(raised.value) == "the Anthropic API ended the stream before the answer was complete"


def test_connection_refused_names_the_host_promptly(
    monkeypatch: pytest.MonkeyPatch, clean_anthropic_env: None
) -> None:
    with socket.socket() as probe:  # a loopback port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    started = time.monotonic()

    with pytest.raises(ProviderError) as raised:
        provider(max_retries=0, timeout=2.0).complete(make_request())

    assert time.monotonic() - started < 2.0
    line = str(raised.value)
    assert line.startswith(f"cannot reach the Messages API at 127.0.0.1:{port}: ")
    assert "refused" in line.lower()
    assert FAKE_KEY not in line


def test_request_carries_system_tools_and_limits(api: FakeMessagesAPI) -> None:
    api.enqueue(message_reply(text("ok")))
    second_tool: ToolParam = {**TOOL, "name": "describe_cluster"}
    first_tool: ToolParam = {
        "name": TOOL["name"],
        "description": TOOL["description"],
        "input_schema": TOOL["input_schema"],
    }
    request = replace(make_request(tools=[first_tool, second_tool]), tool_choice={"type": "auto"})

    provider().complete(request)

    recorded = api.requests[0]
    assert recorded.body["model"] == MODEL
    assert recorded.body["max_tokens"] == 1024
    assert recorded.body["system"] == request.system
    assert recorded.body["system"][-1]["cache_control"] == EPHEMERAL
    assert "cache_control" not in recorded.body["system"][0]
    assert recorded.body["tools"] == [first_tool, second_tool]
    assert recorded.body["tools"][-1]["input_schema"] == TOOL["input_schema"]
    assert recorded.body["tools"][-1]["cache_control"] == EPHEMERAL
    assert recorded.body["tool_choice"] == {"type": "auto"}
    assert recorded.body["messages"] == request.messages
    assert "temperature" not in recorded.body
    # anthropic 2.14 sends an API key as a bearer token; older SDKs used x-api-key.
    credential = recorded.headers.get("x-api-key") or recorded.headers.get("authorization")
    assert credential in (FAKE_KEY, f"Bearer {FAKE_KEY}")


def test_empty_tools_and_tool_choice_are_left_out(api: FakeMessagesAPI) -> None:
    api.enqueue(message_reply(text("ok")))

    provider().complete(make_request(tools=[]))

    assert "tools" not in api.requests[0].body
    assert "tool_choice" not in api.requests[0].body


@pytest.mark.usefixtures("clean_anthropic_env")
def test_no_key_says_what_to_set() -> None:
    with pytest.raises(ProviderUnavailable) as raised:
        AnthropicProvider.from_environment(MODEL)

    line = str(raised.value)
    assert "\n" not in line
    for needed in ("ANTHROPIC_API_KEY", "--provider bedrock", "triage", "explain"):
        assert needed in line


@pytest.mark.usefixtures("clean_anthropic_env")
def test_an_auth_token_is_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-0123456789")

    assert AnthropicProvider.from_environment(MODEL).name == "anthropic"


def test_factory_builds_the_anthropic_provider(api: FakeMessagesAPI) -> None:
    built = make_provider("anthropic", model=None, region=None, profile=None, script=None)

    assert built.name == "anthropic"
    assert built.model == DEFAULT_MODELS["anthropic"] == MODEL


@pytest.mark.usefixtures("clean_anthropic_env")
def test_factory_without_a_key_is_unavailable() -> None:
    with pytest.raises(ProviderUnavailable, match="ANTHROPIC_API_KEY"):
        make_provider("anthropic", model=None, region=None, profile=None, script=None)


@pytest.mark.parametrize(
    ("model", "expected"), [(None, "from-script"), ("claude-override", "claude-override")]
)
def test_factory_builds_the_scripted_provider(
    tmp_path: Path, model: str | None, expected: str
) -> None:
    script = tmp_path / "script.json"
    script.write_text('{"model": "from-script", "turns": [{"text": "hello"}]}')

    built = make_provider("scripted", model=model, region=None, profile=None, script=script)

    assert built.name == "scripted"
    assert built.model == expected


def test_factory_scripted_needs_a_script() -> None:
    with pytest.raises(ProviderUnavailable, match="--script FILE is required"):
        make_provider("scripted", model=None, region=None, profile=None, script=None)
