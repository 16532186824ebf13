"""§ F.2: HyperPod's health labels and fault details on EKS nodes, and node conditions.

Besides Ready and the pressure conditions, the Neuron node problem detector's condition
(§ G.5) is read here: AWS's Neuron NPD watches the kernel log for the driver's
NEURON_HW_ERR reports and sets `NeuronHealth` True with the reason
`NeuronHasError_<TYPE>` (SRAM, NeuronCore or HBM uncorrectable error, DMA error); its
healthy state is False with `NeuronHasNoError`. The Neuron guide pairs those errors with
replacing the instance, which the NPD's recovery does when it is enabled.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tools.checks._grouping import GROUP_ABOVE
from tools.checks._kube import SAMPLES, describe_node, examples
from tools.findings import Finding, Findings, Priority, Status, fail, info, warn
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData
from tools.triage.data.kube_model import (
    DEEP_HEALTH_IN_PROGRESS,
    SCHEDULABLE,
    UNSCHEDULABLE,
    KubeNode,
)

CHECK = "k8s-node-health"
FINDINGS = Findings(CHECK, "F.2")

PENDING_REPLACEMENT = "UnschedulablePendingReplacement"
PENDING_REBOOT = "UnschedulablePendingReboot"

# Node pressure conditions and where each is explained. DiskPressure is the kubelet
# running out of space on its filesystems (root volume, container images): the disk and
# inode section (§ I.1) is where that is diagnosed. PIDPressure is process exhaustion, a
# kernel and system limit (§ N).
PRESSURES = {"MemoryPressure": "I.2", "DiskPressure": "I.1", "PIDPressure": "N"}
_NETWORK_WORDS = ("cni", "network plugin", "networkready", "network not ready")
NEURON_CONDITION = "NeuronHealth"  # set by the Neuron node problem detector


@dataclass(frozen=True)
class Problem:
    kind: str  # grouping key, e.g. "health:UnschedulablePendingReboot", "ready:Unknown"
    status: Status
    priority: Priority | None
    section: str
    text: str  # "is labelled …" — follows the node's description
    extra: dict[str, Any] = field(default_factory=dict)


def _recovery_clause(action: str, node_recovery: str | None) -> str:
    if node_recovery == "Automatic":
        return (
            f"HyperPod will {action} it (NodeRecovery Automatic); if the label stays, "
            "check capacity (§ C)"
        )
    if node_recovery == "None":
        return f"NodeRecovery is None, so HyperPod waits: {action} it yourself (§ F.4)"
    return f"HyperPod will {action} it when NodeRecovery is Automatic (§ F.1)"


def _health_problem(
    value: str, deep_status: str | None, node_recovery: str | None
) -> Problem | None:
    deep_failed = deep_status == "Failed"
    deep = "; deep health checks failed (GPU evidence: § G)" if deep_failed else ""
    if value == PENDING_REPLACEMENT:
        text = (
            f"is labelled {value}: a health check failed{deep}; "
            f"{_recovery_clause('replace', node_recovery)}"
        )
        return Problem(f"health:{value}", Status.FAIL, Priority.P0, "F.2", text)
    if value == PENDING_REBOOT:
        text = (
            f"is labelled {value}: a health check failed{deep}; "
            f"{_recovery_clause('reboot', node_recovery)}"
        )
        return Problem(f"health:{value}", Status.FAIL, Priority.P0, "F.2", text)
    if value == UNSCHEDULABLE and deep_status == DEEP_HEALTH_IN_PROGRESS:
        # HyperPod holds a node Unschedulable while its deep health checks run: an expected
        # transition with nothing to fix yet, so no FAIL; their verdict decides what's next.
        text = (
            f"is labelled {value} while its deep health check is running "
            f"(deep-health-check-status {DEEP_HEALTH_IN_PROGRESS}): an expected "
            "transition; HyperPod keeps work off the node until the checks pass (then "
            "Schedulable) or fail (then a reboot or replacement label)"
        )
        return Problem(f"health:{value}:deep-running", Status.INFO, None, "F.2", text)
    if value == UNSCHEDULABLE:
        text = (
            f"is labelled {value}{deep}: HyperPod is running deep health checks and keeps "
            "work off the node until they pass (then Schedulable) or fail (then a reboot "
            "or replacement label)"
        )
        return Problem(f"health:{value}", Status.FAIL, Priority.P1, "F.2", text)
    if value != SCHEDULABLE:
        text = f"has an unrecognised node-health-status {quoted(value, 60)}{deep}"
        return Problem(f"health:{clip(value, 60)}", Status.WARN, Priority.P2, "F.2", text)
    return None


def _ready_problem(node: KubeNode) -> Problem | None:
    entry = node.condition("Ready")
    state = node.ready_status
    if state == "True":
        return None
    reason = entry.reason if entry else ""
    message = entry.message if entry else ""
    said = f" ({clip(reason, 60)}: {quoted(message, 160)})" if reason or message else ""
    extra = {"ready": {"status": state, "reason": clip(reason, 60), "message": clip(message)}}
    if state == "False":
        # The kubelet is alive and says why it is not ready: most often the runtime (§ M)
        # or the CNI not being initialised (§ O).
        network = any(word in message.lower() for word in _NETWORK_WORDS)
        section = "O" if network else "M"
        text = f"is NotReady{said}: the kubelet reports it cannot run pods"
        return Problem("ready:False", Status.FAIL, Priority.P0, section, text, extra)
    # Unknown: the kubelet stopped reporting at all; the instance is hung, rebooting or
    # cut off, which the kernel and system evidence (§ N) explains.
    text = f"is NotReady (Ready={clip(state, 20)}{said}): the kubelet stopped reporting"
    return Problem("ready:Unknown", Status.FAIL, Priority.P0, "N", text, extra)


def _pressure_problems(node: KubeNode) -> list[Problem]:
    problems: list[Problem] = []
    for kind, section in PRESSURES.items():
        entry = node.condition(kind)
        if entry and entry.status == "True":
            message = entry.message
            text = f"reports {kind}" + (f" ({quoted(message, 120)})" if message else "")
            problems.append(Problem(f"pressure:{kind}", Status.FAIL, Priority.P1, section, text))
    return problems


def _neuron_problem(node: KubeNode) -> Problem | None:
    entry = node.condition(NEURON_CONDITION)
    if not entry or entry.status != "True":
        return None
    reason = clip(entry.reason or "no reason", 80)
    error = reason.removeprefix("NeuronHasError_")
    message = entry.message
    said = f" ({quoted(message, 120)})" if message else ""
    text = (
        f"has {NEURON_CONDITION}=True from the Neuron node problem detector, reason "
        f"{reason}{said}: the Neuron driver reported an unrecoverable {error} hardware error; "
        "AWS's Neuron guide pairs it with replacing the instance — read the health labels "
        "and the HMA stream first (§ F.2, § F.3), then replace the node (§ F.4)"
    )
    extra = {"neuron_health": {"reason": reason, "message": clip(message)}}
    return Problem(f"neuron:{reason}", Status.FAIL, Priority.P0, "G.5", text, extra)


def node_problems(node: KubeNode, node_recovery: str | None) -> list[Problem]:
    deep_status = node.deep_health_status
    deep_failed = deep_status == "Failed"
    problems: list[Problem] = []
    health = node.health_status
    labelled = _health_problem(health, deep_status, node_recovery) if health else None
    if labelled:
        problems.append(labelled)
    elif deep_failed:
        text = (
            "failed its deep health checks: read the GPU / accelerator evidence (§ G), then "
            "reboot or replace it (§ F.4)"
        )
        problems.append(Problem("deep:Failed", Status.FAIL, Priority.P0, "F.2", text))
    ready = _ready_problem(node)
    if ready:
        problems.append(ready)
    problems += _pressure_problems(node)
    neuron = _neuron_problem(node)
    if neuron:
        problems.append(neuron)
    return problems


def fault_evidence(node: KubeNode) -> dict[str, Any]:
    """The fault labels and the fault-details annotation, clipped (the annotation is
    untrusted text: a garbled one is reported as such, never echoed whole)."""
    details, problem = node.fault_details, node.fault_details_problem
    evidence: dict[str, Any] = {}
    fault_type = node.fault_type
    fault_reason = node.fault_reason
    if fault_type:
        evidence["fault_type"] = clip(fault_type, 80)
    if fault_reason:
        evidence["fault_reason"] = clip(fault_reason, 80)
    if details:
        evidence["fault_details"] = [
            {clip(k, 40): clip(v, 160) for k, v in list(entry.items())[:8]}
            for entry in details[-3:]
        ]
    if problem:
        evidence["fault_details_problem"] = problem
    return evidence


def _fault_summary(evidence: dict[str, Any]) -> str:
    parts = [evidence[key] for key in ("fault_type", "fault_reason") if evidence.get(key)]
    if not parts:
        for entry in evidence.get("fault_details", [])[-1:]:
            parts = [v for k, v in entry.items() if k.lower() in ("type", "reason")][:2]
    return f" (fault: {' / '.join(parts)})" if parts else ""


@dataclass(frozen=True)
class JudgedNode:
    name: str
    instance_id: str | None
    group: str | None
    node: KubeNode


def _finding(
    problem: Problem, text: str, resources: list[str], evidence: dict[str, Any]
) -> Finding:
    if problem.status is Status.FAIL and problem.priority is not None:
        return fail(CHECK, problem.priority, problem.section, text, resources=resources, **evidence)
    if problem.status is Status.WARN and problem.priority is not None:
        return warn(CHECK, problem.priority, problem.section, text, resources=resources, **evidence)
    return info(CHECK, problem.section, text, resources=resources, **evidence)


def judge_node_health(
    nodes: list[JudgedNode],
    node_recovery: str | None = None,
    *,
    group_above: int | None = GROUP_ABOVE,
) -> list[Finding]:
    """One finding per node and problem; more than `group_above` nodes of one instance
    group with the same problem make one finding with a count and samples."""
    buckets: dict[tuple[str, str], list[tuple[JudgedNode, Problem]]] = defaultdict(list)
    history: list[Finding] = []
    for judged in nodes:
        problems = node_problems(judged.node, node_recovery)
        for problem in problems:
            buckets[(judged.group or "?", problem.kind)].append((judged, problem))
        faults = fault_evidence(judged.node)
        if not problems and faults:
            label = describe_node(judged.name, judged.instance_id, judged.group)
            history.append(
                FINDINGS.info(
                    f"Node {label} is healthy but carries fault labels or details"
                    f"{_fault_summary(faults)}: a past fault, kept for reference",
                    resources=[judged.instance_id or judged.name],
                    node=judged.name,
                    **faults,
                )
            )
    findings: list[Finding] = []
    for (group, _kind), members in sorted(buckets.items()):
        if group_above is not None and len(members) > group_above:
            findings.append(_grouped(group, members))
            continue
        for judged, problem in sorted(members, key=lambda m: m[0].name):
            label = describe_node(judged.name, judged.instance_id, judged.group)
            faults = fault_evidence(judged.node)
            evidence = {
                "node": judged.name,
                "instance_id": judged.instance_id,
                "group": judged.group,
                "node_health_status": judged.node.health_status,
                "deep_health_check_status": judged.node.deep_health_status,
                **problem.extra,
                **faults,
            }
            text = f"Node {label} {problem.text}"
            if problem.kind.startswith(("health:", "deep:")):
                text += _fault_summary(faults)
            findings.append(_finding(problem, text, [judged.instance_id or judged.name], evidence))
    findings += history
    if nodes and not buckets:
        findings.append(
            FINDINGS.passed(
                f"All {len(nodes):,} judged Kubernetes nodes are Ready, without pressure, "
                "and Schedulable by HyperPod's health labels",
                nodes=len(nodes),
            )
        )
    return findings


def _grouped(group: str, members: list[tuple[JudgedNode, Problem]]) -> Finding:
    problem = members[0][1]
    ids = sorted(j.instance_id or j.name for j, _ in members)
    reasons = Counter(fault_evidence(j.node).get("fault_reason") or "" for j, _ in members)
    common = [(r, c) for r, c in reasons.most_common(3) if r]
    text = f"{len(members):,} nodes of instance group {group} {problem.text}; e.g. {examples(ids)}"
    if common:
        text += "; most common fault reasons: " + ", ".join(f"{r} ({c:,}x)" for r, c in common)
    evidence = {
        "group": group,
        "problem": problem.kind,
        "count": len(members),
        "sample_instances": ids[:SAMPLES],
        "common_fault_reasons": [{"reason": r, "count": c} for r, c in common],
    }
    return _finding(problem, text, ids[:SAMPLES], evidence)


def judged_nodes(data: ClusterData) -> list[JudgedNode]:
    """The Kubernetes nodes in scope, with instance ids and groups."""
    groups = data.node_groups() or {}
    out: list[JudgedNode] = []
    for node in data.kube_nodes():
        instance = node.instance_id
        if data.target.node is not None and instance != data.target.node:
            continue
        group = node.group_label or (groups.get(instance) if instance else None)
        out.append(JudgedNode(node.name, instance, group, node))
    return out


@check(
    FINDINGS, title="EKS node health labels and conditions", orchestrators=("eks",), scope="node"
)
def k8s_node_health(data: ClusterData) -> Iterable[Finding]:
    """HyperPod's node-health-status / deep-health-check-status labels, fault details, and
    the Ready / pressure conditions of every Kubernetes node in scope."""
    nodes = judged_nodes(data)
    if data.target.node is not None and not nodes:
        return [
            FINDINGS.info(
                f"Node {data.target.node} has no Kubernetes node (see k8s-node-mapping)",
                resources=[data.target.node],
            )
        ]
    return judge_node_health(
        nodes,
        data.cluster().node_recovery,
        group_above=None if data.target.node is not None else GROUP_ABOVE,
    )
