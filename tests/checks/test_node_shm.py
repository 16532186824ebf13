"""§ I.3 node-shm: /dev/shm above 80 % fails P1."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.checks.node_shm import CHECK_ID, judge_shm, node_shm, shm_use_pct
from tools.findings import Priority, Status
from tools.parsers.df import parse_df
from tools.probes.model import ProbeOutput

from ._node_data import GPU_NODE, assert_well_formed, cpu_node, node, node_data, statuses


def test_above_80_fails_p1() -> None:
    [finding] = judge_shm("i-1", 85, 1_048_576)
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P1, "I.3")
    assert finding.check == CHECK_ID
    assert "85 %" in finding.message
    assert "1024 MiB" in finding.message
    assert judge_shm("i-1", 80) == []
    assert_well_formed([finding])


def test_use_pct_only_from_its_own_mount() -> None:
    assert shm_use_pct(parse_df(system.df_usage(shm_pct=91))) == 91
    text = "Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/root 10 9 1 90% /\n"
    assert shm_use_pct(parse_df(text, ("/dev/shm",))) is None


def test_registered_check() -> None:
    data = node_data(node(GPU_NODE, disk_usage=system.df_usage(shm_pct=97)), cpu_node())
    findings = list(node_shm(data))
    assert statuses(findings) == [Status.FAIL, Status.PASS]
    assert findings[0].resources == [GPU_NODE]
    assert findings[1].evidence["use_pct"] == {findings[1].resources[0]: 1}


def test_registered_check_unreadable() -> None:
    data = node_data(node(GPU_NODE, disk_usage=ProbeOutput(stdout="", exit_code=1)))
    [finding] = node_shm(data)
    assert finding.status is Status.INFO
    assert "exited with code 1" in finding.message
