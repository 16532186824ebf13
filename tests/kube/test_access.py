"""KubeAccess through the real kubernetes client against a loopback API server, and the
same reads replayed in process: GET only, paged, slimmed, identical either way."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from cluster_simulator.node_samples import k8s_faults, k8s_node, k8s_objects
from tools.kube.access import KubeAccess, KubeObservers, KubeRequestRefused, guard
from tools.kube.live import LiveTransport
from tools.recorded.model import KubernetesObjects
from tools.sources import KubernetesUnavailable

from ._server import serve, write_exec_plugin, write_kubeconfig
from .conftest import GPU

TOKEN = "loopback-token"


def live(api_url: str, tmp_path: Path, **hooks: Any) -> KubeAccess:
    config = write_kubeconfig(tmp_path / "config", api_url, token=TOKEN)
    return KubeAccess.from_kubeconfig(config, None, **hooks)


def every_read(access: KubeAccess) -> dict[str, Any]:
    return {
        "nodes": access.list_nodes(),
        "gpu nodes": access.list_nodes("sagemaker.amazonaws.com/instance-group-name=gpu-workers"),
        "pods": access.list_pods(),
        "kube-system pods": access.list_pods("kube-system"),
        "aws-node pods": access.list_pods("kube-system", label_selector="k8s-app=aws-node"),
        "pods on a node": access.list_pods(field_selector=f"spec.nodeName=hyperpod-{GPU[2][0]}"),
        "daemonsets": access.list_daemonsets("kube-system"),
        "deployments": access.list_deployments("kube-system"),
        "sandbox events": access.list_events(field_selector="reason=FailedCreatePodSandBox"),
        "no events": access.list_events("kube-system"),
    }


def test_live_and_replay_read_identical_data(objects: KubernetesObjects, tmp_path: Path) -> None:
    with serve(objects, token=TOKEN) as api:
        live_reads = every_read(live(api.url, tmp_path))
    replay_reads = every_read(KubeAccess.from_objects(objects))
    assert live_reads == replay_reads
    assert len(live_reads["nodes"]) == 6
    assert len(live_reads["gpu nodes"]) == 4
    assert len(live_reads["aws-node pods"]) == 6
    assert [p["spec"]["nodeName"] for p in live_reads["pods on a node"]] == [
        f"hyperpod-{GPU[2][0]}"
    ] * 4
    assert [e["reason"] for e in live_reads["sandbox events"]] == ["FailedCreatePodSandBox"]
    assert live_reads["no events"] == []


def test_items_are_slimmed_to_what_checks_read(objects: KubernetesObjects) -> None:
    node = KubeAccess.from_objects(objects).list_nodes()[0]
    assert set(node) == {"metadata", "spec", "status"}
    assert "images" not in node["status"]
    assert "capacity" not in node["status"]
    assert node["status"]["nodeInfo"] == {"kubeletVersion": k8s_node.KUBELET_VERSION}
    assert node["metadata"].get("annotations") is None  # only HyperPod's are kept
    assert node["metadata"]["labels"]["sagemaker.amazonaws.com/node-health-status"] == "Schedulable"


def test_paging_follows_continue_tokens(tmp_path: Path) -> None:
    many = KubernetesObjects(
        pods=[
            {
                "metadata": {"name": f"p-{i:04d}", "namespace": "default"},
                "status": {"phase": "Running"},
            }
            for i in range(1_203)
        ]
    )
    with serve(many, token=TOKEN) as api:
        pods = live(api.url, tmp_path).list_pods()
    assert [p["metadata"]["name"] for p in pods] == [f"p-{i:04d}" for i in range(1_203)]
    pages = [dict(s.query) for s in api.seen]
    assert len(pages) == 3
    assert all(p["limit"] == "500" for p in pages)
    assert "continue" not in pages[0]
    assert pages[1]["continue"] != pages[2]["continue"]
    assert {s.method for s in api.seen} == {"GET"}


def test_keep_filters_each_page(objects: KubernetesObjects) -> None:
    access = KubeAccess.from_objects(objects, page_size=2)
    kept = access.list_pods(keep=lambda p: p["status"].get("phase") != "Running")
    assert sorted(p["metadata"]["name"] for p in kept) == sorted(
        p["metadata"]["name"] for p in objects.pods if p["status"]["phase"] != "Running"
    )


def test_replay_pages_match_the_encoded_answers(objects: KubernetesObjects) -> None:
    """Replay serves pages from the stored objects (no JSON round trip, each list selected
    once): the lists are those the same requests over HTTP return."""
    import json

    from tools.kube.responder import respond
    from tools.kube.slim import slim

    def over_json(
        method: str, path: str, query: list[tuple[str, str]]
    ) -> tuple[int, bytes | dict[str, Any]]:
        status, body, _ = respond(objects, path, query)
        return status, body

    replay = KubeAccess.from_objects(objects, page_size=3)
    encoded = KubeAccess(over_json, page_size=3)
    system = replay.list_pods("kube-system")
    every = replay.list_pods()
    assert system == encoded.list_pods("kube-system")
    assert every == encoded.list_pods()
    assert every == [slim("pods", json.loads(json.dumps(p))) for p in objects.pods]
    assert replay.list_nodes() == encoded.list_nodes()
    assert replay.list_nodes(label_selector="x=y") == []


def test_hooks_receive_slim_lists_and_logs(objects: KubernetesObjects, tmp_path: Path) -> None:
    lists: list[tuple[str, int]] = []
    logs: dict[str, str] = {}
    crashed = k8s_objects.find_pod(objects, "aws-node", GPU[2][0])["metadata"]["name"]
    with serve(objects, token=TOKEN) as api:
        access = live(
            api.url,
            tmp_path,
            observers=KubeObservers(
                on_list=lambda kind, items: lists.append((kind, len(items))),
                on_log=logs.__setitem__,
            ),
        )
        access.list_daemonsets("kube-system")
        text = access.pod_log("kube-system", crashed, "aws-node", previous=True)
        current = access.pod_log("kube-system", crashed, "aws-node")
    assert lists == [("daemonsets", 2)]
    assert "127.0.0.1:50051" in text
    assert current == ""
    assert logs == {
        f"kube-system/{crashed}/aws-node#previous": text,
        f"kube-system/{crashed}/aws-node": "",
    }
    log_query = dict(api.seen[1].query)
    assert log_query["previous"] == "true"
    assert log_query["tailLines"] == "200"
    assert log_query["container"] == "aws-node"


def test_log_tail_lines_and_missing_previous(objects: KubernetesObjects) -> None:
    access = KubeAccess.from_objects(objects)
    crashed = k8s_objects.find_pod(objects, "aws-node", GPU[2][0])["metadata"]["name"]
    assert (
        access.pod_log("kube-system", crashed, "aws-node", tail_lines=1, previous=True)
        == (k8s_faults.IPAMD_REFUSED_LOG.splitlines()[-1])
    )
    healthy = k8s_objects.find_pod(objects, "aws-node", GPU[0][0])["metadata"]["name"]
    assert access.pod_log("kube-system", healthy, "aws-node", previous=True) == ""
    assert access.pod_log("kube-system", "no-such-pod", "aws-node") == ""


def test_wrong_token_is_unauthenticated(objects: KubernetesObjects, tmp_path: Path) -> None:
    with (
        serve(objects, token="the-right-one") as api,
        pytest.raises(KubernetesUnavailable) as caught,
    ):
        live(api.url, tmp_path).list_nodes()
    assert caught.value.reason.startswith("unauthenticated")
    assert "401" in caught.value.reason
    assert caught.value.hint.startswith("Install kubectl and authenticate")


def test_forbidden_and_not_found(objects: KubernetesObjects, tmp_path: Path) -> None:
    with serve(objects, token=TOKEN) as api:
        api.overrides["/api/v1/pods"] = 403
        api.overrides["/apis/apps/v1/namespaces/kube-system/deployments"] = 404
        access = live(api.url, tmp_path)
        with pytest.raises(KubernetesUnavailable, match=r"^forbidden"):
            access.list_pods()
        assert access.list_deployments("kube-system") == []


def test_exec_plugin_credentials_reach_the_server(
    objects: KubernetesObjects, tmp_path: Path
) -> None:
    plugin = write_exec_plugin(tmp_path / "aws", "exec-issued")
    with serve(objects, token="exec-issued") as api:
        config = write_kubeconfig(tmp_path / "config", api.url, exec_command=str(plugin))
        nodes = KubeAccess.from_kubeconfig(config, "test").list_nodes()
    assert len(nodes) == 6
    assert {s.authorization for s in api.seen} == {"Bearer exec-issued"}


def test_missing_exec_command_is_a_skip_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    config = write_kubeconfig(tmp_path / "config", "https://127.0.0.1:1", exec_command="aws")
    with pytest.raises(KubernetesUnavailable, match=r"exec command 'aws'.*not found"):
        KubeAccess.from_kubeconfig(config, None)


def test_no_kubeconfig_is_a_skip_reason() -> None:
    with pytest.raises(KubernetesUnavailable, match="no kubeconfig"):
        KubeAccess.from_kubeconfig(None, None)


def test_connection_refused_is_a_skip_reason(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    access = live(f"http://127.0.0.1:{port}", tmp_path)
    with pytest.raises(KubernetesUnavailable, match="connection refused"):
        access.list_nodes()


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "HEAD", "get"])
def test_guard_refuses_every_method_but_get(method: str) -> None:
    with pytest.raises(KubeRequestRefused, match="GET-only"):
        guard(method, "/api/v1/nodes")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/secrets",
        "/api/v1/namespaces/kube-system/secrets",
        "/api/v1/namespaces/kube-system/pods/x/exec",
        "/api/v1/namespaces/kube-system/pods/x/portforward",
        "/api/v1/nodes/n1/proxy/logs",
        "/api/v1/namespaces/../pods",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    ],
)
def test_guard_refuses_paths_outside_the_read_surface(path: str) -> None:
    with pytest.raises(KubeRequestRefused, match="not a list or log path"):
        guard("GET", path)


def test_live_transport_never_sends_a_refused_request(
    objects: KubernetesObjects, tmp_path: Path
) -> None:
    from tools.kube.config import load_kubeconfig

    with serve(objects, token=TOKEN) as api:
        loaded = load_kubeconfig(write_kubeconfig(tmp_path / "config", api.url, token=TOKEN))
        transport = LiveTransport(loaded.configuration, loaded.server, (5, 5))
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            with pytest.raises(KubeRequestRefused):
                transport(method, "/api/v1/nodes", [])
        with pytest.raises(KubeRequestRefused):
            transport("GET", "/api/v1/namespaces/default/secrets", [])
        assert transport("GET", "/api/v1/nodes", [])[0] == 200
    assert [(s.method, s.path) for s in api.seen] == [("GET", "/api/v1/nodes")]


def test_an_expired_continue_token_restarts_the_list_once(objects: KubernetesObjects) -> None:
    from tools.kube.responder import respond

    calls: list[str] = []

    def flaky(method: str, path: str, query: list[tuple[str, str]]) -> tuple[int, bytes]:
        guard(method, path)
        token = dict(query).get("continue")
        calls.append(token or "")
        if token and calls.count(token) == 1 and len(calls) == 2:
            return 410, b'{"kind":"Status","code":410,"message":"too old resource version"}'
        status, body, _ = respond(objects, path, query)
        return status, body

    pods = KubeAccess(flaky, page_size=4).list_pods()
    assert len(pods) == len(objects.pods)
    assert calls[2] == ""  # started over after the 410
