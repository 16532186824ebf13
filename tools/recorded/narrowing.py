"""Answer a narrower read from a broader recorded one (CloudWatch Logs).

A newer triage may read the same log group with a narrower filter than the recording
holds: another filter pattern within the recorded one, a stream prefix under the recorded
prefix (`--node` reads one node's stream where the recording read every stream), a time
window inside the recorded one (a version that read the week in one call, replayed by one
that reads it newest window first). The recorded list then holds every event the narrower
read would return, and replay filters it as the service would. What cannot be shown to be
narrower stays not recorded.

A recorded list that was cut short (`paging.truncated`) may lack events the narrower read
would have found, so the narrowed answer is marked cut short too: the check says its scan
was incomplete rather than judge it complete.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.aws.errors import ACCESS_DENIED_CODES
from tools.recorded.filter_pattern import TermPattern, parse
from tools.recorded.model import PAGING_PARAMS, RecordedCall

PREFIX = "logStreamNamePrefix"
PATTERN = "filterPattern"
START, END = "startTime", "endTime"
# Errors that concern the log group, not the filter: a narrower read of the same group
# meets them too. Any other recorded error (a throttle) says nothing about another read.
_GROUP_ERRORS = ACCESS_DENIED_CODES | {"ResourceNotFoundException"}
# The lists these APIs answer with (CloudWatch Logs API Reference), read by name rather than
# from the call's `paging`, which a hand-written file may lack or get wrong.
EVENTS, STREAMS = "events", "logStreams"


def narrowed(
    operation: str, params: dict[str, Any], recorded: Iterable[RecordedCall]
) -> RecordedCall | None:
    """The answer to logs `operation` with `params` from a broader recorded call of the
    same operation, or None when no recorded call is provably broader."""
    narrowing = _NARROWINGS.get(operation)
    if narrowing is None:
        return None
    identity = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
    answers = [a for call in recorded if (a := narrowing(identity, call)) is not None]
    # A complete recorded list answers completely; a cut-short one only when it is all.
    complete = [a for a in answers if a.paging is None or not a.paging.truncated]
    chosen = complete or answers
    return chosen[0] if chosen else None


def _same_rest(params: dict[str, Any], call: RecordedCall, narrowed_keys: set[str]) -> bool:
    """Every parameter but the narrowed ones is the same in both."""

    def rest(p: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in p.items() if k not in narrowed_keys}

    return rest(params) == rest(call.params)


def _prefix(params: dict[str, Any]) -> str | None:
    value = params.get(PREFIX, "")
    return value if isinstance(value, str) else None


def _answer(params: dict[str, Any], call: RecordedCall, key: str, items: list[Any]) -> RecordedCall:
    response = {**(call.response or {}), key: items}
    return call.model_copy(update={"params": dict(params), "response": response})


def _group_error(params: dict[str, Any], call: RecordedCall) -> RecordedCall | None:
    if call.error is not None and call.error.code in _GROUP_ERRORS:
        return call.model_copy(update={"params": dict(params)})
    return None


def _log_streams(params: dict[str, Any], call: RecordedCall) -> RecordedCall | None:
    """DescribeLogStreams under a longer prefix than the recorded one."""
    wanted, held = _prefix(params), _prefix(call.params)
    if wanted is None or held is None or not wanted.startswith(held):
        return None
    if not _same_rest(params, call, {PREFIX}):
        return None
    if call.error is not None:
        return _group_error(params, call)
    if call.paging is None:
        return None
    streams = (call.response or {}).get(STREAMS)
    if not isinstance(streams, list):
        return None
    kept = [
        s
        for s in streams
        if isinstance(s, dict) and str(s.get("logStreamName") or "").startswith(wanted)
    ]
    return _answer(params, call, STREAMS, kept)


def _window(params: dict[str, Any]) -> tuple[float, float] | None:
    start, end = params.get(START), params.get(END)
    if not all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in (start, end)):
        return None
    return (
        float("-inf") if start is None else float(start),
        float("inf") if end is None else float(end),
    )


def _pattern(params: dict[str, Any]) -> TermPattern | None:
    value = params.get(PATTERN, "")
    return parse(value) if isinstance(value, str) else None


def _log_events(params: dict[str, Any], call: RecordedCall) -> RecordedCall | None:
    """FilterLogEvents within the recorded call's streams, time window and pattern."""
    wanted, held = _prefix(params), _prefix(call.params)
    if wanted is None or held is None or not wanted.startswith(held):
        return None
    window, held_window = _window(params), _window(call.params)
    if window is None or held_window is None:
        return None
    if not (held_window[0] <= window[0] and window[1] <= held_window[1]):
        return None
    pattern, held_pattern = _pattern(params), _pattern(call.params)
    if pattern is None or held_pattern is None or not pattern.within(held_pattern):
        return None
    if not _same_rest(params, call, {PREFIX, START, END, PATTERN}):
        return None
    if call.error is not None:
        return _group_error(params, call)
    if call.paging is None:
        return None
    events = (call.response or {}).get(EVENTS)
    if not isinstance(events, list):
        return None
    kept: list[Any] = []
    for event in events:
        if not isinstance(event, dict):
            return None
        stream, stamp, message = (event.get(k) for k in ("logStreamName", "timestamp", "message"))
        if wanted != held and not isinstance(stream, str):
            return None  # the stream cannot be told: no answer rather than a guess
        if window != held_window and not isinstance(stamp, int | float):
            return None
        if isinstance(stream, str) and not stream.startswith(wanted):
            continue
        if isinstance(stamp, int | float) and not window[0] <= stamp <= window[1]:
            continue
        if pattern.matches(message if isinstance(message, str) else ""):
            kept.append(event)
    return _answer(params, call, EVENTS, kept)


_NARROWINGS = {
    "DescribeLogStreams": _log_streams,
    "FilterLogEvents": _log_events,
}
