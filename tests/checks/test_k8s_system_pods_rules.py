"""§ O k8s-cni: the DaemonSet, aws-node log and CoreDNS rules alone, without their words."""

from __future__ import annotations

from tools.checks.k8s_system_pods import (
    CoreDnsState,
    DaemonSetState,
    LogHint,
    coredns_verdict,
    daemonset_verdict,
    read_log,
)
from tools.triage.data.kube_model import DaemonSet, Deployment, Pod


def pod(name: str, app: str, phase: str = "Running", ready: bool = True) -> Pod:
    return Pod.from_api(
        {
            "metadata": {"name": name, "labels": {"k8s-app": app}},
            "status": {
                "phase": phase,
                "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
                "containerStatuses": [{"name": "main", "ready": ready}],
            },
        }
    )


def test_log_lines_become_hint_kinds_in_table_order() -> None:
    log = read_log("aws-node-1", "AccessDenied by EC2\ndial 127.0.0.1:50051: connection refused\n")
    assert log.hints == (LogHint.IPAMD_DOWN, LogHint.EC2_REFUSED)
    assert log.excerpt == "dial 127.0.0.1:50051: connection refused"
    assert read_log("aws-node-1", "starting\n").hints == ()


def test_daemonset_states_and_its_troubled_pods() -> None:
    assert daemonset_verdict("kube-proxy", None, []).state is DaemonSetState.MISSING
    assert daemonset_verdict("x", DaemonSet("x", 6, 0), []).state is DaemonSetState.AVAILABLE
    down = pod("aws-node-b", "aws-node", ready=False)
    pods = [pod("aws-node-a", "aws-node"), down, pod("kube-proxy-a", "kube-proxy", ready=False)]
    verdict = daemonset_verdict("aws-node", DaemonSet("aws-node", 6, 1), pods)
    assert (verdict.state, verdict.troubled) == (DaemonSetState.UNAVAILABLE, (down,))


def test_only_aws_node_logs_are_read_in_pod_order() -> None:
    logs = {"b": "AccessDenied", "a": "all fine"}
    verdict = daemonset_verdict("aws-node", DaemonSet("aws-node", 2, 1), [], logs)
    assert [(log.pod, log.hints) for log in verdict.logs] == [
        ("a", ()),
        ("b", (LogHint.EC2_REFUSED,)),
    ]
    assert daemonset_verdict("kube-proxy", DaemonSet("kube-proxy", 2, 1), [], logs).logs == ()


def test_coredns_is_down_only_when_no_pod_serves() -> None:
    deployment = [Deployment("coredns", 2)]
    serving, pending = pod("dns-a", "kube-dns"), pod("dns-b", "kube-dns", phase="Pending")
    assert coredns_verdict([serving], deployment).state is CoreDnsState.SERVING
    degraded = coredns_verdict([pending, serving], deployment)
    assert (degraded.state, degraded.not_serving) == (CoreDnsState.DEGRADED, (pending,))
    assert coredns_verdict([pending], deployment).state is CoreDnsState.DOWN


def test_no_coredns_pod_keeps_what_the_deployment_wants() -> None:
    assert coredns_verdict([], [Deployment("coredns", 2)]).wanted == 2
    absent = coredns_verdict([], [])
    assert (absent.state, absent.wanted) == (CoreDnsState.NO_PODS, None)
