"""MCP over stdio where every request the server can read gets an answer.

The SDK's stdio transport hands a line it cannot validate to the server as an exception,
and the server drops it: a client that sent a truncated frame, a 5,000-digit number, a
string `params` or a lone surrogate waits forever for a reply. Over HTTP the same frames
get a JSON-RPC error. Here each line is screened before the SDK reads it: a line that is
not JSON is answered with a parse error (-32700, id null, as JSON-RPC 2.0 § 5.1 says when
the id cannot be read); JSON the SDK would refuse is answered with invalid params (-32602)
when its `params` are the problem and invalid request (-32600) otherwise, with the request's
id when it has a usable one. A notification (no id) gets no answer, as JSON-RPC requires.
Lines the SDK accepts go on to it unchanged.

Standard input is claimed as the SDK claims it (its fd points at the null device while the
server runs, so a child process cannot read protocol bytes) and handed to the SDK as an
explicit stream.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import suppress
from dataclasses import dataclass
from io import TextIOWrapper
from typing import IO, Any, cast

import anyio
import mcp_types
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)

# JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification, § 5.1).
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


@dataclass(frozen=True)
class Screened:
    """What to do with one line: pass it to the SDK (`line`), answer it (`error`), or
    neither (a blank line, or a malformed notification, which JSON-RPC never answers)."""

    line: str | None = None
    error: mcp_types.JSONRPCError | None = None


def _error(ident: str | int | None, code: int, message: str) -> Screened:
    return Screened(
        error=mcp_types.JSONRPCError(
            jsonrpc="2.0", id=ident, error=mcp_types.ErrorData(code=code, message=message)
        )
    )


def _request_id(parsed: Any) -> str | int | None:
    """The id of a request that has a usable one (a string or an integer, not a bool)."""
    if not isinstance(parsed, dict):
        return None
    ident = parsed.get("id")
    if isinstance(ident, str | int) and not isinstance(ident, bool):
        return ident
    return None


def _is_notification(parsed: Any) -> bool:
    return isinstance(parsed, dict) and "method" in parsed and "id" not in parsed


def _blames_params(error: Exception) -> bool:
    """The SDK's validation error points into `params` (pydantic's error locations)."""
    errors = getattr(error, "errors", None)
    if not callable(errors):
        return False
    try:
        found = errors(include_url=False, include_input=False)
    except Exception:  # not pydantic's ValidationError after all
        return False
    return any("params" in entry.get("loc", ()) for entry in found)


def screen(line: str) -> Screened:
    """Decide what happens to one line read from the client (see the module docstring)."""
    text = line.strip()
    if not text:
        return Screened()
    try:
        # Python's parser refuses what cannot be read safely: an integer of more than 4,300
        # digits (ValueError), nesting deeper than the interpreter's stack (RecursionError),
        # raw control characters such as NUL inside or outside strings.
        parsed = json.loads(text)
    except RecursionError:
        return _error(None, PARSE_ERROR, "Parse error: nested too deep")
    except ValueError as exc:
        return _error(None, PARSE_ERROR, f"Parse error: {_parse_reason(exc)}")
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception as exc:  # the SDK would drop it: say why instead
        if _is_notification(parsed):
            log.debug("malformed notification dropped: %s", _short(exc))
            return Screened()
        code, reason = _refusal(exc, parsed)
        return _error(_request_id(parsed), code, reason)
    return Screened(line=text)


def _parse_reason(exc: ValueError) -> str:
    if "integer string conversion" in str(exc):  # Python's int limit (sys.int_info)
        return "a number has more than 4,300 digits"
    return _short(exc)


def _refusal(exc: Exception, parsed: Any) -> tuple[int, str]:
    """The code and one-sentence message for JSON the SDK refuses."""
    in_params = isinstance(parsed, dict) and "params" in parsed
    if "recursion limit" in str(exc):  # the SDK's parser nests less deep than Python's
        if in_params:
            return INVALID_PARAMS, "Invalid params: nested too deep"
        return INVALID_REQUEST, "Invalid request: nested too deep"
    if _has_lone_surrogate(parsed):
        return INVALID_REQUEST, "Invalid request: a string holds a lone surrogate (\\uD800-\\uDFFF)"
    if _blames_params(exc):
        return INVALID_PARAMS, f"Invalid params: {_first_error(exc)}"
    return INVALID_REQUEST, f"Invalid request: {_first_error(exc)}"


def _has_lone_surrogate(value: Any) -> bool:
    """Whether any key or string in `value` holds half a surrogate pair (which JSON can
    escape but no UTF-8 text can hold). Iterative: the value may be deep."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _short(exc: object, limit: int = 200) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_error(exc: Exception) -> str:
    """The first of pydantic's errors as one short sentence (its message and where)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with suppress(Exception):
            found = errors(include_url=False, include_input=False)
            if found:
                where = ".".join(str(part) for part in found[0].get("loc", ()))
                message = str(found[0].get("msg", "invalid"))
                return _short(f"{message} at {where}" if where else message)
    return _short(exc)


class ScreenedLines:
    """The client's lines as the SDK's stdio transport reads them (`async for line in`),
    screened: answers go out through the server's write stream once `answer_through` has
    given it (a line read before then waits for it)."""

    def __init__(self, source: Any) -> None:
        self._source = source
        self._send: Callable[[SessionMessage], Any] | None = None
        self._ready = anyio.Event()

    def answer_through(self, write_stream: Any) -> None:
        self._send = write_stream.send
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._source:
            screened = screen(line)
            if screened.line is not None:
                yield screened.line
            elif screened.error is not None:
                await self._answer(screened.error)

    async def _answer(self, error: mcp_types.JSONRPCError) -> None:
        await self._ready.wait()
        assert self._send is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._send(SessionMessage(error))


def claim_stdin() -> tuple[IO[bytes], Callable[[], None]]:
    """Standard input's bytes from a private duplicate of fd 0, with fd 0 on the null
    device until the returned function puts it back. Where stdin is not fd 0 (a test's
    stream), its buffer is read in place."""
    stream = sys.stdin
    try:
        backed = stream.buffer.fileno() == 0
    except (AttributeError, OSError, ValueError):
        backed = False
    if not backed:
        return stream.buffer, lambda: None
    import fcntl

    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)

    def restore() -> None:
        with suppress(OSError):
            os.dup2(private, 0)

    # closefd=False: the reader thread may still be blocked on it when the server stops.
    return os.fdopen(private, "rb", closefd=False), restore


class _Unowned(TextIOWrapper):
    """A text layer that never closes the buffer under it (sys.stdin's own, in a test)."""

    def close(self) -> None:
        with suppress(ValueError):
            self.detach()


def screened_stdin(wire: IO[bytes]) -> ScreenedLines:
    """The wire read as UTF-8 lines (a byte that is not UTF-8 becomes U+FFFD, as the SDK
    reads it), screened."""
    text = _Unowned(cast(Any, wire), encoding="utf-8", errors="replace")
    return ScreenedLines(anyio.wrap_file(text))
