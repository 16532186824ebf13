"""A recording made before the cluster-operation reads and the deep health check probe
existed replays with those checks listed as skipped (or the probe as not run), with the
reason: never a silent pass."""

from __future__ import annotations

from pathlib import Path

from evals.grading import replay
from tools.findings import Status
from tools.recorded.model import load_recorded

CLUSTERS = Path(__file__).resolve().parents[2] / "evals" / "clusters"
NEW_READS = {"ListClusterOperations", "DescribeClusterOperation"}


def _old_recording() -> object:
    recording = load_recorded(CLUSTERS / "healthy-eks.json")
    aws = [c for c in recording.aws if c.operation not in NEW_READS]
    assert len(aws) < len(recording.aws), "the bundled recording holds the new reads"
    probes = {
        node: {name: out for name, out in outputs.items() if name != "deep_health_check_log"}
        for node, outputs in recording.probes.items()
    }
    return recording.model_copy(update={"aws": aws, "probes": probes})


def test_an_old_recording_skips_the_operations_check_with_its_reason() -> None:
    report = replay(_old_recording())  # type: ignore[arg-type]
    skipped = {s.check: s.reason for s in report.skipped}
    assert "cluster-operations" in skipped
    assert "ListClusterOperations" in skipped["cluster-operations"]
    assert "not recorded" in skipped["cluster-operations"]
    assert not [f for f in report.findings if f.check == "cluster-operations"]


def test_an_old_recording_without_the_probe_says_the_log_was_not_read() -> None:
    report = replay(_old_recording())  # type: ignore[arg-type]
    node_findings = [f for f in report.findings if f.check == "node-deep-health-check"]
    assert node_findings
    assert all(f.status is Status.INFO for f in node_findings)
    assert all("did not run" in f.message for f in node_findings)
