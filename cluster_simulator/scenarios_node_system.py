"""On-node system fault families: disk, inodes, /dev/shm, memory, time and the kernel
(§ I, § N), and what keeps node probes or Kubernetes reads from running at all: SSM (§ K),
the session-manager-plugin, a kubeconfig."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from cluster_simulator.node_scenario import GPU_NODE, SLURM_GPU_NODE, ExpectedFinding, one_finding
from cluster_simulator.node_world import set_probe
from cluster_simulator.scenario import Scenario
from cluster_simulator.world import World
from tools.probes.ssm import TARGET_NOT_CONNECTED

# -- resources, time, kernel (§ I, § N) --------------------------------------------------------


def root_disk_full(world: World) -> None:
    set_probe(world, SLURM_GPU_NODE, "disk_usage", system.df_usage(root_pct=97))


def inodes_exhausted(world: World) -> None:
    set_probe(world, GPU_NODE, "disk_inodes", system.df_inodes(root_pct=99))


def shm_full(world: World) -> None:
    set_probe(world, GPU_NODE, "disk_usage", system.df_usage(shm_pct=96))


def oom_kill(world: World) -> None:
    lines = [system.oom_invoked_line("python", 48211), system.oom_kill_line("python", 48211)]
    set_probe(world, SLURM_GPU_NODE, "kernel_log", system.kernel_log(lines))


def clock_not_synced(world: World) -> None:
    set_probe(world, GPU_NODE, "time_sync", system.time_sync(False, offset_s=4.2))


def soft_lockup(world: World) -> None:
    set_probe(world, SLURM_GPU_NODE, "kernel_log", system.kernel_log([system.soft_lockup_line()]))


def kernel_oops(world: World) -> None:
    set_probe(world, SLURM_GPU_NODE, "kernel_log", system.kernel_log(system.oops_lines()))


# -- SSM (§ K) ---------------------------------------------------------------------------------


def target_not_connected(world: World) -> None:
    """The SSM agent on the probed node is down: every session attempt is refused."""
    # The reason as the live transport words it, not SSM's raw error text.
    world.unreachable[GPU_NODE] = TARGET_NOT_CONNECTED


def plugin_missing(world: World) -> None:
    world.plugin_missing = True


def kubectl_unavailable(world: World) -> None:
    world.kube_unavailable = "no kubeconfig found (~/.kube/config, KUBECONFIG)"


NODE_SYSTEM: list[Scenario] = [
    one_finding(
        "root-disk-full",
        "The root volume of a Slurm worker is 97 % full.",
        "slurm",
        root_disk_full,
        ExpectedFinding("node-disk", "FAIL", "I.1", SLURM_GPU_NODE),
    ),
    one_finding(
        "inodes-exhausted",
        "The root file system of an EKS GPU node has 99 % of its inodes used.",
        "eks",
        inodes_exhausted,
        ExpectedFinding("node-disk", "FAIL", "I.1", GPU_NODE),
    ),
    one_finding(
        "shm-full",
        "/dev/shm of an EKS GPU node is 96 % full.",
        "eks",
        shm_full,
        ExpectedFinding("node-shm", "FAIL", "I.3", GPU_NODE),
    ),
    one_finding(
        "oom-kill",
        "The OOM killer ended a training process on a Slurm worker.",
        "slurm",
        oom_kill,
        ExpectedFinding("node-memory", "FAIL", "I.2", SLURM_GPU_NODE),
    ),
    one_finding(
        "clock-not-synced",
        "The clock of an EKS GPU node is not synchronised (chrony lost its source).",
        "eks",
        clock_not_synced,
        ExpectedFinding("node-time-sync", "FAIL", "I.4", GPU_NODE),
    ),
    one_finding(
        "kernel-soft-lockup",
        "A soft lockup in the kernel log of a Slurm worker.",
        "slurm",
        soft_lockup,
        ExpectedFinding("node-kernel", "FAIL", "N", SLURM_GPU_NODE),
    ),
    one_finding(
        "kernel-oops",
        "A kernel NULL pointer oops in the kernel log of a Slurm worker.",
        "slurm",
        kernel_oops,
        ExpectedFinding("node-kernel", "FAIL", "N", SLURM_GPU_NODE),
    ),
    one_finding(
        "ssm-target-not-connected",
        "The SSM agent of the probed GPU node is down: every session gets TargetNotConnected.",
        "eks",
        target_not_connected,
        ExpectedFinding("node-reachability", "FAIL", "K", GPU_NODE),
    ),
    Scenario(
        "ssm-plugin-missing",
        "session-manager-plugin is not installed where triage runs: node probes are skipped, "
        "the rest of the triage runs.",
        "eks",
        plugin_missing,
        skipped_include=["session-manager-plugin not found"],
    ),
    Scenario(
        "kubectl-unavailable",
        "No kubeconfig where triage runs: the Kubernetes checks are skipped, the rest runs.",
        "eks",
        kubectl_unavailable,
        skipped_include=["no kubeconfig found"],
    ),
]
