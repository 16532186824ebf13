"""Slurm controller probes run locally (fake sinfo / scontrol on PATH); nothing else may."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tools.probes.framing import build_bundle
from tools.probes.local import LocalSlurmTransport, local_slurm_runner
from tools.probes.runner import ProbePlan
from tools.probes.transport import ProbeTarget, run_bundle

LOCAL = ProbeTarget("a1b2c3d4e5f6", "local", "local")


def _tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def slurm_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _tool(
        bin_dir, "sinfo", "echo 'ip-10-1-2-3|down|2026-11-20T11:00:00|Node unexpectedly rebooted'"
    )
    _tool(bin_dir, "scontrol", "echo 'Slurmctld(primary) at ctl is UP'")
    _tool(bin_dir, "squeue", "echo '42|COMPLETING|1:00:00|ip-10-1-2-3|train'; exit 3")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return bin_dir


def test_controller_probes_run_here(slurm_bin: Path) -> None:
    outputs = run_bundle(
        LocalSlurmTransport(), LOCAL, ("slurm_nodes", "slurm_stuck_jobs", "slurm_controller"), 30
    )
    assert outputs["slurm_nodes"].ok
    assert outputs["slurm_nodes"].stdout.endswith("Node unexpectedly rebooted\n")
    assert outputs["slurm_controller"].stdout == "Slurmctld(primary) at ctl is UP\n"
    assert outputs["slurm_stuck_jobs"].exit_code == 3  # the END marker carries the status


@pytest.mark.parametrize("names", [("disk_usage",), ("slurm_nodes", "gpu_list")])
def test_node_probes_are_refused_here(slurm_bin: Path, names: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="refusing to run node probes on this machine"):
        LocalSlurmTransport().run_command(LOCAL, build_bundle(names, "0123456789abcdef"), 30)


def test_a_free_form_command_is_refused(slurm_bin: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(ValueError, match="not a catalogue bundle"):
        LocalSlurmTransport().run_command(LOCAL, f"touch {marker}", 30)
    assert not marker.exists()


def test_a_hanging_probe_is_cut_at_the_timeout(slurm_bin: Path) -> None:
    _tool(slurm_bin, "scontrol", "echo 'first line'; sleep 300")
    outputs = run_bundle(LocalSlurmTransport(), LOCAL, ("slurm_nodes", "slurm_controller"), 1.5)
    assert outputs["slurm_nodes"].ok
    assert outputs["slurm_controller"].truncated
    assert outputs["slurm_controller"].stdout == "first line"


def test_the_local_runner_exists_only_with_sinfo(
    slurm_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = local_slurm_runner()
    assert runner is not None
    result = runner.probe_node(ProbePlan(LOCAL, ("slurm_controller",)))
    assert result.instance_id == "local"
    assert result.outputs["slurm_controller"].ok
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert local_slurm_runner() is None
