"""The node-level options of `triage` and `record`: probes replayed from a recording,
--no-probes, bounds on --probe-concurrency / --max-probe-nodes, and what `record` keeps when
the plugin and Kubernetes are unavailable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.commands.cluster_setup import ClusterArgs, session_set_up
from agent.commands.options import MAX_PROBE_NODES, PROBE_CONCURRENCY
from tools.probes.runner import DEFAULT_CONCURRENCY
from tools.recorded.model import RecordedCluster, dump_recorded, load_recorded
from tools.triage.data.node_probes import MAX_FAILING_NODES
from tools.triage.node_sources import NodeOptions

from ._cli_support import REGION, assert_clean_exit, recording, run

FAILING = "i-0bbbbbbbbbbbbbbb1"
SILENT = "i-0bbbbbbbbbbbbbbb2"


def _with_probes(tmp_path: Path) -> Path:
    """The CLI tests' recorded cluster with two failing nodes: one probed, one that SSM
    could not reach."""
    data: dict[str, Any] = recording().model_dump(mode="json", exclude_none=True)
    nodes = [
        {
            "InstanceGroupName": "workers",
            "InstanceId": instance_id,
            "InstanceType": "ml.p5.48xlarge",
            "InstanceStatus": {"Status": "Failure", "Message": ""},
            "LaunchTime": "2026-11-20T10:00:00Z",
        }
        for instance_id in (FAILING, SILENT)
    ]
    data["aws"].append(
        {
            "service": "sagemaker",
            "operation": "ListClusterNodes",
            "params": {"ClusterName": "hp"},
            "paging": {"result_key": "ClusterNodeSummaries"},
            "response": {"ClusterNodeSummaries": nodes},
        }
    )
    data["probes"] = {FAILING: {"uptime": "100.0 50.0", "kernel_release": "6.8.0-1015-aws"}}
    data["unavailable"] = [{"kind": "node", "what": SILENT, "reason": "TargetNotConnected"}]
    path = tmp_path / "probed.json"
    dump_recorded(RecordedCluster.model_validate(data), path)
    return path


def _report(*args: str) -> dict[str, Any]:
    result = run("triage", *args, "--format", "json")
    assert_clean_exit(result, 0)
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_the_cli_defaults_are_the_runner_defaults() -> None:
    assert PROBE_CONCURRENCY == DEFAULT_CONCURRENCY
    assert MAX_PROBE_NODES == MAX_FAILING_NODES


def test_commands_without_the_probe_options_get_the_runner_defaults() -> None:
    """`mcp`, `chat` and `ask` take no --probe-concurrency / --max-probe-nodes."""
    assert session_set_up(ClusterArgs(), []).node_options == NodeOptions()


def test_recorded_probes_are_replayed(tmp_path: Path) -> None:
    report = _report("--recorded", str(_with_probes(tmp_path)))
    reach = [f for f in report["findings"] if f["check"] == "node-reachability"]
    assert [f["resources"] for f in reach if f["status"] == "FAIL"] == [[SILENT]]
    probed = next(f for f in reach if f["status"] == "INFO")
    assert sorted(probed["resources"]) == [FAILING, SILENT]
    assert not any("node probes" in s["reason"] for s in report["skipped"])


def test_no_probes_skips_the_node_checks(tmp_path: Path) -> None:
    report = _report("--recorded", str(_with_probes(tmp_path)), "--no-probes")
    assert not [f for f in report["findings"] if f["check"] == "node-reachability"]
    skipped = [s for s in report["skipped"] if s["reason"] == "node probes disabled (--no-probes)"]
    assert skipped
    assert all(s["hint"] == "" for s in skipped)


def test_max_probe_nodes_caps_the_failing_nodes(tmp_path: Path) -> None:
    report = _report("--recorded", str(_with_probes(tmp_path)), "--max-probe-nodes", "1")
    probed = next(
        f for f in report["findings"] if f["check"] == "node-reachability" and f["status"] == "INFO"
    )
    assert probed["resources"] == [FAILING]


def test_a_recording_without_kubernetes_objects_says_so(recorded: Path) -> None:
    report = _report("--recorded", str(recorded))
    assert "not recorded: Kubernetes objects" in {s["reason"] for s in report["skipped"]}


@pytest.mark.parametrize("command", ["triage", "record"])
@pytest.mark.parametrize(
    "args",
    [("--probe-concurrency", "0"), ("--probe-concurrency", "65"), ("--max-probe-nodes", "-1")],
)
def test_out_of_range_values_are_usage_errors(
    tmp_path: Path, command: str, args: tuple[str, ...]
) -> None:
    """Refused while parsing the command line, before any AWS call."""
    extra = ("-o", str(tmp_path / "out.json")) if command == "record" else ()
    result = run(command, "--cluster", "hp", "--region", REGION, *args, *extra)
    assert_clean_exit(result, 2)
    assert "Invalid value" in result.output


def test_record_keeps_what_was_unavailable(
    live: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No plugin on PATH and no kubeconfig: the recording says so, and replays the same."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    output = tmp_path / "rec.json"
    result = run(
        "record",
        "--cluster",
        "hp",
        "--region",
        REGION,
        "-o",
        str(output),
        "--kubeconfig",
        str(tmp_path / "missing-kubeconfig"),
    )
    assert_clean_exit(result, 0)
    saved = load_recorded(output)
    assert saved.probes == {}
    tools = {(u.what, u.reason) for u in saved.unavailable if u.kind == "tool"}
    assert ("session-manager-plugin", "session-manager-plugin not found on PATH") in tools
    assert not [c for c in saved.aws if c.service == "ssm"]
    replayed = _report("--recorded", str(output))
    assert "session-manager-plugin not found on PATH" in {s["reason"] for s in replayed["skipped"]}
