"""Every signal of the public skill's own signal → section tables finds its section.

Rows follow ../shared/research/PARITY.md § 2 (S = events, L = EKS labels, Y = symptoms) and
the verbatim signals of § 5 item 6. Each row is written several ways: the table's own words,
the way a log or an event carries them, and a Chinese paraphrase. A row whose table names
two sections ("A + B", "C or F") must rank both in the top three, the first one first.
"""

from __future__ import annotations

import pytest

from tools.explain import explain


def _ranked(text: str, top: int = 3) -> list[str]:
    return [m.section for m in explain(text, top=top).matches if not m.guess]


def _family(section_id: str) -> str:
    return section_id.split(".", maxsplit=1)[0]


# (row, text, the section that must come first: exactly, or its top-level family when the
# table names only the family)
FIRST: list[tuple[str, str, str]] = [
    # S1 EFA health check event
    ("S1", "EFA health checks did not run successfully", "A"),
    ("S1", "集群创建失败，事件里写着 EFA 健康检查没通过", "A"),
    # S3 lifecycle failure or timeout
    ("S3", "Lifecycle script on_create.sh failed with exit code 1 on i-0123456789abcdef0", "D"),
    ("S3", "The lifecycle configuration timed out after 60 minutes", "D"),
    ("S3", "生命周期脚本执行超时，节点一直起不来", "D"),
    # S4 capacity / AZ at creation
    (
        "S4",
        "InsufficientInstanceCapacity: We currently do not have sufficient p5.48xlarge"
        " capacity in the Availability Zone you requested (us-east-1a).",
        "C",
    ),
    ("S4", "No subnets in the capacity AZ", "C"),
    ("S4", "There are no subnets in the Availability Zone of the reserved capacity.", "C"),
    ("S4", "Our subnets are not in the same AZ as the training plan capacity.", "C"),
    ("S4", "创建集群报容量不足", "C"),
    ("S4", "预留容量的可用区里没有子网", "C"),
    ("S4", "子网都不在训练计划的可用区", "C"),
    # S5 hardware failure event
    ("S5", "Instance i-0abc12345def67890 likely experienced a hardware failure", "F"),
    (
        "S5",
        "The instance has probably suffered an underlying hardware fault and will be replaced.",
        "F",
    ),
    ("S5", "Hardware failure detected on the instance; starting replacement.", "F"),
    ("S5", "事件说实例出现了硬件故障", "F"),
    ("S5", "节点发生硬件故障后被替换了", "F"),
    # L1–L3 EKS labels
    ("L1", "node-health-status: UnschedulablePendingReplacement", "F"),
    ("L2", "sagemaker.amazonaws.com/node-health-status=UnschedulablePendingReboot", "F"),
    ("L3", "sagemaker.amazonaws.com/deep-health-check-status: Failed", "F"),
    ("L3", "深度健康检查失败了", "F"),
    # L4 network fault type
    ("L4", "fault-type: NetworkFaultType", "A"),
    ("L4", "sagemaker.amazonaws.com/fault-types=NetworkFaultType", "A"),
    ("L4", "The node annotation shows fault type NetworkFaultType.", "A"),
    ("L4", "节点标签 fault-type 是 NetworkFaultType", "A"),
    # Y1 NCCL init / AllReduce hang
    ("Y1", "Training is stuck in NCCL init on 16 nodes", "A"),
    ("Y1", "AllReduce hangs forever after the first step", "A"),
    ("Y1", "训练卡在 NCCL 初始化", "A"),
    ("Y1", "AllReduce 卡住不动", "A"),
    # Y2 Slurm node down / unexpected reboot
    ("Y2", "sinfo shows the node DOWN: Node unexpectedly rebooted", "H"),
    ("Y2", "Slurm 节点 down 了，原因是 Node unexpectedly rebooted", "H"),
    # Y3 jobs stuck pending / completing
    ("Y3", "squeue: jobs stuck in COMPLETING for two hours", "H"),
    ("Y3", "作业一直卡在 CG 状态，squeue 里看得到", "H"),
    # Y4 auto-repair not triggered
    ("Y4", "Auto-repair did not trigger even though the node is clearly broken", "F"),
    ("Y4", "节点坏了但是没有自动替换", "F"),
    # Y5 GPU not visible / Xid / ECC
    ("Y5", "GPU not visible", "G"),
    ("Y5", "nvidia-smi shows only 7 GPUs", "G"),
    ("Y5", "7 of 8 GPUs", "G"),
    ("Y5", "Only 6 out of 8 GPUs are detected on the node", "G"),
    ("Y5", "Two GPUs are no longer visible after the reboot", "G"),
    ("Y5", "The device plugin reports 7/8 GPUs on ip-10-1-2-3", "G"),
    ("Y5", "We can't see all the GPUs on this p5.48xlarge", "G"),
    ("Y5", "NVRM: Xid (PCI:0000:53:00): 79, GPU has fallen off the bus.", "G"),
    ("Y5", "ECC errors on GPU 3", "G"),
    ("Y5", "GPU 不可见", "G"),
    ("Y5", "nvidia-smi 只显示 7 张卡", "G"),
    ("Y5", "节点上看不到 GPU 了", "G"),
    ("Y5", "8 卡的机器现在只剩 6 张", "G"),
    # Y6 row remap, silent NaN, DCGM Fail
    ("Y6", "Remapping Failure Occurred: Yes", "G.1.a"),
    ("Y6", "row remapping pending on GPU 2", "G.1.a"),
    ("Y6", "silent NaN", "G.1"),
    ("Y6", "training produces NaN", "G.1"),
    ("Y6", "The model keeps producing NaNs, but only on one node", "G.1"),
    ("Y6", "Loss goes to NaN after a few hundred steps with no error.", "G.1"),
    ("Y6", "We are getting NaN gradients on rank 5 only.", "G.1"),
    ("Y6", "dcgmi diag -r 3 reports Fail on the memory test", "G.1.b"),
    ("Y6", "训练出现 NaN", "G.1"),
    ("Y6", "loss 变成 nan 了，没有报错", "G.1"),
    ("Y6", "训练结果全是 NaN", "G.1"),
    # Y7 disk full / OOM / Cannot allocate memory
    ("Y7", "No space left on device", "I"),
    ("Y7", "Cannot allocate memory", "I"),
    ("Y7", "磁盘满了", "I"),
    # Y8 wrong vCPU count
    ("Y8", "nproc shows 96 instead of 192 on p5.48xlarge", "J"),
    ("Y8", "p5 上只有 96 个 vCPU", "J"),
    # Y9 container CrashLoopBackOff
    ("Y9", "pod/trainer-0 CrashLoopBackOff", "M"),
    ("Y9", "容器一直重启", "M"),
    # Y10 aws-node / gRPC 50051
    ("Y10", "aws-node CrashLoopBackOff: failed to connect to ipamd 127.0.0.1:50051", "O"),
    # Y11 pods pending with no IP
    ("Y11", "failed to assign an IP address to container", "O"),
    ("Y11", "Pod 一直 ContainerCreating，报 FailedCreatePodSandBox", "O"),
    # Y12 DNS
    ("Y12", "enableDnsSupport is false on the VPC", "B.2"),
    ("Y12", "节点上域名解析失败", "B.2"),
    # Y13 public subnet / IGW
    ("Y13", "The HyperPod subnet is a public subnet with a route to the internet gateway", "B.3"),
    ("Y13", "子网是公有子网，路由到互联网网关", "B.3"),
    # Y14 VPC endpoints
    ("Y14", "missing VPC endpoints for ECR and STS", "B.4"),
    ("Y14", "没有配 VPC 终端节点", "B.4"),
    # Y15 EKS VPC / SG mismatch
    ("Y15", "The EKS cluster is in a different VPC from the HyperPod nodes", "B.5"),
    ("Y15", "EKS 和 HyperPod 不在同一个 VPC", "B.5"),
    # Y16 kernel panic / watchdog / hung task
    ("Y16", "Kernel panic - not syncing: Fatal exception", "N"),
    ("Y16", "watchdog timeout", "N"),
    ("Y16", "hung task", "N"),
    ("Y16", "system hang", "N"),
    ("Y16", "node froze and rebooted", "N"),
    ("Y16", "INFO: task kworker/12:1 blocked for more than 122 seconds.", "N"),
    ("Y16", "The whole host locked up and stopped responding, then came back after a reboot.", "N"),
    ("Y16", "Our worker froze and then rebooted by itself around 02:00.", "N"),
    ("Y16", "看门狗超时", "N"),
    ("Y16", "系统卡死", "N"),
    ("Y16", "节点假死之后自己重启了", "N"),
    ("Y16", "dmesg 里有 hung task", "N"),
    # Y17 shell on the node
    ("Y17", "need a shell on the node", "K"),
    ("Y17", "how do I get a shell on the node", "K"),
    ("Y17", "How can I log in to a HyperPod worker node?", "K"),
    ("Y17", "I want to run a few commands directly on the controller node.", "K"),
    ("Y17", "We cannot access the nodes at all, there is no public IP.", "K"),
    ("Y17", "怎么登录到节点上", "K"),
    ("Y17", "我需要在节点上执行几个命令", "K"),
    ("Y17", "如何 ssh 到 worker 节点", "K"),
    # Y18 collect logs for AWS Support
    ("Y18", "How do I collect the logs for AWS Support?", "L"),
    ("Y18", "需要收集日志给 AWS Support", "L"),
    # § 5 item 6: Neuron
    ("G.5", "NRT_UNRECOVERABLE_ERROR", "G.5"),
    ("G.5", "nrt_execute failed with status NRT_UNRECOVERABLE_ERROR", "G.5"),
    ("G.5", "Trainium 上训练报 NRT_UNRECOVERABLE_ERROR", "G.5"),
]


def _first_matches(first: str, wanted: str) -> bool:
    return first == wanted or ("." not in wanted and _family(first) == wanted)


@pytest.mark.parametrize(
    ("row", "text", "wanted"), FIRST, ids=[f"{r}-{t[:40]}" for r, t, _ in FIRST]
)
def test_table_signal_finds_its_section(row: str, text: str, wanted: str) -> None:
    ranked = _ranked(text)
    assert ranked, (row, text)
    assert _first_matches(ranked[0], wanted), (row, text, ranked)


# Rows whose table names two sections: both must be in the top three, in this order.
BOTH: list[tuple[str, str, str, str]] = [
    ("S2", "Instance bootstrap failed: network misconfiguration", "A", "B"),
    (
        "S2",
        "The instance failed to bootstrap, likely because of a network misconfiguration"
        " in the VPC.",
        "A",
        "B",
    ),
    ("S2", "实例引导失败，可能是网络配置错误", "A", "B"),
    ("S6", "Failed to provision EC2 Instance", "C", "F"),
    ("S6", "Unable to launch the new instance for group gpu-workers", "C", "F"),
    ("S6", "EC2 实例预置失败", "C", "F"),
    ("Y1", "[E ProcessGroupNCCL.cpp:1182] Watchdog caught collective operation timeout", "A", "E"),
    ("L3", "deep-health-check-status=Failed on the node", "F.2", "G"),
]


@pytest.mark.parametrize(("row", "text", "first", "second"), BOTH)
def test_two_section_rows_rank_both(row: str, text: str, first: str, second: str) -> None:
    ranked = _ranked(text)
    assert ranked[0] == first, (row, text, ranked)
    assert second in ranked, (row, text, ranked)


@pytest.mark.parametrize(
    "text",
    [
        "[E ProcessGroupNCCL.cpp:1182] watchdog timeout after 1800000 ms on rank 3",
        "the collective all_reduce watchdog timed out",
    ],
)
def test_a_collective_watchdog_is_not_a_kernel_watchdog(text: str) -> None:
    ranked = _ranked(text)
    assert "N" not in ranked, ranked
    assert ranked[0] == "A"


@pytest.mark.parametrize(
    ("text", "unwanted"),
    [
        ("I logged into the node and nvidia-smi shows only 7 GPUs", "K"),
        ("只有 2 个节点能用", "G"),
        ("只剩 3 块盘", "G"),
        ("nvidia-smi -L lists 8 GPUs, all visible", "G.1"),
    ],
)
def test_near_misses_stay_out(text: str, unwanted: str) -> None:
    assert unwanted not in _ranked(text, top=5)
