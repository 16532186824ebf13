"""A recording made before the cluster-operation reads and the deep health check probe
existed replays with those checks listed as skipped (or the probe as not run), with the
reason: never a silent pass. A recording older than the version replaying it is said to be
so once in the report, with the checks it cost and the command that re-records; a newer,
narrower CloudWatch read is answered from a broader recorded one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.toolset.results import triage_payload
from cluster_simulator.build import record_scenario
from cluster_simulator.scenarios import SCENARIOS
from evals.grading import grade, replay
from tools.checks._lifecycle_families import LOG_FILTER
from tools.findings import Status
from tools.recorded.model import RecordedCluster, load_recorded
from tools.triage.render import render_text
from tools.version import tool_version

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
    # Made before recordings were stamped with the version that made them.
    return recording.model_copy(update={"aws": aws, "probes": probes, "tool_version": None})


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


# -- a recording older than the version that replays it ------------------------------------
#
# Built in memory from a bundled recording: its version stamp removed (a file written
# before recordings were stamped) and one call the current triage makes taken out.


def _without(name: str, operation: str, **stamp: str | None) -> RecordedCluster:
    recording = load_recorded(CLUSTERS / f"{name}.json")
    aws = [c for c in recording.aws if c.operation != operation]
    assert len(aws) < len(recording.aws), f"{name} holds no {operation}"
    return recording.model_copy(update={"aws": aws, "tool_version": stamp.get("stamp")})


def test_an_unstamped_recording_names_the_checks_it_predates_and_how_to_re_record() -> None:
    report = replay(_without("eni-quota-nearly-used", "GetServiceQuota"))
    old = report.old_recording
    assert old is not None
    assert old.recorded_with is None
    assert old.replayed_with == tool_version()
    assert old.checks == ["eni-quota"]
    assert old.calls == ["servicequotas:GetServiceQuota"]
    command = "hyperpod-debug record --cluster ml-cluster-slurm --region us-west-2 -o FILE"
    assert old.rerecord == command
    # The skipped check says it too, with the command as its hint.
    (skip,) = [s for s in report.skipped if s.check == "eni-quota"]
    assert skip.reason.startswith("not recorded: servicequotas:GetServiceQuota")
    assert "the recording predates this read" in skip.reason
    assert "no version stamp" in skip.reason
    assert skip.hint == f"Re-record the cluster with this version: {command}"
    # Once in the text report, after the skipped list ...
    text = render_text(report)
    block = text[text.index("Old recording:") :]
    assert block.startswith(
        f"Old recording: made by an earlier hyperpod-debug (no version stamp), "
        f"replayed by {tool_version()}.\n"
        "  1 check(s) lacked data it never recorded: eni-quota\n"
        "  Not recorded: servicequotas:GetServiceQuota\n"
        f"  Re-record with this version for a complete triage: {command}\n"
    )
    assert text.count("Old recording:") == 1
    # ... once in the JSON report, and in the chat / MCP triage result.
    data = report.to_json()
    assert data["old_recording"]["checks"] == ["eni-quota"]
    assert data["old_recording"]["recorded_with"] is None
    assert "eni-quota" in data["old_recording"]["message"]
    assert command in data["old_recording"]["message"]
    payload = triage_payload(report, number=1)
    assert payload["old_recording"] == old.message
    assert "old_recording" in payload["next"]


def test_the_operations_reads_missing_from_an_old_recording_are_named_once() -> None:
    old = replay(_old_recording()).old_recording  # type: ignore[arg-type]
    assert old is not None
    assert "cluster-operations" in old.checks
    assert "sagemaker:ListClusterOperations" in old.calls


def test_an_earlier_stamp_is_named() -> None:
    report = replay(_without("eni-quota-nearly-used", "GetServiceQuota", stamp="0.0.1"))
    assert report.old_recording is not None
    assert report.old_recording.recorded_with == "0.0.1"
    assert "made by hyperpod-debug 0.0.1" in render_text(report)
    (skip,) = [s for s in report.skipped if s.check == "eni-quota"]
    assert "made by hyperpod-debug 0.0.1" in skip.reason


def test_a_recording_of_this_version_lacking_a_call_is_not_called_old() -> None:
    """Written by hand, or cut short by a live run's time budget: plainly not recorded."""
    report = replay(_without("eni-quota-nearly-used", "GetServiceQuota", stamp=tool_version()))
    assert report.old_recording is None
    assert "old_recording" not in report.to_json()
    (skip,) = [s for s in report.skipped if s.check == "eni-quota"]
    assert "predates" not in skip.reason
    assert "docs/recorded-cluster.md" in skip.hint
    assert "Old recording" not in render_text(report)


def test_a_recording_of_a_newer_version_says_which_but_is_not_old() -> None:
    report = replay(_without("eni-quota-nearly-used", "GetServiceQuota", stamp="999.0"))
    assert report.old_recording is None
    (skip,) = [s for s in report.skipped if s.check == "eni-quota"]
    assert f"made by hyperpod-debug 999.0, not {tool_version()}" in skip.reason


def test_a_complete_bundled_recording_has_no_old_recording_note() -> None:
    report = replay(load_recorded(CLUSTERS / "eni-quota-nearly-used.json"))
    assert report.old_recording is None
    assert "old_recording" not in report.to_json()


# -- a newer, narrower CloudWatch read answered from a broader recorded one ----------------

LIFECYCLE = "cluster-failed-lifecycle-script"


def _recorded_with_filter(monkeypatch: pytest.MonkeyPatch, pattern: str) -> RecordedCluster:
    """The lifecycle scenario as a version whose lifecycle query was `pattern` recorded it
    (before recordings were stamped)."""
    from tools.checks import lifecycle_logs

    scenario = next(s for s in SCENARIOS if s.name == LIFECYCLE)
    with monkeypatch.context() as patch:
        patch.setattr(lifecycle_logs, "LOG_FILTER", pattern)
        recording = record_scenario(scenario)
    patterns = {
        c.params.get("filterPattern")
        for c in recording.aws
        if c.operation == "FilterLogEvents"
        and c.params["logStreamNamePrefix"] == "LifecycleConfig/"
    }
    assert patterns == {pattern}
    return recording.model_copy(update={"tool_version": None})


@pytest.mark.parametrize(
    "earlier",
    [
        pytest.param("", id="no-pattern"),
        pytest.param(f"{LOG_FILTER} ?error ?Error ?exited", id="more-terms"),
    ],
)
def test_a_new_filter_pattern_is_answered_from_a_broader_recorded_one(
    monkeypatch: pytest.MonkeyPatch, earlier: str
) -> None:
    recording = _recorded_with_filter(monkeypatch, earlier)
    result = grade(LIFECYCLE, recording)
    assert result.passed, result.problems  # the lifecycle failure is still found
    assert result.report is not None
    assert not [s for s in result.report.skipped if "FilterLogEvents" in s.reason]
    assert result.report.old_recording is None  # nothing was missing


def test_a_pattern_form_replay_does_not_implement_stays_not_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A JSON pattern cannot be shown to be broader: no guessed answer, an honest skip."""
    recording = _recorded_with_filter(monkeypatch, '{ $.level = "error" }')
    report = replay(recording)
    (skip,) = [s for s in report.skipped if s.check == "lifecycle-logs"]
    assert skip.reason.startswith("not recorded: logs:FilterLogEvents")
    assert "the recording predates this read" in skip.reason
    assert not [f for f in report.findings if f.check == "lifecycle-logs"]
    assert report.old_recording is not None
    assert report.old_recording.checks == ["lifecycle-logs"]
    assert report.old_recording.calls == ["logs:FilterLogEvents"]


def test_a_narrower_pattern_does_not_answer_a_broader_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recorded with fewer terms than the triage asks for now: lines matching only the
    new terms were never read, so the read is not recorded rather than answered short."""
    recording = _recorded_with_filter(monkeypatch, "?failed ?Failed")
    report = replay(recording)
    assert "lifecycle-logs" in {s.check for s in report.skipped}
    assert report.old_recording is not None


def test_one_node_streams_are_answered_from_a_whole_cluster_recording() -> None:
    """`--node` reads `LifecycleConfig/<group>/<node>`; the recording read every stream."""
    recording = load_recorded(CLUSTERS / f"{LIFECYCLE}.json")
    assert recording.expect is not None
    node = "i-00000000000000003"
    focused = recording.model_copy(
        update={"expect": recording.expect.model_copy(update={"node": node})}
    )
    report = replay(focused)
    assert not [s for s in report.skipped if "logs:" in s.reason]
    lifecycle = [f for f in report.findings if f.check == "lifecycle-logs"]
    assert any(f.status is Status.FAIL and node in f.resources for f in lifecycle)
