"""§ K, § M, § H: the node's daemons: SSM agent, containerd and kubelet, slurmd / munge.

Which units must run depends on the orchestrator and the node's role: containerd and
kubelet on EKS workers (§ M); munge everywhere on Slurm, slurmd on Slurm compute nodes and
slurmctld on the controller (§ H); a login node runs neither daemon, only munge (its users
submit jobs, which munge signs); an SSM agent everywhere (§ K; deb / rpm or snap unit).
A required unit that is not installed or not active is a FAIL: P0 for the Slurm
controller's daemons (nothing schedules without them) and for an EKS worker's containerd or
kubelet (no pod can start there and the kubelet soon reports the node NotReady, which
k8s-node-health already calls P0: one cause, one priority; see the decision in § M), P1 for
another Slurm node's daemons (that node is lost to the cluster). containerd on Slurm is
optional (only Docker container jobs need it; Enroot / Pyxis pull images without it):
installed but not running is a WARN P2.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from tools.checks._node_reads import healthy_summary, partly_read, read_probe, unreadable
from tools.checks._slurm import NOT_COMPUTE_GROUP
from tools.findings import Finding, Findings, Priority, fail
from tools.parsers.systemd import Units, UnitState, parse_units
from tools.registry import check
from tools.text import clip
from tools.triage.data import ClusterData
from tools.triage.data.node_probes import CONTROLLER_GROUP

CHECK_ID = "node-services"
FINDINGS = Findings(CHECK_ID, "K")
SSM_UNITS = ("amazon-ssm-agent", "snap.amazon-ssm-agent.amazon-ssm-agent")

# A Slurm node's part in the cluster, which decides the daemons it needs.
SlurmRole = Literal["controller", "login", "compute"]


@dataclass(frozen=True)
class Required:
    unit: str
    section: str
    priority: Priority
    role: str  # what the unit does, for the message


def slurm_role(group: str, controller: bool) -> SlurmRole:
    """`controller` when the node is the controller found for the cluster or sits in a
    controller group; `login` for the other groups that hold no compute nodes."""
    if controller or CONTROLLER_GROUP.search(group):
        return "controller"
    if NOT_COMPUTE_GROUP.search(group):
        return "login"
    return "compute"


def required_units(orchestrator: str, role: SlurmRole = "compute") -> list[Required]:
    if orchestrator == "eks":
        return [
            Required("containerd", "M", Priority.P0, "container runtime"),
            Required("kubelet", "M", Priority.P0, "Kubernetes node agent"),
        ]
    if role == "controller":
        return [
            Required("slurmctld", "H", Priority.P0, "Slurm controller"),
            Required("munge", "H", Priority.P0, "Slurm authentication"),
        ]
    if role == "login":
        # No slurmd: a login node is not in sinfo and runs no jobs.
        return [Required("munge", "H", Priority.P1, "Slurm authentication")]
    return [
        Required("slurmd", "H", Priority.P1, "Slurm node daemon"),
        Required("munge", "H", Priority.P1, "Slurm authentication"),
    ]


def _states(unit: UnitState) -> dict[str, str | None]:
    """systemctl's words for a unit, as evidence: the node's text, so clipped."""
    return {
        "unit": clip(unit.id, 120),
        "load_state": clip(unit.load_state) if unit.load_state else None,
        "active_state": clip(unit.active_state) if unit.active_state else None,
        "sub_state": clip(unit.sub_state) if unit.sub_state else None,
    }


def _not_running(node: str, unit: UnitState, need: Required) -> Finding:
    what = f"is {clip(unit.state, 80)}" if unit.installed else "is not installed"
    return fail(
        CHECK_ID,
        need.priority,
        need.section,
        f"{need.unit} ({need.role}) {what} on {node}",
        resources=[node],
        **_states(unit),
    )


def judge_services(
    node: str, units: Units, orchestrator: str, role: SlurmRole = "compute"
) -> tuple[list[Finding], list[str]]:
    """(problems, units the output did not cover) for one node (`node`: its instance id;
    `role` matters on Slurm only)."""
    findings: list[Finding] = []
    unknown: list[str] = []
    findings += _judge_ssm(node, units, unknown)
    for need in required_units(orchestrator, role):
        unit = units.get(need.unit)
        if unit is None:
            unknown.append(need.unit)
        elif not (unit.installed and unit.active):
            findings.append(_not_running(node, unit, need))
    if orchestrator != "eks":
        containerd = units.get("containerd")
        if containerd is not None and containerd.installed and not containerd.active:
            findings.append(
                FINDINGS.at("M").warn(
                    Priority.P2,
                    f"containerd is {clip(containerd.state, 80)} on {node}: Docker container "
                    "jobs cannot start there",
                    resources=[node],
                    **_states(containerd),
                )
            )
    return findings, unknown


def _judge_ssm(node: str, units: Units, unknown: list[str]) -> list[Finding]:
    agents = [u for name in SSM_UNITS if (u := units.get(name)) is not None]
    if not agents:
        unknown.append("amazon-ssm-agent")
        return []
    if any(u.installed and u.active for u in agents):
        return []
    installed = [u for u in agents if u.installed]
    if not installed:
        return [
            FINDINGS.info(
                f"No SSM agent unit ({', '.join(SSM_UNITS)}) is installed on {node}, although "
                "the node answered over SSM: the agent runs under another name",
                resources=[node],
            )
        ]
    agent = installed[0]
    return [
        FINDINGS.fail(
            Priority.P1,
            f"SSM agent {clip(agent.name, 80)} is {clip(agent.state, 80)} on {node}: the node "
            "drops out of "
            "Session Manager once the current session ends",
            resources=[node],
            **_states(agent),
        )
    ]


@check(FINDINGS, title="Node services", scope="node")
def node_services(data: ClusterData) -> Iterable[Finding]:
    """SSM agent, containerd and kubelet (EKS), slurmd / slurmctld and munge (Slurm)."""
    findings: list[Finding] = []
    healthy: list[str] = []
    orchestrator = data.orchestrator
    controller = data.slurm_controller_node() if orchestrator == "slurm" else None
    controller_id = controller.instance_id if controller else None
    for node in data.reachable_nodes():
        read = read_probe(node, "services")
        units = parse_units(read.text)
        if not units.units:
            problem = units.unavailable or read.problem
            findings.append(unreadable(FINDINGS, "the service states", node, problem, "services"))
            continue
        if read.truncated:
            findings.append(partly_read(CHECK_ID, "K", "the service states", node, "services"))
        role = slurm_role(node.group, node.instance_id == controller_id)
        problems, unknown = judge_services(node.instance_id, units, orchestrator, role)
        findings += problems
        if unknown:
            findings.append(
                unreadable(
                    FINDINGS,
                    f"the state of {', '.join(unknown)}",
                    node,
                    read.problem or "systemctl printed no block for it",
                    "services",
                )
            )
        if not problems and not unknown:
            healthy.append(node.instance_id)
    return findings + healthy_summary(
        CHECK_ID, "K", "Required services running", healthy, orchestrator=orchestrator
    )
