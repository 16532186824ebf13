"""§ E node-versions: versions per node and drift between probed nodes."""

from __future__ import annotations

from cluster_simulator.node_samples import accelerators as samples
from tools.checks.node_versions import CHECK_ID, judge_versions, node_versions
from tools.findings import Priority, Status
from tools.parsers.versions import NodeVersions

from ._accel_data import CPU, P5, healthy_p5, node, run_check


def test_versions_of_one_node() -> None:
    versions = node_versions(node("i-1", P5, healthy_p5()))
    assert versions == NodeVersions(
        driver=samples.DRIVER,
        cuda=samples.CUDA,
        nccl=samples.NCCL,
        efa_installer="1.37.0",
        ofi_nccl="1.13.2",
    )


def test_single_node_gives_info_only() -> None:
    [finding] = judge_versions({"i-1": NodeVersions(driver="550.127.05", nccl="2.21.5")})
    assert finding.status is Status.INFO
    assert finding.message == "i-1 versions: NVIDIA driver 550.127.05, NCCL 2.21.5"


def test_drift_warns_p1_per_component_with_values_per_node() -> None:
    same = {"cuda": "12.4", "efa_installer": "1.37.0", "ofi_nccl": "1.13.2"}
    findings = judge_versions(
        {
            "i-a": NodeVersions(driver="550.127.05", nccl="2.21.5", **same),
            "i-b": NodeVersions(driver="550.127.05", nccl="2.21.5", **same),
            "i-c": NodeVersions(driver="535.183.01", nccl="2.18.3", **same),
        }
    )
    warns = [f for f in findings if f.status is Status.WARN]
    assert [f.evidence["component"] for f in warns] == ["driver", "nccl"]
    assert all(f.priority is Priority.P1 and f.section == "E" for f in warns)
    assert "NVIDIA driver version drift" in warns[0].message
    assert "535.183.01 on i-c; 550.127.05 on i-a, i-b" in warns[0].message
    assert warns[0].evidence["values"] == {"535.183.01": ["i-c"], "550.127.05": ["i-a", "i-b"]}
    assert sorted(warns[0].resources) == ["i-a", "i-b", "i-c"]
    assert [f.status for f in findings].count(Status.INFO) == 3


def test_matching_nodes_pass_and_unknown_values_do_not_drift() -> None:
    findings = judge_versions(
        {
            "i-a": NodeVersions(driver="550.127.05"),
            "i-b": NodeVersions(driver="550.127.05", nccl="2.21.5"),
        }
    )
    assert findings[-1].status is Status.PASS
    assert "2 probed nodes" in findings[-1].message


def test_registered_check_finds_driver_drift_and_skips_nodes_without_versions() -> None:
    older = healthy_p5(
        nvidia_driver=samples.nvidia_driver("535.183.01"),
        gpu_row_remap=samples.row_remap(samples.RowRemapSpec(driver="535.183.01", cuda="12.2")),
    )
    findings = run_check(
        CHECK_ID,
        node("i-a", P5, healthy_p5()),
        node("i-b", P5, older),
        node("i-cpu", CPU, {}),
    )
    drift = {f.evidence["component"] for f in findings if f.status is Status.WARN}
    assert drift == {"driver", "cuda"}
    assert not any("i-cpu" in f.resources for f in findings)


def test_on_eks_the_host_nccl_is_said_to_be_the_hosts() -> None:
    nodes = {
        "i-a": NodeVersions(driver="550.127.05", nccl="2.21.5"),
        "i-b": NodeVersions(driver="550.127.05", nccl="2.18.3"),
        "i-c": NodeVersions(driver="550.127.05"),
    }
    findings = judge_versions(nodes, eks=True)
    by_node = {f.resources[0]: f.evidence for f in findings if f.status is Status.INFO}
    assert by_node["i-a"]["nccl_scope"] == "host"
    assert "nccl_scope" not in by_node["i-c"]  # no NCCL found on that host
    [drift] = [f for f in findings if f.status is Status.WARN]
    assert "not necessarily the one containers use" in drift.message
    assert not any("containers" in f.message for f in judge_versions(nodes))


def test_registered_check_notes_the_host_nccl_on_eks_only() -> None:
    older = healthy_p5(nccl_libraries="libnccl.so.2\nlibnccl.so.2.18.3\n")
    for orchestrator, noted in (("eks", True), ("slurm", False)):
        findings = run_check(
            CHECK_ID,
            node("i-a", P5, healthy_p5()),
            node("i-b", P5, older),
            orchestrator=orchestrator,
        )
        [drift] = [f for f in findings if f.status is Status.WARN]
        assert drift.evidence["component"] == "nccl"
        assert ("containers use" in drift.message) is noted, orchestrator


def test_kernel_release_is_compared_across_nodes() -> None:
    findings = run_check(
        CHECK_ID,
        node("i-a", P5, healthy_p5(kernel_release="5.15.0-1063-aws\n")),
        node("i-b", P5, healthy_p5(kernel_release="6.8.0-1019-aws\n")),
    )
    [drift] = [f for f in findings if f.status is Status.WARN]
    assert "kernel version drift" in drift.message
    assert "6.8.0-1019-aws on i-b" in drift.message
