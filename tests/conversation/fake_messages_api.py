"""A fake Messages API on loopback, for driving the real anthropic client in tests.

`FakeMessagesAPI` is a `ThreadingHTTPServer` on 127.0.0.1 (port 0) in a daemon thread, used
as a context manager. It records every request (method, path, headers, JSON body, client
address) and answers each from a queue of scripted replies:

* `MessageReply`: an assistant message, sent the way the request asked for it: plain JSON;
  server-sent events when the body has `"stream": true` (message_start with empty content
  and usage, content_block_start / delta / stop per block, text as `text_delta` chunks and
  tool input as `input_json_delta` chunks, message_delta with stop_reason and usage,
  message_stop); or, for Bedrock's `/model/<id>/invoke-with-response-stream`, the same
  events in AWS binary event-stream frames.
* `ErrorReply`: a status, a JSON error body and optional headers (`retry-after-ms` keeps
  the SDK's retry fast).
* `StreamErrorReply`: a stream that breaks off with an `error` event.
* `Stall`: no answer at all for a while (a server that hangs), then the connection closes.

A request that finds the queue empty gets a 500 with `x-should-retry: false`, so a test
that under-scripts fails at once instead of retrying.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import struct
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from agent.providers.pairing import pairing_problem

FAKE_MESSAGE_ID = "msg_fake_0001"
DEFAULT_MODEL = "claude-sonnet-5-5"


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: dict[str, Any]
    client_host: str


@dataclass(frozen=True)
class MessageReply:
    message: dict[str, Any]
    chunk_size: int = 5
    """Characters per text_delta / input_json_delta when streamed."""


@dataclass(frozen=True)
class ErrorReply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamErrorReply:
    """A stream (HTTP 200) that sends the first `events_before` events of `reply`, then an
    `error` event (as the API does when it is overloaded mid-answer), or nothing more when
    `error` is None (a stream cut short)."""

    reply: MessageReply
    error: dict[str, Any] | None
    events_before: int = 4


@dataclass(frozen=True)
class Stall:
    """Say nothing for `seconds`, then close the connection without an answer: the
    client's read timeout should end the wait first."""

    seconds: float


Reply = MessageReply | ErrorReply | StreamErrorReply | Stall


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(block_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": block_id, "name": name, "input": tool_input}


def message_reply(
    *blocks: dict[str, Any],
    stop_reason: str | None = None,
    model: str = DEFAULT_MODEL,
    usage: dict[str, int] | None = None,
    chunk_size: int = 5,
) -> MessageReply:
    """An assistant message; stop_reason defaults to tool_use when a block calls a tool."""
    if stop_reason is None:
        calls_tool = any(b["type"] == "tool_use" for b in blocks)
        stop_reason = "tool_use" if calls_tool else "end_turn"
    message = {
        "id": FAKE_MESSAGE_ID,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage if usage is not None else {"input_tokens": 12, "output_tokens": 7},
    }
    return MessageReply(message=message, chunk_size=chunk_size)


def error_reply(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> ErrorReply:
    """An error in the Messages API's shape."""
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return ErrorReply(status=status, body=body, headers=dict(headers or {}))


def overloaded(retry_after_ms: int = 5) -> ErrorReply:
    return error_reply(
        529, "overloaded_error", "Overloaded", {"retry-after-ms": str(retry_after_ms)}
    )


def stream_error(
    reply: MessageReply, error_type: str, message: str, events_before: int = 4
) -> StreamErrorReply:
    """`reply` streamed up to `events_before` events (4: up to the first delta), then an
    error event."""
    error = {"type": "error", "error": {"type": error_type, "message": message}}
    return StreamErrorReply(reply=reply, error=error, events_before=events_before)


def stream_cut(reply: MessageReply, events_before: int) -> StreamErrorReply:
    """`reply` streamed up to `events_before` events, then the end of the body."""
    return StreamErrorReply(reply=reply, error=None, events_before=events_before)


def stream_events(reply: MessageReply) -> list[dict[str, Any]]:
    """The streaming events that deliver `reply.message`, in order."""
    message = reply.message
    usage = dict(message["usage"])
    start_usage = {**usage, "output_tokens": 1}
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                **message,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        },
        {"type": "ping"},
    ]
    for index, block in enumerate(message["content"]):
        start: dict[str, Any]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            deltas = [
                {"type": "text_delta", "text": part}
                for part in _chunks(block["text"], reply.chunk_size)
            ]
        else:
            start = {**block, "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": part}
                for part in _chunks(json.dumps(block["input"]), reply.chunk_size)
            ]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend(
            {"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas
        )
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": usage,
        }
    )
    events.append({"type": "message_stop"})
    return events


def _chunks(value: str, size: int) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


def sse_body(events: list[dict[str, Any]]) -> bytes:
    """Server-sent events, each with its `event:` line."""
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events
    )


def event_stream_body(events: list[dict[str, Any]]) -> bytes:
    """Bedrock's InvokeModelWithResponseStream framing: one `chunk` frame per event."""
    headers = {
        ":event-type": "chunk",
        ":content-type": "application/json",
        ":message-type": "event",
    }
    return b"".join(
        _event_stream_frame(
            json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()}).encode(),
            headers,
        )
        for event in events
    )


def _event_stream_frame(payload: bytes, headers: dict[str, str]) -> bytes:
    header_bytes = b"".join(
        bytes([len(name)])
        + name.encode()
        + b"\x07"
        + struct.pack(">H", len(value))
        + value.encode()
        for name, value in headers.items()
    )
    total_length = 12 + len(header_bytes) + len(payload) + 4
    prelude = struct.pack(">II", total_length, len(header_bytes))
    frame = prelude + struct.pack(">I", zlib.crc32(prelude)) + header_bytes + payload
    return frame + struct.pack(">I", zlib.crc32(frame))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    fake: FakeMessagesAPI


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else {}
        fake = self.server.fake
        messages = body.get("messages") if isinstance(body, dict) else None
        problem = pairing_problem(messages) if isinstance(messages, list) else None
        if problem is not None:
            # The real API refuses a broken tool-call pairing; so does the fake, before it
            # spends a scripted reply.
            fake.rejected.append(problem)
            error = {"type": "invalid_request_error", "message": problem}
            self._send(400, json.dumps({"type": "error", "error": error}).encode(), {})
            return
        reply = fake._take(
            RecordedRequest(
                method="POST",
                path=self.path,
                headers={name.lower(): value for name, value in self.headers.items()},
                body=body if isinstance(body, dict) else {"_": body},
                client_host=str(self.client_address[0]),
            )
        )
        if isinstance(reply, Stall):
            time.sleep(reply.seconds)
            self.close_connection = True
        elif isinstance(reply, ErrorReply):
            self._send(reply.status, json.dumps(reply.body).encode(), reply.headers)
        elif isinstance(reply, StreamErrorReply):
            events = stream_events(reply.reply)[: reply.events_before]
            events += [reply.error] if reply.error is not None else []
            self._send(200, sse_body(events), {}, "text/event-stream")
        elif self.path.endswith("/invoke-with-response-stream"):
            content_type = "application/vnd.amazon.eventstream"
            self._send(200, event_stream_body(stream_events(reply)), {}, content_type)
        elif body.get("stream") is True:
            self._send(200, sse_body(stream_events(reply)), {}, "text/event-stream")
        else:
            self._send(200, json.dumps(reply.message).encode(), {})

    def _send(
        self,
        status: int,
        payload: bytes,
        headers: dict[str, str],
        content_type: str = "application/json",
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.send_header("request-id", "req_fake")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read `requests` instead."""


class FakeMessagesAPI:
    """A loopback Messages API answering from a queue; `with FakeMessagesAPI() as api:`."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.rejected: list[str] = []
        """The pairing problems of requests refused with a 400, in order."""
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake Messages API is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def host(self) -> str:
        return self.url.removeprefix("http://").rsplit(":", 1)[0]

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def replies_left(self) -> int:
        with self._lock:
            return len(self._replies)

    def assert_loopback_only(self) -> None:
        """Every request came over loopback to a loopback address: nothing left the host."""
        assert ipaddress.ip_address(self.host).is_loopback, self.url
        for request in self.requests:
            assert ipaddress.ip_address(request.client_host).is_loopback, request

    def start(self) -> None:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeMessagesAPI:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def _take(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._replies:
                return self._replies.popleft()
        return ErrorReply(
            status=500,
            body={
                "type": "error",
                "error": {"type": "api_error", "message": "fake Messages API: no reply left"},
            },
            headers={"x-should-retry": "false"},
        )
