"""§ F.2: HyperPod's health labels and fault details on EKS nodes, and node conditions.

Besides Ready and the pressure conditions, the Neuron node problem detector's condition
(§ G.5) is read here: AWS's Neuron NPD watches the kernel log for the driver's
NEURON_HW_ERR reports and sets `NeuronHealth` True with the reason
`NeuronHasError_<TYPE>` (SRAM, NeuronCore or HBM uncorrectable error, DMA error; some
configurations add HANG_ON_COLLECTIVES); its healthy state is False with
`NeuronHasNoError`. Each TYPE is routed through the remediation table
(`tools.remediation.neuron_report_signal`, after AWS's Neuron Runtime Troubleshooting guide):
the hardware classes are FAIL P0 with replacement, a hang on collectives is a WARN P1 that
points at the other workers and a workload restart, never at replacing this node.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tools.checks._grouping import GROUP_ABOVE
from tools.checks._kube import SAMPLES, describe_node, examples
from tools.findings import Finding, Findings, Priority, Status
from tools.registry import check
from tools.remediation import Replacement, Signal, advice, neuron_report_signal, rule, tagged
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


@dataclass(frozen=True, slots=True)
class Severity:
    status: Status
    priority: Priority | None
    section: str


class LabelState(StrEnum):
    """What HyperPod's health labels say keeps a node from work."""

    PENDING_REPLACEMENT = "pending-replacement"
    PENDING_REBOOT = "pending-reboot"
    DEEP_CHECK_RUNNING = "deep-check-running"  # Unschedulable while deep checks run
    UNSCHEDULABLE = "unschedulable"
    UNRECOGNISED = "unrecognised"  # a node-health-status value this tool does not know
    DEEP_CHECK_FAILED = "deep-check-failed"  # no problem label, but deep checks failed


@dataclass(frozen=True, slots=True)
class LabelProblem:
    key: str  # the grouping key, e.g. "health:UnschedulablePendingReboot"
    severity: Severity
    state: LabelState
    value: str  # the node-health-status label
    deep_failed: bool
    node_recovery: str | None


@dataclass(frozen=True, slots=True)
class NotReady:
    key: str
    severity: Severity
    ready: str  # the Ready condition's status: "False", "Unknown", ...
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Pressure:
    key: str
    severity: Severity
    condition: str  # MemoryPressure, DiskPressure, PIDPressure
    message: str


@dataclass(frozen=True, slots=True)
class NeuronError:
    key: str
    severity: Severity
    reason: str  # NeuronHasError_<TYPE>, clipped
    message: str
    signal: Signal  # the remediation row of TYPE


Problem = LabelProblem | NotReady | Pressure | NeuronError

_LABEL_STATES = {
    PENDING_REPLACEMENT: (LabelState.PENDING_REPLACEMENT, Status.FAIL, Priority.P0),
    PENDING_REBOOT: (LabelState.PENDING_REBOOT, Status.FAIL, Priority.P0),
    UNSCHEDULABLE: (LabelState.UNSCHEDULABLE, Status.FAIL, Priority.P1),
}


# The remediation row of the label states that call for a node action.
_LABEL_SIGNALS = {
    LabelState.PENDING_REPLACEMENT: Signal.LABEL_PENDING_REPLACEMENT,
    LabelState.PENDING_REBOOT: Signal.LABEL_PENDING_REBOOT,
    LabelState.DEEP_CHECK_FAILED: Signal.DEEP_HEALTH_CHECK_FAILED,
}


def label_problem(node: KubeNode, node_recovery: str | None) -> LabelProblem | None:
    """The rule over HyperPod's node-health-status and deep-health-check-status labels."""
    value, deep_status = node.health_status or "", node.deep_health_status
    deep_failed = deep_status == "Failed"
    key = f"health:{value}"
    if value == UNSCHEDULABLE and deep_status == DEEP_HEALTH_IN_PROGRESS:
        # HyperPod holds a node Unschedulable while its deep health checks run: an expected
        # transition with nothing to fix yet, so no FAIL; their verdict decides what's next.
        state, status, priority = LabelState.DEEP_CHECK_RUNNING, Status.INFO, None
        key += ":deep-running"
    elif value in _LABEL_STATES:
        state, status, priority = _LABEL_STATES[value]
    elif value and value != SCHEDULABLE:
        state, status, priority = LabelState.UNRECOGNISED, Status.WARN, Priority.P2
        key = f"health:{clip(value, 60)}"
    elif deep_failed:
        state, status, priority = LabelState.DEEP_CHECK_FAILED, Status.FAIL, Priority.P0
        key = "deep:Failed"
    else:
        return None
    severity = Severity(status, priority, "F.2")
    return LabelProblem(key, severity, state, value, deep_failed, node_recovery)


def ready_problem(node: KubeNode) -> NotReady | None:
    """A node whose Ready condition is not True."""
    state = node.ready_status
    if state == "True":
        return None
    entry = node.condition("Ready")
    reason = entry.reason if entry else ""
    message = entry.message if entry else ""
    if state == "False":
        # The kubelet is alive and says why it is not ready: most often the runtime (§ M)
        # or the CNI not being initialised (§ O).
        network = any(word in message.lower() for word in _NETWORK_WORDS)
        severity = Severity(Status.FAIL, Priority.P0, "O" if network else "M")
        return NotReady("ready:False", severity, state, reason, message)
    # Unknown: the kubelet stopped reporting at all; the instance is hung, rebooting or
    # cut off, which the kernel and system evidence (§ N) explains.
    return NotReady(
        "ready:Unknown", Severity(Status.FAIL, Priority.P0, "N"), state, reason, message
    )


def pressure_problems(node: KubeNode) -> list[Pressure]:
    """Each pressure condition the node reports True, in PRESSURES order."""
    problems: list[Pressure] = []
    for kind, section in PRESSURES.items():
        entry = node.condition(kind)
        if entry and entry.status == "True":
            severity = Severity(Status.FAIL, Priority.P1, section)
            problems.append(Pressure(f"pressure:{kind}", severity, kind, entry.message))
    return problems


def neuron_problem(node: KubeNode) -> NeuronError | None:
    """The Neuron node problem detector's condition set True (§ G.5)."""
    entry = node.condition(NEURON_CONDITION)
    if not entry or entry.status != "True":
        return None
    reason = clip(entry.reason or "no reason", 80)
    # The condition message quotes the kernel line, action= included: the same routing
    # as the kernel-log check (neuron-driver-errors) reads it.
    signal = neuron_report_signal(entry.reason, entry.message)
    replacement = rule(signal).replacement
    if replacement is Replacement.NEVER:
        # A hang on collectives points at another worker: not this node's fault by itself.
        severity = Severity(Status.WARN, Priority.P1, "G.5")
    else:
        priority = Priority.P1 if signal is Signal.NEURON_UNKNOWN else Priority.P0
        severity = Severity(Status.FAIL, priority, "G.5")
    return NeuronError(f"neuron:{reason}", severity, reason, entry.message, signal)


def node_problems(node: KubeNode, node_recovery: str | None) -> list[Problem]:
    """Every problem of one node, in report order: labels, Ready, pressure, Neuron."""
    problems: list[Problem] = []
    for found in (label_problem(node, node_recovery), ready_problem(node)):
        if found is not None:
            problems.append(found)
    problems += pressure_problems(node)
    neuron = neuron_problem(node)
    if neuron is not None:
        problems.append(neuron)
    return problems


def _recovery_clause(action: str, node_recovery: str | None) -> str:
    if node_recovery == "Automatic":
        return (
            f"HyperPod will {action} it (NodeRecovery Automatic); if the label stays, "
            "check capacity (§ C)"
        )
    if node_recovery == "None":
        return f"NodeRecovery is None, so HyperPod waits: {action} it yourself (§ F.4)"
    return f"HyperPod will {action} it when NodeRecovery is Automatic (§ F.1)"


def _label_text(problem: LabelProblem) -> str:
    value, state = problem.value, problem.state
    deep = "; deep health checks failed (GPU evidence: § G)" if problem.deep_failed else ""
    if state in (LabelState.PENDING_REPLACEMENT, LabelState.PENDING_REBOOT):
        action = "replace" if state is LabelState.PENDING_REPLACEMENT else "reboot"
        return (
            f"is labelled {value}: a health check failed{deep}; "
            f"{_recovery_clause(action, problem.node_recovery)}"
        )
    if state is LabelState.DEEP_CHECK_RUNNING:
        return (
            f"is labelled {value} while its deep health check is running "
            f"(deep-health-check-status {DEEP_HEALTH_IN_PROGRESS}): an expected "
            "transition; HyperPod keeps work off the node until the checks pass (then "
            "Schedulable) or fail (then a reboot or replacement label)"
        )
    if state is LabelState.UNSCHEDULABLE:
        return (
            f"is labelled {value}{deep}: HyperPod is running deep health checks and keeps "
            "work off the node until they pass (then Schedulable) or fail (then a reboot "
            "or replacement label)"
        )
    if state is LabelState.UNRECOGNISED:
        return f"has an unrecognised node-health-status {quoted(value, 60)}{deep}"
    return f"failed its deep health checks: {advice(Signal.DEEP_HEALTH_CHECK_FAILED)} (§ F.4)"


def problem_text(problem: Problem) -> str:
    """What follows the node's description: "is labelled …", "reports MemoryPressure"."""
    if isinstance(problem, LabelProblem):
        return _label_text(problem)
    if isinstance(problem, NotReady):
        reason, message = problem.reason, problem.message
        said = f" ({clip(reason, 60)}: {quoted(message, 160)})" if reason or message else ""
        if problem.ready == "False":
            return f"is NotReady{said}: the kubelet reports it cannot run pods"
        return f"is NotReady (Ready={clip(problem.ready, 20)}{said}): the kubelet stopped reporting"
    message = problem.message
    if isinstance(problem, Pressure):
        return f"reports {problem.condition}" + (f" ({quoted(message, 120)})" if message else "")
    said = f" ({quoted(message, 120)})" if message else ""
    row = rule(problem.signal)
    if row.replacement is Replacement.NEVER:
        return (
            f"has {NEURON_CONDITION}=True from the Neuron node problem detector, reason "
            f"{problem.reason}{said} — {row.advice}"
        )
    return (
        f"has {NEURON_CONDITION}=True from the Neuron node problem detector, reason "
        f"{problem.reason}{said} — read the health labels and the HMA stream first "
        f"(§ F.2, § F.3), then {row.advice} (§ F.4)"
    )


def _problem_evidence(problem: Problem) -> dict[str, Any]:
    if isinstance(problem, NotReady):
        ready = {"status": problem.ready, "reason": clip(problem.reason, 60)}
        return {"ready": {**ready, "message": clip(problem.message)}}
    if isinstance(problem, NeuronError):
        return {
            "neuron_health": {"reason": problem.reason, "message": clip(problem.message)},
            **tagged(problem.signal),
        }
    if isinstance(problem, LabelProblem) and problem.state in _LABEL_SIGNALS:
        return tagged(_LABEL_SIGNALS[problem.state])
    return {}


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


def _has_fault_record(node: KubeNode) -> bool:
    return bool(
        node.fault_type or node.fault_reason or node.fault_details or node.fault_details_problem
    )


@dataclass(frozen=True)
class JudgedNode:
    name: str
    instance_id: str | None
    group: str | None
    node: KubeNode


@dataclass(frozen=True, slots=True)
class NodeProblem:
    """One node's problem, reported on its own."""

    judged: JudgedNode
    problem: Problem


@dataclass(frozen=True, slots=True)
class GroupProblem:
    """The same problem on more nodes of one instance group than are reported one by one."""

    group: str
    members: tuple[tuple[JudgedNode, Problem], ...]


@dataclass(frozen=True, slots=True)
class PastFault:
    """A node without a problem that still carries fault labels or details."""

    judged: JudgedNode


@dataclass(frozen=True, slots=True)
class AllHealthy:
    nodes: int


NodeVerdict = NodeProblem | GroupProblem | PastFault | AllHealthy


def health_verdicts(
    nodes: list[JudgedNode], node_recovery: str | None, group_above: int | None
) -> list[NodeVerdict]:
    """The rule over every node, in report order: problems by (group, problem) — grouped
    above `group_above` nodes, else one per node by name — then past faults, then PASS
    when no node has a problem."""
    buckets: dict[tuple[str, str], list[tuple[JudgedNode, Problem]]] = defaultdict(list)
    history: list[NodeVerdict] = []
    for judged in nodes:
        problems = node_problems(judged.node, node_recovery)
        for problem in problems:
            buckets[(judged.group or "?", problem.key)].append((judged, problem))
        if not problems and _has_fault_record(judged.node):
            history.append(PastFault(judged))
    verdicts: list[NodeVerdict] = []
    for (group, _key), members in sorted(buckets.items()):
        if group_above is not None and len(members) > group_above:
            verdicts.append(GroupProblem(group, tuple(members)))
            continue
        ordered = sorted(members, key=lambda m: m[0].name)
        verdicts += [NodeProblem(judged, problem) for judged, problem in ordered]
    verdicts += history
    if nodes and not buckets:
        verdicts.append(AllHealthy(len(nodes)))
    return verdicts


def _finding(
    severity: Severity, text: str, resources: list[str], evidence: dict[str, Any]
) -> Finding:
    bound = FINDINGS.at(severity.section)
    if severity.status is Status.FAIL and severity.priority is not None:
        return bound.fail(severity.priority, text, resources=resources, **evidence)
    if severity.status is Status.WARN and severity.priority is not None:
        return bound.warn(severity.priority, text, resources=resources, **evidence)
    return bound.info(text, resources=resources, **evidence)


def _node_problem(judged: JudgedNode, problem: Problem) -> Finding:
    label = describe_node(judged.name, judged.instance_id, judged.group)
    faults = fault_evidence(judged.node)
    evidence = {
        "node": judged.name,
        "instance_id": judged.instance_id,
        "group": judged.group,
        "node_health_status": judged.node.health_status,
        "deep_health_check_status": judged.node.deep_health_status,
        **_problem_evidence(problem),
        **faults,
    }
    text = f"Node {label} {problem_text(problem)}"
    if isinstance(problem, LabelProblem):
        text += _fault_summary(faults)
    return _finding(problem.severity, text, [judged.instance_id or judged.name], evidence)


def _grouped(group: str, members: tuple[tuple[JudgedNode, Problem], ...]) -> Finding:
    problem = members[0][1]
    ids = sorted(j.instance_id or j.name for j, _ in members)
    reasons = Counter(fault_evidence(j.node).get("fault_reason") or "" for j, _ in members)
    common = [(r, c) for r, c in reasons.most_common(3) if r]
    text = (
        f"{len(members):,} nodes of instance group {group} {problem_text(problem)}; "
        f"e.g. {examples(ids)}"
    )
    if common:
        text += "; most common fault reasons: " + ", ".join(f"{r} ({c:,}x)" for r, c in common)
    evidence = {
        "group": group,
        "problem": problem.key,
        "count": len(members),
        "sample_instances": ids[:SAMPLES],
        "common_fault_reasons": [{"reason": r, "count": c} for r, c in common],
    }
    return _finding(problem.severity, text, ids[:SAMPLES], evidence)


def word_health(verdict: NodeVerdict) -> Finding:
    """The finding that states one verdict on the cluster's Kubernetes nodes."""
    if isinstance(verdict, NodeProblem):
        return _node_problem(verdict.judged, verdict.problem)
    if isinstance(verdict, GroupProblem):
        return _grouped(verdict.group, verdict.members)
    if isinstance(verdict, PastFault):
        judged = verdict.judged
        faults = fault_evidence(judged.node)
        return FINDINGS.info(
            f"Node {describe_node(judged.name, judged.instance_id, judged.group)} is healthy "
            f"but carries fault labels or details{_fault_summary(faults)}: a past fault, kept "
            "for reference",
            resources=[judged.instance_id or judged.name],
            node=judged.name,
            **faults,
        )
    return FINDINGS.passed(
        f"All {verdict.nodes:,} judged Kubernetes nodes are Ready, without pressure, "
        "and Schedulable by HyperPod's health labels",
        nodes=verdict.nodes,
    )


def judge_node_health(
    nodes: list[JudgedNode],
    node_recovery: str | None = None,
    *,
    group_above: int | None = GROUP_ABOVE,
) -> list[Finding]:
    """One finding per node and problem; more than `group_above` nodes of one instance
    group with the same problem make one finding with a count and samples."""
    return [word_health(v) for v in health_verdicts(nodes, node_recovery, group_above)]


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
