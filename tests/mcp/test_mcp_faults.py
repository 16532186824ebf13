"""The MCP server under faults: its triage reports are bounded, and transport errors are
one line each on stderr."""

from __future__ import annotations

import io
import logging
from typing import Any

from mcp import Client
from mcp_support import recorded_toolset, with_client

from agent.mcp.server import KEPT_TRIAGES, OneLineErrors, build_server, one_line_transport_errors
from agent.state import ConversationState


def test_a_server_keeps_the_latest_reports_and_numbers_them_all() -> None:
    toolset = recorded_toolset()
    build_server(toolset)
    assert toolset.state.keep_triages == KEPT_TRIAGES
    toolset.state.keep_triages = 3  # the bound is the same mechanism at any size

    async def body(client: Client) -> tuple[list[Any], Any]:
        numbers = []
        for _ in range(5):
            result = await client.call_tool("triage", {})
            numbers.append(result.structured_content["triage_number"])
        compared = await client.call_tool("compare_triage", {})
        return numbers, compared.structured_content

    numbers, compared = with_client(toolset, body)
    assert numbers == [1, 2, 3, 4, 5]
    assert len(toolset.state.triages) == 3
    assert len(toolset.state.triage_times) == 3
    assert toolset.state.dropped_triages == 2
    assert (compared["before_triage"], compared["after_triage"]) == (4, 5)


def test_the_bound_never_drops_the_two_a_comparison_needs() -> None:
    toolset = recorded_toolset()
    toolset.triage()
    report = toolset.state.triages[0]
    state = ConversationState(keep_triages=1)
    for _ in range(4):
        state.note_triage(report)
    assert len(state.triages) == 2
    assert state.triage_count == 4
    unbounded = ConversationState()
    for _ in range(30):
        unbounded.note_triage(report)
    assert len(unbounded.triages) == 30  # a chat keeps its own (saved with /save)


def _exception_record(name: str, message: str, error: BaseException) -> logging.LogRecord:
    """The record `logger.exception(message)` makes while `error` is being handled."""
    return logging.getLogger(name).makeRecord(
        name, logging.ERROR, __file__, 1, message, (), (type(error), error, None)
    )


def test_one_failure_logged_by_three_layers_is_one_line() -> None:
    """A client that goes away mid-call: the SDK logs the SSE writer, the response and the
    POST handler, each with a traceback. One line comes out, with no traceback."""
    stream = io.StringIO()
    handler = OneLineErrors(stream)
    for where in ("Error in SSE writer", "SSE response error", "Error handling POST request"):
        handler.handle(
            _exception_record("mcp.server.streamable_http", where, ConnectionResetError("gone"))
        )
    lines = stream.getvalue().splitlines()
    assert lines == ["hyperpod-debug mcp: error: Error in SSE writer (ConnectionResetError: gone)"]
    assert handler.repeats == 2
    assert "Traceback" not in stream.getvalue()
    # Another kind of failure is a line of its own.
    handler.handle(_exception_record("uvicorn.error", "boom", ValueError("x" * 1_000)))
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("hyperpod-debug mcp: error: boom (ValueError: ")
    assert len(last) < 300


def test_transport_loggers_get_the_one_line_handler_unless_debugging() -> None:
    names = ("mcp", "uvicorn", "uvicorn.error")
    saved = {n: (logging.getLogger(n).handlers, logging.getLogger(n).propagate) for n in names}
    agent = logging.getLogger("agent")
    level = agent.level
    try:
        handler = one_line_transport_errors()
        assert handler is not None
        for name in names:
            assert logging.getLogger(name).handlers == [handler]
            assert logging.getLogger(name).propagate is False
        agent.setLevel(logging.DEBUG)  # what --debug does
        assert one_line_transport_errors() is None
    finally:
        agent.setLevel(level)
        for name, (handlers, propagate) in saved.items():
            logging.getLogger(name).handlers = handlers
            logging.getLogger(name).propagate = propagate
