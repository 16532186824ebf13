"""§ N node-kernel: panic / hard lockup P0, soft lockup / hung task / NMI / MCE P1, per boot."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.checks.node_kernel import CHECK_ID, judge_kernel, node_kernel
from tools.findings import Priority, Status
from tools.parsers.kernel_log import parse_kernel_log
from tools.probes.model import ProbeOutput

from ._node_data import GPU_NODE, assert_well_formed, cpu_node, node, node_data, statuses


def judged(lines: list[str]) -> list[tuple[Status, Priority | None, str]]:
    findings = judge_kernel("i-1", parse_kernel_log(system.kernel_log(lines)))
    assert_well_formed(findings)
    return [(f.status, f.priority, f.evidence["signature"]) for f in findings]


def test_severities() -> None:
    lines = [
        system.soft_lockup_line(),
        system.hung_task_line(),
        system.nmi_line(),
        system.mce_line(),
        system.hard_lockup_line(),
        system.panic_line(),
        system.io_error_line(),
    ]
    assert judged(lines) == [
        (Status.FAIL, Priority.P0, "panic"),
        (Status.FAIL, Priority.P0, "hard-lockup"),
        (Status.FAIL, Priority.P1, "soft-lockup"),
        (Status.FAIL, Priority.P1, "hung-task"),
        (Status.FAIL, Priority.P1, "nmi"),
        (Status.FAIL, Priority.P1, "mce"),
        (Status.WARN, Priority.P1, "io-error"),
    ]


def test_repeated_soft_lockups_are_one_finding_with_the_count_and_details() -> None:
    lines = [system.soft_lockup_line(12, 23 + i, "python", 4242) for i in range(5)]
    [finding] = judge_kernel("i-1", parse_kernel_log(system.kernel_log(lines)))
    assert finding.check == CHECK_ID
    assert finding.section == "N"
    assert "5 soft lockup line(s) on i-1 in this boot" in finding.message
    assert "CPU#12 python:4242 23 s" in finding.message
    assert finding.evidence["count"] == 5
    assert len(finding.evidence["lines"]) == 3
    assert finding.evidence["boot"] == "current"
    assert finding.evidence["first_time"] != finding.evidence["last_time"]


def test_nvrm_errors_point_to_g_and_xid_and_oom_are_left_to_their_checks() -> None:
    lines = [
        system.nvrm_error_line(),
        "NVRM: Xid (PCI:0000:53:00): 79, pid=1912, name=python, GPU has fallen off the bus.",
        system.oom_kill_line(),
        system.nvrm_loading_line(),
    ]
    findings = judge_kernel("i-1", parse_kernel_log(system.kernel_log(lines)))
    [finding] = findings
    assert finding.evidence["signature"] == "nvrm"
    assert "§ G" in finding.message
    assert finding.priority is Priority.P1


def test_a_previous_boot_only_signature_is_history() -> None:
    previous = parse_kernel_log(
        system.kernel_log_previous_boot([system.panic_line(), system.soft_lockup_line()])
    )
    panic, lockup = judge_kernel("i-1", parse_kernel_log(system.kernel_log()), previous)
    assert (panic.status, panic.priority) == (Status.WARN, Priority.P2)
    assert (lockup.status, lockup.priority) == (Status.WARN, Priority.P2)
    assert "in the previous boot at 2026-" in panic.message
    assert "none in this boot since the reboot" in panic.message
    assert panic.evidence["boot"] == "previous"
    assert panic.evidence["first_time"] is not None
    assert_well_formed([panic, lockup])


def test_history_when_this_boot_could_not_be_read() -> None:
    previous = parse_kernel_log(system.kernel_log_previous_boot([system.panic_line()]))
    [finding] = judge_kernel("i-1", None, previous)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert "could not be read" in finding.message


def test_a_signature_in_both_boots_fails_for_this_boot_and_means_replace() -> None:
    current = parse_kernel_log(system.kernel_log([system.hard_lockup_line()]))
    previous = parse_kernel_log(system.kernel_log_previous_boot([system.hard_lockup_line(7)]))
    [finding] = judge_kernel("i-1", current, previous)
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert finding.evidence["boot"] == "current"
    assert "previous boot had it too" in finding.message
    assert "replace the node" in finding.message
    assert finding.evidence["previous_boot"]["count"] == 1


def test_clean_log_has_no_findings() -> None:
    assert judged([]) == []


def test_registered_check() -> None:
    data = node_data(
        node(
            GPU_NODE,
            kernel_log=system.kernel_log([system.soft_lockup_line()]),
            kernel_log_previous_boot=system.kernel_log_previous_boot([system.hung_task_line()]),
        ),
        cpu_node(),
    )
    findings = list(node_kernel(data))
    assert [(f.status, f.priority, f.evidence.get("boot")) for f in findings] == [
        (Status.FAIL, Priority.P1, "current"),
        (Status.WARN, Priority.P2, "previous"),
        (Status.PASS, None, None),
    ]
    assert findings[2].evidence["previous_boot_not_kept"] == [findings[2].resources[0]]


def test_registered_check_unreadable_logs_are_info() -> None:
    data = node_data(
        node(
            GPU_NODE,
            kernel_log=ProbeOutput(stdout="", exit_code=None, truncated=True),
            omit=["kernel_log_previous_boot"],
        )
    )
    findings = list(node_kernel(data))
    assert statuses(findings) == [Status.INFO, Status.INFO]
    assert "Could not read the kernel log" in findings[0].message
    assert "previous boot" in findings[1].message


def test_a_refused_dmesg_is_unreadable_not_clean() -> None:
    refused = "dmesg: read kernel buffer failed: Operation not permitted\n"
    log = parse_kernel_log(refused)
    assert log.refused is not None
    assert log.events == ()
    data = node_data(node(GPU_NODE, kernel_log=refused))
    findings = list(node_kernel(data))
    assert Status.PASS not in statuses(findings)
    assert any("Operation not permitted" in f.message for f in findings)


def test_a_kernel_message_mentioning_permissions_is_still_a_kernel_message() -> None:
    line = "[Fri Nov 20 11:30:00 2026] audit: operation not permitted for pid 12"
    assert parse_kernel_log(line + "\n").refused is None


def test_registered_check_first_boot_is_not_a_clean_previous_boot() -> None:
    data = node_data(
        node(
            GPU_NODE,
            kernel_log_previous_boot=(
                "No journal boot entry found from the specified boot offset (-1).\n"
            ),
        )
    )
    [finding] = list(node_kernel(data))
    assert finding.status is Status.PASS
    assert finding.evidence["previous_boot_not_kept"] == [GPU_NODE]


def test_registered_check_unprivileged_journal_is_unreadable() -> None:
    hint = "Hint: You are currently not seeing messages from other users and the system.\n"
    data = node_data(node(GPU_NODE, kernel_log_previous_boot=hint))
    findings = list(node_kernel(data))
    assert statuses(findings) == [Status.INFO, Status.PASS]
    assert "Could not read the previous boot's kernel log" in findings[0].message
    assert "not seeing messages" in findings[0].message


def test_previous_boot_history_says_how_long_ago_the_node_rebooted() -> None:
    data = node_data(
        node(
            GPU_NODE,
            kernel_log_previous_boot=system.kernel_log_previous_boot([system.hung_task_line()]),
            uptime=system.uptime(seconds=7_500),
        )
    )
    [history, *_] = node_kernel(data)
    assert history.status is Status.WARN
    assert "none in this boot since the reboot 2h 05m ago" in history.message
    assert history.evidence["uptime_s"] == 7_500
