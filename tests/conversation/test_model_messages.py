"""What the loop and the providers exchange: a request that cannot be sent is refused when
built, and the SDK's answer becomes request params the next request can carry back."""

from __future__ import annotations

import pytest
from anthropic.types import Message

from agent.providers._sdk import request_params, to_model_response
from agent.providers.base import ModelRequest


def _request(max_tokens: int = 100) -> ModelRequest:
    return ModelRequest(
        model="m",
        system=[],
        tools=[],
        messages=[{"role": "user", "content": "hi"}],
        max_tokens=max_tokens,
    )


@pytest.mark.parametrize("max_tokens", [0, -1])
def test_a_request_without_room_for_an_answer_is_refused(max_tokens: int) -> None:
    with pytest.raises(ValueError, match="max_tokens must be positive"):
        _request(max_tokens)


def test_empty_system_and_tools_are_left_out_of_the_call() -> None:
    assert request_params(_request()) == {
        "model": "m",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "hi"}],
    }


def test_the_answer_becomes_blocks_the_history_can_send_back() -> None:
    message = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 3, "output_tokens": 4},
            "content": [
                {"type": "thinking", "thinking": "look first", "signature": "sig"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "t1", "name": "triage", "input": {"node": "i-1"}},
                {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}},
            ],
        }
    )

    response = to_model_response(message)

    assert response.content == [
        {"signature": "sig", "thinking": "look first", "type": "thinking"},
        {"data": "opaque", "type": "redacted_thinking"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "t1", "name": "triage", "input": {"node": "i-1"}},
    ]
    assert response.text == "Checking."
    assert response.tool_uses == [response.content[3]]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (3, 4)
    assert response.stop_reason == "tool_use"
