"""Every bundled recorded cluster replays to exactly the findings it declares."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluster_simulator.build import record_scenario, scenario_path
from cluster_simulator.scenarios import SCENARIOS
from evals.grading import grade
from tools.recorded.model import load_recorded

CLUSTERS = Path(__file__).resolve().parents[2] / "evals" / "clusters"
FILES = sorted(CLUSTERS.glob("*.json"))


def test_every_scenario_is_bundled() -> None:
    assert {p.stem for p in FILES} == {s.name for s in SCENARIOS}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_produces_exactly_its_declared_findings(path: Path) -> None:
    result = grade(path.stem, load_recorded(path))
    assert result.passed, result.problems


def test_grading_notices_a_wrong_declaration() -> None:
    """The grader itself can fail: a declaration off by one finding is reported."""
    recording = load_recorded(CLUSTERS / "demo-eks.json")
    assert recording.expect is not None
    trimmed = recording.expect.model_copy(update={"findings": recording.expect.findings[1:]})
    result = grade("demo", recording.model_copy(update={"expect": trimmed}))
    assert not result.passed
    assert any(p.startswith("unexpected") for p in result.problems)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_bundled_file_is_up_to_date(scenario: object) -> None:
    """A check that asks for new data needs a re-record: python -m cluster_simulator.build."""
    from cluster_simulator.scenario import Scenario

    assert isinstance(scenario, Scenario)
    fresh = record_scenario(scenario)
    stored = load_recorded(scenario_path(scenario.name))
    assert fresh.model_dump(exclude={"recorded_at"}) == stored.model_dump(exclude={"recorded_at"})


def test_a_case_that_cannot_run_is_graded_not_raised() -> None:
    recording = load_recorded(CLUSTERS / "healthy-eks.json")
    broken = recording.model_copy(
        update={"aws": [c for c in recording.aws if c.operation != "DescribeCluster"]}
    )
    result = grade("broken", broken)
    assert not result.passed
    assert result.problems[0].startswith("triage did not run")


def test_one_declared_finding_does_not_cover_two() -> None:
    recording = load_recorded(CLUSTERS / "demo-eks.json")
    assert recording.expect is not None
    doubled = recording.expect.model_copy(
        update={"findings": [*recording.expect.findings, recording.expect.findings[0]]}
    )
    result = grade("doubled", recording.model_copy(update={"expect": doubled}))
    assert any(p.startswith("missing") for p in result.problems)


def test_declared_priority_and_info_findings_are_checked() -> None:
    from tools.recorded.model import ExpectedFinding

    recording = load_recorded(CLUSTERS / "demo-eks.json")
    assert recording.expect is not None
    findings = list(recording.expect.findings)
    efa = next(i for i, f in enumerate(findings) if f.check == "efa-security-groups")
    findings[efa] = findings[efa].model_copy(update={"priority": "P2"})
    findings.append(ExpectedFinding(check="node-recovery", status="INFO"))
    changed = recording.expect.model_copy(update={"findings": findings})
    result = grade("demo", recording.model_copy(update={"expect": changed}))
    assert "efa-security-groups FAIL is not P2" in result.problems
    assert "missing INFO node-recovery" in result.problems
