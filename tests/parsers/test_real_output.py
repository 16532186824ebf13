"""The parsers on real tool output (tests/parsers/_real_output.py), one test per class of
output that issue 21 found misread: MIG Xid addresses, Xid codes the table did not know,
task names with colons and parentheses, old libfabric package names, the joined
`scontrol ping` line, nvidia-smi 610's version lines, and row remapping answering N/A."""

from __future__ import annotations

import pytest

from tools.checks.gpu_row_remap import RemapKind, judge_row_remap, remap_verdicts
from tools.checks.gpu_xid import HardwareState, HardwareXids, XidGroup, XidGroupKind, xid_verdicts
from tools.explain.xid_catalog import classify_xid, find_xids
from tools.findings import Status
from tools.parsers.kernel_log import KernelEventKind, parse_kernel_log
from tools.parsers.nvidia_smi import parse_gpu_query, parse_row_remap
from tools.parsers.slurm_config import parse_scontrol_ping
from tools.parsers.versions import parse_efa_packages
from tools.parsers.xid import parse_xids

from . import _real_output as real

# -- Xid lines from MIG instances ------------------------------------------------------------


def test_mig_xid_lines_keep_the_gpu_and_the_instance() -> None:
    events = parse_xids(real.XID_MIG_DOC.text)
    assert [(e.xid, e.pci, e.gpu_instance, e.pid) for e in events] == [
        (94, "0000:01:00", 5, "7194"),
        (94, "0000:01:00", None, "7062"),
        (95, "0000:01:00", None, "7062"),
    ]
    assert events[0].text == "Contained: CE User Channel (0x9). RST: No, D-RST: No"


def test_mig_xid_with_a_compute_instance() -> None:
    (event,) = parse_xids(real.XID_MIG_COMPUTE_INSTANCE.text)
    assert (event.xid, event.pci, event.gpu_instance, event.compute_instance) == (
        13,
        "0000:3b:00",
        1,
        2,
    )
    assert (event.pid, event.process, event.kind) == ("40211", "python3", "application")
    assert event.timestamp == "8812.120433"


def test_explain_finds_the_number_in_a_mig_xid_line() -> None:
    found = find_xids(real.XID_MIG_DOC.text + real.XID_MIG_COMPUTE_INSTANCE.text)
    assert [number for number, _ in found] == [94, 94, 95, 13]


# -- Xid codes from NVIDIA's current catalogue -----------------------------------------------


@pytest.mark.parametrize(
    ("number", "kind", "section"),
    [
        (46, "hardware", "G.2"),  # RESET_GPU
        (62, "hardware", "G.2"),  # RESET_GPU: internal micro-controller halt
        (110, "hardware", "G.2"),
        (136, "hardware", "G.2"),
        (137, "application", "G.2"),  # XID_137_FLOW: typically application-level bugs
        (140, "hardware", "G.3"),
        (143, "hardware", "G.2"),
        (145, "hardware", "G.2"),  # NVLink5: fatal unless the line says otherwise
        (149, "hardware", "G.2"),
        (158, "hardware", "G.2"),
        (169, "unknown", "G.2"),  # the catalogue lists no action for it
        (171, "hardware", "G.3"),  # detail of an Xid 48 (DRAM)
        (172, "hardware", "G.3"),  # detail of an Xid 48 (SRAM)
        (155, "unknown", "G.2"),  # not confirmed here: stays unknown
    ],
)
def test_catalogue_codes_seen_in_current_logs(number: int, kind: str, section: str) -> None:
    info = classify_xid(number)
    assert (info.kind, info.section) == (kind, section)


def test_nvlink5_xids_follow_the_drivers_own_severity() -> None:
    events = parse_xids(real.XID_NVLINK5.text)
    assert [(e.xid, e.kind) for e in events] == [
        (149, "hardware"),
        (149, "hardware"),
        (145, "non-fatal"),
    ]
    assert all(e.meaning.startswith("NVLink5") for e in events)
    # The fatal ones are a hardware verdict; the non-fatal one a group of its own.
    hardware, non_fatal = xid_verdicts(events, None)
    assert isinstance(hardware, HardwareXids)
    assert (hardware.state, [e.xid for e in hardware.now]) == (HardwareState.THIS_BOOT, [149, 149])
    assert isinstance(non_fatal, XidGroup)
    assert (non_fatal.kind, [e.xid for e in non_fatal.events]) == (XidGroupKind.NON_FATAL, [145])


def test_a_non_fatal_nvlink5_xid_alone_is_neither_clean_nor_a_fault() -> None:
    line = real.XID_NVLINK5.text.splitlines()[2]
    (verdict,) = xid_verdicts(parse_xids(line), None)
    assert isinstance(verdict, XidGroup)
    assert verdict.kind is XidGroupKind.NON_FATAL


def test_xid_62_is_a_hardware_fault_and_its_45s_follow_it() -> None:
    events = parse_xids(real.XID_62.text)
    assert [(e.xid, e.kind) for e in events] == [
        (31, "application"),
        (62, "hardware"),
        (45, "follow-on"),
    ]
    assert events[1].meaning == "internal micro-controller (PMU) halt"


def test_follow_on_lines_naming_nvlink5_xids_parse() -> None:
    events = parse_xids(real.XID_FOLLOW_NVLINK5.text)
    assert [(e.xid, e.pci, e.process, e.kind) for e in events] == [
        (45, "0000:dc:00", "python3", "follow-on"),
        (45, "0000:ed:00", "python3", "follow-on"),
    ]


# -- kernel log: task names with ":" and "()" --------------------------------------------------


@pytest.mark.parametrize(
    ("sample", "kind", "process", "pid"),
    [
        (real.HUNG_KWORKER, KernelEventKind.HUNG_TASK, "kworker/1:2", 10762),
        (real.HUNG_KWORKER_UNBOUND, KernelEventKind.HUNG_TASK, "kworker/u8:0", 5),
        (real.SOFT_LOCKUP_KWORKER, KernelEventKind.SOFT_LOCKUP, "kworker/2:1", 25629),
        (real.SOFT_LOCKUP_KWORKER_UNBOUND, KernelEventKind.SOFT_LOCKUP, "kworker/u3:3", 2073),
        (real.OOM_RHEL6, KernelEventKind.OOM_KILL, "mysqld", 11726),
        (real.OOM_UID_AFTER, KernelEventKind.OOM_KILL, "node", 817194),
    ],
)
def test_task_names_and_pids_survive(
    sample: real.Sample, kind: KernelEventKind, process: str, pid: int
) -> None:
    (event,) = parse_kernel_log(sample.text).of_kind(kind)
    assert (event.process, event.pid) == (process, pid)


def test_oom_victim_named_with_parentheses() -> None:
    log = parse_kernel_log(real.OOM_SD_PAM.text)
    (kill,) = log.of_kind(KernelEventKind.OOM_KILL)
    assert (kill.process, kill.pid) == ("(sd-pam)", 4503)
    assert kill.timestamp == "29924.805991"


@pytest.mark.parametrize(
    ("line", "process", "pid"),
    [
        # The issue's own examples (issue 21, part 4).
        ("Killed process 4242 ((resolved)) total-vm:10248kB, anon-rss:0kB", "(resolved)", 4242),
        ("Out of memory: Killed process 1234 (kworker/0:1)", "kworker/0:1", 1234),
        ("INFO: task kworker/12:1:1234 blocked for more than 120 seconds.", "kworker/12:1", 1234),
        # A name with a space and one with ") " inside, anchored on "total-vm".
        ("Killed process 77 (Web Content) total-vm:1kB", "Web Content", 77),
        ("Killed process 78 (a) b) total-vm:1kB", "a) b", 78),
    ],
)
def test_issue_examples_keep_name_and_pid(line: str, process: str, pid: int) -> None:
    (event,) = parse_kernel_log(line).events
    assert (event.process, event.pid) == (process, pid)


# -- libfabric in EFA installer package lists ------------------------------------------------


def test_old_installer_libfabric1_package_is_read() -> None:
    packages = parse_efa_packages(real.EFA_PACKAGES_1_5_1.text)
    assert (packages.installer, packages.libfabric) == ("1.5.1", "1.8.0")


def test_aws_named_libfabric_with_a_prerelease_version() -> None:
    packages = parse_efa_packages(real.EFA_PACKAGES_1_17_2.text)
    assert (packages.installer, packages.libfabric) == ("1.17.2", "1.16.0")


@pytest.mark.parametrize(
    ("listing", "version"),
    [
        ("libfabric1_1.11.0amzn1.0_amd64", "1.11.0"),  # the issue's example
        (
            "libfabric-1.11.0amzn1.0-1.amzn2.x86_64 libfabric-devel-1.11.0amzn1.0-1.amzn2.x86_64",
            "1.11.0",
        ),
        # The -aws package wins over a plain one listed first.
        ("libfabric1_1.8.0amzn1.0_amd64 libfabric1-aws_1.22.0amzn4.0_amd64", "1.22.0"),
        ("libfabric-bin_1.8.0amzn1.0_amd64 libfabric-dev_1.8.0amzn1.0_amd64", None),
    ],
)
def test_libfabric_package_names(listing: str, version: str | None) -> None:
    assert parse_efa_packages(listing).libfabric == version


# -- scontrol ping ---------------------------------------------------------------------------


def test_old_slurm_joined_ping_line() -> None:
    ping = parse_scontrol_ping(real.PING_SLURM_2_3.text)
    assert [(c.role, c.host, c.up) for c in ping.controllers] == [("primary", "test-machine", True)]
    assert ping.answering


def test_joined_ping_line_with_a_backup() -> None:
    # The issue's example: both controllers on one line.
    ping = parse_scontrol_ping("Slurmctld(primary/backup) at ip-10-1-0-5/ip-10-1-0-6 are UP/DOWN\n")
    assert [(c.role, c.host, c.up) for c in ping.controllers] == [
        ("primary", "ip-10-1-0-5", True),
        ("backup", "ip-10-1-0-6", False),
    ]


def test_current_ping_lines_and_the_banner() -> None:
    ping = parse_scontrol_ping(real.PING_CURRENT.text)
    assert [(c.role, c.host, c.up) for c in ping.controllers] == [
        ("primary", "ip-10-1-0-5", True),
        ("backup", "ip-10-1-0-6", False),
    ]
    assert ping.errors == ()


# -- nvidia-smi 610 version lines ---------------------------------------------------------------


def test_610_header_reads_the_kmd_and_umd_versions() -> None:
    report = parse_row_remap(real.NVSMI_610_HEADER.text)
    assert (report.driver_version, report.cuda_version, report.attached_gpus) == (
        "610.47",
        "13.3",
        1,
    )


def test_the_new_lines_win_and_stand_alone() -> None:
    lines = real.NVSMI_610_HEADER.text.splitlines()
    # Once the deprecated lines are gone, the new ones alone still give both versions.
    without_old = "\n".join(line for line in lines if "Deprecated" not in line)
    assert (
        parse_row_remap(without_old).driver_version,
        parse_row_remap(without_old).cuda_version,
    ) == (
        "610.47",
        "13.3",
    )
    # Where old and new disagree, the new line is the one read.
    disagreeing = (
        "Driver Version : 600.1\nKMD Version : 610.47\n"
        "CUDA Version : 13.0\nCUDA UMD Version : 13.3\n"
    )
    report = parse_row_remap(disagreeing)
    assert (report.driver_version, report.cuda_version) == ("610.47", "13.3")
    # Before 610 there are only the old lines.
    old = parse_row_remap("Driver Version : 550.127.05\nCUDA Version : 12.4\n")
    assert (old.driver_version, old.cuda_version) == ("550.127.05", "12.4")


def test_query_driver_version_with_a_deprecation_note() -> None:
    # Defensive: whether --query-gpu=driver_version carries the note is not confirmed; a
    # leading version is read either way.
    row = (
        "0, 00000000:53:00.0, NVIDIA H100 80GB HBM3, 610.47 [Deprecated], 33, 0, 0, "
        "Not Active, Not Active, Not Active"
    )
    (parsed,) = parse_gpu_query(row).rows
    assert parsed.driver_version == "610.47"


# -- row remapping with MIG: N/A is not judged ---------------------------------------------------


def test_a_gpu_answering_na_is_not_judged_and_the_node_not_passed() -> None:
    report = parse_row_remap(real.ROW_REMAP_MIG.text)
    assert [(g.bus_id, g.judged) for g in report.gpus] == [
        ("0000:53:00.0", True),
        ("0000:64:00.0", False),
    ]
    assert [v.kind for v in remap_verdicts(report)] == [RemapKind.NOT_JUDGED]
    findings = judge_row_remap("i-0abc", "ml.p4d.24xlarge", report)
    assert [f.status for f in findings] == [Status.INFO]
    assert "not judged on 1 of 2 GPUs (0000:64:00.0)" in findings[0].message
    assert "MIG" in findings[0].message
