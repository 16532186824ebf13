"""Wording families: driver versions (E), HyperPod statuses (F.1), GPU telemetry (G.4) and
the EKS network path (B.5), in English and Chinese, plus the near misses they must not take."""

from __future__ import annotations

import pytest

from tools.explain import explain


def _best(text: str) -> str:
    matches = explain(text).matches
    assert matches, text
    return matches[0].section


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11020).",
        "CUDA error: CUDA driver version is insufficient for CUDA runtime version",
        "cudaErrorInsufficientDriver returned from cudaGetDeviceCount",
        "Error 804: forward compatibility was attempted on non supported HW",
        "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        "Error 803: system has unsupported display driver / cuda driver combination",
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please"
        " update your driver to a newer version, or use an earlier cuda container",
        "the provided PTX was compiled with an unsupported toolchain",
        "Rank 3 and rank 11 report different NCCL versions (2.18.5 vs 2.21.5)",
        "NCCL version mismatch between the container and the host",
        "新镜像里的 PyTorch 需要更新的驱动，报错说驱动太旧",
        "节点上的 GPU 驱动版本过低，跑不了 CUDA 12.4",
        "两个节点的 NCCL 版本不一样，多机训练报错",
        "容器里的 CUDA 版本太高了，宿主机驱动不支持",
    ],
)
def test_driver_and_runtime_versions_point_at_e(text: str) -> None:
    assert _best(text) == "E"


@pytest.mark.parametrize(
    "text",
    [
        "ClusterStatus: SystemUpdating",
        "The cluster has been SystemUpdating since this morning.",
        "Node i-0a1b2c3d4e5f60718 shows DeepHealthCheckInProgress",
        '"ClusterStatus": "RollingBack"',
        "Our HyperPod cluster is stuck in Creating state.",
        "instance group status Degraded",
        '"InstanceStatus": {"Status": "Pending"}',
        "three nodes have been ShuttingDown for an hour",
        "集群状态一直是 SystemUpdating",
        "集群卡在 Updating 状态",
        "节点状态显示 Failure",
        "实例组状态变成了 Degraded",
        "有两个节点一直处于 Pending",
        "集群状态是 RollingBack，怎么回事？",
    ],
)
def test_hyperpod_status_words_point_at_f1(text: str) -> None:
    assert _best(text) == "F.1"


def test_expected_transitions_say_so() -> None:
    match = explain("节点一直是 DeepHealthCheckInProgress").matches[0]
    assert match.section == "F.1"
    assert "expected transition" in match.why


@pytest.mark.parametrize(
    ("text", "best"),
    [
        ("pod train-0 is Pending: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu", "G"),
        ("Pod 一直 Pending，describe 里是 FailedCreatePodSandBox", "O"),
        ("squeue: job 4412 has been Pending for 3 hours (Resources)", "H.2"),
        ("作业一直 pending，squeue 里的 reason 是 Resources", "H.2"),
        ("sagemaker.amazonaws.com/deep-health-check-status=Failed", "F.2"),
    ],
)
def test_status_words_of_other_systems_stay_with_them(text: str, best: str) -> None:
    assert _best(text) == best


@pytest.mark.parametrize(
    "text",
    [
        "index, temperature.gpu, clocks.sm [MHz]\n0, 52, 1980 MHz\n1, 90, 1140 MHz",
        "clocks_throttle_reasons.hw_thermal_slowdown, clocks_throttle_reasons.sw_power_cap\n"
        "Active, Not Active",
        "clocks_event_reasons.sw_thermal_slowdown : Active",
        "GPU Current Temp : 91 C\nGPU Slowdown Temp : 92 C",
        "        HW Slowdown                       : Active",
        "        SW Power Cap                      : Active",
        "GPU 3 temperature exceeded 92C during the run",
        "7 号卡温度过高，跑一会儿就降频",
        "GPU 过热",
        "nvidia-smi 显示 2 号卡温度 91 度",
        "SM 时钟只有 1200 MHz，其他卡都是 1980",
    ],
)
def test_gpu_thermal_and_clock_telemetry_points_at_g4(text: str) -> None:
    assert _best(text) == "G.4"


def test_a_full_smi_dump_with_ecc_errors_stays_with_ecc() -> None:
    text = (
        "    Temperature\n"
        "        GPU Current Temp                  : 41 C\n"
        "        GPU Slowdown Temp                 : 89 C\n"
        "    Clocks Event Reasons\n"
        "        Idle                              : Active\n"
        "        HW Slowdown                       : Not Active\n"
        "    ECC Errors\n"
        "        Volatile\n"
        "            DRAM Uncorrectable            : 4\n"
    )
    assert _best(text) == "G.3"


def test_a_cool_gpu_reading_is_not_a_hot_one() -> None:
    signals = [s for m in explain("GPU Current Temp : 45 C").matches for s in m.signals]
    assert "gpu.hot_reading" not in signals


@pytest.mark.parametrize(
    "text",
    [
        "The EKS cluster and the HyperPod subnets are in different VPCs.",
        "HyperPod subnets are not in the same VPC as the EKS cluster: EKS is in vpc-0aaa",
        "From the node, the EKS API server endpoint times out on 443.",
        "kubelet: Unable to register node with API server: dial tcp 10.0.3.4:443: i/o timeout",
        "Post https://A1B2C3D4E5F6A7B8C9D0E1F2A3B4C5D6.gr7.us-east-1.eks.amazonaws.com/api/v1/nodes:"
        " dial tcp 10.0.3.4:443: i/o timeout",
        "HyperPod nodes cannot reach the EKS control plane.",
        "The EKS cluster security group does not allow 443 from the HyperPod security group.",
        "EKS 集群和 HyperPod 不在同一个 VPC",
        "EKS 和 HyperPod 用的是两个不同的 VPC",
        "安全组不通 443，节点加不进 EKS 集群",
        "节点上 API server endpoint 连不上",
        "连不上 EKS 控制平面",
        "HyperPod 节点一直加不进 EKS 集群",
    ],
)
def test_eks_network_path_points_at_b5(text: str) -> None:
    assert _best(text) == "B.5"


@pytest.mark.parametrize(
    ("text", "best"),
    [
        ("subnet-0aaa and sg-0bbb belong to different VPCs", "B.1"),
        ("EFA security group outbound rule to itself is missing", "A"),
        ("dial tcp 52.94.1.1:443: i/o timeout to sts.us-west-2.amazonaws.com", "B.4"),
    ],
)
def test_neighbouring_network_sections_keep_their_wording(text: str, best: str) -> None:
    assert _best(text) == best
