"""§ O: the pod network's system workloads: aws-node (VPC CNI), kube-proxy and CoreDNS."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
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


class LogHint(StrEnum):
    """A kind of aws-node log line that tells why the CNI fails."""

    IPAMD_DOWN = "ipamd-down"
    EC2_REFUSED = "ec2-refused"
    NO_ADDRESSES = "no-addresses"
    EC2_UNREACHABLE = "ec2-unreachable"


# aws-node log lines and what they mean; the first matching pattern of each kind wins.
_LOG_PATTERNS: tuple[tuple[re.Pattern[str], LogHint], ...] = (
    (
        re.compile(r"127\.0\.0\.1:50051.*(refused|failed|unavailable)|:50051.*within", re.I),
        LogHint.IPAMD_DOWN,
    ),
    (re.compile(r"UnauthorizedOperation|AccessDenied|not authorized", re.I), LogHint.EC2_REFUSED),
    (
        re.compile(r"InsufficientFreeAddresses|no available IP|failed to allocate", re.I),
        LogHint.NO_ADDRESSES,
    ),
    (
        re.compile(
            r"(ec2|DescribeNetworkInterfaces|DescribeInstances).*(i/o timeout|timed out)", re.I
        ),
        LogHint.EC2_UNREACHABLE,
    ),
)
_HINT_WORDS = {
    LogHint.IPAMD_DOWN: (
        "ipamd never came up: nothing listens on 127.0.0.1:50051, so the CNI plugin cannot "
        "get pod addresses"
    ),
    LogHint.EC2_REFUSED: (
        "the EC2 API refused ipamd: check the CNI's IAM permissions (AmazonEKS_CNI_Policy)"
    ),
    LogHint.NO_ADDRESSES: "the subnet has no free addresses for pods (§ B.6)",
    LogHint.EC2_UNREACHABLE: "ipamd cannot reach the EC2 API (NAT or an ec2 VPC endpoint, § B.4)",
}
_ERROR_LINE = re.compile(r'"level":"error"|\berror\b', re.I)


@dataclass(frozen=True, slots=True)
class PodLog:
    """What one aws-node pod's log tail shows: the kinds of trouble, and one short line."""

    pod: str
    hints: tuple[LogHint, ...]
    excerpt: str | None


def read_log(pod: str, text: str) -> PodLog:
    """The rule over an aws-node log tail. The log is data: only the hint kinds and one
    clipped, redacted line are kept."""
    hints: list[LogHint] = []
    excerpt: str | None = None
    lines = text.splitlines()[-400:]
    for pattern, hint in _LOG_PATTERNS:
        for line in lines:
            if pattern.search(line):
                hints.append(hint)
                excerpt = excerpt or clip(line, EXCERPT)
                break
    if excerpt is None:
        errors = [line for line in lines if _ERROR_LINE.search(line)]
        if errors:
            excerpt = clip(errors[-1], EXCERPT)
    return PodLog(pod, tuple(hints), excerpt)


def log_hints(text: str) -> tuple[list[str], str | None]:
    """(hint sentences, one short excerpt) from an aws-node log tail."""
    log = read_log("", text)
    return [_HINT_WORDS[h] for h in log.hints], log.excerpt


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


def _pod_lines(pods: Sequence[Pod], nodes: dict[str, str | None]) -> list[dict[str, Any]]:
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


class DaemonSetState(StrEnum):
    MISSING = "missing"
    AVAILABLE = "available"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True, slots=True)
class DaemonSetVerdict:
    """The verdict on aws-node or kube-proxy: its state, its pods in trouble and, for
    aws-node, what their logs show (by pod name)."""

    name: str
    state: DaemonSetState
    desired: int = 0
    unavailable: int = 0
    troubled: tuple[Pod, ...] = ()
    logs: tuple[PodLog, ...] = ()


def daemonset_verdict(
    name: str,
    daemonset: DaemonSet | None,
    pods: Sequence[Pod],
    logs: dict[str, str] | None = None,
) -> DaemonSetVerdict:
    """The rule: missing, all available, or some pods unavailable with the troubled ones
    (and, for aws-node only, the hints in their logs)."""
    if daemonset is None:
        return DaemonSetVerdict(name, DaemonSetState.MISSING)
    desired, unavailable = daemonset.desired, daemonset.unavailable
    if unavailable <= 0:
        return DaemonSetVerdict(name, DaemonSetState.AVAILABLE, desired)
    read = (
        tuple(read_log(pod, text) for pod, text in sorted((logs or {}).items()))
        if name == "aws-node"
        else ()
    )
    troubled = tuple(p for p in pods if p.app == name and p.needs_attention)
    return DaemonSetVerdict(name, DaemonSetState.UNAVAILABLE, desired, unavailable, troubled, read)


def _missing(name: str) -> Finding:
    if name == "aws-node":
        return FINDINGS.fail(
            Priority.P0,
            "DaemonSet aws-node is missing from kube-system: without the VPC CNI no "
            "pod gets a network",
            daemonset=name,
        )
    # Some clusters replace kube-proxy (e.g. a CNI that handles services itself).
    return FINDINGS.warn(
        Priority.P2,
        "DaemonSet kube-proxy is not in kube-system: service routing needs it unless "
        "another component replaces it",
        daemonset=name,
    )


def _unavailable(verdict: DaemonSetVerdict, nodes: dict[str, str | None]) -> Finding:
    name, rows = verdict.name, _pod_lines(verdict.troubled, nodes)
    text = f"DaemonSet {name}: {verdict.unavailable} of {verdict.desired} pods unavailable"
    if rows:
        shown = "; ".join(
            f"{r['pod']} on {r['instance_id'] or r['node'] or '?'} is {r['state']}"
            for r in rows[:3]
        )
        text += f" ({shown}{'; …' if len(rows) > 3 else ''})"
    evidence: dict[str, Any] = {
        "daemonset": name,
        "desired": verdict.desired,
        "unavailable": verdict.unavailable,
        "pods": rows[:SAMPLES],
    }
    hints = list(dict.fromkeys(_HINT_WORDS[h] for log in verdict.logs for h in log.hints))
    excerpt = next((log.excerpt for log in verdict.logs if log.excerpt), None)
    if excerpt:
        evidence["log_excerpts"] = {log.pod: log.excerpt for log in verdict.logs if log.excerpt}
    if hints:
        text += f": {hints[0]}"
        evidence["log_hints"] = hints
    if excerpt:
        text += f"; log: {quoted(excerpt, 120)}"
    resources = sorted({r["instance_id"] for r in rows if r["instance_id"]})
    return FINDINGS.fail(Priority.P0, text, resources=resources[:SAMPLES], **evidence)


def word_daemonset(verdict: DaemonSetVerdict, nodes: dict[str, str | None]) -> Finding:
    """The finding that states a DaemonSet verdict; `nodes` names each pod's instance."""
    if verdict.state is DaemonSetState.MISSING:
        return _missing(verdict.name)
    if verdict.state is DaemonSetState.AVAILABLE:
        return FINDINGS.passed(
            f"DaemonSet {verdict.name}: {verdict.desired} of {verdict.desired} pods available",
            daemonset=verdict.name,
            desired=verdict.desired,
        )
    return _unavailable(verdict, nodes)


def judge_daemonset(
    name: str,
    daemonset: DaemonSet | None,
    pods: Sequence[Pod],
    nodes: dict[str, str | None],
    logs: dict[str, str] | None = None,
) -> list[Finding]:
    """aws-node or kube-proxy: missing, or pods unavailable (FAIL P0 with their states)."""
    return [word_daemonset(daemonset_verdict(name, daemonset, pods, logs), nodes)]


def _pending_reason(pod: Pod) -> str:
    entry = pod.condition("PodScheduled")
    if entry is not None and entry.status == "False":
        reason = clip(entry.reason or "not scheduled", 40)
        message = entry.message
        return f"Pending, {reason}" + (f" {quoted(message, 160)}" if message else "")
    return "Pending"


class CoreDnsState(StrEnum):
    NO_PODS = "no-pods"
    SERVING = "serving"  # every pod Running and Ready
    DEGRADED = "degraded"  # some pods down, some still serve
    DOWN = "down"  # no pod serves


@dataclass(frozen=True, slots=True)
class CoreDnsVerdict:
    """The verdict on CoreDNS: its state, its pod count, the pods that do not serve (by
    name) and the replicas its Deployment wants (None without a Deployment)."""

    state: CoreDnsState
    pods: int
    not_serving: tuple[Pod, ...] = ()
    wanted: int | None = None


def _serves(pod: Pod) -> bool:
    ready = pod.condition("Ready")
    return pod.phase == "Running" and ready is not None and ready.status == "True"


def coredns_verdict(pods: Sequence[Pod], deployments: Sequence[Deployment]) -> CoreDnsVerdict:
    """The rule over the CoreDNS pods (k8s-app=kube-dns) and the coredns Deployment."""
    dns = [p for p in pods if p.app == "kube-dns"]
    deployment = next((d for d in deployments if d.name == "coredns"), None)
    if not dns:
        wanted = deployment.replicas if deployment else None
        return CoreDnsVerdict(CoreDnsState.NO_PODS, 0, wanted=wanted)
    bad = tuple(sorted((p for p in dns if not _serves(p)), key=lambda p: p.name))
    if not bad:
        return CoreDnsVerdict(CoreDnsState.SERVING, len(dns))
    state = CoreDnsState.DOWN if len(bad) == len(dns) else CoreDnsState.DEGRADED
    return CoreDnsVerdict(state, len(dns), bad)


def _no_coredns(verdict: CoreDnsVerdict) -> Finding:
    replicas = verdict.wanted or 0
    what = "no CoreDNS Deployment" if verdict.wanted is None else f"{replicas} replicas wanted"
    return FINDINGS.fail(
        Priority.P0,
        f"No CoreDNS pod (k8s-app=kube-dns) in kube-system ({what}): pods cannot "
        "resolve service or external names",
        replicas=replicas,
    )


def word_coredns(verdict: CoreDnsVerdict, nodes: dict[str, str | None]) -> Finding:
    """The finding that states the CoreDNS verdict; `nodes` names each pod's instance."""
    if verdict.state is CoreDnsState.NO_PODS:
        return _no_coredns(verdict)
    total = verdict.pods
    if verdict.state is CoreDnsState.SERVING:
        return FINDINGS.passed(f"CoreDNS: {total} of {total} pods Running and Ready", pods=total)
    described = [
        {
            "pod": pod.name,
            "state": _pending_reason(pod) if pod.phase == "Pending" else pod_state(pod),
            "node": pod.node or None,
        }
        for pod in verdict.not_serving
    ]
    serving = total - len(described)
    text = (
        f"CoreDNS: {len(described)} of {total} pods not Running and Ready "
        f"({described[0]['pod']} is {described[0]['state']})"
    )
    text += ": cluster DNS is down" if serving == 0 else f"; {serving} still serving"
    resources = sorted(
        {nodes[str(d["node"])] or "" for d in described if d["node"] in nodes} - {""}
    )
    priority = Priority.P0 if verdict.state is CoreDnsState.DOWN else Priority.P1
    return FINDINGS.fail(
        priority, text, resources=resources, pods=described[:SAMPLES], serving=serving
    )


def judge_coredns(
    pods: Sequence[Pod], deployments: Sequence[Deployment], nodes: dict[str, str | None]
) -> list[Finding]:
    """CoreDNS pods (k8s-app=kube-dns) not Running and Ready: FAIL P0 when none is ready
    (cluster DNS is down), P1 when some still serve."""
    return [word_coredns(coredns_verdict(pods, deployments), nodes)]


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
