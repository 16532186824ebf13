"""Accelerator fault families: GPUs (§ G), Neuron devices (§ G.5), EFA (§ A), driver,
CUDA and NCCL versions across nodes (§ E) and vCPUs (§ J)."""

from __future__ import annotations

from datetime import timedelta

from cluster_simulator import base
from cluster_simulator.node_samples import accelerators as accel
from cluster_simulator.node_samples import system
from cluster_simulator.node_scenario import (
    GPU_NODE,
    SECOND_GPU_NODE,
    SLURM_GPU_NODE,
    ExpectedFinding,
    one_finding,
    rewrite_sinfo,
)
from cluster_simulator.node_world import add_node_level, set_probe
from cluster_simulator.scenario import Scenario
from cluster_simulator.world import World

XID_WHEN = base.RECORDED_AT - timedelta(minutes=25)


# -- GPU (§ G) ------------------------------------------------------------------------------


def fell_off_the_bus(world: World, instance: str, gpu: int = 3) -> None:
    """GPU `gpu` of `instance` fell off the bus: Xid 79 in this boot, 7 of 8 GPUs visible."""
    set_probe(world, instance, "gpu_list", accel.gpu_list(8, missing=(gpu,)))
    set_probe(world, instance, "gpu_query", accel.gpu_query(accel.GpuQuerySpec(8, missing=(gpu,))))
    set_probe(
        world, instance, "gpu_row_remap", accel.row_remap(accel.RowRemapSpec(8, missing=(gpu,)))
    )
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
    set_probe(
        world, GPU_NODE, "gpu_row_remap", accel.row_remap(accel.RowRemapSpec(8, pending=(2,)))
    )


def row_remap_failure(world: World) -> None:
    set_probe(
        world, SLURM_GPU_NODE, "gpu_row_remap", accel.row_remap(accel.RowRemapSpec(8, failure=(5,)))
    )


def uncorrectable_ecc(world: World) -> None:
    query = accel.gpu_query(accel.GpuQuerySpec(8, ecc_volatile={1: 2}, ecc_aggregate={1: 6}))
    set_probe(world, SLURM_GPU_NODE, "gpu_query", query)


def dcgm_failure(world: World) -> None:
    set_probe(world, GPU_NODE, "dcgm_health", accel.dcgm_health("Failure"))


def thermal_throttling(world: World) -> None:
    query = accel.gpu_query(
        accel.GpuQuerySpec(8, throttled={4: ("hw_thermal", "hw_slowdown")}, temps={4: 91})
    )
    set_probe(world, GPU_NODE, "gpu_query", query)


def neuron_missing_trn1(world: World) -> None:
    """The accelerator group is trn1.32xlarge and one node shows 15 of 16 Neuron devices."""
    as_trn1(world)
    set_probe(world, GPU_NODE, "neuron_devices", accel.neuron_ls(15))


def neuron_hardware_error(world: World) -> None:
    """A trn1.32xlarge node whose driver reported an uncorrectable HBM error in this boot."""
    as_trn1(world)
    line = accel.neuron_hw_error_line(instance_id=GPU_NODE)
    set_probe(world, GPU_NODE, "kernel_log", system.kernel_log([line]))


def neuron_hang_on_collectives(world: World) -> None:
    """A trn1.32xlarge node whose driver reported a hang on collectives: AWS's Neuron guide
    attributes it to a hardware error on another worker, so this node is not the culprit."""
    as_trn1(world)
    line = accel.neuron_hw_error_line(
        "HANG_ON_COLLECTIVES", device=0, core=0, action="RESTART_WORKLOAD", instance_id=GPU_NODE
    )
    set_probe(world, GPU_NODE, "kernel_log", system.kernel_log([line]))


def dcgm_diag_log_failure(world: World) -> None:
    """The last dcgmi diag run on an EKS GPU node failed its memory test."""
    set_probe(world, GPU_NODE, "dcgm_diag_logs", accel.dcgm_diag_logs("memory"))


def as_trn1(world: World) -> None:
    """The accelerator group becomes trn1.32xlarge, every node healthy at node level."""
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


# -- EFA, versions, vCPUs (§ A, § E, § J) ------------------------------------------------------


def efa_device_short(world: World) -> None:
    set_probe(world, SLURM_GPU_NODE, "efa_devices", accel.infiniband(31))
    set_probe(world, SLURM_GPU_NODE, "efa_provider", accel.fi_info(31))


def ofi_nccl_plugin_missing(world: World) -> None:
    """The EFA installer ran without its NCCL plugin, and no plugin is on the host."""
    set_probe(world, SLURM_GPU_NODE, "efa_packages", accel.efa_packages(ofi_nccl=None))
    set_probe(world, SLURM_GPU_NODE, "ofi_nccl_plugin", accel.OFI_NCCL_PLUGIN_MISSING, 1)


def efa_installer_missing(world: World) -> None:
    """No EFA installer marker; a hand-built plugin under /opt/aws-ofi-nccl/lib."""
    set_probe(world, SLURM_GPU_NODE, "efa_packages", accel.EFA_PACKAGES_MISSING, 1)
    set_probe(
        world, SLURM_GPU_NODE, "ofi_nccl_plugin", accel.ofi_nccl_plugin("/opt/aws-ofi-nccl/lib")
    )


def nic_errors(world: World) -> None:
    interfaces = system.net_interfaces(errors={system.PRIMARY_NIC[0]: (1843, 0)})
    set_probe(world, GPU_NODE, "net_interfaces", interfaces)


def imds_unreachable(world: World) -> None:
    set_probe(world, GPU_NODE, "imds", system.IMDS_UNREACHABLE)


def gpu_probes_timed_out(world: World) -> None:
    """nvidia-smi hung after printing part of its answers; the probes' timeout killed it."""
    remap = accel.row_remap(accel.RowRemapSpec(8))
    cut = remap[: remap.index(f"GPU {accel.bus_id(4)}")]
    set_probe(world, GPU_NODE, "gpu_row_remap", cut, 137)
    listing = accel.gpu_list(8)
    set_probe(world, GPU_NODE, "gpu_list", "".join(listing.splitlines(True)[:5]), 137)


def version_drift(world: World) -> None:
    """Two workers drained after an NCCL hang; one was rebuilt on an older image."""
    rewrite_sinfo(
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
        accel.row_remap(accel.RowRemapSpec(8, driver="535.183.01", cuda="12.2")),
    )
    set_probe(
        world,
        SECOND_GPU_NODE,
        "gpu_query",
        accel.gpu_query(accel.GpuQuerySpec(8, driver="535.183.01")),
    )
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


ACCELERATORS: list[Scenario] = [
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
    one_finding(
        "gpu-row-remap-pending",
        "A row remap is pending on one GPU: a reset (reboot) is needed to apply it.",
        "eks",
        row_remap_pending,
        ExpectedFinding("gpu-row-remap", "FAIL", "G.1.a", GPU_NODE),
    ),
    one_finding(
        "gpu-row-remap-failure",
        "A GPU ran out of spare rows (Remapping Failure Occurred: Yes) on a Slurm worker.",
        "slurm",
        row_remap_failure,
        ExpectedFinding("gpu-row-remap", "FAIL", "G.1.a", SLURM_GPU_NODE),
    ),
    one_finding(
        "gpu-uncorrectable-ecc",
        "Uncorrectable ECC errors (volatile and aggregate) on one GPU of a Slurm worker.",
        "slurm",
        uncorrectable_ecc,
        ExpectedFinding("gpu-ecc", "FAIL", "G.3", SLURM_GPU_NODE),
    ),
    one_finding(
        "gpu-dcgm-failure",
        "DCGM health reports Failure (a double-bit ECC error) on an EKS GPU node.",
        "eks",
        dcgm_failure,
        ExpectedFinding("gpu-dcgm", "FAIL", "G.1.b", GPU_NODE),
    ),
    one_finding(
        "gpu-dcgm-diag-log-failure",
        "The newest nvvs log of an EKS GPU node shows a failed DCGM memory test.",
        "eks",
        dcgm_diag_log_failure,
        ExpectedFinding("gpu-dcgm-logs", "FAIL", "G.1.b", GPU_NODE),
    ),
    one_finding(
        "gpu-thermal-throttling",
        "One GPU at 91 °C with hardware and thermal slowdown active.",
        "eks",
        thermal_throttling,
        ExpectedFinding("gpu-throttle", "FAIL", "G.4", GPU_NODE),
    ),
    one_finding(
        "neuron-devices-missing-trn1",
        "A trn1.32xlarge node shows 15 of its 16 Neuron devices.",
        "eks",
        neuron_missing_trn1,
        ExpectedFinding("neuron-devices", "FAIL", "G.5", GPU_NODE),
    ),
    one_finding(
        "neuron-hardware-error-trn1",
        "A trn1.32xlarge node's kernel log has NEURON_HW_ERR=HBM_UNCORRECTABLE_ERROR.",
        "eks",
        neuron_hardware_error,
        ExpectedFinding("neuron-driver-errors", "FAIL", "G.5", GPU_NODE),
    ),
    one_finding(
        "neuron-hang-on-collectives-trn1",
        "A trn1.32xlarge node's kernel log has NEURON_HW_ERR=HANG_ON_COLLECTIVES: a WARN that "
        "points at the other workers and a workload restart, never a replacement.",
        "eks",
        neuron_hang_on_collectives,
        ExpectedFinding("neuron-driver-errors", "WARN", "G.5", GPU_NODE),
    ),
    one_finding(
        "efa-device-count-short",
        "A p5.48xlarge Slurm worker shows 31 of 32 EFA devices.",
        "slurm",
        efa_device_short,
        ExpectedFinding("efa-devices", "FAIL", "A", SLURM_GPU_NODE),
    ),
    one_finding(
        "efa-ofi-nccl-plugin-missing",
        "A p5.48xlarge Slurm worker has the EFA installer but no aws-ofi-nccl plugin.",
        "slurm",
        ofi_nccl_plugin_missing,
        ExpectedFinding("efa-software", "WARN", "E", SLURM_GPU_NODE),
    ),
    one_finding(
        "efa-installer-missing",
        "A p5.48xlarge Slurm worker lacks /opt/amazon/efa_installed_packages.",
        "slurm",
        efa_installer_missing,
        ExpectedFinding("efa-software", "WARN", "E", SLURM_GPU_NODE),
    ),
    one_finding(
        "nic-rx-errors",
        "The primary ENA interface of an EKS GPU node counts receive errors since boot.",
        "eks",
        nic_errors,
        ExpectedFinding("node-nic", "WARN", "A", GPU_NODE),
    ),
    one_finding(
        "imds-unreachable",
        "The instance metadata service does not answer on an EKS GPU node's host.",
        "eks",
        imds_unreachable,
        ExpectedFinding("node-imds", "WARN", "B", GPU_NODE),
    ),
    Scenario(
        "gpu-probes-timed-out",
        "nvidia-smi hung mid-answer on an EKS GPU node: the GPU list and row-remap probes "
        "were killed by their timeout after part of their output.",
        "eks",
        gpu_probes_timed_out,
        expect=[("gpu-count", "INFO", "G"), ("gpu-row-remap", "INFO", "G.1.a")],
        resources={"gpu-count": [GPU_NODE], "gpu-row-remap": [GPU_NODE]},
        must_not=[("gpu-count", "FAIL"), ("gpu-count", "PASS"), ("gpu-row-remap", "PASS")],
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
]
