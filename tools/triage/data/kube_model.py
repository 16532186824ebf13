"""Typed Kubernetes objects: the fields the checks judge of the (slim) Nodes, Pods,
DaemonSets, Deployments, Namespaces and Events the Kubernetes reads return.

Each `from_api` is the one place that reads an API object defensively (a missing key, a
wrong type, None); the checks read plain attributes. A 20,000-node cluster parses 20,000
Nodes and every troubled Pod once per run, so parsing stays a few dict lookups per object:
no validation library, no copies of whole label maps.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

PREFIX = "sagemaker.amazonaws.com/"
HEALTH_LABEL = PREFIX + "node-health-status"
DEEP_HEALTH_LABEL = PREFIX + "deep-health-check-status"
GROUP_LABEL = PREFIX + "instance-group-name"
# Both spellings occur (see references § F.2): read both.
FAULT_TYPE_LABELS = (PREFIX + "fault-type", PREFIX + "fault-types")
FAULT_REASON_LABELS = (PREFIX + "fault-reason", PREFIX + "fault-reasons")
FAULT_DETAILS = PREFIX + "fault-details"
APP_LABEL = "k8s-app"
SCHEDULABLE = "Schedulable"
UNSCHEDULABLE = "Unschedulable"
DEEP_HEALTH_IN_PROGRESS = "InProgress"

INSTANCE_ID = re.compile(r"i-[0-9a-f]{8}(?:[0-9a-f]{9})?")

_NO_DICT: dict[str, Any] = {}  # read-only stand-in for a missing or malformed section


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else _NO_DICT


def _text(value: Any) -> str:
    """A field read as text, "" when it is missing, None or empty."""
    return str(value) if value else ""


def _optional_text(value: Any) -> str | None:
    return None if value is None else str(value)


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


def _label(labels: dict[str, Any], key: str) -> str | None:
    return _optional_text(labels.get(key))


def _first_label(labels: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = _label(labels, key)
        if value:
            return value
    return None


@dataclass(frozen=True, slots=True)
class Condition:
    """One entry of status.conditions (a Node's or a Pod's)."""

    type: str
    status: str
    reason: str
    message: str


def _conditions(status: dict[str, Any]) -> tuple[Condition, ...]:
    entries = status.get("conditions")
    if not isinstance(entries, list):
        return ()
    # Read inline, without a call per field: every Node carries five conditions or more.
    return tuple(
        Condition(
            str(e.get("type") or ""),
            str(e.get("status") or ""),
            str(e.get("reason") or ""),
            str(e.get("message") or ""),
        )
        for e in entries
        if isinstance(e, dict)
    )


def _condition(conditions: tuple[Condition, ...], kind: str) -> Condition | None:
    return next((entry for entry in conditions if entry.type == kind), None)


# -- nodes ------------------------------------------------------------------------------


def _instance_id(provider: str, name: str, labels: dict[str, Any]) -> str | None:
    """The EC2 instance behind a node: spec.providerID (aws:///<az>/i-...), else a node
    name like hyperpod-i-..., else any label whose value is an instance id."""
    if provider.startswith("aws://"):
        last = provider.rstrip("/").rsplit("/", 1)[-1]
        if INSTANCE_ID.fullmatch(last):
            return last
    found = INSTANCE_ID.search(name)
    if found and name.endswith(found.group()):
        return found.group()
    for value in labels.values():
        if INSTANCE_ID.fullmatch(str(value)):
            return str(value)
    return None


def _fault_details(
    annotations: dict[str, Any],
) -> tuple[tuple[dict[str, object], ...], str | None]:
    """The fault-details annotation as JSON objects, and why it could not be read (None
    when absent or parsed). HyperPod writes it, but it is read as untrusted text: anything
    that is not a JSON list of objects is reported, not used."""
    raw = _optional_text(annotations.get(FAULT_DETAILS))
    if raw is None or not raw.strip():
        return (), None
    try:
        parsed = json.loads(raw)
    except ValueError:
        return (), "not valid JSON"
    if isinstance(parsed, dict):
        parsed = [parsed]
    if not isinstance(parsed, list):
        return (), "not a JSON list"
    entries = tuple(e for e in parsed if isinstance(e, dict))
    if len(entries) != len(parsed):
        return entries, "some entries are not JSON objects"
    return entries, None


@dataclass(frozen=True, slots=True)
class KubeNode:
    """A Kubernetes Node: its instance, HyperPod's health and fault labels, conditions."""

    name: str
    instance_id: str | None
    health_status: str | None  # the node-health-status label
    deep_health_status: str | None  # the deep-health-check-status label
    group_label: str | None  # the instance-group-name label
    fault_type: str | None  # the first non-empty fault-type(s) label
    fault_reason: str | None  # the first non-empty fault-reason(s) label
    # The fault-details annotation's objects: untrusted JSON, each value narrowed where used.
    fault_details: tuple[dict[str, object], ...]
    fault_details_problem: str | None  # why that annotation could not be read
    conditions: tuple[Condition, ...]

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> KubeNode:
        metadata = _dict(raw.get("metadata"))
        labels = _dict(metadata.get("labels"))
        name = _text(metadata.get("name"))
        details, problem = _fault_details(_dict(metadata.get("annotations")))
        return cls(
            name=name,
            instance_id=_instance_id(_text(_dict(raw.get("spec")).get("providerID")), name, labels),
            health_status=_label(labels, HEALTH_LABEL),
            deep_health_status=_label(labels, DEEP_HEALTH_LABEL),
            group_label=_label(labels, GROUP_LABEL),
            fault_type=_first_label(labels, FAULT_TYPE_LABELS),
            fault_reason=_first_label(labels, FAULT_REASON_LABELS),
            fault_details=details,
            fault_details_problem=problem,
            conditions=_conditions(_dict(raw.get("status"))),
        )

    def condition(self, kind: str) -> Condition | None:
        """The first condition of type `kind`, if the node reports one."""
        return _condition(self.conditions, kind)

    @property
    def ready_status(self) -> str:
        """ "True", "False" or "Unknown" (a node that reports no Ready condition is Unknown)."""
        entry = self.condition("Ready")
        return (entry.status or "Unknown") if entry else "Unknown"

    @property
    def deep_health_running(self) -> bool:
        """HyperPod holds the node Unschedulable while its deep health checks run: an
        expected transition (they end Schedulable, or with a reboot / replacement label)."""
        return (
            self.health_status == UNSCHEDULABLE
            and self.deep_health_status == DEEP_HEALTH_IN_PROGRESS
        )

    @property
    def unhealthy(self) -> bool:
        """NotReady, or HyperPod labels it anything but Schedulable (except Unschedulable
        while deep health checks run), or deep checks failed."""
        health = self.health_status
        return (
            self.ready_status != "True"
            or (health is not None and health != SCHEDULABLE and not self.deep_health_running)
            or self.deep_health_status == "Failed"
        )


# -- pods -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Waiting:
    """A container's state.waiting."""

    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Terminated:
    """A container's state.terminated or lastState.terminated."""

    reason: str
    exit_code: str | None


def _state(holder: Any, phase: str) -> dict[str, Any] | None:
    """`holder`'s `phase` ("waiting", "terminated") when it says anything, else None."""
    value = _dict(holder).get(phase)
    return value if isinstance(value, dict) and value else None


def _terminated(holder: Any) -> Terminated | None:
    value = _state(holder, "terminated")
    if value is None:
        return None
    return Terminated(_text(value.get("reason")), _optional_text(value.get("exitCode")))


@dataclass(frozen=True, slots=True)
class ContainerStatus:
    """One entry of status.initContainerStatuses or status.containerStatuses."""

    name: str
    ready: bool | None  # None when the status does not say
    restart_count: int
    waiting: Waiting | None  # state.waiting, None when absent or empty
    terminated: Terminated | None  # state.terminated
    last_terminated: Terminated | None  # lastState.terminated

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> ContainerStatus:
        state = raw.get("state")
        waiting = _state(state, "waiting")
        ready = raw.get("ready")
        return cls(
            name=_text(raw.get("name")),
            ready=ready if isinstance(ready, bool) else None,
            restart_count=int(raw.get("restartCount") or 0),
            waiting=(
                None
                if waiting is None
                else Waiting(_text(waiting.get("reason")), _text(waiting.get("message")))
            ),
            terminated=_terminated(state),
            last_terminated=_terminated(raw.get("lastState")),
        )

    @property
    def crashed(self) -> bool:
        """Restarted, or its last run ended: the container has crashed at least once."""
        return self.restart_count > 0 or self.last_terminated is not None


@dataclass(frozen=True, slots=True)
class ContainerLimits:
    """A container of spec.containers and its resources.limits.memory (None: no limit)."""

    name: str
    memory_limit: str | None


def _memory_limit(container: dict[str, Any]) -> str | None:
    resources = container.get("resources")
    limit = (resources.get("limits") or {}) if isinstance(resources, dict) else {}
    memory = limit.get("memory") if isinstance(limit, dict) else None
    return None if memory in (None, "") else str(memory)


@dataclass(frozen=True, slots=True)
class Pod:
    """A Pod: where it runs, its phase and conditions, its containers' states."""

    name: str
    namespace: str
    app: str | None  # the k8s-app label
    node: str  # spec.nodeName, "" when not scheduled
    phase: str
    conditions: tuple[Condition, ...]
    containers: tuple[ContainerLimits, ...]
    container_statuses: tuple[ContainerStatus, ...]  # init containers first

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> Pod:
        metadata = _dict(raw.get("metadata"))
        spec = _dict(raw.get("spec"))
        status = _dict(raw.get("status"))
        return cls(
            name=_text(metadata.get("name")),
            namespace=_text(metadata.get("namespace")),
            app=_label(_dict(metadata.get("labels")), APP_LABEL),
            node=_text(spec.get("nodeName")),
            phase=_text(status.get("phase")),
            conditions=_conditions(status),
            containers=tuple(
                ContainerLimits(_text(c.get("name")), _memory_limit(c))
                for c in _dicts(spec.get("containers"))
            ),
            container_statuses=tuple(
                ContainerStatus.from_api(entry)
                for key in ("initContainerStatuses", "containerStatuses")
                for entry in _dicts(status.get(key))
            ),
        )

    @property
    def key(self) -> str:
        """namespace/name."""
        return f"{self.namespace}/{self.name}"

    def condition(self, kind: str) -> Condition | None:
        """The first condition of type `kind`, if the pod reports one."""
        return _condition(self.conditions, kind)

    @property
    def needs_attention(self) -> bool:
        """A cheap superset of what the pod checks judge: a pod that is not Running /
        Succeeded, or with a container not ready, waiting, restarted or killed."""
        if self.phase not in ("Running", "Succeeded"):
            return True
        if self.phase == "Succeeded":
            return False
        return any(
            c.ready is False or c.waiting is not None or c.crashed for c in self.container_statuses
        )


# -- workloads, namespaces, events ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DaemonSet:
    name: str
    desired: int  # status.desiredNumberScheduled
    unavailable: int  # status.numberUnavailable

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> DaemonSet:
        status = _dict(raw.get("status"))
        return cls(
            _text(_dict(raw.get("metadata")).get("name")),
            int(status.get("desiredNumberScheduled") or 0),
            int(status.get("numberUnavailable") or 0),
        )


@dataclass(frozen=True, slots=True)
class Deployment:
    name: str
    replicas: int  # spec.replicas (the wanted count)

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> Deployment:
        return cls(
            _text(_dict(raw.get("metadata")).get("name")),
            int(_dict(raw.get("spec")).get("replicas") or 0),
        )


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    phase: str  # "" when the status does not say

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> Namespace:
        return cls(
            _text(_dict(raw.get("metadata")).get("name")),
            _text(_dict(raw.get("status")).get("phase")),
        )


@dataclass(frozen=True, slots=True)
class KubeEvent:
    """A Kubernetes Event: what it is about, where it happened, how often, its message."""

    source_host: str  # source.host, "" when not told
    involved_namespace: str | None
    involved_name: str | None
    message: str
    count: int  # 1 when not told
    last_timestamp: str
    event_time: str

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> KubeEvent:
        involved = _dict(raw.get("involvedObject"))
        return cls(
            source_host=_text(_dict(raw.get("source")).get("host")),
            involved_namespace=_optional_text(involved.get("namespace")),
            involved_name=_optional_text(involved.get("name")),
            message=_text(raw.get("message")),
            count=int(raw.get("count") or 1),
            last_timestamp=_text(raw.get("lastTimestamp")),
            event_time=_text(raw.get("eventTime")),
        )

    @property
    def involved(self) -> str:
        """namespace/name of the object the event is about ("None" for a part not told)."""
        return f"{self.involved_namespace}/{self.involved_name}"

    @property
    def seen_at(self) -> str:
        """When it was last seen: lastTimestamp, else eventTime, else ""."""
        return self.last_timestamp or self.event_time
