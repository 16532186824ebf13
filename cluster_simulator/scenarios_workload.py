"""A healthy cluster whose workloads misbehave: signals about a job, not a node (§ G.2,
§ I.2, § M). None of them may produce a FAIL or node advice."""

from __future__ import annotations

from datetime import timedelta

from cluster_simulator import base
from cluster_simulator.node_samples import accelerators as accel
from cluster_simulator.node_samples import k8s_faults, system
from cluster_simulator.node_scenario import GPU_NODE
from cluster_simulator.node_world import set_probe
from cluster_simulator.scenario import Scenario
from cluster_simulator.world import World

WORKLOAD_WHEN = base.RECORDED_AT - timedelta(minutes=20)


def cgroup_oom_lines(process: str = "python", pid: int = 48211) -> list[str]:
    """A memory cgroup kill as a 5.15 / 6.x kernel logs it: the trigger, the constraint line
    naming the pod's own cgroup, and the kill."""
    pod = "kubepods-burstable-pod3f1c2a7e_9b1d_4c55_8e0a_5d2f7c1b9a44.slice"
    return [
        f"{process} invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=985",
        "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-7c1e.scope,"
        f"mems_allowed=0-1,oom_memcg=/kubepods.slice/kubepods-burstable.slice/{pod},"
        f"task_memcg=/kubepods.slice/kubepods-burstable.slice/{pod}/cri-containerd-7c1e.scope,"
        f"task={process},pid={pid},uid=0",
        f"Memory cgroup out of memory: Killed process {pid} ({process}) total-vm:71234567kB, "
        "anon-rss:67108864kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:131234kB "
        "oom_score_adj:985",
    ]


def workload_misbehaving(world: World) -> None:
    """On the probed GPU node: a training container OOMKilled at its own 64Gi limit (three
    restarts), a memory cgroup kill while the node has most of its memory free, and an
    Xid 13 from the job's process on one GPU. The node itself is healthy."""
    assert world.kubernetes is not None
    k8s_faults.oom_killed(world.kubernetes, GPU_NODE, memory_limit="64Gi")
    xid = accel.xid_line(
        accel.driver_pci(2),
        13,
        "Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address",
        WORKLOAD_WHEN,
        origin=accel.XidOrigin(pid="'48377'", process="python"),
    )
    lines = [*cgroup_oom_lines(), xid.rstrip("\n")]
    set_probe(world, GPU_NODE, "kernel_log", system.kernel_log(lines))


WORKLOAD: list[Scenario] = [
    Scenario(
        "workload-misbehaving-healthy-node",
        "EKS: a healthy cluster whose training job misbehaves on a GPU node: its container "
        "is OOMKilled at its own 64Gi memory limit, the kernel's memory cgroup ends its "
        "process while the node has 93 % of its memory available, and the job's process "
        "raises Xid 13 on one GPU. All three are workload signals (WARN P2), never a FAIL "
        "about the node.",
        "eks",
        workload_misbehaving,
        expect=[
            ("k8s-pod-failures", "WARN", "M"),
            ("node-memory", "WARN", "I.2"),
            ("gpu-xid", "WARN", "G.2"),
        ],
        resources={
            "k8s-pod-failures": [GPU_NODE],
            "node-memory": [GPU_NODE],
            "gpu-xid": [GPU_NODE],
        },
        must_not=[
            ("k8s-pod-failures", "FAIL"),
            ("node-memory", "FAIL"),
            ("gpu-xid", "FAIL"),
            ("node-kernel", "FAIL"),
            ("k8s-node-health", "FAIL"),
        ],
    ),
]
