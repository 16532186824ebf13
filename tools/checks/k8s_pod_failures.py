"""§ M / § O: failing pods on the nodes in scope, and pod sandboxes that cannot be created.

The system pods of kube-system's networking (aws-node, kube-proxy, CoreDNS) are judged by
the k8s-cni check with their DaemonSet / Deployment context, so they are left out here
rather than reported twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tools.checks._kube import SAMPLES, examples
from tools.checks.nodes import GROUP_ABOVE
from tools.findings import Finding, Priority, fail, passed
from tools.kube import objects as k8s
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData
from tools.triage.data.kube import KUBE_SYSTEM, SYSTEM_APPS

CHECK = "k8s-pod-failures"

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


def pod_failures(pod: dict[str, Any], nodes: dict[str, str | None]) -> list[PodFailure]:
    """The failures of one pod, one per container (a waiting failure wins over an older
    OOM kill of the same container)."""
    host = str(k8s.spec(pod).get("nodeName") or "") or None
    key = f"{k8s.namespace(pod)}/{k8s.name(pod)}"
    found: list[PodFailure] = []
    for container in k8s.container_statuses(pod):
        name = str(container.get("name") or "?")
        restarts = int(container.get("restartCount") or 0)
        waiting = k8s.state(container, "state", "waiting")
        reason = str(waiting.get("reason") or "")
        last = k8s.state(container, "lastState", "terminated")
        now = k8s.state(container, "state", "terminated")
        oom = OOM in (last.get("reason"), now.get("reason"))
        if reason in WAITING_FAILURES:
            detail = clip(waiting.get("message") or "", 160)
            if oom:
                detail = f"last exit OOMKilled; {detail}".rstrip("; ")
            found.append(
                PodFailure(key, host, nodes.get(host or ""), name, reason, restarts, detail)
            )
        elif oom:
            code = clip((last or now).get("exitCode"), 20)
            found.append(
                PodFailure(
                    key, host, nodes.get(host or ""), name, OOM, restarts, f"exit code {code}"
                )
            )
    return found


def _is_network_system_pod(pod: dict[str, Any]) -> bool:
    return k8s.namespace(pod) == KUBE_SYSTEM and k8s.labels(pod).get("k8s-app") in SYSTEM_APPS


def _sentence(failure: PodFailure) -> str:
    where = failure.instance_id or failure.node or "no node"
    restarts = f", {failure.restarts} restarts" if failure.restarts else ""
    if failure.reason == OOM:
        what = (
            f"was OOMKilled ({failure.detail}{restarts}): raise its memory limit, or check the "
            "node's memory (§ I.2)"
        )
    else:
        what = f"is in {failure.reason}{restarts}: it {WAITING_FAILURES[failure.reason]}"
        if failure.detail:
            what += f" ({quoted(failure.detail, 120)})"
    return f"Pod {failure.pod} (container {clip(failure.container, 60)}) on {where} {what}"


def judge_pods(
    pods: list[dict[str, Any]],
    nodes: dict[str, str | None],
    *,
    group_above: int | None = GROUP_ABOVE,
) -> list[Finding]:
    """FAIL P1 per failing pod container; more than `group_above` with one reason make
    one finding with a count and samples."""
    by_reason: dict[str, list[PodFailure]] = defaultdict(list)
    for pod in pods:
        if _is_network_system_pod(pod):
            continue
        for failure in pod_failures(pod, nodes):
            by_reason[failure.reason].append(failure)
    findings: list[Finding] = []
    for reason, failures in sorted(by_reason.items()):
        failures.sort(key=lambda f: (f.pod, f.container))
        if group_above is not None and len(failures) > group_above:
            pods_named = [f.pod for f in failures]
            instances = sorted({f.instance_id for f in failures if f.instance_id})
            hint = "§ I.2 for node memory" if reason == OOM else WAITING_FAILURES[reason]
            findings.append(
                fail(
                    CHECK,
                    Priority.P1,
                    "M",
                    f"{len(failures):,} pod containers are {reason} on {len(instances):,} "
                    f"node(s), e.g. {examples(pods_named)} ({hint})",
                    resources=instances[:SAMPLES],
                    reason=reason,
                    count=len(failures),
                    sample_pods=pods_named[:SAMPLES],
                )
            )
            continue
        for failure in failures:
            findings.append(
                fail(
                    CHECK,
                    Priority.P1,
                    "M",
                    _sentence(failure),
                    resources=[failure.instance_id] if failure.instance_id else [],
                    pod=failure.pod,
                    container=failure.container,
                    node=failure.node,
                    instance_id=failure.instance_id,
                    reason=failure.reason,
                    restarts=failure.restarts,
                    detail=failure.detail,
                )
            )
    return findings


def _event_host(event: dict[str, Any], pod_nodes: dict[str, str]) -> str | None:
    source = event.get("source") if isinstance(event.get("source"), dict) else {}
    host = (source or {}).get("host")
    if host:
        return str(host)
    involved = event.get("involvedObject") if isinstance(event.get("involvedObject"), dict) else {}
    key = f"{(involved or {}).get('namespace')}/{(involved or {}).get('name')}"
    return pod_nodes.get(key)


def judge_sandbox_events(
    events: list[dict[str, Any]],
    nodes: dict[str, str | None],
    pod_nodes: dict[str, str],
    scope: list[str] | None = None,
) -> list[Finding]:
    """FailedCreatePodSandBox events grouped per node: FAIL P1 (§ O) with the count, the
    pods and the latest message (a 50051 refusal points at ipamd)."""
    per_node: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        # An event's source host and object are free text to the API server: clipped.
        host = clip(_event_host(event, pod_nodes) or "?", 120)
        if scope is not None and host not in scope:
            continue
        per_node[host].append(event)
    findings: list[Finding] = []
    for host, items in sorted(per_node.items()):
        items.sort(key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
        count = sum(int(e.get("count") or 1) for e in items)
        pods = sorted(
            {
                clip(
                    f"{(e.get('involvedObject') or {}).get('namespace')}/"
                    f"{(e.get('involvedObject') or {}).get('name')}",
                    120,
                )
                for e in items
            }
        )
        latest = str(items[-1].get("message") or "")
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
            fail(
                CHECK,
                Priority.P1,
                "O",
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


@check(
    CHECK,
    section="M",
    title="Failing pods on the nodes in scope",
    orchestrators=("eks",),
    scope="node",
)
def k8s_pod_failures(data: ClusterData) -> Iterable[Finding]:
    """Pods in CrashLoopBackOff / ImagePullBackOff / ErrImagePull / RunContainerError /
    CreateContainerConfigError or OOMKilled, and FailedCreatePodSandBox events."""
    nodes = data.kube_node_instances()
    pods = data.kube_pods_in_scope()
    scope = data.kube_node_names_in_scope()
    findings = judge_pods(pods, nodes, group_above=None if scope is not None else GROUP_ABOVE)
    pod_nodes = {
        f"{k8s.namespace(p)}/{k8s.name(p)}": str(k8s.spec(p).get("nodeName"))
        for p in pods
        if k8s.spec(p).get("nodeName")
    }
    findings += judge_sandbox_events(data.kube_sandbox_events(), nodes, pod_nodes, scope)
    if not findings:
        where = "the focused node" if scope is not None else "any node"
        findings.append(passed(CHECK, "M", f"No failing pod or sandbox error on {where}"))
    return findings
