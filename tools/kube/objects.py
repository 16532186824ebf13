"""Reading the few fields of raw (slim) Kubernetes pods that the pod lists are filtered
by while paging, before anything is parsed: namespace, labels, phase and container states.

Everything the checks judge is read from the typed objects of
tools/triage/data/kube_model.py; these helpers exist because a large cluster's pods are
mostly healthy and dropped page by page, and reading a handful of fields of each is much
cheaper than parsing it. `kube_model.Pod.needs_attention` is `pod_needs_attention` over a
parsed pod (a test holds the two equal).
"""

from __future__ import annotations

from typing import Any


def metadata(item: dict[str, Any]) -> dict[str, Any]:
    value = item.get("metadata")
    return value if isinstance(value, dict) else {}


def namespace(item: dict[str, Any]) -> str:
    return str(metadata(item).get("namespace") or "")


def labels(item: dict[str, Any]) -> dict[str, str]:
    value = metadata(item).get("labels")
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def status(item: dict[str, Any]) -> dict[str, Any]:
    value = item.get("status")
    return value if isinstance(value, dict) else {}


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
