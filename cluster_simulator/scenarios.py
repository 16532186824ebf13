"""Every bundled scenario, healthy ones first. Fault families live in their own modules."""

from __future__ import annotations

from cluster_simulator import base
from cluster_simulator.edits import FAILED_NODE
from cluster_simulator.node_samples import k8s_faults, system
from cluster_simulator.node_world import set_probe
from cluster_simulator.scenario import Scenario, unchanged
from cluster_simulator.scenarios_accelerators import ACCELERATORS, fell_off_the_bus
from cluster_simulator.scenarios_cluster import CLUSTER, hma_xid_detection, threads_per_core_p5
from cluster_simulator.scenarios_lifecycle import LIFECYCLE
from cluster_simulator.scenarios_network import NETWORK
from cluster_simulator.scenarios_node_system import NODE_SYSTEM
from cluster_simulator.scenarios_operations import OPERATIONS
from cluster_simulator.scenarios_orchestrators import ORCHESTRATORS
from cluster_simulator.scenarios_workload import WORKLOAD
from cluster_simulator.world import World


def demo_eks(world: World) -> None:
    """Several faults at once: what a real sick cluster tends to look like. The failing
    GPU node is the one the triage probes: Xid 79 with a GPU gone, 96 vCPUs, and HyperPod's
    replacement label on its Kubernetes node."""
    group = next(g for g in world.security_groups if g["GroupId"] == base.SG)
    group["IpPermissionsEgress"] = [
        p for p in group["IpPermissionsEgress"] if not p.get("UserIdGroupPairs")
    ]
    threads_per_core_p5(world)
    hma_xid_detection(world)
    message = "Node is unhealthy: GPU has fallen off the bus (Xid 79); pending replacement"
    for node in world.nodes:
        if node["InstanceId"] == FAILED_NODE:
            node["InstanceStatus"] = {"Status": "Failure", "Message": message}
    fell_off_the_bus(world, FAILED_NODE, gpu=5)
    set_probe(world, FAILED_NODE, "cpu", system.lscpu(cpus=96, threads_per_core=1))
    assert world.kubernetes is not None
    k8s_faults.set_node_health(
        world.kubernetes,
        FAILED_NODE,
        "UnschedulablePendingReplacement",
        fault=k8s_faults.NodeFault(
            type="NvidiaErrorReplace",
            reason="XidHardwareFailure",
            details=k8s_faults.xid_fault_details(),
        ),
    )


HEALTHY: list[Scenario] = [
    Scenario("healthy-eks", "A healthy EKS-orchestrated cluster.", "eks", unchanged),
    Scenario("healthy-slurm", "A healthy Slurm-orchestrated cluster.", "slurm", unchanged),
]

DEMO = Scenario(
    "demo-eks",
    "The README demo: an EKS cluster whose SG lacks the outbound self rule, whose p5 group "
    "runs with ThreadsPerCore=1, and whose GPU node fell off the bus (HMA detection, Failure, "
    "Xid 79 and 7 of 8 GPUs on the node, pending replacement in Kubernetes).",
    "eks",
    demo_eks,
    expect=[
        ("efa-security-groups", "FAIL", "A"),
        ("cluster-nodes", "FAIL", "F"),
        ("threads-per-core", "WARN", "J"),
        ("health-monitoring-agent", "WARN", "F.3"),
        ("k8s-node-health", "FAIL", "F.2"),
        ("gpu-count", "FAIL", "G"),
        ("gpu-xid", "FAIL", "G.2"),
        ("node-vcpus", "INFO", "J"),
    ],
    resources={
        "efa-security-groups": [base.SG],
        "cluster-nodes": [FAILED_NODE],
        "health-monitoring-agent": [FAILED_NODE],
        "k8s-node-health": [FAILED_NODE],
        "gpu-count": [FAILED_NODE],
        "gpu-xid": [FAILED_NODE],
        "node-vcpus": [FAILED_NODE],
    },
)

SCENARIOS: list[Scenario] = [
    *HEALTHY,
    *NETWORK,
    *CLUSTER,
    *OPERATIONS,
    *LIFECYCLE,
    *ACCELERATORS,
    *NODE_SYSTEM,
    *ORCHESTRATORS,
    *WORKLOAD,
    DEMO,
]
