"""Every bundled recorded cluster replays to exactly the findings it declares."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.clusters.build import record_scenario, scenario_path
from evals.clusters.scenarios import SCENARIOS
from tools.findings import Status
from tools.recorded.model import RecordedCluster, load_recorded
from tools.triage.report import TriageReport
from tools.triage.session import open_access, recording_time, triage_cluster
from tools.triage.target import TriageTarget

CLUSTERS = Path(__file__).resolve().parents[2] / "evals" / "clusters"
FILES = sorted(CLUSTERS.glob("*.json"))


def replay(recording: RecordedCluster) -> TriageReport:
    node = recording.expect.node if recording.expect else None
    target = TriageTarget(cluster=recording.cluster, region=recording.region, node=node)
    access = open_access(target, recording=recording)
    return triage_cluster(target, access, now=recording_time(recording))


def test_every_scenario_is_bundled() -> None:
    assert {p.stem for p in FILES} == {s.name for s in SCENARIOS}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_produces_exactly_its_declared_findings(path: Path) -> None:
    recording = load_recorded(path)
    assert recording.expect is not None, f"{path.name} declares no expectations"
    report = replay(recording)
    expected = {(f.check, f.status, f.section) for f in recording.expect.findings}
    produced = {
        (f.check, f.status.value, f.section)
        for f in report.findings
        if f.status in (Status.FAIL, Status.WARN)
    }
    assert produced == expected, report.model_dump_json(indent=1)
    for wanted in recording.expect.findings:
        for resource in wanted.resources_include:
            assert any(
                f.check == wanted.check and resource in f.resources for f in report.findings
            ), f"{wanted.check} does not name {resource}"
    for unwanted in recording.expect.must_not:
        assert not any(
            f.check == unwanted.check and f.status.value == unwanted.status for f in report.findings
        ), f"{unwanted} was produced"
    reasons = [s.reason for s in report.skipped]
    for fragment in recording.expect.skipped_include:
        assert any(fragment in reason for reason in reasons), (fragment, reasons)
    undeclared = [
        r
        for r in reasons
        if ("not recorded" in r or "internal error" in r)
        and not any(fragment in r for fragment in recording.expect.skipped_include)
    ]
    assert not undeclared


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_bundled_file_is_up_to_date(scenario: object) -> None:
    """A check that asks for new data needs a re-record: python -m evals.clusters.build."""
    from evals.clusters.scenario import Scenario

    assert isinstance(scenario, Scenario)
    fresh = record_scenario(scenario)
    stored = load_recorded(scenario_path(scenario.name))
    assert fresh.model_dump(exclude={"recorded_at"}) == stored.model_dump(exclude={"recorded_at"})
