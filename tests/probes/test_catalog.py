"""The probe catalogue: every command reads only, and nothing outside it can be framed."""

from __future__ import annotations

import pytest

from tools.command_safety.classifier import classify
from tools.probes.catalog import CATALOGUE, NodeKind, probe, probes_for
from tools.probes.framing import build_bundle, bundle_probes


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_every_probe_command_classifies_read_only(name: str) -> None:
    verdict = classify(CATALOGUE[name].command)
    assert verdict.kind == "read_only", (name, verdict.reason)


def test_a_bundle_of_every_probe_classifies_read_only() -> None:
    verdict = classify(build_bundle(list(CATALOGUE), "0123456789abcdef"))
    assert verdict.kind == "read_only", verdict.reason


def test_probe_names_are_identifiers_and_descriptions_cite_a_section() -> None:
    for name, spec in CATALOGUE.items():
        assert name == spec.name
        assert name.isidentifier()
        assert name == name.lower()
        assert "§" in spec.description, name
        assert 0 < spec.timeout_s <= 120


def test_unknown_probe_is_refused() -> None:
    with pytest.raises(KeyError, match="not a catalogued probe"):
        probe("cat /etc/shadow")


def test_probes_for_kinds() -> None:
    cpu_only = probes_for({NodeKind.EKS})
    assert "disk_usage" in cpu_only
    assert "kubelet" not in cpu_only
    assert "gpu_list" not in cpu_only
    gpu = probes_for({NodeKind.NVIDIA, NodeKind.EFA})
    assert {"gpu_list", "gpu_row_remap", "efa_devices"} <= set(gpu)
    assert "neuron_devices" not in gpu
    neuron = probes_for({NodeKind.NEURON})
    assert neuron[-1] == "neuron_devices"  # the one that may hang runs last
    assert "neuron_device_files" in neuron[:-1]
    controller = probes_for({NodeKind.SLURM_CONTROLLER})
    assert {"slurm_nodes", "slurm_stuck_jobs", "slurm_controller"} <= set(controller)


def test_bundle_round_trips_its_probe_names() -> None:
    names = ["disk_usage", "gpu_list", "slurm_controller"]
    assert bundle_probes(build_bundle(names, "00ff00ff00ff00ff")) == names


def test_the_kernel_log_filter_keeps_signatures_and_drops_look_alikes() -> None:
    """Run the probe's own grep over sample kernel lines."""
    lines = {
        "Using default interface naming scheme 'v249'.": False,
        "NVRM: Xid (PCI:0000:a8:00): 79, pid='<unknown>', GPU has fallen off the bus.": True,
        "efa 0000:31:00.0: Setup irq:0x38 name:efa-mgmnt": True,
        "mce: [Hardware Error]: Machine check events logged": True,
        "python invoked oom-killer: gfp_mask=0x140cca": True,
        "watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [python:4242]": True,
        "INFO: task python:4242 blocked for more than 122 seconds.": True,
        "dmesg: read kernel buffer failed: Operation not permitted": True,
        "systemd[1]: Started Session 4 of User ssm-user.": False,
        # Kernel oopses (§ N).
        "BUG: unable to handle page fault for address: ffffb1c3c0a2f000": True,
        "BUG: kernel NULL pointer dereference, address: 0000000000000008": True,
        "Oops: 0002 [#1] SMP PTI": True,
        "general protection fault, probably for non-canonical address 0xdead: 0000 [#1]": True,
        "kernel BUG at mm/slub.c:305!": True,
        # The Neuron driver (§ G.5): its module prefix, a device, and its hardware report.
        "neuron:ndma_memcpy_wait_for_completion: DMA completion timeout for UDMA_ENG_33": True,
        "neuron3: device reset failed": True,
        "NEURON_HW_ERR=SRAM_UNCORRECTABLE_ERROR instance-id=i-0592 nd-id=0 nc-id=0": True,
        "Loaded neuronx-cc cache from /var/tmp": False,
    }
    kept = _grep("kernel_log", list(lines))
    assert kept == {line for line, wanted in lines.items() if wanted}


def _grep(probe_name: str, lines: list[str]) -> set[str]:
    """The lines the probe's own grep keeps (grep is on every CI machine)."""
    import re
    import shlex
    import subprocess

    command = CATALOGUE[probe_name].command
    pattern = shlex.split(re.search(r"grep -iE ('[^']*')", command).group(1))[0]  # type: ignore[union-attr]
    result = subprocess.run(
        ["grep", "-iE", pattern],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    return set(result.stdout.splitlines())


# journalctl's answers for `-k -b -1` when it cannot show a previous boot.
JOURNAL_ANSWERS = [
    "Specifying boot ID or boot offset has no effect, no persistent journal was found.",
    "Data from the specified boot (-1) is not available: No such boot ID in journal",
    "No journal boot entry found from the specified boot offset (-1).",
    "No journal boot entry found for the specified boot (-1).",
    "Failed to look up boot -1: No such boot ID in journal",
    "-- No entries --",
    "Hint: You are currently not seeing messages from other users and the system.",
]


def test_the_previous_boot_filter_keeps_journalctl_answers() -> None:
    from tools.parsers.kernel_log import parse_kernel_log

    noise = [
        "2026-11-18T08:14:20+0000 ip-10-1-0-11 kernel: Using default interface naming scheme.",
        "2026-11-18T08:14:21+0000 ip-10-1-0-11 kernel: usb 1-1: new high-speed USB device",
    ]
    signature = "2026-11-18T08:14:22+0000 ip-10-1-0-11 kernel: Kernel panic - not syncing: Fatal"
    kept = _grep("kernel_log_previous_boot", [*JOURNAL_ANSWERS, *noise, signature])
    assert kept == {*JOURNAL_ANSWERS, signature}
    # What the grep keeps is read as "no previous boot" or "not allowed", never as clean.
    for answer in JOURNAL_ANSWERS:
        log = parse_kernel_log(answer + "\n")
        assert log.previous_boot_unavailable or log.refused is not None, answer


def test_the_current_boot_filter_does_not_grow_journal_noise() -> None:
    dmesg_lines = [
        "[Fri Nov 20 11:30:00 2026] systemd[1]: No entries matched the specified boot time.",
        "[Fri Nov 20 11:30:01 2026] hv_balloon: Data from the specified boot is ignored",
    ]
    assert _grep("kernel_log", dmesg_lines) == set()
    assert _grep("kernel_log", dmesg_lines) != _grep("kernel_log_previous_boot", dmesg_lines)


def test_nccl_libraries_looks_on_ubuntu_amazon_linux_and_arm() -> None:
    command = CATALOGUE["nccl_libraries"].command
    for path in (
        "/opt/nccl/build/lib",
        "/usr/local/cuda/lib64",
        "/usr/local/cuda/lib ",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
    ):
        assert path in command, path
    assert command.count("|") == 1
    assert "2>/dev/null" in command


def test_probes_that_may_hang_run_last_and_fit_the_node_budget_together() -> None:
    from tools.probes.catalog import NODE_TIMEOUT_S

    for kinds in ({NodeKind.NVIDIA, NodeKind.EFA, NodeKind.EKS}, {NodeKind.NEURON}):
        names = probes_for(kinds)
        hang = [n for n in names if CATALOGUE[n].may_hang]
        assert hang
        assert names[-len(hang) :] == hang
        # `timeout -s KILL` ends a probe at its limit: no grace period to add.
        worst = sum(CATALOGUE[n].timeout_s for n in hang)
        assert worst < NODE_TIMEOUT_S


def test_the_dcgm_log_probe_prints_the_marker_its_parser_splits_on() -> None:
    from tools.probes.catalog import DCGM_LOG_DIR, DCGM_LOG_MARKER

    command = CATALOGUE["dcgm_diag_logs"].command
    assert f"echo '{DCGM_LOG_MARKER}'" in command
    assert command.count(f"ls -1t {DCGM_LOG_DIR}/nvvs*.log") == 2
    assert "tail -n " in command
    assert "cut -c 1-400" in command  # a bounded width: a huge log line cannot flood the output


def test_the_network_probes_run_on_every_node_and_the_plugin_probe_on_efa_nodes() -> None:
    assert {"imds", "net_interfaces"} <= set(probes_for({NodeKind.EKS}))
    assert "ofi_nccl_plugin" not in probes_for({NodeKind.EKS})
    assert "ofi_nccl_plugin" in probes_for({NodeKind.NVIDIA, NodeKind.EFA})


def test_the_imds_probe_never_prints_its_token_and_only_reads() -> None:
    command = CATALOGUE["imds"].command
    assert command.count("-X PUT") == 1
    assert "latest/api/token" in command
    assert "latest/meta-data/instance-type" in command
    # The token is captured in a variable and only sent as a header, never echoed.
    assert 'echo "token: curl_exit=$? http=${r##*@}"' in command
    assert "${r%@*}" in command.split("; echo", 1)[1].split("-H", 1)[1]
    assert classify(command).kind == "read_only"


@pytest.mark.parametrize("name", ["gpu_query", "neuron_devices"])
def test_fallback_probes_do_not_use_a_bare_or(name: str) -> None:
    """`a || b` reruns the listing after a first form that printed rows and then failed."""
    command = CATALOGUE[name].command
    assert "2>/dev/null ||" not in command
    assert command.count("|| r=$(") == 1


def test_the_deep_health_check_probe_tails_the_documented_log_bounded() -> None:
    from tools.probes.catalog import DHC_LOG_LINES, DHC_LOG_PATH

    spec = CATALOGUE["deep_health_check_log"]
    assert spec.command == f"tail -n {DHC_LOG_LINES} {DHC_LOG_PATH} 2>&1 | cut -c 1-400"
    assert DHC_LOG_PATH == "/var/log/aws/clusters/sagemaker-deep-health-check.log"
    assert classify(spec.command).kind == "read_only"
    # EFA nodes (GPU and Trainium types) only: a CPU node keeps no such log.
    assert "deep_health_check_log" in probes_for({NodeKind.NVIDIA, NodeKind.EFA})
    assert "deep_health_check_log" in probes_for({NodeKind.NEURON, NodeKind.EFA})
    assert "deep_health_check_log" not in probes_for({NodeKind.EKS})
