"""The parameter guard for the two SSM session operations on the allow-list.

A StartSession can run any command on a node, so being on the allow-list is not enough:
the request itself must be a node-probe session, exactly. The guard fails closed — any
parameter it does not expect, any other document, any target that is not a HyperPod node
and any command that is not byte for byte a bundle of catalogued probes is refused before
botocore builds the request.

TerminateSession ends someone's session, so it is held to the sessions this process
opened: `StartedSessions` keeps the ids successful StartSession calls returned, and any
other id (another user's session, one from a StartSession that failed) is refused.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Container, Mapping
from typing import Any

from tools.probes.framing import bundle_probes

PROBE_DOCUMENT = "AWS-StartNonInteractiveCommand"

# sagemaker-cluster:<cluster id>_<instance group>-<instance id>; the cluster id is the
# last segment of the cluster ARN (never its name), the group follows the API's pattern.
SSM_TARGET = re.compile(
    r"^sagemaker-cluster:[a-z0-9]{12}_[A-Za-z0-9](?:-*[A-Za-z0-9]){0,62}"
    r"-i-[0-9a-f]{8}(?:[0-9a-f]{9})?$"
)
_START_KEYS = frozenset({"Target", "DocumentName", "Parameters"})


class StartedSessions:
    """The SessionIds of the StartSession calls that succeeded in this process.

    Thread-safe: the probe runner opens sessions on many nodes at once."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._lock = threading.Lock()

    def add(self, session_id: str) -> None:
        with self._lock:
            self._ids.add(session_id)

    def __contains__(self, session_id: object) -> bool:
        with self._lock:
            return session_id in self._ids


def _start_session(params: Mapping[str, Any], started: Container[str]) -> str | None:
    extra = sorted(set(params) - _START_KEYS)
    if extra:
        return f"unexpected parameters {', '.join(extra)}"
    missing = sorted(_START_KEYS - set(params))
    if missing:
        return f"missing {', '.join(missing)}"
    document = params["DocumentName"]
    if document != PROBE_DOCUMENT:
        return f"only the {PROBE_DOCUMENT} document is allowed, not {document!r}"
    target = params["Target"]
    if not isinstance(target, str) or not SSM_TARGET.match(target):
        return (
            f"target {target!r} is not a HyperPod node "
            "(sagemaker-cluster:<cluster id>_<group>-<instance id>)"
        )
    parameters = params["Parameters"]
    if not isinstance(parameters, dict) or set(parameters) != {"command"}:
        return 'Parameters must be exactly {"command": [<probe bundle>]}'
    command = parameters["command"]
    if not (isinstance(command, list) and len(command) == 1 and isinstance(command[0], str)):
        return "the command must be one string"
    if bundle_probes(command[0]) is None:
        return "the command is not a bundle of catalogued probes"
    return None


def _terminate_session(params: Mapping[str, Any], started: Container[str]) -> str | None:
    if set(params) != {"SessionId"}:
        return "TerminateSession takes exactly one SessionId"
    session_id = params["SessionId"]
    if not isinstance(session_id, str) or not session_id:
        return "the SessionId must be a non-empty string"
    if session_id not in started:
        return f"session {session_id[:80]!r} was not started by this run"
    return None


_Guard = Callable[[Mapping[str, Any], Container[str]], str | None]
_GUARDS: dict[tuple[str, str], _Guard] = {
    ("ssm", "StartSession"): _start_session,
    ("ssm", "TerminateSession"): _terminate_session,
}


def refusal(
    service: str,
    operation: str,
    params: Mapping[str, Any],
    started: Container[str] = frozenset(),
) -> str | None:
    """Why an allow-listed call with these parameters is refused, or None when it may go.

    `started` holds the SessionIds this process opened (only those may be terminated; by
    default none). Operations without a parameter guard are judged by the allow-list
    alone."""
    guard = _GUARDS.get((service, operation))
    return guard(params, started) if guard is not None else None
