"""Slimming API objects to the fields the checks read, as soon as a page arrives.

A 20,000-node cluster's Node and Pod lists are gigabytes of JSON; the checks need a few
fields of each. Every item is projected right after its page is parsed, keeping the
API's own nesting (so a check reads `pod["status"]["containerStatuses"]` from a full or a
slim object alike), and free text is capped so one huge message cannot bloat the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

# A projection: True keeps the value, "text" keeps a string capped at TEXT_LIMIT, a dict
# recurses into a dict (or into each dict of a list).
Projection = dict[str, Any]
Kind = Literal["nodes", "pods", "daemonsets", "deployments", "events", "namespaces"]

TEXT_LIMIT = 1000
# The fault-details annotation is a JSON list that must stay parseable: a larger cap.
DETAILS_LIMIT = 16_000
HYPERPOD_PREFIX = "sagemaker.amazonaws.com/"

_OWNER = {"kind": True, "name": True}
_METADATA: Projection = {
    "name": True,
    "namespace": True,
    "labels": True,
    "creationTimestamp": True,
    "ownerReferences": _OWNER,
}
_CONDITION = {
    "type": True,
    "status": True,
    "reason": True,
    "message": "text",
    "lastTransitionTime": True,
}
_STATE = {
    "waiting": {"reason": True, "message": "text"},
    "running": {"startedAt": True},
    "terminated": {
        "reason": True,
        "exitCode": True,
        "signal": True,
        "message": "text",
        "startedAt": True,
        "finishedAt": True,
    },
}
_CONTAINER_STATUS = {
    "name": True,
    "ready": True,
    "started": True,
    "restartCount": True,
    "state": _STATE,
    "lastState": _STATE,
}

PROJECTIONS: dict[Kind, Projection] = {
    "nodes": {
        "metadata": {**_METADATA, "annotations": True},
        "spec": {
            "providerID": True,
            "unschedulable": True,
            "taints": {"key": True, "value": True, "effect": True},
        },
        "status": {
            "conditions": _CONDITION,
            "nodeInfo": {"kubeletVersion": True},
            "addresses": {"type": True, "address": True},
        },
    },
    "pods": {
        "metadata": _METADATA,
        # A container's memory limit tells an OOM kill at its own limit (the workload) from
        # one of a container without a limit (the node ran short).
        "spec": {
            "nodeName": True,
            "containers": {"name": True, "resources": {"limits": {"memory": True}}},
        },
        "status": {
            "phase": True,
            "reason": True,
            "message": "text",
            "conditions": _CONDITION,
            "containerStatuses": _CONTAINER_STATUS,
            "initContainerStatuses": _CONTAINER_STATUS,
        },
    },
    "daemonsets": {
        "metadata": _METADATA,
        "spec": {"selector": True},
        "status": {
            "desiredNumberScheduled": True,
            "currentNumberScheduled": True,
            "numberReady": True,
            "numberAvailable": True,
            "numberUnavailable": True,
            "numberMisscheduled": True,
            "updatedNumberScheduled": True,
        },
    },
    "deployments": {
        "metadata": _METADATA,
        "spec": {"replicas": True, "selector": True},
        "status": {
            "replicas": True,
            "readyReplicas": True,
            "availableReplicas": True,
            "unavailableReplicas": True,
            "updatedReplicas": True,
            "conditions": _CONDITION,
        },
    },
    # Only whether a namespace exists and whether it is being deleted is judged.
    "namespaces": {
        "metadata": {"name": True, "labels": True, "creationTimestamp": True},
        "status": {"phase": True},
    },
    "events": {
        "metadata": {"name": True, "namespace": True, "creationTimestamp": True},
        "type": True,
        "reason": True,
        "message": "text",
        "count": True,
        "firstTimestamp": True,
        "lastTimestamp": True,
        "eventTime": True,
        "involvedObject": {"kind": True, "name": True, "namespace": True, "fieldPath": True},
        "source": {"component": True, "host": True},
        "series": {"count": True, "lastObservedTime": True},
    },
}


def _cap(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + "…"
    return value


def project(value: Any, projection: Any) -> Any:
    """Keep what `projection` names of `value` (see `Projection`)."""
    return _compiled(projection)(value)


# A projection compiled into nested functions: a 20,000-node cluster's lists hold ~80,000
# objects, and walking the projection dict per object (a call per kept field) cost more
# than everything the checks do with them.
Projector = Callable[[Any], Any]


def _keep(value: Any) -> Any:
    return value


def _text(value: Any) -> Any:
    return _cap(value, TEXT_LIMIT)


def _compiled(projection: Any) -> Projector:
    if projection is True:
        return _keep
    if projection == "text":
        return _text
    if not isinstance(projection, dict):
        return lambda _value: None
    # Keys kept as they are, apart from those projected further (None: keep as is).
    plan = tuple((key, None if sub is True else _compiled(sub)) for key, sub in projection.items())

    def one(value: dict[str, Any]) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        for key, sub in plan:
            if key in value:
                kept[key] = value[key] if sub is None else sub(value[key])
        return kept

    def projector(value: Any) -> Any:
        if type(value) is dict:
            return one(value)
        if type(value) is list:
            return [one(v) for v in value if type(v) is dict]
        return None

    return projector


_SLIMMERS: dict[Kind, Projector] = {kind: _compiled(p) for kind, p in PROJECTIONS.items()}


def slim(kind: Kind, item: dict[str, Any]) -> dict[str, Any]:
    """One list item reduced to what the checks read."""
    slimmed: dict[str, Any] = _SLIMMERS[kind](item) or {}
    if kind == "nodes":
        # Nodes carry many large annotations (CSI, volumes); only HyperPod's are judged.
        metadata = slimmed.get("metadata") or {}
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict):
            kept = {k: v for k, v in annotations.items() if k.startswith(HYPERPOD_PREFIX)}
            if kept:
                metadata["annotations"] = {
                    k: _cap(v, DETAILS_LIMIT if k.endswith("/fault-details") else TEXT_LIMIT)
                    for k, v in kept.items()
                }
            else:
                metadata.pop("annotations", None)
    return slimmed
