"""§ I.1 node-disk: root, /opt/sagemaker and inode thresholds; the instance store mount."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.checks.node_disk import CHECK_ID, judge_disk, node_disk
from tools.findings import Finding, Priority, Status
from tools.parsers.df import parse_df
from tools.probes.model import ProbeOutput

from ._node_data import (
    CPU_NODE,
    GPU_NODE,
    assert_well_formed,
    cpu_node,
    node,
    node_data,
    statuses,
)


def judge(usage: str | None, inodes: str | None = None, store: bool = True) -> list[Finding]:
    return judge_disk(
        "i-1",
        parse_df(usage) if usage is not None else None,
        parse_df(inodes) if inodes is not None else None,
        store,
    )


def test_root_above_90_fails_p0_and_above_80_warns_p1() -> None:
    [full] = judge(system.df_usage(root_pct=95))
    assert (full.status, full.priority, full.section) == (Status.FAIL, Priority.P0, "I.1")
    assert "95 %" in full.message
    assert full.evidence["use_pct"] == 95
    [filling] = judge(system.df_usage(root_pct=85))
    assert (filling.status, filling.priority) == (Status.WARN, Priority.P1)
    assert judge(system.df_usage(root_pct=80)) == []
    assert_well_formed([full, filling])


def test_opt_sagemaker_above_90_fails_p1() -> None:
    [finding] = judge(system.df_usage(opt_sagemaker_pct=93))
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P1)
    assert "/opt/sagemaker" in finding.message
    assert judge(system.df_usage(opt_sagemaker_pct=90)) == []


def test_inodes_above_90_on_any_file_system_fail_p1_once_per_mount() -> None:
    findings = judge(None, system.df_inodes(root_pct=97, shm_pct=95, nvme_mounted=False))
    assert [(f.status, f.priority, f.evidence["mount"]) for f in findings] == [
        (Status.FAIL, Priority.P1, "/"),
        (Status.FAIL, Priority.P1, "/dev/shm"),
    ]
    assert "97 %" in findings[0].message
    assert_well_formed(findings)


def test_instance_store_not_mounted_warns_p2_only_on_types_that_have_one() -> None:
    [finding] = judge(system.df_usage(nvme_mounted=False))
    assert (finding.status, finding.priority, finding.section) == (Status.WARN, Priority.P2, "I.1")
    assert "under /" in finding.message
    [missing] = judge(system.df_usage(nvme_exists=False))
    assert "does not exist" in missing.message
    assert missing.evidence["missing"] is True
    assert judge(system.df_usage(nvme_mounted=False), store=False) == []
    assert judge(system.df_usage(nvme_exists=False), store=False) == []


def test_a_path_under_the_root_is_not_judged_as_its_own_volume() -> None:
    # /opt/sagemaker reported under "/" (not mounted): the root's 85 % is judged once.
    text = (
        "Filesystem 1024-blocks Used Available Capacity Mounted on\n"
        "/dev/root 100 85 15 85% /\n"
        "/dev/root 100 85 15 85% /\n"
        "/dev/md0 100 1 99 1% /opt/dlami/nvme\n"
        "tmpfs 100 0 100 0% /dev/shm\n"
    )
    [finding] = judge(text)
    assert finding.evidence["mount"] == "/"


def test_healthy_node_has_no_findings() -> None:
    assert judge(system.df_usage(), system.df_inodes()) == []


def test_registered_check_judges_each_node_and_passes_the_rest() -> None:
    data = node_data(
        node(GPU_NODE, disk_usage=system.df_usage(root_pct=96)),
        cpu_node(disk_inodes=system.df_inodes(root_pct=99)),
    )
    findings = list(node_disk(data))
    assert [(f.status, f.resources) for f in findings] == [
        (Status.FAIL, [GPU_NODE]),
        (Status.FAIL, [CPU_NODE]),
    ]
    assert findings[0].check == CHECK_ID
    assert_well_formed(findings)


def test_registered_check_uses_the_instance_facts_for_the_instance_store() -> None:
    unmounted = system.df_usage(nvme_mounted=False)
    findings = list(node_disk(node_data(node(GPU_NODE, disk_usage=unmounted), cpu_node())))
    assert statuses(findings) == [Status.WARN, Status.PASS]
    assert findings[1].resources == [CPU_NODE]
    # The same output on a type without instance store (facts say so) is fine.
    findings = list(
        node_disk(node_data(node(GPU_NODE, disk_usage=unmounted), instance_store=False))
    )
    assert statuses(findings) == [Status.PASS]


def test_unreadable_probes_are_info_not_fail() -> None:
    data = node_data(
        node(
            GPU_NODE,
            disk_usage=ProbeOutput(stdout="sh: 1: df: not found", exit_code=127),
            omit=["disk_inodes"],
        )
    )
    findings = list(node_disk(data))
    assert statuses(findings) == [Status.INFO, Status.INFO]
    assert "Could not read disk usage on" in findings[0].message
    assert "not installed" in findings[0].message
    assert "did not run" in findings[1].message


def test_df_exit_1_for_a_missing_path_is_still_judged() -> None:
    usage = ProbeOutput(stdout=system.df_usage(root_pct=93, nvme_exists=False), exit_code=1)
    findings = list(node_disk(node_data(node(GPU_NODE, disk_usage=usage))))
    assert [(f.status, f.priority) for f in findings] == [
        (Status.FAIL, Priority.P0),
        (Status.WARN, Priority.P2),
    ]


def test_truncated_output_is_judged_and_said_to_be_partial() -> None:
    cut = system.df_usage(root_pct=97)[:200]
    findings = list(
        node_disk(node_data(node(GPU_NODE, disk_usage=ProbeOutput(stdout=cut, truncated=True))))
    )
    assert statuses(findings) == [Status.INFO, Status.FAIL]
    assert "Could not read all of disk usage" in findings[0].message
