"""§ H / § H.1: the slurmctld ping and Slurm node states, as rules over literal parsed values
and as the registered check over the fake Slurm ClusterData."""

from __future__ import annotations

import pytest

from cluster_simulator.node_samples import slurm as samples
from tools.checks.slurm_nodes import CHECK_ID, judge_controller, judge_slurm_nodes
from tools.findings import Priority, Status
from tools.parsers.slurm_config import PingResult, parse_scontrol_ping
from tools.parsers.slurm_sinfo import parse_sinfo_nodes
from tools.probes.model import NodeProbes
from tools.sources import SourceUnavailable
from tools.triage.data.slurm_reads import SlurmNodeRow, SlurmRead, read_probe

from ._slurm_data import (
    SlurmData,
    hp_node,
    output,
    probe_outputs,
    problems,
    run,
)

ROWS = {
    "ip-10-1-5-21": SlurmNodeRow("ip-10-1-5-21", "i-0aaaaaaaaaaaaaaa1", "workers", "", "x", True)
}


def ping_read(
    stdout: str, exit_code: int | None = 0, truncated: bool = False
) -> SlurmRead[PingResult]:
    probes = NodeProbes(
        instance_id="i-0c0",
        outputs={"slurm_controller": output(stdout, exit_code, truncated)},
    )
    return read_probe(probes, "slurm_controller", parse_scontrol_ping)


def test_controller_up_passes() -> None:
    [finding] = judge_controller(ping_read(samples.scontrol_ping()), "i-0c0")
    assert finding.status is Status.PASS
    assert "primary at ip-10-1-0-10" in finding.message


@pytest.mark.parametrize(
    ("stdout", "exit_code", "truncated", "detail"),
    [
        (samples.scontrol_ping(up=False), 1, False, "primary at ip-10-1-0-10 is DOWN"),
        (samples.scontrol_ping_unreachable(), 1, False, "Unable to contact slurm controller"),
        ("", 0, True, "did not finish"),
    ],
)
def test_controller_not_answering_fails_p0(
    stdout: str, exit_code: int, truncated: bool, detail: str
) -> None:
    [finding] = judge_controller(ping_read(stdout, exit_code, truncated), "i-0c0")
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P0, "H")
    assert detail in finding.message
    assert "the controller i-0c0" in finding.message


def test_backup_down_warns_and_missing_tool_informs() -> None:
    both = "Slurmctld(primary) at h1 is UP\nSlurmctld(backup) at h2 is DOWN\n"
    [finding] = judge_controller(ping_read(both, 1), "local")
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert "backup at h2" in finding.message
    [missing] = judge_controller(ping_read("bash: scontrol: command not found", 127), "local")
    assert missing.status is Status.INFO
    assert "Could not read the controller state" in missing.message


def test_rebooted_node_is_p0_with_the_explanation_and_instance() -> None:
    sinfo = parse_sinfo_nodes(
        samples.sinfo(
            [
                ("ip-10-1-5-21", "down*", "Node unexpectedly rebooted"),
                ("ip-10-1-5-22", "drained", "Kill task failed"),
                ("ip-10-1-5-23", "idle", ""),
            ]
        )
    )
    summary, rebooted, drained = judge_slurm_nodes(sinfo, ROWS)
    assert summary.status is Status.INFO
    assert "3 nodes (1 down*, 1 drained, 1 idle)" in summary.message
    assert (rebooted.status, rebooted.priority, rebooted.section) == (
        Status.FAIL,
        Priority.P0,
        "H.1",
    )
    assert rebooted.resources == ["i-0aaaaaaaaaaaaaaa1"]
    assert "ip-10-1-5-21 (i-0aaaaaaaaaaaaaaa1, group workers)" in rebooted.message
    assert '"Node unexpectedly rebooted"' in rebooted.message
    assert "health monitoring agent or auto-repair" in rebooted.message
    assert "resumed in Slurm" in rebooted.message
    assert "scontrol" not in rebooted.message  # commands live in the reference, not here
    assert rebooted.evidence["problems"] == ["DOWN", "NOT_RESPONDING"]
    assert (drained.status, drained.priority) == (Status.FAIL, Priority.P1)
    assert drained.resources == []  # not mapped: named, not guessed
    assert '"Kill task failed"' in drained.message
    assert "auto-repair" not in drained.message


def test_all_in_service_passes() -> None:
    sinfo = parse_sinfo_nodes(samples.sinfo([("a", "idle", ""), ("b", "mixed", "")]))
    findings = judge_slurm_nodes(sinfo, {})
    assert [f.status for f in findings] == [Status.INFO, Status.PASS]
    assert "All 2 Slurm nodes are in service" in findings[1].message


def test_many_nodes_of_one_state_make_one_finding() -> None:
    nodes = [(f"ip-10-1-6-{i}", "down*", "Node unexpectedly rebooted") for i in range(25)]
    nodes.append(("ip-10-1-7-1", "fail", "Action:Replace"))
    sinfo = parse_sinfo_nodes(samples.sinfo(nodes))
    findings = problems(judge_slurm_nodes(sinfo, {}))
    assert len(findings) == 2
    grouped, failed = findings
    assert grouped.evidence["count"] == 25
    assert grouped.message.startswith("25 Slurm nodes are DOWN")
    assert '"Node unexpectedly rebooted" (25x)' in grouped.message
    assert grouped.priority is Priority.P0
    assert "ip-10-1-7-1" in failed.message
    ungrouped = judge_slurm_nodes(sinfo, {}, group_above=None)
    assert len(problems(ungrouped)) == 26


def test_registered_check_maps_instances_and_skips_without_probes() -> None:
    data = SlurmData(
        probe_outputs(sinfo=samples.sinfo([("ip-10-1-5-21", "down", "Not responding")])),
        [hp_node("i-0aaaaaaaaaaaaaaa1", "10.1.5.21")],
    )
    findings = run(CHECK_ID, data)
    [down] = problems(findings)
    assert down.resources == ["i-0aaaaaaaaaaaaaaa1"]
    assert findings[0].status is Status.PASS  # the ping
    with pytest.raises(SourceUnavailable):
        run(CHECK_ID, SlurmData(None))
    with pytest.raises(SourceUnavailable, match="could not be reached: TargetNotConnected"):
        run(CHECK_ID, SlurmData(probe_outputs(), unreachable="TargetNotConnected"))


def test_unreadable_sinfo_is_info_and_failed_ping_still_judged() -> None:
    data = SlurmData(
        probe_outputs(
            sinfo=output("slurm_load_partitions: Unable to contact slurm controller", 1),
            ping=output(samples.scontrol_ping_unreachable(), 1),
        )
    )
    ping, sinfo = run(CHECK_ID, data)
    assert (ping.status, ping.priority) == (Status.FAIL, Priority.P0)
    assert sinfo.status is Status.INFO
    assert "Could not read Slurm node states (sinfo)" in sinfo.message
    assert "exit code 1" in sinfo.message
    missing = SlurmData(probe_outputs(sinfo=None))
    assert run(CHECK_ID, missing)[1].message.endswith("the probe did not run")


def test_focused_node_is_judged_alone() -> None:
    outputs = probe_outputs(
        sinfo=samples.sinfo([("ip-10-1-5-21", "down", "x"), ("ip-10-1-5-22", "drained", "y")])
    )
    nodes = [
        hp_node("i-0aaaaaaaaaaaaaaa1", "10.1.5.21"),
        hp_node("i-0aaaaaaaaaaaaaaa2", "10.1.5.22"),
    ]
    [drained] = problems(run(CHECK_ID, SlurmData(outputs, nodes, focus="i-0aaaaaaaaaaaaaaa2")))
    assert drained.resources == ["i-0aaaaaaaaaaaaaaa2"]
    other = run(CHECK_ID, SlurmData(outputs, nodes, focus="i-0ffffffffffffffff"))
    assert other[-1].status is Status.INFO
    assert "not among the Slurm nodes" in other[-1].message
