"""Notices of the anthropic SDK's own retries, so a waiting user knows why.

The SDK retries 408, 409, 429, 5xx (529: overloaded) and connection failures itself, with
its back-off or the server's retry-after (anthropic/_base_client.py, `_retry_request` /
`_sleep_for_retry`). It does not call back, but it logs each decision on its logger
"anthropic._base_client", in this order, in the thread that makes the call:

* the cause: "Retrying due to status code %i" (DEBUG), or "Encountered
  httpx2.TimeoutException" / "Encountered Exception" (DEBUG) for a failed connection;
* "%i retries left" / "1 retry left" (DEBUG);
* "Retrying request to %s in %f seconds" (INFO), just before it sleeps.

A filter on that logger reads these records (the message templates, not the formatted
text) and, inside `watch()` (one model call), tells the listener set by `listen()`. To see
DEBUG records the logger's level is lowered; the filter then drops every record below the
level the logger had before, so whatever logging the user configured (ANTHROPIC_LOG)
prints exactly what it printed before. Records of other threads, or outside `watch()`, are
passed through untouched. An SDK that words its records differently gives no notice (the
retries still happen); tests/conversation/test_retry_notices.py runs the real SDK against
a loopback server to catch that.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

SDK_LOGGER = "anthropic._base_client"
_STATUS = "Retrying due to status code %i"
_TIMEOUT = "Encountered httpx2.TimeoutException"
_CONNECTION = "Encountered Exception"
_LEFT = "%i retries left"
_ONE_LEFT = "1 retry left"
_RETRYING = "Retrying request to %s in %f seconds"


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """The SDK is about to wait `delay` seconds, then send attempt `retry` + 1."""

    cause: str
    """What failed: "overloaded", "rate limited", "server error", "timed out", ..."""
    status: int | None
    delay: float
    retry: int
    """Which retry this is, from 1."""
    retries: int
    """How many retries the call allows in all."""

    def line(self, service: str = "API") -> str:
        """ "API overloaded, retrying in 2.0 s (1/3)"."""
        wait = seconds(self.delay)
        return f"{service} {self.cause}, retrying in {wait} ({self.retry}/{self.retries})"


RetryListener = Callable[[RetryNotice], None]


def seconds(value: float) -> str:
    """A short duration: "0.4 s" below ten seconds, "12 s" above."""
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"


def cause_of(status: int | None, *, timed_out: bool = False) -> str:
    if status is None:
        return "timed out" if timed_out else "unreachable"
    if status == 529:
        return "overloaded"
    if status == 429:
        return "rate limited"
    if status == 408:
        return "request timed out"
    if status == 409:
        return "conflict"
    if status >= 500:
        return f"server error (HTTP {status})"
    return f"HTTP {status}"


@dataclass
class _Call:
    """What the SDK said so far about the failed attempts of one call."""

    status: int | None = None
    timed_out: bool = False
    left: int | None = None
    retries_done: int = 0
    total: int | None = None


class _Watcher(logging.Filter):
    def __init__(self, own_level: int) -> None:
        super().__init__()
        self.own_level = own_level
        """The logger's own level before it was lowered (usually NOTSET: its parent's)."""
        self.local = threading.local()
        self.listener: RetryListener | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        call: _Call | None = getattr(self.local, "call", None)
        if call is not None:
            self._read(call, record)
        return record.levelno >= self._level_before()

    def _level_before(self) -> int:
        """The level the logger would have without this filter: its own if it had one,
        else the one "anthropic" has now (ANTHROPIC_LOG sets it when the SDK is imported,
        which may be after this filter was installed)."""
        if self.own_level != logging.NOTSET:
            return self.own_level
        return logging.getLogger(SDK_LOGGER.rpartition(".")[0]).getEffectiveLevel()

    def _read(self, call: _Call, record: logging.LogRecord) -> None:
        template = record.msg
        args = record.args if isinstance(record.args, tuple) else ()
        if template == _STATUS and args and isinstance(args[0], int):
            call.status, call.timed_out = args[0], False
        elif template in (_TIMEOUT, _CONNECTION):
            call.status, call.timed_out = None, template == _TIMEOUT
        elif template == _LEFT and args and isinstance(args[0], int):
            call.left = args[0]
        elif template == _ONE_LEFT:
            call.left = 1
        elif template == _RETRYING and len(args) == 2 and isinstance(args[1], float | int):
            call.retries_done += 1
            if call.total is None:  # the first notice: retries left = retries allowed
                call.total = (call.left or 1) + call.retries_done - 1
            notice = RetryNotice(
                cause=cause_of(call.status, timed_out=call.timed_out),
                status=call.status,
                delay=float(args[1]),
                retry=call.retries_done,
                retries=max(call.total, call.retries_done),
            )
            call.status, call.timed_out, call.left = None, False, None
            listener = self.listener
            if listener is not None:
                listener(notice)


_lock = threading.Lock()
_WATCHER = _Watcher(own_level=logging.NOTSET)


def _installed() -> _Watcher:
    """The filter on the SDK's logger, installed once (the logger is a process global)."""
    with _lock:
        logger = logging.getLogger(SDK_LOGGER)
        if _WATCHER not in logger.filters:
            _WATCHER.own_level = logger.level
            logger.addFilter(_WATCHER)
            logger.setLevel(logging.DEBUG)
    return _WATCHER


@contextmanager
def listen(listener: RetryListener) -> Iterator[None]:
    """Tell `listener` of every retry the SDK announces while this block runs."""
    watcher = _installed()
    previous, watcher.listener = watcher.listener, listener
    try:
        yield
    finally:
        watcher.listener = previous


@contextmanager
def watch() -> Iterator[None]:
    """One model call in this thread: its retries are counted from 1."""
    watcher = _installed()
    previous = getattr(watcher.local, "call", None)
    watcher.local.call = _Call()
    try:
        yield
    finally:
        watcher.local.call = previous
