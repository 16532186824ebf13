"""§ I.4 node-time-sync: not synchronised fails P1; an offset above 1 s warns P1."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.checks.node_time_sync import CHECK_ID, judge_time_sync, node_time_sync
from tools.findings import Priority, Status
from tools.parsers.time_sync import TimeSync, parse_time_sync
from tools.probes.model import ProbeOutput

from ._node_data import GPU_NODE, assert_well_formed, cpu_node, node, node_data, statuses


def test_not_synchronised_fails_p1_naming_both_sources() -> None:
    [finding] = judge_time_sync("i-1", parse_time_sync(system.time_sync(synchronized=False)))
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P1, "I.4")
    assert finding.check == CHECK_ID
    assert "NTPSynchronized=no" in finding.message
    assert "Not synchronised" in finding.message
    assert_well_formed([finding])


def test_either_source_alone_is_enough() -> None:
    assert judge_time_sync("i-1", TimeSync(ntp_synchronized=False))[0].status is Status.FAIL
    [chrony] = judge_time_sync("i-1", TimeSync(leap_status="Not synchronised"))
    assert chrony.status is Status.FAIL


def test_offset_above_one_second_warns() -> None:
    [finding] = judge_time_sync("i-1", parse_time_sync(system.time_sync(offset_s=-2.5)))
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)
    assert "2.500 s behind" in finding.message
    assert judge_time_sync("i-1", parse_time_sync(system.time_sync(offset_s=0.4))) == []


def test_registered_check() -> None:
    data = node_data(
        node(GPU_NODE, time_sync=system.time_sync(synchronized=False)),
        cpu_node(time_sync=ProbeOutput(stdout=system.time_sync(chrony=False), exit_code=127)),
    )
    findings = list(node_time_sync(data))
    # chronyc missing but timedatectl synchronised: judged healthy from timedatectl alone.
    assert statuses(findings) == [Status.FAIL, Status.PASS]
    assert findings[0].resources == [GPU_NODE]


def test_registered_check_neither_tool() -> None:
    text = "sh: 1: timedatectl: not found\nsh: 1: chronyc: not found\n"
    data = node_data(node(GPU_NODE, time_sync=ProbeOutput(stdout=text, exit_code=127)))
    [finding] = node_time_sync(data)
    assert finding.status is Status.INFO
    assert "timedatectl not installed; chronyc not installed" in finding.message
