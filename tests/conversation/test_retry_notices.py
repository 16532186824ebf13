"""The SDK's own retries, announced: the real anthropic client against the loopback fake.

A notice is read from the SDK's log records (agent/providers/retries.py); these tests
catch an SDK that stops logging them the way the notices expect. They also bound a server
that never answers: the streamed call's read timeout ends the wait with one line.
"""

from __future__ import annotations

import logging
import socket
import time
from typing import Any

import pytest

from agent.providers import retries
from agent.providers.base import ProviderError
from agent.providers.retries import RetryNotice

from .conftest import FAKE_KEY
from .fake_messages_api import FakeMessagesAPI, Stall, error_reply, message_reply, overloaded, text
from .test_provider_anthropic import make_request, provider


def _notices() -> tuple[list[RetryNotice], retries.RetryListener]:
    heard: list[RetryNotice] = []
    return heard, heard.append


def test_an_overloaded_api_is_announced_with_the_wait_and_the_count(
    api: FakeMessagesAPI,
) -> None:
    api.enqueue(overloaded(retry_after_ms=40), message_reply(text("recovered")))
    heard, listener = _notices()

    with retries.listen(listener):
        response = provider().complete(make_request(), on_text=lambda _: None)

    assert response.text == "recovered"
    assert heard == [RetryNotice("overloaded", 529, 0.04, 1, 3)]
    assert heard[0].line() == "API overloaded, retrying in 0.0 s (1/3)"


def test_each_retry_is_counted_and_the_count_starts_again_per_call(
    api: FakeMessagesAPI,
) -> None:
    limited = error_reply(429, "rate_limit_error", "slow down", {"retry-after-ms": "5"})
    unavailable = error_reply(503, "api_error", "unavailable", {"retry-after-ms": "5"})
    api.enqueue(limited, unavailable, message_reply(text("one")))
    api.enqueue(overloaded(), message_reply(text("two")))
    heard, listener = _notices()

    with retries.listen(listener):
        provider(max_retries=2).complete(make_request())
        provider(max_retries=2).complete(make_request())

    assert [(n.cause, n.retry, n.retries) for n in heard] == [
        ("rate limited", 1, 2),
        ("server error (HTTP 503)", 2, 2),
        ("overloaded", 1, 2),
    ]


def test_a_refused_connection_is_announced_as_unreachable(
    monkeypatch: pytest.MonkeyPatch, clean_anthropic_env: None
) -> None:
    with socket.socket() as probe:  # a loopback port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    heard, listener = _notices()

    with retries.listen(listener), pytest.raises(ProviderError, match="cannot reach"):
        provider(max_retries=1).complete(make_request())

    assert [(n.cause, n.status, n.retry, n.retries) for n in heard] == [("unreachable", None, 1, 1)]


def test_no_notice_without_a_listener_and_the_sdk_logging_is_unchanged(
    api: FakeMessagesAPI, caplog: pytest.LogCaptureFixture
) -> None:
    """The logger's level is lowered to read the DEBUG records; they must not reach the
    application's handlers, which see what they saw before (here: nothing below WARNING)."""
    api.enqueue(overloaded(), message_reply(text("recovered")))
    caplog.set_level(logging.DEBUG, logger="tests")  # a handler that would show anything

    provider().complete(make_request())

    assert [r for r in caplog.records if r.name.startswith("anthropic")] == []


def test_a_server_that_never_answers_ends_in_one_line_after_the_read_timeout(
    api: FakeMessagesAPI,
) -> None:
    api.enqueue(Stall(5.0), Stall(5.0))
    heard, listener = _notices()
    started = time.monotonic()

    with retries.listen(listener), pytest.raises(ProviderError) as raised:
        provider(max_retries=1, timeout=0.3).complete(make_request(), on_text=lambda _: None)

    assert time.monotonic() - started < 3.0  # two attempts of 0.3 s and the back-off
    assert str(raised.value) == (
        f"cannot reach the Messages API at {api.host}:{api.url.rsplit(':', 1)[1]}: "
        "timed out, nothing received for 0.3 s"
    )
    assert [(n.cause, n.retry, n.retries) for n in heard] == [("timed out", 1, 1)]


def test_a_streamed_call_bounds_the_silence_not_the_sdk_default(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without an explicit timeout a streamed request carries the chat's read timeout
    (the SDK would wait 600 s); a plain request keeps the SDK's."""
    from agent.providers._sdk import STREAM_READ_TIMEOUT

    api.enqueue(message_reply(text("streamed")))
    chosen = provider()
    seen: list[object] = []
    messages = chosen._client.messages
    original = messages.stream

    def spy(**params: Any) -> Any:
        seen.append(params.get("timeout"))
        return original(**params)

    monkeypatch.setattr(messages, "stream", spy)
    chosen.complete(make_request(), on_text=lambda _: None)

    [timeout] = seen
    assert getattr(timeout, "read", None) == STREAM_READ_TIMEOUT
    assert getattr(timeout, "connect", None) == 10.0
