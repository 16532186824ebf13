"""Which nodes a triage probes, and which probes each node gets."""

from __future__ import annotations

import pytest

from cluster_simulator import base
from cluster_simulator.edits import set_status
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.probes.model import NodeProbes, ProbeOutput
from tools.probes.runner import ProbePlan, ProbeRunner
from tools.probes.transport import RecordedProbes
from tools.sources import ProbesUnavailable
from tools.target import TriageTarget
from tools.triage.data import ClusterData, NodeSources


def data_for(world: World, node: str | None = None, **sources: object) -> ClusterData:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region, node=node)
    return ClusterData(
        AwsAccess(world.region, replay=world),
        target,
        now=base.RECORDED_AT,
        sources=NodeSources(**sources),  # type: ignore[arg-type]
    )


def ids_by_group(world: World, group: str) -> list[str]:
    return [n["InstanceId"] for n in world.nodes if n["InstanceGroupName"] == group]


def planned(data: ClusterData) -> list[str]:
    return [plan.target.instance_id for plan in data.probe_plans()]


def test_healthy_cluster_probes_one_accelerator_node() -> None:
    world = base.healthy_eks()
    assert planned(data_for(world)) == ids_by_group(world, base.GPU_GROUP)[:1]


def test_failing_nodes_come_first_then_one_accelerator_node() -> None:
    world = base.healthy_eks()
    cpu = ids_by_group(world, base.CPU_GROUP)[1]
    set_status(world, cpu, "Failure", "Instance failed health checks")
    assert planned(data_for(world)) == [cpu, ids_by_group(world, base.GPU_GROUP)[0]]


def test_a_failing_accelerator_node_needs_no_extra_one() -> None:
    world = base.healthy_eks()
    gpu = ids_by_group(world, base.GPU_GROUP)[2]
    set_status(world, gpu, "Failure", "7 of 8 GPUs")
    assert planned(data_for(world)) == [gpu]


def test_expected_transitions_are_not_failures() -> None:
    world = base.healthy_eks()
    gpu = ids_by_group(world, base.GPU_GROUP)
    set_status(world, gpu[0], "SystemUpdating", "")
    set_status(world, gpu[1], "DeepHealthCheckInProgress", "")
    assert planned(data_for(world)) == [gpu[2]]


def test_failing_nodes_are_capped() -> None:
    world = base.healthy_eks()
    for instance in ids_by_group(world, base.GPU_GROUP):
        set_status(world, instance, "Failure", "down")
    assert len(planned(data_for(world, max_failing_nodes=2))) == 2


def test_focus_node_is_the_only_one() -> None:
    world = base.healthy_eks()
    cpu = ids_by_group(world, base.CPU_GROUP)[0]
    assert planned(data_for(world, node=cpu)) == [cpu]


def test_slurm_controller_is_never_the_accelerator_pick() -> None:
    world = base.healthy_slurm()
    controller = ids_by_group(world, base.CONTROLLER_GROUP)[0]
    data = data_for(world)
    assert data.slurm_controller_node() is not None
    assert planned(data) == ids_by_group(world, base.GPU_GROUP)[:1]
    assert controller not in planned(data)


def test_probe_sets_follow_the_instance_type() -> None:
    world = base.healthy_slurm()
    plans = {p.target.group: p for p in data_for(world, node=None).probe_plans()}
    gpu = plans[base.GPU_GROUP].probes
    assert {"gpu_list", "gpu_row_remap", "efa_devices", "disk_usage"} <= set(gpu)
    assert "neuron_devices" not in gpu
    assert not any(name.startswith("slurm_") for name in gpu)
    cpu = data_for(world).node_probe_names("ml.m5.4xlarge")
    assert "gpu_list" not in cpu
    assert "efa_devices" not in cpu


def test_ssm_target_uses_the_cluster_id_not_its_name() -> None:
    world = base.healthy_eks()
    plan: ProbePlan = data_for(world).probe_plans()[0]
    cluster_id = world.cluster["ClusterArn"].rsplit("/", 1)[1]
    assert plan.target.ssm_target == (
        f"sagemaker-cluster:{cluster_id}_{base.GPU_GROUP}-{plan.target.instance_id}"
    )
    assert world.cluster["ClusterName"] not in plan.target.ssm_target


def test_probe_results_are_read_once_and_unreachable_nodes_kept() -> None:
    world = base.healthy_eks()
    gpu = ids_by_group(world, base.GPU_GROUP)[0]
    calls: list[str] = []

    class Counting(RecordedProbes):
        def run_command(self, target: object, command: str, timeout_s: float) -> str:
            calls.append(command)
            return super().run_command(target, command, timeout_s)  # type: ignore[arg-type]

    transport = Counting({gpu: {"meminfo": ProbeOutput(stdout="MemTotal: 1 kB\n")}})
    runner = ProbeRunner(transport)
    data = data_for(world, probes=lambda: runner)
    first = data.node_probes()
    assert data.node_probes() is first
    assert len(calls) == 1
    assert first[gpu].output("meminfo") == ProbeOutput(stdout="MemTotal: 1 kB\n")

    unreachable = RecordedProbes({}, {gpu: "TargetNotConnected"})
    data = data_for(world, probes=lambda: ProbeRunner(unreachable))
    result: NodeProbes = data.node_probes()[gpu]
    assert result.unreachable == "TargetNotConnected"
    assert data.reachable_nodes() == []


def test_probes_unavailable_is_raised_and_remembered() -> None:
    attempts: list[int] = []

    def missing() -> ProbeRunner:
        attempts.append(1)
        raise ProbesUnavailable("session-manager-plugin not found on PATH")

    data = data_for(base.healthy_eks(), probes=missing)
    for _ in range(2):
        with pytest.raises(ProbesUnavailable, match="session-manager-plugin"):
            data.node_probes()
    assert attempts == [1]
