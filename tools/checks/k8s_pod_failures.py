"""§ M / § O: failing pods on the nodes in scope, and pod sandboxes that cannot be created.

A container OOMKilled while it has a memory limit of its own was ended at that limit: the
kernel's memory cgroup enforces it whatever the node has free, so it is a fact about the
workload (WARN P2 naming the pod and its limit, never node advice), also when the kills have
put the container in CrashLoopBackOff. A container without a memory limit can only be
OOMKilled when the node (or the memory allotted to all pods) ran short: that stays a FAIL P1
pointing at the node's memory (§ I.2).

The system pods of kube-system's networking (aws-node, kube-proxy, CoreDNS) are judged by
the k8s-cni check with their DaemonSet / Deployment context, so they are left out here
rather than reported twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tools.checks._grouping import GROUP_ABOVE
from tools.checks._kube import SAMPLES, examples
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData
from tools.triage.data.kube import KUBE_SYSTEM, SYSTEM_APPS
from tools.triage.data.kube_model import KubeEvent, Pod

CHECK = "k8s-pod-failures"
FINDINGS = Findings(CHECK, "M")

WAITING_FAILURES = {
    "CrashLoopBackOff": "keeps crashing (read `kubectl logs --previous`)",
    "ImagePullBackOff": "cannot pull its image",
    "ErrImagePull": "cannot pull its image",
    "InvalidImageName": "names an invalid image",
    "RunContainerError": "cannot be started by the runtime",
    "CreateContainerError": "cannot be created by the runtime",
    "CreateContainerConfigError": "has a configuration the runtime rejects (missing "
    "ConfigMap or Secret?)",
}
OOM = "OOMKilled"


@dataclass(frozen=True)
class PodFailure:
    pod: str  # namespace/name
    node: str | None
    instance_id: str | None
    container: str
    reason: str  # a WAITING_FAILURES key or OOMKilled
    restarts: int
    detail: str  # clipped waiting message or exit code
    memory_limit: str | None = None  # resources.limits.memory of an OOMKilled container

    @property
    def at_own_limit(self) -> bool:
        """OOMKilled while the container had its own memory limit: the workload's signal."""
        return self.reason == OOM and self.memory_limit is not None


def memory_limits(pod: Pod) -> dict[str, str]:
    """Container name -> resources.limits.memory, for the containers that set one."""
    return {
        c.name or "?": clip(c.memory_limit, 40)
        for c in pod.containers
        if c.memory_limit is not None
    }


def pod_failures(pod: Pod, nodes: dict[str, str | None]) -> list[PodFailure]:
    """The failures of one pod, one per container (a waiting failure wins over an older
    OOM kill of the same container, except a crash loop of kills at the container's own
    memory limit, which is that limit's doing)."""
    host = pod.node or None
    key = pod.key
    limits = memory_limits(pod)
    found: list[PodFailure] = []
    for container in pod.container_statuses:
        name = container.name or "?"
        restarts = container.restart_count
        waiting = container.waiting
        reason = waiting.reason if waiting else ""
        last = container.last_terminated
        now = container.terminated
        oom = OOM in (last.reason if last else None, now.reason if now else None)
        limit = limits.get(name)
        instance = nodes.get(host or "")
        ended = last or now
        code = clip(ended.exit_code if ended else None, 20)
        if oom and limit is not None and reason in ("", "CrashLoopBackOff"):
            looping = "; now in CrashLoopBackOff" if reason else ""
            found.append(
                PodFailure(
                    key, host, instance, name, OOM, restarts, f"exit code {code}{looping}", limit
                )
            )
        elif reason in WAITING_FAILURES:
            detail = clip(waiting.message if waiting else "", 160)
            if oom:
                detail = f"last exit OOMKilled; {detail}".rstrip("; ")
            found.append(PodFailure(key, host, instance, name, reason, restarts, detail))
        elif oom:
            found.append(PodFailure(key, host, instance, name, OOM, restarts, f"exit code {code}"))
    return found


def _is_network_system_pod(pod: Pod) -> bool:
    return pod.namespace == KUBE_SYSTEM and pod.app in SYSTEM_APPS


def _sentence(failure: PodFailure) -> str:
    where = failure.instance_id or failure.node or "no node"
    restarts = f", {failure.restarts} restarts" if failure.restarts else ""
    container = f"container {clip(failure.container, 60)}"
    if failure.at_own_limit:
        return (
            f"Workload signal, not a node fault: pod {failure.pod} ({container}) on {where} "
            f"was OOMKilled at its own memory limit (limits.memory {failure.memory_limit}; "
            f"{failure.detail}{restarts}) — raise the limit in the job spec or lower the "
            "job's memory use"
        )
    if failure.reason == OOM:
        what = (
            f"was OOMKilled with no memory limit of its own ({failure.detail}{restarts}): the "
            "node, or the memory allotted to all its pods, ran short — check the node's "
            "memory (§ I.2)"
        )
    else:
        what = f"is in {failure.reason}{restarts}: it {WAITING_FAILURES[failure.reason]}"
        if failure.detail:
            what += f" ({quoted(failure.detail, 120)})"
    return f"Pod {failure.pod} ({container}) on {where} {what}"


def _grouped(reason: str, workload: bool, failures: list[PodFailure]) -> Finding:
    """One finding for many containers failing alike: a count, the nodes and samples."""
    pods_named = [f.pod for f in failures]
    instances = sorted({f.instance_id for f in failures if f.instance_id})
    evidence: dict[str, Any] = {
        "reason": reason,
        "count": len(failures),
        "sample_pods": pods_named[:SAMPLES],
        "workload": workload,
    }
    if workload:
        return FINDINGS.warn(
            Priority.P2,
            f"Workload signal, not a node fault: {len(failures):,} pod containers were "
            f"OOMKilled at their own memory limits on {len(instances):,} node(s), e.g. "
            f"{examples(pods_named)} — raise those limits in the job specs or lower the jobs' "
            "memory use",
            resources=instances[:SAMPLES],
            **evidence,
        )
    hint = "§ I.2 for node memory" if reason == OOM else WAITING_FAILURES[reason]
    return FINDINGS.fail(
        Priority.P1,
        f"{len(failures):,} pod containers are {reason} on {len(instances):,} "
        f"node(s), e.g. {examples(pods_named)} ({hint})",
        resources=instances[:SAMPLES],
        **evidence,
    )


def _single(failure: PodFailure) -> Finding:
    evidence: dict[str, Any] = {
        "pod": failure.pod,
        "container": failure.container,
        "node": failure.node,
        "instance_id": failure.instance_id,
        "reason": failure.reason,
        "restarts": failure.restarts,
        "detail": failure.detail,
        "workload": failure.at_own_limit,
    }
    resources = [failure.instance_id] if failure.instance_id else []
    if failure.at_own_limit:
        evidence["memory_limit"] = failure.memory_limit
        return FINDINGS.warn(Priority.P2, _sentence(failure), resources=resources, **evidence)
    return FINDINGS.fail(Priority.P1, _sentence(failure), resources=resources, **evidence)


def judge_pods(
    pods: Sequence[Pod],
    nodes: dict[str, str | None],
    *,
    group_above: int | None = GROUP_ABOVE,
) -> list[Finding]:
    """FAIL P1 per failing pod container, WARN P2 per container OOMKilled at its own memory
    limit; more than `group_above` alike make one finding with a count and samples."""
    alike: dict[tuple[str, bool], list[PodFailure]] = defaultdict(list)
    for pod in pods:
        if _is_network_system_pod(pod):
            continue
        for failure in pod_failures(pod, nodes):
            alike[(failure.reason, failure.at_own_limit)].append(failure)
    findings: list[Finding] = []
    for (reason, workload), failures in sorted(alike.items()):
        failures.sort(key=lambda f: (f.pod, f.container))
        if group_above is not None and len(failures) > group_above:
            findings.append(_grouped(reason, workload, failures))
        else:
            findings += [_single(f) for f in failures]
    return findings


def _event_host(event: KubeEvent, pod_nodes: dict[str, str]) -> str | None:
    if event.source_host:
        return event.source_host
    return pod_nodes.get(event.involved)


def judge_sandbox_events(
    events: Sequence[KubeEvent],
    nodes: dict[str, str | None],
    pod_nodes: dict[str, str],
    scope: list[str] | None = None,
) -> list[Finding]:
    """FailedCreatePodSandBox events grouped per node: FAIL P1 (§ O) with the count, the
    pods and the latest message (a 50051 refusal points at ipamd)."""
    per_node: dict[str, list[KubeEvent]] = defaultdict(list)
    for event in events:
        # An event's source host and object are free text to the API server: clipped.
        host = clip(_event_host(event, pod_nodes) or "?", 120)
        if scope is not None and host not in scope:
            continue
        per_node[host].append(event)
    findings: list[Finding] = []
    for host, items in sorted(per_node.items()):
        items.sort(key=lambda e: e.seen_at)
        count = sum(e.count for e in items)
        pods = sorted({clip(e.involved, 120) for e in items})
        latest = items[-1].message
        instance = nodes.get(host)
        where = instance or f"node {host}"
        text = (
            f"FailedCreatePodSandBox on {where}: {count:,} event(s) for {len(pods)} pod(s), "
            f"e.g. {examples(pods)}"
        )
        if "50051" in latest:
            text += "; the CNI plugin cannot reach ipamd on 127.0.0.1:50051 (aws-node not up)"
        text += f"; latest: {quoted(latest, 140)}"
        findings.append(
            FINDINGS.at("O").fail(
                Priority.P1,
                text,
                resources=[instance] if instance else [],
                node=host,
                instance_id=instance,
                events=count,
                pods=pods[:SAMPLES],
                latest_message=clip(latest),
            )
        )
    return findings


@check(FINDINGS, title="Failing pods on the nodes in scope", orchestrators=("eks",), scope="node")
def k8s_pod_failures(data: ClusterData) -> Iterable[Finding]:
    """Pods in CrashLoopBackOff / ImagePullBackOff / ErrImagePull / RunContainerError /
    CreateContainerConfigError or OOMKilled, and FailedCreatePodSandBox events."""
    nodes = data.kube_node_instances()
    pods = data.kube_pods_in_scope()
    scope = data.kube_node_names_in_scope()
    findings = judge_pods(pods, nodes, group_above=None if scope is not None else GROUP_ABOVE)
    pod_nodes = {p.key: p.node for p in pods if p.node}
    findings += judge_sandbox_events(data.kube_sandbox_events(), nodes, pod_nodes, scope)
    if not findings:
        where = "the focused node" if scope is not None else "any node"
        findings.append(FINDINGS.passed(f"No failing pod or sandbox error on {where}"))
    return findings
