"""§ H.2: jobs stuck CONFIGURING or COMPLETING, as rules and as the registered check."""

from __future__ import annotations

from cluster_simulator.node_samples import slurm as samples
from tools.checks.slurm_jobs import CHECK_ID, STUCK_AFTER_S, judge_stuck_jobs
from tools.findings import Priority, Status
from tools.parsers.slurm_sinfo import SlurmNode, parse_sinfo_nodes
from tools.parsers.slurm_squeue import parse_squeue_jobs

from ._slurm_data import SlurmData, hp_node, output, probe_outputs, problems, run


def nodes(*entries: tuple[str, str, str]) -> dict[str, SlurmNode]:
    return {n.name: n for n in parse_sinfo_nodes(samples.sinfo(list(entries))).nodes}


def test_configuring_past_the_threshold_fails_p1() -> None:
    jobs = parse_squeue_jobs(
        samples.squeue(
            [
                ("101", "CONFIGURING", "12:30", "ip-10-1-5-30", "eval"),
                ("102", "CONFIGURING", "9:59", "ip-10-1-5-31", "fresh"),
            ]
        )
    )
    [stuck] = judge_stuck_jobs(jobs, {}, {})
    assert (stuck.status, stuck.priority, stuck.section) == (Status.FAIL, Priority.P1, "H.2")
    assert "Job 101 (eval) has been CONFIGURING for 12m on ip-10-1-5-30" in stuck.message
    assert stuck.evidence["time_used_s"] == 750
    assert STUCK_AFTER_S == 600


def test_completing_on_a_down_node_fails_and_elsewhere_is_only_noted() -> None:
    # A long run time is not a long completion: job 202 ran 3 days and is only noted.
    jobs = parse_squeue_jobs(
        samples.squeue(
            [
                ("201", "COMPLETING", "0:42", "ip-10-1-5-[21-22]", "train"),
                ("202", "COMPLETING", "3-00:00:00", "ip-10-1-5-23", "long"),
            ]
        )
    )
    states = nodes(
        ("ip-10-1-5-21", "down*", "Node unexpectedly rebooted"),
        ("ip-10-1-5-22", "allocated+", ""),
        ("ip-10-1-5-23", "idle", ""),
    )
    stuck, noted = judge_stuck_jobs(jobs, states, {})
    assert (stuck.status, stuck.priority) == (Status.FAIL, Priority.P1)
    assert "Job 201 (train) is stuck COMPLETING" in stuck.message
    assert "ip-10-1-5-21 is down*" in stuck.message
    assert stuck.evidence["out_of_service"] == ["ip-10-1-5-21"]
    assert noted.status is Status.INFO
    assert "does not show since when" in noted.message


def test_nothing_stuck_passes_and_empty_queue_passes() -> None:
    [empty] = judge_stuck_jobs(parse_squeue_jobs(""), {}, {})
    assert empty.status is Status.PASS
    jobs = parse_squeue_jobs(samples.squeue([("5", "CF", "0:30", "n1", "x")]))
    [quiet] = judge_stuck_jobs(jobs, {}, {})
    assert quiet.status is Status.PASS
    assert "none CONFIGURING for 10m or more" in quiet.message


def test_many_stuck_jobs_are_grouped() -> None:
    jobs = parse_squeue_jobs(
        samples.squeue([(str(i), "CONFIGURING", "1:00:00", "n1", "sweep") for i in range(30)])
    )
    [grouped] = judge_stuck_jobs(jobs, {}, {})
    assert grouped.evidence["count"] == 30
    assert grouped.message.startswith("30 jobs are stuck")
    assert grouped.priority is Priority.P1


def test_registered_check_names_instances() -> None:
    data = SlurmData(
        probe_outputs(
            sinfo=samples.sinfo([("ip-10-1-5-21", "down", "Not responding")]),
            squeue=samples.squeue([("301", "COMPLETING", "1:00", "ip-10-1-5-21", "t")]),
        ),
        [hp_node("i-0aaaaaaaaaaaaaaa1", "10.1.5.21")],
    )
    [stuck] = problems(run(CHECK_ID, data))
    assert stuck.resources == ["i-0aaaaaaaaaaaaaaa1"]
    assert "ip-10-1-5-21 (i-0aaaaaaaaaaaaaaa1, group workers)" in stuck.message


def test_unreadable_squeue_is_info_and_no_sinfo_is_said() -> None:
    failed = SlurmData(probe_outputs(squeue=output("squeue: error: Invalid user", 1)))
    [finding] = run(CHECK_ID, failed)
    assert finding.status is Status.INFO
    assert "Could not read stuck jobs (squeue)" in finding.message
    no_sinfo = SlurmData(
        probe_outputs(sinfo=None, squeue=samples.squeue([("9", "COMPLETING", "1:00", "n1", "")]))
    )
    findings = run(CHECK_ID, no_sinfo)
    assert not problems(findings)
    assert "were not checked against their nodes' states" in findings[-1].message
