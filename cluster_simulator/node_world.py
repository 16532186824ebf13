"""The node level of a bundled world: what each node prints for its probes, the Kubernetes
objects of an EKS cluster, and the Slurm controller's view of a Slurm cluster.

`add_node_level(world)` makes every node of a base world healthy at node level; scenario
edits then plant one fault each (see the scenarios_*.py modules). Outputs come from
cluster_simulator/node_samples, which mirror what the catalogued commands print.
"""

from __future__ import annotations

from cluster_simulator import base
from cluster_simulator.node_samples import accelerators as accel
from cluster_simulator.node_samples import deep_health_check as dhc
from cluster_simulator.node_samples import k8s_objects, slurm, system
from cluster_simulator.world import Json, World
from tools.probes.instance_facts import InstanceFacts, ec2_type, fallback, from_describe
from tools.probes.model import ProbeOutput

CONTROLLER_PROBES = ("slurm_nodes", "slurm_stuck_jobs", "slurm_controller", "slurm_resource_config")


def _out(stdout: str, exit_code: int = 0) -> ProbeOutput:
    return ProbeOutput(stdout=stdout, exit_code=exit_code)


def slurm_name(node: Json) -> str:
    return str(node["PrivateDnsHostname"]).split(".", 1)[0]


def node_ip(node: Json) -> str:
    return slurm_name(node).removeprefix("ip-").replace("-", ".")


def facts_of(world: World, instance_type: str) -> InstanceFacts:
    """The world's own DescribeInstanceTypes answer for the type, else the built-in table."""
    name = ec2_type(instance_type)
    for entry in world.instance_types:
        if entry.get("InstanceType") == name:
            return from_describe(entry)
    return fallback(name)


def healthy_outputs(world: World, node: Json) -> dict[str, ProbeOutput]:
    """Every probe a healthy node of this type answers, as its commands print them."""
    facts = facts_of(world, str(node["InstanceType"]))
    eks = "Eks" in (world.cluster.get("Orchestrator") or {})
    group = next(
        g
        for g in world.cluster["InstanceGroups"]
        if g["InstanceGroupName"] == node["InstanceGroupName"]
    )
    threads = int(group.get("ThreadsPerCore", 2))
    vcpus = facts.vcpus or 8
    if threads == 1:
        vcpus //= 2
    states = (
        system.eks_services()
        if eks
        else system.slurm_services(controller=slurm_controller(world) is node)
    )
    outputs = {
        "disk_usage": _out(system.df_usage(nvme_exists=facts.instance_store)),
        "disk_inodes": _out(system.df_inodes(nvme_exists=facts.instance_store)),
        "meminfo": _out(system.meminfo()),
        "uptime": _out(system.uptime()),
        "cpu": _out(system.lscpu(cpus=vcpus, threads_per_core=threads)),
        "kernel_release": _out(system.kernel_release()),
        "kernel_log": _out(system.kernel_log()),
        "kernel_log_previous_boot": _out(system.kernel_log_previous_boot(None)),
        "time_sync": _out(system.time_sync()),
        "services": _out(system.services(states)),
        "net_interfaces": _out(
            system.net_interfaces([(*system.PRIMARY_NIC[:2], f"{node_ip(node)}/20")])
        ),
        "imds": _out(system.imds(facts.instance_type)),
    }
    if facts.gpus:
        outputs |= {
            "gpu_list": _out(accel.gpu_list(facts.gpus)),
            "gpu_query": _out(accel.gpu_query(accel.GpuQuerySpec(facts.gpus))),
            "gpu_row_remap": _out(accel.row_remap(accel.RowRemapSpec(facts.gpus))),
            "gpu_page_retirement": _out(accel.page_retirement(facts.gpus)),
            "dcgm_health": _out(accel.dcgm_health()),
            "dcgm_diag_logs": _out(accel.dcgm_diag_logs()),
            "nvidia_driver": _out(accel.nvidia_driver()),
            "nccl_libraries": _out(accel.nccl_libraries()),
        }
    if facts.neuron_devices:
        outputs["neuron_devices"] = _out(accel.neuron_ls(facts.neuron_devices, facts.instance_type))
        outputs["neuron_device_files"] = _out(accel.neuron_device_files(facts.neuron_devices))
    if facts.efa_interfaces:
        outputs |= {
            "efa_module": _out(accel.lsmod()),
            "efa_devices": _out(accel.infiniband(facts.efa_interfaces)),
            "efa_provider": _out(accel.fi_info(facts.efa_interfaces)),
            "efa_packages": _out(accel.efa_packages()),
            "ofi_nccl_plugin": _out(accel.ofi_nccl_plugin()),
            # The on-start deep health check of a healthy node passed.
            "deep_health_check_log": _out(dhc.node_log("pass")),
        }
    return outputs


def slurm_controller(world: World) -> Json | None:
    for node in world.nodes:
        if node["InstanceGroupName"] == base.CONTROLLER_GROUP:
            return node
    return None


def controller_outputs(world: World) -> dict[str, ProbeOutput]:
    """The Slurm controller's answers: every worker idle, no stuck job, slurmctld up."""
    controller = slurm_controller(world)
    workers = [n for n in world.nodes if n is not controller]
    groups: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for n in world.nodes:
        entry = groups.setdefault(str(n["InstanceGroupName"]), (str(n["InstanceType"]), []))
        entry[1].append((str(n["InstanceId"]), node_ip(n)))
    return {
        "slurm_nodes": _out(slurm.sinfo([(slurm_name(n), "idle", "") for n in workers])),
        "slurm_stuck_jobs": _out(slurm.squeue([])),
        "slurm_controller": _out(
            slurm.scontrol_ping(host=slurm_name(controller) if controller else "ip-10-1-0-10")
        ),
        "slurm_resource_config": _out(
            slurm.resource_config(
                [(name, kind, members) for name, (kind, members) in groups.items()],
                cluster_name=str(world.cluster["ClusterName"]),
            )
        ),
    }


def add_node_level(world: World) -> World:
    for node in world.nodes:
        world.probes[str(node["InstanceId"])] = healthy_outputs(world, node)
    if "Eks" in (world.cluster.get("Orchestrator") or {}):
        world.kubernetes = k8s_objects.healthy_objects(
            [
                (str(n["InstanceId"]), str(n["InstanceGroupName"]), str(n["InstanceType"]), base.AZ)
                for n in world.nodes
            ]
        )
    else:
        controller = slurm_controller(world)
        if controller is not None:
            world.probes[str(controller["InstanceId"])] |= controller_outputs(world)
    return world


def set_probe(world: World, instance: str, probe: str, stdout: str, exit_code: int = 0) -> None:
    world.probes[instance][probe] = _out(stdout, exit_code)


def controller_id(world: World) -> str:
    controller = slurm_controller(world)
    assert controller is not None, "a Slurm world has a controller"
    return str(controller["InstanceId"])
