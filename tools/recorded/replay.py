"""Serve recorded AWS responses, paging stored lists the way the real APIs page them."""

from __future__ import annotations

import json
import shlex
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from tools.aws.allowlist import iam_action
from tools.aws.errors import NotRecorded
from tools.display import argument
from tools.recorded.model import PAGING_PARAMS, RecordedCall, RecordedCluster

_TOKEN_PREFIX = "hpd-replay:"
_DEFAULT_PAGE = 100


def call_key(service: str, operation: str, params: dict[str, Any]) -> str:
    identity = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
    return f"{service}:{operation}:{json.dumps(identity, sort_keys=True, default=str)}"


def _page_size(params: dict[str, Any]) -> int:
    for key in ("MaxResults", "maxResults", "limit", "Limit", "MaxItems"):
        value = params.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return _DEFAULT_PAGE


def _offset(token: object) -> int:
    if token is None:
        return 0
    if isinstance(token, str) and token.startswith(_TOKEN_PREFIX):
        try:
            return max(0, int(token.removeprefix(_TOKEN_PREFIX)))
        except ValueError:
            pass
    raise ValueError(f"invalid replay pagination token {token!r}")


class Responder(Protocol):
    """Anything that answers AWS calls without the network (a recording, a test world).

    `respond` returns the whole answer; a paged list is cut into pages by `page_call`.
    """

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall: ...


# Filters replay applies itself to a recorded unfiltered list, as the API would: (service,
# operation) -> (request parameter, item field it matches as a substring). A recording made
# when the list was read in one go still answers a run that reads it filtered (the node
# listing of a large cluster is read one instance group at a time).
SUBSTRING_FILTERS = {
    ("sagemaker", "ListClusterNodes"): ("InstanceGroupNameContains", "InstanceGroupName"),
}


# Reads a recording may lack without a gap: a triage goes on without them (the account).
OPTIONAL_CALLS = frozenset({("sts", "GetCallerIdentity")})


@dataclass(frozen=True, slots=True)
class RecordingGaps:
    """What a replay asked for that the recording did not hold, and who made it:
    `recorded_with` is the recording's version stamp (None: made before recordings were
    stamped), `predates` whether that is earlier than `replayed_with`, the version that
    replays it. `calls` are the IAM actions of the calls missed, `reasons` the exact
    skip reasons they gave (so the report can name the checks they cost)."""

    recorded_with: str | None
    replayed_with: str
    predates: bool
    rerecord: str
    calls: tuple[str, ...]
    reasons: frozenset[str]


class ReplayStore:
    """Looks recorded calls up by service, operation and identifying parameters."""

    def __init__(self, recording: RecordedCluster) -> None:
        self._calls: dict[str, RecordedCall] = {}
        self._by_operation: dict[tuple[str, str], list[RecordedCall]] = {}
        for call in recording.aws:
            self._calls[call_key(call.service, call.operation, call.params)] = call
            self._by_operation.setdefault((call.service, call.operation), []).append(call)
        self._recorded_with = recording.tool_version
        self._target = (recording.cluster, recording.region)
        self._misses: dict[str, str] = {}  # skip reason -> IAM action, in order of asking
        self._lock = threading.Lock()

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        """The stored call, whole (the access layer cuts the page with `page_call`)."""
        key = call_key(service, operation, params)
        call = self._calls.get(key)
        if call is None:
            call = self._filtered(service, operation, params) or self._narrowed(
                service, operation, params
            )
            if call is None:
                raise self._miss(service, operation, params)
            self._calls[key] = call  # the next page of the same list reuses it
        return call

    def _miss(self, service: str, operation: str, params: dict[str, Any]) -> NotRecorded:
        """The error for a call the recording lacks, saying why when the recording was made
        by another version than this one; remembered for the report (`gaps`)."""
        from tools.version import predates, tool_version

        identity = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
        shown = json.dumps(identity, sort_keys=True, default=str)
        current = tool_version()
        before = predates(self._recorded_with, current)
        remedy = f"Re-record the cluster with this version: {self.rerecord()}" if before else ""
        error = NotRecorded(service, operation, shown).explained(
            self._why(current, before=before), remedy, predates=before
        )
        if (service, operation) not in OPTIONAL_CALLS:
            with self._lock:
                self._misses.setdefault(error.reason, iam_action(service, operation))
        return error

    def _why(self, current: str, *, before: bool) -> str:
        stamp = self._recorded_with
        if before:
            made = (
                "an earlier hyperpod-debug (the file has no version stamp)"
                if stamp is None
                else f"hyperpod-debug {argument(stamp, 40)}"
            )
            return f"the recording predates this read: made by {made}, replayed by {current}"
        if stamp is not None and stamp != current:
            return f"the recording was made by hyperpod-debug {argument(stamp, 40)}, not {current}"
        return ""

    def rerecord(self) -> str:
        """The command that records this cluster again, with this version."""
        cluster, region = (shlex.quote(argument(v, 120)) for v in self._target)
        return f"hyperpod-debug record --cluster {cluster} --region {region} -o FILE"

    def gaps(self) -> RecordingGaps | None:
        """What this replay lacked so far (None: nothing), for the report."""
        from tools.version import predates, tool_version

        with self._lock:
            misses = dict(self._misses)
        if not misses:
            return None
        current = tool_version()
        return RecordingGaps(
            recorded_with=self._recorded_with,
            replayed_with=current,
            predates=predates(self._recorded_with, current),
            rerecord=self.rerecord(),
            calls=tuple(sorted(set(misses.values()))),
            reasons=frozenset(misses),
        )

    def _narrowed(
        self, service: str, operation: str, params: dict[str, Any]
    ) -> RecordedCall | None:
        """A narrower CloudWatch Logs read answered from a broader recorded one
        (tools/recorded/narrowing.py)."""
        if service != "logs":
            return None
        from tools.recorded.narrowing import narrowed

        return narrowed(operation, params, self._by_operation.get((service, operation), ()))

    def _filtered(
        self, service: str, operation: str, params: dict[str, Any]
    ) -> RecordedCall | None:
        """The recorded unfiltered list narrowed by a filter parameter (SUBSTRING_FILTERS),
        or None when there is no such filter or no such recording."""
        rule = SUBSTRING_FILTERS.get((service, operation))
        if rule is None or not isinstance(params.get(rule[0]), str):
            return None
        parameter, field = rule
        wanted = str(params[parameter])
        whole = self._calls.get(
            call_key(service, operation, {k: v for k, v in params.items() if k != parameter})
        )
        if whole is None or whole.error is not None or whole.paging is None:
            return whole
        items = (whole.response or {}).get(whole.paging.result_key, [])
        kept = [i for i in items if isinstance(i, dict) and wanted in str(i.get(field) or "")]
        response = {**(whole.response or {}), whole.paging.result_key: kept}
        return whole.model_copy(update={"params": dict(params), "response": response})


def page_call(call: RecordedCall, params: dict[str, Any]) -> RecordedCall:
    """Cut a whole stored list down to the page that `params` asks for."""
    if call.error is not None or call.paging is None or call.response is None:
        return call
    paging = call.paging
    items = call.response.get(paging.result_key, [])
    start = _offset(params.get(paging.token_key))
    size = _page_size(params)
    page = dict(call.response)
    page[paging.result_key] = items[start : start + size]
    page.pop(paging.token_key, None)
    if start + size < len(items):
        page[paging.token_key] = f"{_TOKEN_PREFIX}{start + size}"
    return call.model_copy(update={"response": page})
