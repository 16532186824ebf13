"""§ O: the pod network's system workloads: aws-node (VPC CNI), kube-proxy and CoreDNS."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from tools.checks._kube import SAMPLES
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData
from tools.triage.data.kube_model import DaemonSet, Deployment, Pod

CHECK = "k8s-cni"
FINDINGS = Findings(CHECK, "O")
EXCERPT = 160

# aws-node log lines and what they mean; the first matching pattern of each kind wins.
_LOG_HINTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"127\.0\.0\.1:50051.*(refused|failed|unavailable)|:50051.*within", re.I),
        "ipamd never came up: nothing listens on 127.0.0.1:50051, so the CNI plugin cannot "
        "get pod addresses",
    ),
    (
        re.compile(r"UnauthorizedOperation|AccessDenied|not authorized", re.I),
        "the EC2 API refused ipamd: check the CNI's IAM permissions (AmazonEKS_CNI_Policy)",
    ),
    (
        re.compile(r"InsufficientFreeAddresses|no available IP|failed to allocate", re.I),
        "the subnet has no free addresses for pods (§ B.6)",
    ),
    (
        re.compile(
            r"(ec2|DescribeNetworkInterfaces|DescribeInstances).*(i/o timeout|timed out)", re.I
        ),
        "ipamd cannot reach the EC2 API (NAT or an ec2 VPC endpoint, § B.4)",
    ),
)
_ERROR_LINE = re.compile(r'"level":"error"|\berror\b', re.I)


def log_hints(text: str) -> tuple[list[str], str | None]:
    """(hints, one short excerpt) from an aws-node log tail. The log is data: only the
    hint sentences above and one clipped, redacted line ever reach a report."""
    hints: list[str] = []
    excerpt: str | None = None
    lines = text.splitlines()[-400:]
    for pattern, hint in _LOG_HINTS:
        for line in lines:
            if pattern.search(line):
                hints.append(hint)
                excerpt = excerpt or clip(line, EXCERPT)
                break
    if excerpt is None:
        errors = [line for line in lines if _ERROR_LINE.search(line)]
        if errors:
            excerpt = clip(errors[-1], EXCERPT)
    return hints, excerpt


def pod_state(pod: Pod) -> str:
    """The most telling state of a pod: a waiting reason, else its phase and readiness."""
    for container in pod.container_statuses:
        reason = container.waiting.reason if container.waiting else ""
        if reason:
            restarts = container.restart_count
            # The kubelet's word, but any writer of the pod status can set it: clipped.
            return clip(reason, 60) + (f" ({restarts} restarts)" if restarts else "")
    phase = clip(pod.phase or "Unknown", 40)
    if phase == "Running" and any(c.ready is False for c in pod.container_statuses):
        return "Running but not ready"
    return phase


def _daemonset(daemonsets: Sequence[DaemonSet], name: str) -> DaemonSet | None:
    return next((d for d in daemonsets if d.name == name), None)


def _pod_lines(pods: list[Pod], nodes: dict[str, str | None]) -> list[dict[str, Any]]:
    rows = []
    for pod in pods:
        rows.append(
            {
                "pod": pod.name,
                "node": pod.node or None,
                "instance_id": nodes.get(pod.node),
                "state": pod_state(pod),
            }
        )
    return sorted(rows, key=lambda r: r["pod"])


def judge_daemonset(
    name: str,
    daemonset: DaemonSet | None,
    pods: Sequence[Pod],
    nodes: dict[str, str | None],
    logs: dict[str, str] | None = None,
) -> list[Finding]:
    """aws-node or kube-proxy: missing, or pods unavailable (FAIL P0 with their states)."""
    if daemonset is None:
        if name == "aws-node":
            return [
                FINDINGS.fail(
                    Priority.P0,
                    "DaemonSet aws-node is missing from kube-system: without the VPC CNI no "
                    "pod gets a network",
                    daemonset=name,
                )
            ]
        # Some clusters replace kube-proxy (e.g. a CNI that handles services itself).
        return [
            FINDINGS.warn(
                Priority.P2,
                "DaemonSet kube-proxy is not in kube-system: service routing needs it unless "
                "another component replaces it",
                daemonset=name,
            )
        ]
    desired, unavailable = daemonset.desired, daemonset.unavailable
    if unavailable <= 0:
        return [
            FINDINGS.passed(
                f"DaemonSet {name}: {desired} of {desired} pods available",
                daemonset=name,
                desired=desired,
            )
        ]
    troubled = [p for p in pods if p.app == name and p.needs_attention]
    rows = _pod_lines(troubled, nodes)
    text = f"DaemonSet {name}: {unavailable} of {desired} pods unavailable"
    if rows:
        shown = "; ".join(
            f"{r['pod']} on {r['instance_id'] or r['node'] or '?'} is {r['state']}"
            for r in rows[:3]
        )
        text += f" ({shown}{'; …' if len(rows) > 3 else ''})"
    evidence: dict[str, Any] = {
        "daemonset": name,
        "desired": desired,
        "unavailable": unavailable,
        "pods": rows[:SAMPLES],
    }
    if name == "aws-node":
        all_hints: list[str] = []
        excerpt = None
        for pod_name, text_log in sorted((logs or {}).items()):
            hints, line = log_hints(text_log)
            all_hints += [h for h in hints if h not in all_hints]
            excerpt = excerpt or line
            if line:
                evidence.setdefault("log_excerpts", {})[pod_name] = line
        if all_hints:
            text += f": {all_hints[0]}"
            evidence["log_hints"] = all_hints
        if excerpt:
            text += f"; log: {quoted(excerpt, 120)}"
    resources = sorted({r["instance_id"] for r in rows if r["instance_id"]})
    return [FINDINGS.fail(Priority.P0, text, resources=resources[:SAMPLES], **evidence)]


def _pending_reason(pod: Pod) -> str:
    entry = pod.condition("PodScheduled")
    if entry is not None and entry.status == "False":
        reason = clip(entry.reason or "not scheduled", 40)
        message = entry.message
        return f"Pending, {reason}" + (f" {quoted(message, 160)}" if message else "")
    return "Pending"


def judge_coredns(
    pods: Sequence[Pod], deployments: Sequence[Deployment], nodes: dict[str, str | None]
) -> list[Finding]:
    """CoreDNS pods (k8s-app=kube-dns) not Running and Ready: FAIL P0 when none is ready
    (cluster DNS is down), P1 when some still serve."""
    dns = [p for p in pods if p.app == "kube-dns"]
    deployment = next((d for d in deployments if d.name == "coredns"), None)
    if not dns:
        replicas = deployment.replicas if deployment else 0
        what = "no CoreDNS Deployment" if deployment is None else f"{replicas} replicas wanted"
        return [
            FINDINGS.fail(
                Priority.P0,
                f"No CoreDNS pod (k8s-app=kube-dns) in kube-system ({what}): pods cannot "
                "resolve service or external names",
                replicas=replicas,
            )
        ]
    bad: list[Pod] = []
    for pod in dns:
        ready_condition = pod.condition("Ready")
        ready = ready_condition is not None and ready_condition.status == "True"
        if pod.phase != "Running" or not ready:
            bad.append(pod)
    if not bad:
        return [
            FINDINGS.passed(
                f"CoreDNS: {len(dns)} of {len(dns)} pods Running and Ready", pods=len(dns)
            )
        ]
    described = []
    for pod in sorted(bad, key=lambda p: p.name):
        described.append(
            {
                "pod": pod.name,
                "state": _pending_reason(pod) if pod.phase == "Pending" else pod_state(pod),
                "node": pod.node or None,
            }
        )
    serving = len(dns) - len(bad)
    priority = Priority.P0 if serving == 0 else Priority.P1
    text = (
        f"CoreDNS: {len(bad)} of {len(dns)} pods not Running and Ready "
        f"({described[0]['pod']} is {described[0]['state']})"
    )
    text += ": cluster DNS is down" if serving == 0 else f"; {serving} still serving"
    resources = sorted(
        {nodes[str(d["node"])] or "" for d in described if d["node"] in nodes} - {""}
    )
    return [
        FINDINGS.fail(
            priority, text, resources=resources, pods=described[:SAMPLES], serving=serving
        )
    ]


@check(FINDINGS, title="CNI, kube-proxy and CoreDNS", orchestrators=("eks",), scope="node")
def k8s_cni(data: ClusterData) -> Iterable[Finding]:
    """aws-node and kube-proxy DaemonSet availability (with aws-node log hints) and
    CoreDNS pod state, in kube-system."""
    daemonsets = data.kube_system_daemonsets()
    pods = data.kube_system_pods()
    nodes = data.kube_node_instances()
    findings = judge_daemonset(
        "aws-node", _daemonset(daemonsets, "aws-node"), pods, nodes, data.aws_node_logs()
    )
    findings += judge_daemonset("kube-proxy", _daemonset(daemonsets, "kube-proxy"), pods, nodes)
    findings += judge_coredns(pods, data.kube_system_deployments(), nodes)
    return findings
