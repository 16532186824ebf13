"""The recorded-object responder answers like an API server: selectors, paging, logs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cluster_simulator.node_samples import k8s_faults, k8s_node, k8s_objects
from tools.kube.responder import Selections, answer, continue_token, respond
from tools.recorded.model import KubernetesObjects

from .conftest import GPU


def names(objects: KubernetesObjects, path: str, **query: str) -> list[str]:
    status, body, content_type = respond(objects, path, query)
    assert (status, content_type) == (200, "application/json")
    return [i["metadata"]["name"] for i in json.loads(body)["items"]]


def error(objects: KubernetesObjects, path: str, **query: str) -> tuple[int, dict[str, Any]]:
    status, body, _ = respond(objects, path, query)
    return status, json.loads(body)


def test_namespaces_and_list_kinds(objects: KubernetesObjects) -> None:
    status, body, _ = respond(objects, "/apis/apps/v1/namespaces/kube-system/daemonsets", {})
    document = json.loads(body)
    assert (status, document["kind"], document["apiVersion"]) == (200, "DaemonSetList", "apps/v1")
    assert names(objects, "/apis/apps/v1/namespaces/other/daemonsets") == []
    assert len(names(objects, "/api/v1/pods")) == len(objects.pods)
    assert all(n.startswith("llm-") for n in names(objects, "/api/v1/namespaces/training/pods"))


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("k8s-app=aws-node", 6),
        ("k8s-app==aws-node", 6),
        ("k8s-app!=aws-node", 15),  # also pods without the label, as the API does
        ("k8s-app", 14),
        ("!k8s-app", 7),
        ("k8s-app in (aws-node, kube-dns)", 8),
        ("k8s-app notin (aws-node,kube-dns),k8s-app", 6),
    ],
)
def test_label_selectors(objects: KubernetesObjects, selector: str, expected: int) -> None:
    assert len(names(objects, "/api/v1/pods", labelSelector=selector)) == expected


def test_field_selectors(objects: KubernetesObjects) -> None:
    host = k8s_node.node_name(GPU[2][0])
    on_node = names(objects, "/api/v1/pods", fieldSelector=f"spec.nodeName={host}")
    assert len(on_node) == 4
    pending = names(objects, "/api/v1/pods", fieldSelector="status.phase=Pending")
    assert len(pending) == 2
    both = names(
        objects, "/api/v1/pods", fieldSelector=f"spec.nodeName={host},status.phase!=Pending"
    )
    assert len(both) == 3
    events = names(objects, "/api/v1/events", fieldSelector="reason=FailedCreatePodSandBox")
    assert len(events) == 1
    assert names(objects, "/api/v1/nodes", fieldSelector=f"metadata.name={host}") == [host]
    assert error(objects, "/api/v1/pods", fieldSelector="spec.image=x")[0] == 400
    assert error(objects, "/api/v1/pods", labelSelector="a=(b")[0] == 400


def test_paging_with_limit_and_continue(objects: KubernetesObjects) -> None:
    seen: list[str] = []
    token = ""
    while True:
        query = {"limit": "4", **({"continue": token} if token else {})}
        status, body, _ = respond(objects, "/api/v1/pods", query)
        assert status == 200
        page = json.loads(body)
        seen += [i["metadata"]["name"] for i in page["items"]]
        token = page["metadata"].get("continue", "")
        if not token:
            break
        assert page["metadata"]["remainingItemCount"] == len(objects.pods) - len(seen)
    assert seen == [p["metadata"]["name"] for p in objects.pods]
    assert error(objects, "/api/v1/pods", limit="4", **{"continue": "garbage"})[0] == 400
    assert continue_token(4) != continue_token(8)


def test_answer_pages_are_the_decoded_responses_selected_once(
    objects: KubernetesObjects,
) -> None:
    """Replay's pages: the dict `respond` would encode, the selection made on the first
    page and sliced for the next (objects that match later do not join a paging list)."""
    selections: Selections = {}
    query = {"limit": "3", "fieldSelector": "status.phase!=Succeeded"}
    status, page, _ = answer(objects, "/api/v1/pods", query, selections)
    assert isinstance(page, dict)
    assert json.loads(respond(objects, "/api/v1/pods", query)[1]) == page
    assert len(selections) == 1
    token = page["metadata"].get("continue")
    objects.pods.append({"metadata": {"name": "late"}, "status": {"phase": "Running"}})
    seen = [i["metadata"]["name"] for i in page["items"]]
    while token:
        _, page, _ = answer(objects, "/api/v1/pods", {**query, "continue": token}, selections)
        assert isinstance(page, dict)
        seen += [i["metadata"]["name"] for i in page["items"]]
        token = page["metadata"].get("continue")
    assert "late" not in seen
    assert len(seen) > 3  # more than one page
    assert seen == names(objects, "/api/v1/pods", fieldSelector=query["fieldSelector"])[:-1]
    assert len(selections) == 1
    status, body, _ = answer(objects, "/api/v1/pods", {"labelSelector": "a=(b"}, selections)
    assert status == 400
    assert isinstance(body, bytes)


def test_unknown_paths_are_404(objects: KubernetesObjects) -> None:
    status, document = error(objects, "/api/v1/secrets")
    assert (status, document["kind"], document["code"]) == (404, "Status", 404)
    assert error(objects, "/api/v1/namespaces/kube-system/nodes")[0] == 404


def test_logs(objects: KubernetesObjects) -> None:
    crashed = k8s_objects.find_pod(objects, "aws-node", GPU[2][0])["metadata"]["name"]
    path = f"/api/v1/namespaces/kube-system/pods/{crashed}/log"
    status, body, content_type = respond(
        objects, path, {"container": "aws-node", "previous": "true", "tailLines": "2"}
    )
    assert (status, content_type) == (200, "text/plain")
    assert body.decode().splitlines() == k8s_faults.IPAMD_REFUSED_LOG.splitlines()[-2:]
    status, body, _ = respond(objects, path, {"previous": "true", "limitBytes": "10"})
    assert (status, len(body)) == (200, 10)
    assert respond(objects, path, {"container": "aws-node"})[:2] == (200, b"")
    healthy = k8s_objects.find_pod(objects, "aws-node", GPU[0][0])["metadata"]["name"]
    gone = f"/api/v1/namespaces/kube-system/pods/{healthy}/log"
    assert respond(objects, gone, {"container": "aws-node", "previous": "true"})[0] == 400
    assert respond(objects, "/api/v1/namespaces/x/pods/nope/log", {"container": "c"})[0] == 404
