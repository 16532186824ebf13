"""Answering Kubernetes API GETs from recorded objects, the way an API server would.

Used in-process by replay (`KubeAccess.from_objects`) and over a loopback HTTP server by
the tests of the live client. It implements what triage asks for: list paths for nodes,
pods, events, DaemonSets and Deployments (cluster-wide or per namespace), label and field
selectors, `limit` / `continue` paging with an opaque token, and pod log tails; anything
else is a 404 with a Kubernetes Status body.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tools.recorded.model import KubernetesObjects

JSON = "application/json"
TEXT = "text/plain"
Answer = tuple[int, bytes, str]
RESOURCE_VERSION = 4711

_LISTS: dict[str, tuple[str, str, str]] = {
    # resource -> (KubernetesObjects field, List kind, apiVersion)
    "nodes": ("nodes", "NodeList", "v1"),
    "namespaces": ("namespaces", "NamespaceList", "v1"),
    "pods": ("pods", "PodList", "v1"),
    "events": ("events", "EventList", "v1"),
    "daemonsets": ("daemonsets", "DaemonSetList", "apps/v1"),
    "deployments": ("deployments", "DeploymentList", "apps/v1"),
}
_CORE = re.compile(
    r"/api/v1(?:/namespaces/(?P<ns>[^/]+))?/(?P<res>nodes|pods|events)|/api/v1/(?P<cluster>namespaces)"
)
_APPS = re.compile(r"/apis/apps/v1(?:/namespaces/(?P<ns>[^/]+))?/(?P<res>daemonsets|deployments)")
_LOG = re.compile(r"/api/v1/namespaces/(?P<ns>[^/]+)/pods/(?P<pod>[^/]+)/log")

# Field selectors the real API supports for these resources (a subset), as item paths.
_FIELDS: dict[str, tuple[str, ...]] = {
    "metadata.name": ("metadata", "name"),
    "metadata.namespace": ("metadata", "namespace"),
    "spec.nodeName": ("spec", "nodeName"),
    "spec.unschedulable": ("spec", "unschedulable"),
    "status.phase": ("status", "phase"),
    "reason": ("reason",),
    "type": ("type",),
    "source": ("source", "component"),
    "involvedObject.kind": ("involvedObject", "kind"),
    "involvedObject.name": ("involvedObject", "name"),
    "involvedObject.namespace": ("involvedObject", "namespace"),
}


def status_body(code: int, reason: str, message: str) -> bytes:
    return json.dumps(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": code,
        }
    ).encode()


def _error(code: int, reason: str, message: str) -> Answer:
    return code, status_body(code, reason, message), JSON


class SelectorError(ValueError):
    pass


# (resource, namespace, labelSelector, fieldSelector) -> the items that match, in order.
Selections = dict[tuple[str, str, str, str], list[dict[str, Any]]]
# A list page as the API server would encode it, left as the dict (see `answer`).
Page = dict[str, Any]


def respond(
    objects: KubernetesObjects, path: str, query: Iterable[tuple[str, str]] | Mapping[str, str]
) -> Answer:
    """(HTTP status, body, content type) for a GET of `path` with `query`."""
    status, body, content_type = answer(objects, path, query)
    if isinstance(body, dict):
        return status, json.dumps(body).encode(), content_type
    return status, body, content_type


def answer(
    objects: KubernetesObjects,
    path: str,
    query: Iterable[tuple[str, str]] | Mapping[str, str],
    selections: Selections | None = None,
) -> tuple[int, bytes | Page, str]:
    """As `respond`, but a list page is returned as the dict it would encode (its items
    are the stored objects themselves: the caller must not change them), and with
    `selections` (one per set of objects that no longer change) each list is selected
    once, its later pages sliced from that selection rather than the objects rescanned."""
    params = dict(query.items() if isinstance(query, Mapping) else query)
    log = _LOG.fullmatch(path)
    if log:
        return _log(objects, log["ns"], log["pod"], params)
    match = _CORE.fullmatch(path) or _APPS.fullmatch(path)
    if match is None or (match["res"] == "nodes" and match["ns"]):
        return _error(404, "NotFound", "the server could not find the requested resource")
    resource = match["res"] or match["cluster"]
    field, kind, api_version = _LISTS[resource]
    key = (
        resource,
        match["ns"] or "",
        params.get("labelSelector", ""),
        params.get("fieldSelector", ""),
    )
    selected = selections.get(key) if selections is not None else None
    if selected is None:
        items: list[dict[str, Any]] = getattr(objects, field) or []
        try:
            matches = _filters(match["ns"], params)
        except SelectorError as exc:
            return _error(400, "BadRequest", str(exc))
        selected = [item for item in items if matches(item)]
        if selections is not None:
            selections[key] = selected
    return _page(selected, kind, api_version, params)


def _filters(namespace: str | None, params: dict[str, str]) -> Callable[[dict[str, Any]], bool]:
    labels = _label_requirements(params.get("labelSelector", ""))
    fields = _field_requirements(params.get("fieldSelector", ""))

    def matches(item: dict[str, Any]) -> bool:
        metadata = item.get("metadata") or {}
        if namespace and metadata.get("namespace") != namespace:
            return False
        item_labels = metadata.get("labels") or {}
        if not all(req(item_labels) for req in labels):
            return False
        return all(req(item) for req in fields)

    return matches


def _split(selector: str) -> list[str]:
    """Split on commas outside parentheses (`k in (a,b)` is one requirement)."""
    parts, depth, current = [], 0, ""
    for char in selector:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return [p for p in parts if p]


_SET = re.compile(r"(?P<key>[^\s!=(),]+)\s+(?P<op>in|notin)\s+\((?P<values>[^)]*)\)")
_EQ = re.compile(r"(?P<key>[^\s!=(),]+)\s*(?P<op>==|=|!=)\s*(?P<value>[^\s!=(),]*)")
_EXISTS = re.compile(r"(?P<neg>!?)(?P<key>[^\s!=(),]+)")

Requirement = Callable[[dict[str, Any]], bool]


def _label_is(key: str, value: str, equal: bool) -> Requirement:
    def requirement(labels: dict[str, Any]) -> bool:
        return (labels.get(key) == value) is equal

    return requirement


def _label_in(key: str, values: set[str], inside: bool) -> Requirement:
    def requirement(labels: dict[str, Any]) -> bool:
        return (labels.get(key) in values) is inside

    return requirement


def _label_exists(key: str, exists: bool) -> Requirement:
    def requirement(labels: dict[str, Any]) -> bool:
        return (key in labels) is exists

    return requirement


def _label_requirements(selector: str) -> list[Requirement]:
    requirements: list[Requirement] = []
    for part in _split(selector):
        if m := _SET.fullmatch(part):
            values = {v.strip() for v in m["values"].split(",") if v.strip()}
            requirements.append(_label_in(m["key"], values, m["op"] == "in"))
        elif m := _EQ.fullmatch(part):
            requirements.append(_label_is(m["key"], m["value"], m["op"] != "!="))
        elif m := _EXISTS.fullmatch(part):
            requirements.append(_label_exists(m["key"], not m["neg"]))
        else:
            raise SelectorError(f"unable to parse requirement: {part!r}")
    return requirements


def _value_at(item: dict[str, Any], path: tuple[str, ...]) -> str:
    value: Any = item
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _field_is(path: tuple[str, ...], value: str, equal: bool) -> Requirement:
    def requirement(item: dict[str, Any]) -> bool:
        return (_value_at(item, path) == value) is equal

    return requirement


def _field_requirements(selector: str) -> list[Requirement]:
    requirements: list[Requirement] = []
    for part in _split(selector):
        m = _EQ.fullmatch(part)
        if m is None:
            raise SelectorError(f"invalid field selector: {part!r}")
        path = _FIELDS.get(m["key"])
        if path is None:
            raise SelectorError(f"field label not supported: {m['key']}")
        requirements.append(_field_is(path, m["value"], m["op"] != "!="))
    return requirements


def continue_token(offset: int) -> str:
    """Shaped like the API server's: base64 of a small JSON record, opaque to clients."""
    record = {"v": "meta.k8s.io/v1", "rv": RESOURCE_VERSION, "start": offset}
    return base64.urlsafe_b64encode(json.dumps(record).encode()).decode().rstrip("=")


def _offset(token: str) -> int:
    try:
        padded = token + "=" * (-len(token) % 4)
        record = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = int(record["start"])
    except (ValueError, KeyError, TypeError):
        raise SelectorError("continue key is not valid") from None
    if offset < 0:
        raise SelectorError("continue key is not valid")
    return offset


def _page(
    items: list[dict[str, Any]], kind: str, api_version: str, params: dict[str, str]
) -> tuple[int, bytes | Page, str]:
    try:
        start = _offset(params["continue"]) if params.get("continue") else 0
        limit = int(params.get("limit") or 0)
    except (SelectorError, ValueError) as exc:
        return _error(400, "BadRequest", str(exc))
    end = start + limit if limit > 0 else len(items)
    metadata: dict[str, Any] = {"resourceVersion": str(RESOURCE_VERSION)}
    if end < len(items):
        metadata["continue"] = continue_token(end)
        metadata["remainingItemCount"] = len(items) - end
    body = {
        "kind": kind,
        "apiVersion": api_version,
        "metadata": metadata,
        "items": items[start:end],
    }
    return 200, body, JSON


def _log(objects: KubernetesObjects, namespace: str, pod: str, params: dict[str, str]) -> Answer:
    previous = params.get("previous", "").lower() == "true"
    container = params.get("container")
    prefix = f"{namespace}/{pod}/"
    if not container:
        names = sorted(
            {k[len(prefix) :].split("#")[0] for k in objects.logs if k.startswith(prefix)}
        )
        if len(names) != 1:
            return _error(400, "BadRequest", f"a container name must be specified for pod {pod}")
        container = names[0]
    key = f"{prefix}{container}" + ("#previous" if previous else "")
    known_pod = any(
        (p.get("metadata") or {}).get("namespace") == namespace
        and (p.get("metadata") or {}).get("name") == pod
        for p in objects.pods
    )
    if key not in objects.logs:
        if not known_pod and not any(k.startswith(prefix) for k in objects.logs):
            return _error(404, "NotFound", f'pods "{pod}" not found')
        if previous:
            return _error(
                400,
                "BadRequest",
                f'previous terminated container "{container}" in pod "{pod}" not found',
            )
        return 200, b"", TEXT
    text = objects.logs[key]
    tail = params.get("tailLines")
    if tail and tail.isdigit():
        lines = text.splitlines(keepends=True)
        text = "".join(lines[-int(tail) :]) if int(tail) > 0 else ""
    data = text.encode()
    limit = params.get("limitBytes")
    if limit and limit.isdigit():
        data = data[: int(limit)]
    return 200, data, TEXT
