"""Node-level fault families: on-node probes (§ A, § G, § I, § J, § K, § N), Kubernetes
(§ F.2, § M, § O) and Slurm (§ H). Each edit plants one fault in a world that
`node_world.add_node_level` made healthy at node level."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from evals.clusters import base
from evals.clusters.node_samples import accelerators as accel
from evals.clusters.node_samples import kubernetes as kube
from evals.clusters.node_samples import slurm, system
from evals.clusters.node_world import (
    add_node_level,
    controller_id,
    set_probe,
    slurm_name,
)
from evals.clusters.scenario import Base, Scenario
from evals.clusters.world import World
from tools.probes.ssm import TARGET_NOT_CONNECTED
from tools.recorded.model import KubernetesObjects

GPU_NODE = base.instance_id(1)  # the accelerator node a triage probes when nothing fails
SLURM_GPU_NODE = base.instance_id(2)  # the first GPU worker of the Slurm world
SECOND_GPU_NODE = base.instance_id(3)
XID_WHEN = base.RECORDED_AT - timedelta(minutes=25)


def _objects(world: World) -> KubernetesObjects:
    assert world.kubernetes is not None, "an EKS world has Kubernetes objects"
    return world.kubernetes


def _set_controller(world: World, probe: str, stdout: str) -> None:
    set_probe(world, controller_id(world), probe, stdout)


def _sinfo(world: World, faults: dict[str, tuple[str, str]]) -> None:
    """Rewrite the controller's sinfo with `faults` (instance id -> (state, reason))."""
    controller = controller_id(world)
    rows = []
    for node in world.nodes:
        if node["InstanceId"] == controller:
            continue
        state, reason = faults.get(str(node["InstanceId"]), ("idle", ""))
        rows.append((slurm_name(node), state, reason))
    _set_controller(world, "slurm_nodes", slurm.sinfo(rows))


# -- GPU (§ G) ------------------------------------------------------------------------------


def fell_off_the_bus(world: World, instance: str, gpu: int = 3) -> None:
    """GPU `gpu` of `instance` fell off the bus: Xid 79 in this boot, 7 of 8 GPUs visible."""
    set_probe(world, instance, "gpu_list", accel.gpu_list(8, missing=(gpu,)))
    set_probe(world, instance, "gpu_query", accel.gpu_query(8, missing=(gpu,)))
    set_probe(world, instance, "gpu_row_remap", accel.row_remap(8, missing=(gpu,)))
    line = accel.xid_line(accel.driver_pci(gpu), 79, "GPU has fallen off the bus.", XID_WHEN)
    set_probe(world, instance, "kernel_log", system.kernel_log([line.rstrip("\n")]))


def xid79_missing_gpu(world: World) -> None:
    fell_off_the_bus(world, GPU_NODE)


def xid79_repeated_after_reboot(world: World) -> None:
    """The same GPU fell off the bus before the last reboot and again after it."""
    xid79_missing_gpu(world)
    before = accel.xid_line(
        accel.driver_pci(3),
        79,
        "GPU has fallen off the bus.",
        base.RECORDED_AT - timedelta(days=2, minutes=5),
        style="journal",
    )
    set_probe(
        world,
        GPU_NODE,
        "kernel_log_previous_boot",
        system.kernel_log_previous_boot([before.split(" kernel: ", 1)[1].rstrip("\n")]),
    )


def row_remap_pending(world: World) -> None:
    set_probe(world, GPU_NODE, "gpu_row_remap", accel.row_remap(8, pending=(2,)))


def row_remap_failure(world: World) -> None:
    set_probe(world, SLURM_GPU_NODE, "gpu_row_remap", accel.row_remap(8, failure=(5,)))


def uncorrectable_ecc(world: World) -> None:
    query = accel.gpu_query(8, ecc_volatile={1: 2}, ecc_aggregate={1: 6})
    set_probe(world, SLURM_GPU_NODE, "gpu_query", query)


def dcgm_failure(world: World) -> None:
    set_probe(world, GPU_NODE, "dcgm_health", accel.dcgm_health("Failure"))


def thermal_throttling(world: World) -> None:
    query = accel.gpu_query(8, throttled={4: ("hw_thermal", "hw_slowdown")}, temps={4: 91})
    set_probe(world, GPU_NODE, "gpu_query", query)


def neuron_missing_trn1(world: World) -> None:
    """The accelerator group is trn1.32xlarge and one node shows 15 of 16 Neuron devices."""
    trn1 = {
        "InstanceType": "trn1.32xlarge",
        "CurrentGeneration": True,
        "ProcessorInfo": {"SupportedArchitectures": ["x86_64"]},
        "VCpuInfo": {
            "DefaultVCpus": 128,
            "DefaultCores": 64,
            "DefaultThreadsPerCore": 2,
            "ValidThreadsPerCore": [1, 2],
        },
        "MemoryInfo": {"SizeInMiB": 524_288},
        "NetworkInfo": {
            "NetworkPerformance": "800 Gigabit",
            "EfaSupported": True,
            "EfaInfo": {"MaximumEfaInterfaces": 8},
            "MaximumNetworkCards": 8,
        },
        "NeuronInfo": {
            "NeuronDevices": [{"Count": 16, "Name": "Trainium", "CoreInfo": {"Count": 2}}]
        },
        "InstanceStorageSupported": True,
        "Hypervisor": "nitro",
    }
    world.instance_types.append(trn1)
    for group in world.cluster["InstanceGroups"]:
        if group["InstanceGroupName"] == base.GPU_GROUP:
            group["InstanceType"] = "ml.trn1.32xlarge"
    for node in world.nodes:
        if node["InstanceGroupName"] == base.GPU_GROUP:
            node["InstanceType"] = "ml.trn1.32xlarge"
            if node["InstanceId"] in world.node_details:
                world.node_details[node["InstanceId"]]["InstanceType"] = "ml.trn1.32xlarge"
    world.offerings = [
        {**o, "InstanceType": "trn1.32xlarge"} if o["InstanceType"] == "p5.48xlarge" else o
        for o in world.offerings
    ]
    world.probes.clear()
    add_node_level(world)
    set_probe(world, GPU_NODE, "neuron_devices", accel.neuron_ls(15))


# -- EFA, versions, vCPUs (§ A, § E, § J) ------------------------------------------------------


def efa_device_short(world: World) -> None:
    set_probe(world, SLURM_GPU_NODE, "efa_devices", accel.infiniband(31))
    set_probe(world, SLURM_GPU_NODE, "efa_provider", accel.fi_info(31))


def version_drift(world: World) -> None:
    """Two workers drained after an NCCL hang; one was rebuilt on an older image."""
    _sinfo(
        world,
        {
            SLURM_GPU_NODE: ("drained", "NCCL watchdog timeout in job 4412"),
            SECOND_GPU_NODE: ("drained", "NCCL watchdog timeout in job 4412"),
        },
    )
    set_probe(world, SECOND_GPU_NODE, "nvidia_driver", accel.nvidia_driver("535.183.01"))
    set_probe(
        world,
        SECOND_GPU_NODE,
        "gpu_row_remap",
        accel.row_remap(8, driver="535.183.01", cuda="12.2"),
    )
    set_probe(world, SECOND_GPU_NODE, "gpu_query", accel.gpu_query(8, driver="535.183.01"))
    set_probe(world, SECOND_GPU_NODE, "nccl_libraries", accel.nccl_libraries("2.18.5"))


def p5_96_vcpus(world: World) -> None:
    """The p5 group was created with ThreadsPerCore=1: its nodes show 96 of 192 vCPUs."""
    for group in world.cluster["InstanceGroups"]:
        if group["InstanceType"] == "ml.p5.48xlarge":
            group["ThreadsPerCore"] = 1
    for details in world.node_details.values():
        if details["InstanceType"] == "ml.p5.48xlarge":
            details["ThreadsPerCore"] = 1
    set_probe(world, GPU_NODE, "cpu", system.lscpu(cpus=96, threads_per_core=1))


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


# -- SSM (§ K) ---------------------------------------------------------------------------------


def target_not_connected(world: World) -> None:
    """The SSM agent on the probed node is down: every session attempt is refused."""
    # The reason as the live transport words it, not SSM's raw error text.
    world.unreachable[GPU_NODE] = TARGET_NOT_CONNECTED


def plugin_missing(world: World) -> None:
    world.plugin_missing = True


def kubectl_unavailable(world: World) -> None:
    world.kube_unavailable = "no kubeconfig found (~/.kube/config, KUBECONFIG)"


# -- Kubernetes (§ F.2, § M, § O) --------------------------------------------------------------


def aws_node_crashloop(world: World) -> None:
    kube.aws_node_crashloop(_objects(world), base.instance_id(5))


def coredns_pending(world: World) -> None:
    kube.coredns_pending(_objects(world))


def image_pull_backoff(world: World) -> None:
    kube.image_pull_backoff(_objects(world), GPU_NODE)


def pending_replacement(world: World) -> None:
    kube.set_node_health(
        _objects(world),
        SECOND_GPU_NODE,
        "UnschedulablePendingReplacement",
        fault_type="NvidiaErrorReplace",
        fault_reason="XidHardwareFailure",
        fault_details=kube.xid_fault_details(),
    )


# -- Slurm (§ H) -------------------------------------------------------------------------------


def slurm_unexpected_reboot(world: World) -> None:
    _sinfo(world, {SECOND_GPU_NODE: ("down", "Node unexpectedly rebooted")})


def slurm_job_stuck_completing(world: World) -> None:
    _sinfo(world, {SECOND_GPU_NODE: ("down*", "Not responding")})
    name = slurm_name(next(n for n in world.nodes if n["InstanceId"] == SECOND_GPU_NODE))
    _set_controller(
        world,
        "slurm_stuck_jobs",
        slurm.squeue([("4412", "COMPLETING", "3:12:40", name, "pretrain")]),
    )


def slurmctld_down(world: World) -> None:
    _set_controller(world, "slurm_controller", slurm.scontrol_ping_unreachable())


def _one(
    name: str,
    description: str,
    base_kind: Base,
    edit: Callable[[World], None],
    check: str,
    status: str,
    section: str,
    node: str,
) -> Scenario:
    """A scenario with exactly one FAIL/WARN finding, naming `node`."""
    return Scenario(
        name,
        description,
        base_kind,
        edit,
        expect=[(check, status, section)],
        resources={check: [node]} if node else {},
    )


NODE: list[Scenario] = [
    Scenario(
        "gpu-xid79-missing-gpu",
        "An EKS GPU node logged Xid 79 (fell off the bus) and shows 7 of 8 GPUs.",
        "eks",
        xid79_missing_gpu,
        expect=[("gpu-count", "FAIL", "G"), ("gpu-xid", "FAIL", "G.2")],
        resources={"gpu-count": [GPU_NODE], "gpu-xid": [GPU_NODE]},
    ),
    Scenario(
        "gpu-xid79-repeated-after-reboot",
        "The same GPU fell off the bus before the node's last reboot and again after it: "
        "replace, not reboot.",
        "eks",
        xid79_repeated_after_reboot,
        expect=[("gpu-count", "FAIL", "G"), ("gpu-xid", "FAIL", "G.2")],
        resources={"gpu-xid": [GPU_NODE]},
    ),
    _one(
        "gpu-row-remap-pending",
        "A row remap is pending on one GPU: a reset (reboot) is needed to apply it.",
        "eks",
        row_remap_pending,
        "gpu-row-remap",
        "FAIL",
        "G.1.a",
        GPU_NODE,
    ),
    _one(
        "gpu-row-remap-failure",
        "A GPU ran out of spare rows (Remapping Failure Occurred: Yes) on a Slurm worker.",
        "slurm",
        row_remap_failure,
        "gpu-row-remap",
        "FAIL",
        "G.1.a",
        SLURM_GPU_NODE,
    ),
    _one(
        "gpu-uncorrectable-ecc",
        "Uncorrectable ECC errors (volatile and aggregate) on one GPU of a Slurm worker.",
        "slurm",
        uncorrectable_ecc,
        "gpu-ecc",
        "FAIL",
        "G.3",
        SLURM_GPU_NODE,
    ),
    _one(
        "gpu-dcgm-failure",
        "DCGM health reports Failure (a double-bit ECC error) on an EKS GPU node.",
        "eks",
        dcgm_failure,
        "gpu-dcgm",
        "FAIL",
        "G.1.b",
        GPU_NODE,
    ),
    _one(
        "gpu-thermal-throttling",
        "One GPU at 91 °C with hardware and thermal slowdown active.",
        "eks",
        thermal_throttling,
        "gpu-throttle",
        "FAIL",
        "G.4",
        GPU_NODE,
    ),
    _one(
        "neuron-devices-missing-trn1",
        "A trn1.32xlarge node shows 15 of its 16 Neuron devices.",
        "eks",
        neuron_missing_trn1,
        "neuron-devices",
        "FAIL",
        "G.5",
        GPU_NODE,
    ),
    _one(
        "efa-device-count-short",
        "A p5.48xlarge Slurm worker shows 31 of 32 EFA devices.",
        "slurm",
        efa_device_short,
        "efa-devices",
        "FAIL",
        "A",
        SLURM_GPU_NODE,
    ),
    Scenario(
        "version-drift-across-nodes",
        "Two Slurm workers drained after an NCCL hang; one runs an older driver, CUDA and NCCL.",
        "slurm",
        version_drift,
        expect=[
            ("slurm-nodes", "FAIL", "H.1"),
            ("slurm-nodes", "FAIL", "H.1"),
            ("node-versions", "WARN", "E"),
            ("node-versions", "WARN", "E"),
            ("node-versions", "WARN", "E"),
        ],
        resources={"node-versions": [SECOND_GPU_NODE]},
    ),
    Scenario(
        "p5-96-vcpus",
        "A p5.48xlarge group created with ThreadsPerCore=1: its nodes show 96 of 192 vCPUs.",
        "eks",
        p5_96_vcpus,
        expect=[("threads-per-core", "WARN", "J"), ("node-vcpus", "INFO", "J")],
        resources={"node-vcpus": [GPU_NODE]},
        must_not=[("node-vcpus", "FAIL")],
    ),
    _one(
        "root-disk-full",
        "The root volume of a Slurm worker is 97 % full.",
        "slurm",
        root_disk_full,
        "node-disk",
        "FAIL",
        "I.1",
        SLURM_GPU_NODE,
    ),
    _one(
        "inodes-exhausted",
        "The root file system of an EKS GPU node has 99 % of its inodes used.",
        "eks",
        inodes_exhausted,
        "node-disk",
        "FAIL",
        "I.1",
        GPU_NODE,
    ),
    _one(
        "shm-full",
        "/dev/shm of an EKS GPU node is 96 % full.",
        "eks",
        shm_full,
        "node-shm",
        "FAIL",
        "I.3",
        GPU_NODE,
    ),
    _one(
        "oom-kill",
        "The OOM killer ended a training process on a Slurm worker.",
        "slurm",
        oom_kill,
        "node-memory",
        "FAIL",
        "I.2",
        SLURM_GPU_NODE,
    ),
    _one(
        "clock-not-synced",
        "The clock of an EKS GPU node is not synchronised (chrony lost its source).",
        "eks",
        clock_not_synced,
        "node-time-sync",
        "FAIL",
        "I.4",
        GPU_NODE,
    ),
    _one(
        "kernel-soft-lockup",
        "A soft lockup in the kernel log of a Slurm worker.",
        "slurm",
        soft_lockup,
        "node-kernel",
        "FAIL",
        "N",
        SLURM_GPU_NODE,
    ),
    _one(
        "ssm-target-not-connected",
        "The SSM agent of the probed GPU node is down: every session gets TargetNotConnected.",
        "eks",
        target_not_connected,
        "node-reachability",
        "FAIL",
        "K",
        GPU_NODE,
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
    _one(
        "aws-node-crashloop-50051",
        "aws-node crash-loops on one node: ipamd never listens on 127.0.0.1:50051.",
        "eks",
        aws_node_crashloop,
        "k8s-cni",
        "FAIL",
        "O",
        base.instance_id(5),
    ),
    _one(
        "coredns-pending",
        "Both CoreDNS pods are Pending: no node would schedule them.",
        "eks",
        coredns_pending,
        "k8s-cni",
        "FAIL",
        "O",
        "",
    ),
    _one(
        "image-pull-backoff",
        "A training pod on a GPU node is in ImagePullBackOff (a mistyped image tag).",
        "eks",
        image_pull_backoff,
        "k8s-pod-failures",
        "FAIL",
        "M",
        GPU_NODE,
    ),
    _one(
        "k8s-pending-replacement",
        "HyperPod labelled a GPU node UnschedulablePendingReplacement after a hardware Xid.",
        "eks",
        pending_replacement,
        "k8s-node-health",
        "FAIL",
        "F.2",
        SECOND_GPU_NODE,
    ),
    _one(
        "slurm-node-unexpected-reboot",
        'A Slurm worker is DOWN with reason "Node unexpectedly rebooted".',
        "slurm",
        slurm_unexpected_reboot,
        "slurm-nodes",
        "FAIL",
        "H.1",
        SECOND_GPU_NODE,
    ),
    Scenario(
        "slurm-job-stuck-completing",
        "A job is stuck COMPLETING on a worker that stopped responding.",
        "slurm",
        slurm_job_stuck_completing,
        expect=[("slurm-nodes", "FAIL", "H.1"), ("slurm-jobs", "FAIL", "H.2")],
        resources={"slurm-jobs": [SECOND_GPU_NODE], "slurm-nodes": [SECOND_GPU_NODE]},
    ),
    _one(
        "slurmctld-down",
        "slurmctld does not answer scontrol ping on the controller.",
        "slurm",
        slurmctld_down,
        "slurm-nodes",
        "FAIL",
        "H",
        "",
    ),
]
