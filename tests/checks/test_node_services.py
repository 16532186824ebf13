"""§ K / § M / § H node-services: the units each orchestrator and role needs."""

from __future__ import annotations

from cluster_simulator import base
from cluster_simulator.node_samples import system
from tools.checks.node_services import CHECK_ID, judge_services, node_services, slurm_role
from tools.findings import Priority, Status
from tools.parsers.systemd import parse_units
from tools.probes.model import ProbeOutput

from ._node_data import (
    GPU_NODE,
    SLURM_CONTROLLER,
    SLURM_WORKER,
    assert_well_formed,
    healthy_outputs,
    node,
    node_data,
    statuses,
)


def units(states: dict[str, str]) -> str:
    return system.services(states)


def test_healthy_eks_and_slurm_nodes() -> None:
    assert judge_services("i-1", parse_units(units(system.eks_services())), "eks") == ([], [])
    worker = parse_units(units(system.slurm_services()))
    assert judge_services("i-1", worker, "slurm") == ([], [])
    controller = parse_units(units(system.slurm_services(controller=True)))
    assert judge_services("i-1", controller, "slurm", "controller") == ([], [])
    login = parse_units(units(system.slurm_services(slurmd="missing")))
    assert judge_services("i-1", login, "slurm", "login") == ([], [])


def test_kubelet_failed_on_eks_fails_p0_under_m() -> None:
    """P0 as the NotReady node it turns into (k8s-node-health): one cause, one priority."""
    findings, unknown = judge_services(
        "i-1", parse_units(units(system.eks_services(kubelet="restarting"))), "eks"
    )
    [finding] = findings
    assert unknown == []
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P0, "M")
    assert finding.check == CHECK_ID
    assert "kubelet" in finding.message
    assert "activating/auto-restart" in finding.message
    assert_well_formed([finding])


def test_kubelet_is_not_required_on_slurm_nor_slurmd_on_eks() -> None:
    eks = parse_units(units(system.eks_services(slurmd="missing", munge="missing")))
    assert judge_services("i-1", eks, "eks")[0] == []
    slurm = parse_units(units(system.slurm_services(kubelet="missing")))
    assert judge_services("i-1", slurm, "slurm")[0] == []


def test_slurm_worker_and_controller_daemons() -> None:
    worker = parse_units(units(system.slurm_services(munge="inactive", slurmd="missing")))
    findings, _ = judge_services("i-1", worker, "slurm")
    assert [(f.section, f.priority, f.evidence["unit"]) for f in findings] == [
        ("H", Priority.P1, "slurmd.service"),
        ("H", Priority.P1, "munge.service"),
    ]
    assert "not installed" in findings[0].message
    assert "inactive/dead" in findings[1].message
    controller = parse_units(units(system.slurm_services(controller=True, slurmctld="failed")))
    [finding] = judge_services("i-1", controller, "slurm", "controller")[0]
    assert (finding.priority, finding.evidence["unit"]) == (Priority.P0, "slurmctld.service")


def test_a_login_node_needs_munge_and_the_ssm_agent_but_no_slurmd() -> None:
    no_slurmd = parse_units(units(system.slurm_services(slurmd="missing")))
    assert judge_services("i-1", no_slurmd, "slurm", "login") == ([], [])
    # The same node judged as a compute node is missing its slurmd.
    [compute] = judge_services("i-1", no_slurmd, "slurm", "compute")[0]
    assert compute.evidence["unit"] == "slurmd.service"
    states = system.slurm_services(slurmd="missing", munge="failed")
    states["snap.amazon-ssm-agent.amazon-ssm-agent"] = "inactive"
    broken = parse_units(units(states))
    findings, unknown = judge_services("i-1", broken, "slurm", "login")
    assert unknown == []
    assert [(f.section, f.priority, f.evidence["unit"]) for f in findings] == [
        ("K", Priority.P1, "snap.amazon-ssm-agent.amazon-ssm-agent.service"),
        ("H", Priority.P1, "munge.service"),
    ]


def test_slurm_roles_follow_the_instance_group() -> None:
    assert slurm_role("gpu-workers", controller=False) == "compute"
    assert slurm_role("login-nodes", controller=False) == "login"
    assert slurm_role("Login", controller=False) == "login"
    assert slurm_role("controller-machine", controller=False) == "controller"
    assert slurm_role("head", controller=False) == "controller"
    # The controller found for the cluster is the controller whatever its group is called.
    assert slurm_role("anything", controller=True) == "controller"


def test_containerd_on_slurm_is_optional_but_a_stopped_one_warns() -> None:
    stopped = parse_units(units(system.slurm_services(containerd="failed")))
    [finding] = judge_services("i-1", stopped, "slurm")[0]
    assert (finding.status, finding.priority, finding.section) == (Status.WARN, Priority.P2, "M")
    absent = parse_units(units(system.slurm_services(containerd="missing")))
    assert judge_services("i-1", absent, "slurm")[0] == []


def test_ssm_agent_states() -> None:
    snap_only = system.eks_services(
        **{"amazon-ssm-agent": "missing", "snap.amazon-ssm-agent.amazon-ssm-agent": "running"}
    )
    assert judge_services("i-1", parse_units(units(snap_only)), "eks")[0] == []
    stopped = parse_units(units(system.eks_services(**{"amazon-ssm-agent": "inactive"})))
    [finding] = judge_services("i-1", stopped, "eks")[0]
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P1, "K")
    neither = parse_units(units(system.eks_services(**{"amazon-ssm-agent": "missing"})))
    [note] = judge_services("i-1", neither, "eks")[0]
    assert note.status is Status.INFO


def test_units_missing_from_the_output_are_unknown_not_failed() -> None:
    text = "Id=containerd.service\nLoadState=loaded\nActiveState=active\nSubState=running\n"
    findings, unknown = judge_services("i-1", parse_units(text), "eks")
    assert findings == []
    assert unknown == ["amazon-ssm-agent", "kubelet"]


def test_registered_check_on_eks() -> None:
    broken = units(system.eks_services(containerd="failed"))
    data = node_data(node(GPU_NODE, services=broken))
    findings = list(node_services(data))
    assert [(f.status, f.priority, f.section) for f in findings] == [
        (Status.FAIL, Priority.P0, "M")
    ]
    assert findings[0].resources == [GPU_NODE]


def test_registered_check_on_slurm_knows_the_controller() -> None:
    controller_outputs = healthy_outputs("slurm", controller=True)
    data = node_data(
        node(
            SLURM_CONTROLLER,
            group="controller",
            instance_type="ml.m5.4xlarge",
            outputs=controller_outputs,
        ),
        node(
            SLURM_WORKER,
            outputs=healthy_outputs("slurm"),
            services=units(system.slurm_services(slurmd="failed")),
        ),
        orchestrator="slurm",
    )
    findings = list(node_services(data))
    assert [(f.status, f.resources) for f in findings] == [
        (Status.FAIL, [SLURM_WORKER]),
        (Status.PASS, [SLURM_CONTROLLER]),
    ]
    assert findings[0].evidence["unit"] == "slurmd.service"
    assert findings[1].evidence["orchestrator"] == "slurm"


def test_registered_check_on_slurm_knows_login_nodes() -> None:
    login_services = units(system.slurm_services(slurmd="missing"))
    data = node_data(
        node(
            SLURM_CONTROLLER,
            group="controller",
            instance_type="ml.m5.4xlarge",
            outputs=healthy_outputs("slurm", controller=True),
        ),
        node(
            SLURM_WORKER, group="login", outputs=healthy_outputs("slurm"), services=login_services
        ),
        node(
            base.instance_id(3),
            outputs=healthy_outputs("slurm"),
            services=units(system.slurm_services(slurmd="missing")),
        ),
        orchestrator="slurm",
    )
    findings = list(node_services(data))
    assert [(f.status, f.resources) for f in findings] == [
        (Status.FAIL, [base.instance_id(3)]),
        (Status.PASS, [SLURM_CONTROLLER, SLURM_WORKER]),
    ]
    assert findings[0].evidence["unit"] == "slurmd.service"
    assert "not installed" in findings[0].message


def test_registered_check_without_systemctl() -> None:
    text = "System has not been booted with systemd as init system (PID 1). Can't operate.\n"
    data = node_data(node(GPU_NODE, services=ProbeOutput(stdout=text, exit_code=1)))
    findings = list(node_services(data))
    assert statuses(findings) == [Status.INFO]
    assert "not been booted with systemd" in findings[0].message
