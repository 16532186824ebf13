"""Reading fields of (slim or full) Kubernetes objects: names, labels, the node ↔
instance mapping, conditions, container states. Pure functions over dicts."""

from __future__ import annotations

import json
import re
from typing import Any

PREFIX = "sagemaker.amazonaws.com/"
HEALTH_LABEL = PREFIX + "node-health-status"
DEEP_HEALTH_LABEL = PREFIX + "deep-health-check-status"
GROUP_LABEL = PREFIX + "instance-group-name"
# Both spellings occur (see references § F.2): read both.
FAULT_TYPE_LABELS = (PREFIX + "fault-type", PREFIX + "fault-types")
FAULT_REASON_LABELS = (PREFIX + "fault-reason", PREFIX + "fault-reasons")
FAULT_DETAILS = PREFIX + "fault-details"
SCHEDULABLE = "Schedulable"
UNSCHEDULABLE = "Unschedulable"
DEEP_HEALTH_IN_PROGRESS = "InProgress"

INSTANCE_ID = re.compile(r"i-[0-9a-f]{8}(?:[0-9a-f]{9})?")


def metadata(item: dict[str, Any]) -> dict[str, Any]:
    value = item.get("metadata")
    return value if isinstance(value, dict) else {}


def name(item: dict[str, Any]) -> str:
    return str(metadata(item).get("name") or "")


def namespace(item: dict[str, Any]) -> str:
    return str(metadata(item).get("namespace") or "")


def labels(item: dict[str, Any]) -> dict[str, str]:
    value = metadata(item).get("labels")
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def label(item: dict[str, Any], key: str) -> str | None:
    """One label's value, as `labels(item).get(key)` reads it, without copying the labels."""
    value = metadata(item).get("labels")
    found = value.get(key) if isinstance(value, dict) else None
    return None if found is None else str(found)


def annotation_map(item: dict[str, Any]) -> dict[str, str]:
    value = metadata(item).get("annotations")
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _section(item: dict[str, Any], key: str) -> dict[str, Any]:
    value = item.get(key)
    return value if isinstance(value, dict) else {}


def spec(item: dict[str, Any]) -> dict[str, Any]:
    return _section(item, "spec")


def status(item: dict[str, Any]) -> dict[str, Any]:
    return _section(item, "status")


# -- nodes ------------------------------------------------------------------------------


def instance_id_of(node: dict[str, Any]) -> str | None:
    """The EC2 instance behind a node: spec.providerID (aws:///<az>/i-...), else a node
    name like hyperpod-i-..., else any label whose value is an instance id."""
    provider = str(spec(node).get("providerID") or "")
    if provider.startswith("aws://"):
        last = provider.rstrip("/").rsplit("/", 1)[-1]
        if INSTANCE_ID.fullmatch(last):
            return last
    node_name = name(node)
    found = INSTANCE_ID.search(node_name)
    if found and node_name.endswith(found.group()):
        return found.group()
    node_labels = metadata(node).get("labels")
    for value in node_labels.values() if isinstance(node_labels, dict) else ():
        if INSTANCE_ID.fullmatch(str(value)):
            return str(value)
    return None


def condition(item: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for entry in status(item).get("conditions") or []:
        if isinstance(entry, dict) and entry.get("type") == kind:
            return entry
    return None


def ready_status(node: dict[str, Any]) -> str:
    """ "True", "False" or "Unknown" (a node that reports no Ready condition is Unknown)."""
    entry = condition(node, "Ready")
    return str(entry.get("status") or "Unknown") if entry else "Unknown"


def first_label(node: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = label(node, key)
        if value:
            return value
    return None


def deep_health_running(node: dict[str, Any]) -> bool:
    """HyperPod holds the node Unschedulable while its deep health checks run: an expected
    transition (they end Schedulable, or with a reboot / replacement label), not a fault."""
    return (
        label(node, HEALTH_LABEL) == UNSCHEDULABLE
        and label(node, DEEP_HEALTH_LABEL) == DEEP_HEALTH_IN_PROGRESS
    )


def node_unhealthy(node: dict[str, Any]) -> bool:
    """NotReady, or HyperPod labels it anything but Schedulable (except Unschedulable while
    deep health checks run), or deep checks failed."""
    health = label(node, HEALTH_LABEL)
    return (
        ready_status(node) != "True"
        or (health is not None and health != SCHEDULABLE and not deep_health_running(node))
        or label(node, DEEP_HEALTH_LABEL) == "Failed"
    )


def fault_details(node: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The fault-details annotation as a list of dicts, and why it could not be read
    (None when absent or parsed). The annotation is written by HyperPod but read as
    untrusted text: anything that is not a JSON list of objects is reported, not used."""
    annotations = metadata(node).get("annotations")
    found = annotations.get(FAULT_DETAILS) if isinstance(annotations, dict) else None
    raw = None if found is None else str(found)
    if raw is None or not raw.strip():
        return [], None
    try:
        parsed = json.loads(raw)
    except ValueError:
        return [], "not valid JSON"
    if isinstance(parsed, dict):
        parsed = [parsed]
    if not isinstance(parsed, list):
        return [], "not a JSON list"
    entries = [e for e in parsed if isinstance(e, dict)]
    if len(entries) != len(parsed):
        return entries, "some entries are not JSON objects"
    return entries, None


# -- pods -------------------------------------------------------------------------------


def container_statuses(pod: dict[str, Any]) -> list[dict[str, Any]]:
    pod_status = status(pod)
    out: list[dict[str, Any]] = []
    for key in ("initContainerStatuses", "containerStatuses"):
        for entry in pod_status.get(key) or []:
            if isinstance(entry, dict):
                out.append(entry)
    return out


def state(container: dict[str, Any], which: str, phase: str) -> dict[str, Any]:
    """`which` = "state" or "lastState"; `phase` = "waiting", "running" or "terminated"."""
    holder = container.get(which)
    value = holder.get(phase) if isinstance(holder, dict) else None
    return value if isinstance(value, dict) else {}


def pod_needs_attention(pod: dict[str, Any]) -> bool:
    """A cheap superset of what the pod checks judge, to keep while paging: a pod that is
    not Running / Succeeded, or with a container not ready, waiting, restarted or killed."""
    phase = status(pod).get("phase")
    if phase not in ("Running", "Succeeded"):
        return True
    if phase == "Succeeded":
        return False
    for container in container_statuses(pod):
        if (
            container.get("ready") is False
            or state(container, "state", "waiting")
            or state(container, "lastState", "terminated")
            or int(container.get("restartCount") or 0) > 0
        ):
            return True
    return False
