"""Tool output as real terminals printed it, quoted from public issues, mailing lists and
vendor documentation: the parsers' held-out fixtures (issue 21, part 4).

Each sample names where it was quoted. Lines are kept as printed except where marked:
host names are replaced by "host" (they identify someone's machines), and a line a mail
client wrapped is joined again. A sample the issue describes but no public terminal quote
was found for is marked UNVERIFIED and says what it was built from.
"""

# ruff: noqa: E501  (literal tool output keeps its real line lengths)

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    source: str  # where the text was quoted (URL), or UNVERIFIED and what it was built from
    text: str


# -- NVRM Xid lines --------------------------------------------------------------------------

# NVIDIA, "GPU Memory Error Management", User Visible Statistics, table "Uncorrectable ECC
# Errors XID Log Examples": a contained error with and without MIG, and an uncontained one.
XID_MIG_DOC = Sample(
    "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/user-visible-statistics.html",
    "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, D-RST: No\n"
    "NVRM: Xid (PCI:0000:01:00): 94, pid=7062, Contained: CE User Channel (0x9). RST: No, D-RST: No\n"
    "NVRM: Xid (PCI:0000:01:00): 95, pid=7062, Uncontained: LTC TAG (0x2,0x1). RST: Yes, D-RST: No\n",
)

# The driver's own format string for an Xid attributed to a GPU instance and a compute
# instance (open-gpu-kernel-modules, src/nvidia/src/kernel/gpu/rc/kernel_rc.c:
# "NVRM: Xid (PCI:%04x:%02x:%02x GPU-I:%02u GPU-CI:%02u): %d, pid=%s, name=%s, %s"),
# filled in: the shape, not a captured line.
XID_MIG_COMPUTE_INSTANCE = Sample(
    "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/src/nvidia/src/kernel/gpu/rc/kernel_rc.c (format string, filled in)",
    "[ 8812.120433] NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 13, pid=40211, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address\n",
)

# NVLink5 Xids on B200 / GB200, as the driver logs them (kmsg inputs quoted in gpud's pull
# request decoding them): a fatal NETIR link event and a non-fatal RLW error.
XID_NVLINK5 = Sample(
    "https://github.com/leptonai/gpud/pull/1174",
    "NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
    "NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
    "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)\n",
)

# The jobs torn down after NVLink5 errors on a driver 590 node (journal lines, host name
# dropped by the reporter).
XID_FOLLOW_NVLINK5 = Sample(
    "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1150",
    "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149\n"
    "kernel: NVRM: Xid (PCI:0000:ed:00): 45, pid=1818992, name=python3, Ch 0000000c caused by previous Xid 145\n",
)

# Xid 62 (internal micro-controller halt) followed by the teardown of the channels.
XID_62 = Sample(
    "https://github.com/madMAx43v3r/chia-gigahorse/issues/301",
    "[14328.198504] NVRM: Xid (PCI:0000:0a:00): 31, pid=13332, name=cuda_plot_k32_v, Ch 00000010, intr 00000000. MMU Fault: ENGINE CE2 HUBCLIENT_CE0 faulted @ 0x7f29_5b8c9000. Fault is of type FAULT_PRIV_VIOLATION ACCESS_TYPE_VIRT_READ\n"
    "[14370.687545] NVRM: Xid (PCI:0000:0a:00): 62, pid='<unknown>', name=<unknown>, 2023b230 20238a3a 2023e8b6 2023eac4 2023ec3c 2023ea86 00000000 00000000\n"
    "[14370.688139] NVRM: Xid (PCI:0000:0a:00): 45, pid='<unknown>', name=<unknown>, Ch 00000008\n",
)

# -- kernel log: tasks named with colons and parentheses -----------------------------------

HUNG_KWORKER = Sample(
    "https://github.com/sonic-net/sonic-buildimage/issues/4822",
    "[24288.377534] INFO: task kworker/1:2:10762 blocked for more than 120 seconds.\n",
)

# A syslog copy of the kernel log (the host name was already absent in the quote).
HUNG_KWORKER_UNBOUND = Sample(
    "https://github.com/raspberrypi/linux/issues/2557",
    "May 17 18:48:11 kernel: [ 6141.921740] INFO: task kworker/u8:0:5 blocked for more than 120 seconds.\n",
)

SOFT_LOCKUP_KWORKER = Sample(
    "https://github.com/sonic-net/sonic-buildimage/issues/17358",
    "[ 5300.229390] watchdog: BUG: soft lockup - CPU#2 stuck for 23s! [kworker/2:1:25629]\n",
)

SOFT_LOCKUP_KWORKER_UNBOUND = Sample(
    "https://github.com/openrisc/linux/issues/12",
    "[90216.140000] watchdog: BUG: soft lockup - CPU#0 stuck for 186s! [kworker/u3:3:2073]\n",
)

# systemd's "(sd-pam)" helper killed by the OOM killer: its name holds parentheses. Kernel
# 6.1 (kernel.org Bugzilla 219535, attachment 307290; the mail client's line wraps joined).
OOM_SD_PAM = Sample(
    "https://bugzilla.kernel.org/show_bug.cgi?id=219535#c13",
    "[29924.805968] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-0.slice/user@0.service/init.scope,task=(sd-pam),pid=4503,uid=0\n"
    "[29924.805991] Out of memory: Killed process 4503 ((sd-pam)) total-vm:173972kB, anon-rss:0kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:96kB oom_score_adj:100\n",
)

# RHEL / CentOS 6 kernels print the UID before the name (host name replaced).
OOM_RHEL6 = Sample(
    "https://github.com/cPanelSSP/SSP/issues/76",
    "Mar  2 17:35:10 host kernel: [2858609.598568] Killed process 11726, UID 498, (mysqld) total-vm:7823732kB, anon-rss:2539268kB, file-rss:768kB\n",
)

# 4.x kernels print the UID after the name (host name replaced).
OOM_UID_AFTER = Sample(
    "https://github.com/kubernetes/kubernetes/issues/50632",
    "Nov 30 10:17:44 host kernel: Killed process 817194 (node), UID 1000, total-vm:674616kB, anon-rss:133380kB, file-rss:13648kB, shmem-rss:0kB\n",
)

# -- EFA installer package lists (/opt/amazon/efa_installed_packages) ------------------------

# EFA installer 1.5.1: AWS's libfabric packaged as plain "libfabric1" with an amzn version.
EFA_PACKAGES_1_5_1 = Sample(
    "https://github.com/aws/libfabric/issues/3",
    "# EFA installer version: 1.5.1\n"
    "# Debug packages installed: no\n"
    "# Packages installed:\n"
    "efa_1.3.0-1.amzn1_amd64 ibacm_25.0-1_amd64 ibverbs-providers_25.0-1_amd64 ibverbs-utils_25.0-1_amd64 infiniband-diags_25.0-1_amd64 libfabric1_1.8.0amzn1.0_amd64 libfabric-bin_1.8.0amzn1.0_amd64 libfabric-dev_1.8.0amzn1.0_amd64 libibmad5_25.0-1_amd64 libibmad-dev_25.0-1_amd64 libibnetdisc5_25.0-1_amd64 libibnetdisc-dev_25.0-1_amd64 libibumad3_25.0-1_amd64 libibumad-dev_25.0-1_amd64 libibverbs1_25.0-1_amd64 libibverbs-dev_25.0-1_amd64 librdmacm1_25.0-1_amd64 librdmacm-dev_25.0-1_amd64 openmpi_3.1.4-2_amd64 rdmacm-utils_25.0-1_amd64 rdma-core_25.0-1_amd64\n",
)

# EFA installer 1.17.2: the "-aws" names, with a pre-release "~amzn" version.
EFA_PACKAGES_1_17_2 = Sample(
    "https://github.com/aws/aws-ofi-nccl/issues/141",
    "# EFA installer version: 1.17.2\n"
    "# Debug packages installed: no\n"
    "# Packages installed:\n"
    "efa-config_1.10_all efa-profile_1.5_all libfabric-aws-bin_1.16.0~amzn3.0_amd64 libfabric-aws-dev_1.16.0~amzn3.0_amd64 libfabric1-aws_1.16.0~amzn3.0_amd64 openmpi40-aws_4.1.4-1_amd64 ibacm_41.0-1_amd64 ibverbs-providers_41.0-1_amd64 ibverbs-utils_41.0-1_amd64 infiniband-diags_41.0-1_amd64 libibmad-dev_41.0-1_amd64 libibmad5_41.0-1_amd64 libibnetdisc-dev_41.0-1_amd64 libibnetdisc5_41.0-1_amd64 libibumad-dev_41.0-1_amd64 libibumad3_41.0-1_amd64 libibverbs-dev_41.0-1_amd64 libibverbs1_41.0-1_amd64 librdmacm-dev_41.0-1_amd64 librdmacm1_41.0-1_amd64 rdma-core_41.0-1_amd64 rdmacm-utils_41.0-1_amd64 efa_1.16.0-1.amzn1_amd64\n",
)

# -- scontrol ping -----------------------------------------------------------------------------

# SLURM 2.3.2, captured for NorduGrid ARC's information-provider tests: one joined line,
# "(NULL)" where no backup controller is configured.
PING_SLURM_2_3 = Sample(
    "https://github.com/nordugrid/arc/blob/master/src/services/a-rex/infoproviders/test/slurm.t",
    "Slurmctld(primary/backup) at test-machine/(NULL) are UP/DOWN\n",
)

# The current one-line-per-controller form, from scontrol's source ("Slurmctld(%s) at %s is
# %s", then the banner root sees when one is down), filled in: the shape, not a captured run.
PING_CURRENT = Sample(
    "https://github.com/SchedMD/slurm/blob/master/src/scontrol/scontrol.c (_print_ping, filled in)",
    "Slurmctld(primary) at ip-10-1-0-5 is UP\n"
    "Slurmctld(backup) at ip-10-1-0-6 is DOWN\n"
    "*****************************************\n"
    "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
    "*****************************************\n",
)

# -- nvidia-smi -q header of driver 610 --------------------------------------------------------

NVSMI_610_HEADER = Sample(
    "https://github.com/Jaded-Encoding-Thaumaturgy/vs-jetpack/issues/295",
    "\n"
    "==============NVSMI LOG==============\n"
    "\n"
    "Timestamp                                              : Fri May 29 15:16:01 2026\n"
    "Driver Version                                         : 610.47 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]\n"
    "CUDA Version                                           : 13.3 [Deprecated; will be removed in CUDA 14.0. Use CUDA UMD Version instead]\n"
    "KMD Version                                            : 610.47\n"
    "CUDA UMD Version                                       : 13.3\n"
    "\n"
    "Attached GPUs                                          : 1\n",
)

# -- nvidia-smi -q -d ROW_REMAPPER with MIG mode on -------------------------------------------

# UNVERIFIED: no public capture was found. Built from issue 21's description ("with MIG
# enabled, row remapping answers N/A") on the layout of a real "Remapped Rows" block (as
# quoted in https://github.com/leptonai/gpud/pull/80): one GPU read, one answering N/A.
ROW_REMAP_MIG = Sample(
    "UNVERIFIED: issue 21, part 4, on the ROW_REMAPPER block layout",
    "\n"
    "==============NVSMI LOG==============\n"
    "\n"
    "Timestamp                                 : Mon Nov 30 06:53:12 2026\n"
    "Driver Version                            : 550.127.05\n"
    "CUDA Version                              : 12.4\n"
    "\n"
    "Attached GPUs                             : 2\n"
    "GPU 00000000:53:00.0\n"
    "    Remapped Rows\n"
    "        Correctable Error                 : 0\n"
    "        Uncorrectable Error               : 0\n"
    "        Pending                           : No\n"
    "        Remapping Failure Occurred        : No\n"
    "        Bank Remap Availability Histogram\n"
    "            Max                           : 640 bank(s)\n"
    "            High                          : 0 bank(s)\n"
    "            Partial                       : 0 bank(s)\n"
    "            Low                           : 0 bank(s)\n"
    "            None                          : 0 bank(s)\n"
    "\n"
    "GPU 00000000:64:00.0\n"
    "    Remapped Rows\n"
    "        Correctable Error                 : N/A\n"
    "        Uncorrectable Error               : N/A\n"
    "        Pending                           : N/A\n"
    "        Remapping Failure Occurred        : N/A\n"
    "        Bank Remap Availability Histogram\n"
    "            Max                           : N/A\n"
    "            High                          : N/A\n"
    "            Partial                       : N/A\n"
    "            Low                           : N/A\n"
    "            None                          : N/A\n",
)
