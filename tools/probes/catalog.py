"""The fixed catalogue of named, read-only node probes: the only commands that reach a node.

Nothing else is ever sent to a node. A probe is a name and one fixed POSIX-shell command
that only reads (files under /proc and /sys, tool queries that print state); none of them
takes an argument, so no text from a user, a log or a model can reach a node's shell.
`tools.probes.framing` joins the probes chosen for a node into one session command and the
AWS access guard refuses a StartSession whose command is not exactly such a bundle.

Each probe prints its raw stdout (stderr folded in, so "command not found" is visible);
the parsers in `tools.parsers` read it and the node checks judge the parsed values.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class NodeKind(StrEnum):
    """Which nodes a probe applies to."""

    ANY = "any"  # every node
    NVIDIA = "nvidia"  # instance types with NVIDIA GPUs
    NEURON = "neuron"  # Trainium / Inferentia
    EFA = "efa"  # EFA-capable instance types
    EKS = "eks"  # worker nodes of an EKS-orchestrated cluster
    SLURM = "slurm"  # every node of a Slurm cluster
    SLURM_CONTROLLER = "slurm-controller"  # the Slurm controller (head) node, or locally


@dataclass(frozen=True)
class ProbeSpec:
    name: str
    command: str
    description: str
    kind: NodeKind = NodeKind.ANY
    timeout_s: int = 60  # per probe, inside the node's overall budget
    # Talks to a GPU / accelerator driver or daemon, which can hang when the hardware is
    # sick (nvidia-smi on a GPU that fell off the bus): such probes get a shorter timeout
    # and run after the cheap file reads, so a hang cannot cost the node's other answers.
    may_hang: bool = False


# The same grep pattern for kernel signatures in the current and the previous boot. The
# last alternatives keep the tools' own refusals (dmesg_restrict, an unreadable journal) so
# a log we could not read is reported as such, never mistaken for a clean one.
# Short tokens only match as whole words ("efa" is inside "default"). The Neuron driver
# prefixes its lines "neuron:" (or a device, "neuron3:"), but its hardware-error report is
# one token, NEURON_HW_ERR=..., which a word boundary would miss: both are listed. Kernel
# oopses ("BUG: unable to handle ...", "Oops: 0002 [#1]", "general protection fault") and
# "kernel BUG at" assertions are kept for § N.
_KERNEL_SIGNATURES = (
    "\\b(xid|nvrm|nmi|mce|efa|neuron[0-9]*)\\b|neuron_hw_err|oom-kill|out of memory|"
    "killed process|panic|lockup|hung_task|blocked for more than|watchdog|machine check|"
    "i/o error|bug: unable to handle|bug: kernel null pointer|kernel bug at|oops:|"
    "general protection fault|"
    "read kernel buffer failed|operation not permitted|insufficient permissions"
)
# journalctl's own answers for the previous boot: there is none to show (a first boot, a
# journal kept in memory only) or, without privileges, only the caller's own messages. Kept
# so that neither reads as a clean previous boot. dmesg never prints them: the current-boot
# probe does not grep for them.
_JOURNAL_ANSWERS = (
    "no persistent journal|specifying boot id|specified boot|no journal boot entry|"
    "failed to look up boot|-- no entries --|not seeing messages from other users"
)

HANG_TIMEOUT_S = 30  # five of these hung still fit the node budget

# Where DCGM's packaged host engine keeps its home and logs, and where dcgmi diag writes
# its nvvs log by default; the marker separates the listing from the log in the output.
DCGM_LOG_DIR = "/var/log/nvidia-dcgm"
DCGM_LOG_MARKER = "== newest nvvs log =="
DCGM_LOG_LINES = 200
# Where HyperPod's deep health checks log their per-instance results on the node (SageMaker
# Developer Guide, "Deep health checks": instance-level logs).
DHC_LOG_PATH = "/var/log/aws/clusters/sagemaker-deep-health-check.log"
DHC_LOG_LINES = 200


IMDS = "http://169.254.169.254"
_CURL = "curl -s --noproxy '*' --connect-timeout 2 -m 5"
# Directories the aws-ofi-nccl plugin is installed in, newest layout first.
OFI_NCCL_DIRS = (
    "/opt/amazon/ofi-nccl/lib",
    "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu",
    "/opt/amazon/ofi-nccl/lib/aarch64-linux-gnu",
    "/opt/amazon/aws-ofi-nccl/lib",
    "/opt/aws-ofi-nccl/lib",
    "/opt/aws-ofi-nccl/install/lib",
)


def _fallback(first: str, second: str, *, usable: str) -> str:
    """`first`, and `second` only when `first` printed no line matching the grep pattern
    `usable` (no data row: an older or newer tool refusing the first form's options).

    `first || second` would also run `second` after a `first` that printed its rows and
    then failed (nvidia-smi exits non-zero when one GPU has fallen off the bus), and the
    rows would arrive twice. The output of whichever form ran last is printed (stderr
    folded in), and the probe fails (status 1) when that form failed."""
    run = 'r=$({} 2>&1; echo "@$?") ; '
    return (
        run.format(first)
        + "o=${r%@*} ; "
        + f"printf '%s\\n' \"$o\" | grep -q '{usable}' || "
        + run.format(second).removesuffix(" ; ")
        + ' ; printf \'%s\\n\' "${r%@*}" ; test "${r##*@}" = 0'
    )


_GPU_FIELDS = (
    "index,pci.bus_id,name,driver_version,temperature.gpu,"
    "ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,"
    "{reasons}.hw_slowdown,{reasons}.hw_thermal_slowdown,{reasons}.sw_thermal_slowdown"
)

_PROBES: tuple[ProbeSpec, ...] = (
    ProbeSpec(
        "disk_usage",
        "df -P / /opt/sagemaker /opt/dlami/nvme /dev/shm",
        "Block usage of the root volume, secondary EBS, instance store and /dev/shm (§ I.1).",
    ),
    ProbeSpec(
        "disk_inodes",
        "df -P -i / /opt/sagemaker /opt/dlami/nvme /dev/shm",
        "Inode usage of the same file systems (§ I.1).",
    ),
    ProbeSpec("meminfo", "cat /proc/meminfo", "Memory and hugepages (§ I.2)."),
    ProbeSpec(
        "uptime", "cat /proc/uptime", "Seconds since boot: shows a recent reboot (§ N, § F.4)."
    ),
    ProbeSpec("cpu", "lscpu", "vCPU count and threads per core (§ J)."),
    ProbeSpec("kernel_release", "uname -r", "Running kernel (§ E, § N)."),
    ProbeSpec(
        "kernel_log",
        f"dmesg -T 2>&1 | grep -iE '{_KERNEL_SIGNATURES}' | tail -n 400",
        "Kernel messages of this boot that match GPU, OOM, lockup and panic signatures "
        "(§ G.2, § I.2, § N).",
    ),
    ProbeSpec(
        "kernel_log_previous_boot",
        f"journalctl -k -b -1 --no-pager -o short-iso 2>&1 | grep -iE "
        f"'{_KERNEL_SIGNATURES}|{_JOURNAL_ANSWERS}' | tail -n 400",
        "The same signatures in the previous boot's kernel journal (§ N; repeated Xid after "
        "a reboot).",
    ),
    ProbeSpec(
        "time_sync",
        "timedatectl show -p NTPSynchronized -p NTP 2>&1; chronyc tracking 2>&1",
        "Clock synchronisation state (§ I.4).",
    ),
    ProbeSpec(
        "services",
        "systemctl show -p Id -p LoadState -p ActiveState -p SubState amazon-ssm-agent "
        "snap.amazon-ssm-agent.amazon-ssm-agent containerd kubelet slurmd slurmctld munge",
        "State of the SSM agent, container runtime, kubelet and Slurm daemons (§ K, § M, § H).",
    ),
    ProbeSpec(
        "gpu_list",
        "nvidia-smi -L",
        "GPUs visible to the driver (§ G).",
        NodeKind.NVIDIA,
        timeout_s=HANG_TIMEOUT_S,
        may_hang=True,
    ),
    ProbeSpec(
        "gpu_query",
        # Drivers since R535 name the throttle reasons clocks_event_reasons and keep the
        # old names as deprecated aliases; ask with the new names first, the old ones
        # on drivers that do not know them. Both print the same columns.
        _fallback(
            f"nvidia-smi --query-gpu={_GPU_FIELDS.format(reasons='clocks_event_reasons')} "
            "--format=csv,noheader,nounits",
            f"nvidia-smi --query-gpu={_GPU_FIELDS.format(reasons='clocks_throttle_reasons')} "
            "--format=csv,noheader,nounits",
            usable="^ *[0-9]",
        ),
        "Per-GPU ECC counters, temperature and throttle reasons (§ G.3, § G.4).",
        NodeKind.NVIDIA,
        timeout_s=HANG_TIMEOUT_S,
        may_hang=True,
    ),
    ProbeSpec(
        "gpu_row_remap",
        "nvidia-smi -q -d ROW_REMAPPER",
        "Row-remapping state and bank histogram per GPU, with driver and CUDA versions "
        "(§ G.1.a, § E).",
        NodeKind.NVIDIA,
        timeout_s=HANG_TIMEOUT_S,
        may_hang=True,
    ),
    ProbeSpec(
        "gpu_page_retirement",
        # GPUs before Ampere (V100 on p3) retire whole pages instead of remapping rows;
        # Ampere and newer answer N/A here and are judged by row remapping.
        "nvidia-smi -q -d PAGE_RETIREMENT",
        "Retired and pending-retirement pages per GPU, for GPUs without row remapping (§ G.1.a).",
        NodeKind.NVIDIA,
        timeout_s=HANG_TIMEOUT_S,
        may_hang=True,
    ),
    ProbeSpec(
        "dcgm_health",
        "dcgmi health -c -j",
        "DCGM health watches, as JSON (§ G.1.b).",
        NodeKind.NVIDIA,
        timeout_s=HANG_TIMEOUT_S,
        may_hang=True,
    ),
    ProbeSpec(
        "dcgm_diag_logs",
        # The DCGM directory newest first (a bounded listing), a marker line, the newest
        # diagnostic log's name, then its last lines cut to a bounded width. A node that
        # never ran dcgmi diag has no nvvs log: the part after the marker is empty.
        f"ls -1t {DCGM_LOG_DIR} 2>&1 | head -n 20; echo '{DCGM_LOG_MARKER}'; "
        f"ls -1t {DCGM_LOG_DIR}/nvvs*.log 2>/dev/null | head -n 1; "
        f"ls -1t {DCGM_LOG_DIR}/nvvs*.log 2>/dev/null | head -n 1 | "
        f"xargs -r tail -n {DCGM_LOG_LINES} | cut -c 1-400",
        "The DCGM log directory and the tail of the newest diagnostic (nvvs) log: results "
        "of the last dcgmi diag run (§ G.1.b).",
        NodeKind.NVIDIA,
    ),
    ProbeSpec(
        "deep_health_check_log",
        # The last lines of the deep health check log, each cut to a bounded width; tail's
        # own complaint (no such file, permission denied) is kept so that a missing log is
        # never read as a clean one.
        f"tail -n {DHC_LOG_LINES} {DHC_LOG_PATH} 2>&1 | cut -c 1-400",
        "The tail of HyperPod's deep health check log: hardware stress, DCGM and EFA "
        "results with replacementRequired / rebootRequired (§ G.1.b).",
        # The deep health checks run on the accelerated instance types with EFA (GPU and
        # Trainium): other nodes keep no such log.
        NodeKind.EFA,
    ),
    ProbeSpec(
        "nvidia_driver",
        "cat /proc/driver/nvidia/version",
        "Loaded NVIDIA kernel driver version (§ E).",
        NodeKind.NVIDIA,
    ),
    ProbeSpec(
        "nccl_libraries",
        # Ubuntu x86 and Arm multiarch paths, Amazon Linux's /usr/lib64, both CUDA layouts.
        "ls -1 /opt/nccl/build/lib /usr/local/cuda/lib64 /usr/local/cuda/lib "
        "/usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 "
        "2>/dev/null | grep -E '^libnccl\\.so\\.[0-9]'",
        "NCCL shared libraries installed on the host (§ E).",
        NodeKind.NVIDIA,
    ),
    ProbeSpec(
        "neuron_devices",
        # Neuron 2.34 replaced --json-output with --output-format json.
        _fallback(
            "neuron-ls --json-output", "neuron-ls --output-format json", usable="^[[:space:]]*[[{]"
        ),
        "Neuron devices visible on Trainium / Inferentia (§ G.5).",
        NodeKind.NEURON,
        timeout_s=HANG_TIMEOUT_S,
        may_hang=True,
    ),
    ProbeSpec(
        "neuron_device_files",
        "ls -1 /dev | grep -E '^neuron[0-9]+$'",
        "Neuron device files the driver created, counted when neuron-ls cannot be read (§ G.5).",
        NodeKind.NEURON,
    ),
    ProbeSpec("efa_module", "lsmod", "Loaded kernel modules (the efa driver) (§ A).", NodeKind.EFA),
    ProbeSpec(
        "efa_devices",
        "ls -1 /dev/infiniband",
        "EFA verbs devices (uverbsN) (§ A).",
        NodeKind.EFA,
    ),
    ProbeSpec(
        "efa_provider",
        "PATH=$PATH:/opt/amazon/efa/bin fi_info -p efa -t FI_EP_RDM",
        "libfabric's view of the EFA provider (§ A).",
        NodeKind.EFA,
    ),
    ProbeSpec(
        "efa_packages",
        "cat /opt/amazon/efa_installed_packages",
        "EFA installer version and its packages, aws-ofi-nccl included (§ E).",
        NodeKind.EFA,
    ),
    ProbeSpec(
        "ofi_nccl_plugin",
        # Where the EFA installer (/opt/amazon/ofi-nccl, multiarch subdirectories on
        # Ubuntu), older installers and DLAMIs (/opt/amazon/aws-ofi-nccl, /opt/aws-ofi-nccl)
        # and hand builds put the plugin; ls prints each directory's name before its files.
        f"ls -1 {' '.join(OFI_NCCL_DIRS)} 2>/dev/null | grep -E '^/|^libnccl-(net|ofi)'",
        "The aws-ofi-nccl plugin libraries NCCL loads to use EFA, and where they are (§ E).",
        NodeKind.EFA,
    ),
    ProbeSpec(
        "net_interfaces",
        # ENA interfaces only (the PCI devices bound to the ena driver, so no veth or
        # bridge): link state and the kernel's cumulative counters, then every IPv4 address.
        "grep -H . "
        + " ".join(
            f"/sys/bus/pci/drivers/ena/*/net/*/{leaf}"
            for leaf in (
                "operstate",
                "statistics/rx_packets",
                "statistics/tx_packets",
                "statistics/rx_errors",
                "statistics/tx_errors",
                "statistics/rx_dropped",
                "statistics/tx_dropped",
            )
        )
        + "; ip -o -4 addr show",
        "ENA network interfaces: link state, error and drop counters since boot, IPv4 "
        "addresses (§ A).",
    ),
    ProbeSpec(
        "imds",
        # IMDSv2: a PUT opens a session (the token lives 60 s and is never printed), then a
        # GET reads the instance type with it. Without a token the GET goes out as IMDSv1,
        # which answers 401 where tokens are required. Status lines are printed around the
        # body; proxies are bypassed, as they are for the node's own IMDS clients.
        f"r=$({_CURL} -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 60' "
        f"-w '@%{{http_code}}' {IMDS}/latest/api/token) ; "
        'echo "token: curl_exit=$? http=${r##*@}" ; '
        f'{_CURL} -H "X-aws-ec2-metadata-token: ${{r%@*}}" '
        f"-w '\\ninstance-type: http=%{{http_code}}\\n' {IMDS}/latest/meta-data/instance-type ; "
        'echo "instance-type: curl_exit=$?"',
        "Whether the instance metadata service answers on the host, with an IMDSv2 token (§ B).",
        timeout_s=20,
    ),
    ProbeSpec(
        "slurm_nodes",
        "sinfo --Node --noheader --format='%N|%T|%H|%E'",
        "Slurm node states with reason and its time (§ H.1).",
        NodeKind.SLURM_CONTROLLER,
    ),
    ProbeSpec(
        "slurm_stuck_jobs",
        "squeue --noheader --states=CG,CF --format='%i|%T|%M|%N|%j'",
        "Jobs in COMPLETING or CONFIGURING (§ H.2).",
        NodeKind.SLURM_CONTROLLER,
    ),
    ProbeSpec(
        "slurm_controller",
        "scontrol ping",
        "Whether slurmctld answers (§ H).",
        NodeKind.SLURM_CONTROLLER,
    ),
    ProbeSpec(
        "slurm_resource_config",
        "cat /opt/ml/config/resource_config.json",
        "HyperPod's instance list: Slurm node name / IP to instance id (§ H.3).",
        NodeKind.SLURM_CONTROLLER,
    ),
)

CATALOGUE: dict[str, ProbeSpec] = {probe.name: probe for probe in _PROBES}

# The per-node budget of the seed: one session per node, at most this long.
NODE_TIMEOUT_S = 180


def probe(name: str) -> ProbeSpec:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise KeyError(f"{name!r} is not a catalogued probe") from None


def probes_for(kinds: set[NodeKind]) -> list[str]:
    """The probe names that apply to a node of these kinds: catalogue order, with the
    probes that may hang moved last."""
    wanted = {*kinds, NodeKind.ANY}
    chosen = [p for p in _PROBES if p.kind in wanted]
    return [p.name for p in sorted(chosen, key=lambda p: p.may_hang)]  # stable: cheap first
