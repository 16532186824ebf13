"""Grade a triage against a recorded cluster's declared expectations.

Deterministic: the FAIL/WARN findings produced must equal the declared set, named
resources must appear, excluded findings must not, and no call may be missing from the
recording unless the case says so. Used by the test suite and by `hyperpod-debug eval`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tools.aws.errors import AwsAccessError
from tools.findings import Status
from tools.recorded.model import RecordedCluster
from tools.target import TriageTarget
from tools.triage.data import ClusterNotFound
from tools.triage.open_cluster import CredentialsError, DataSource, open_cluster
from tools.triage.report import TriageReport
from tools.triage.runner import run_triage


@dataclass
class CaseResult:
    name: str
    problems: list[str] = field(default_factory=list)
    report: TriageReport | None = None

    @property
    def passed(self) -> bool:
        return not self.problems


def replay(recording: RecordedCluster) -> TriageReport:
    node = recording.expect.node if recording.expect else None
    target = TriageTarget(cluster=recording.cluster, region=recording.region, node=node)
    return run_triage(open_cluster(target, source=DataSource(recorded=recording)))


def grade(name: str, recording: RecordedCluster) -> CaseResult:
    result = CaseResult(name=name)
    expect = recording.expect
    if expect is None:
        result.problems.append("the recording declares no expectations (`expect`)")
        return result
    try:
        report = replay(recording)
    except (ClusterNotFound, CredentialsError, AwsAccessError) as exc:
        # One broken case is graded FAIL; it must not abort the rest of an eval run.
        result.problems.append(f"triage did not run: {type(exc).__name__}: {exc}")
        return result
    result.report = report
    problems = result.problems
    # Problems (FAIL/WARN) are compared exactly, counted rather than as sets: two FAILs
    # where one was declared is a mismatch. Declared INFO/PASS findings must be present.
    Key = tuple[str, str, str | None]
    declared = [f for f in expect.findings if f.status in ("FAIL", "WARN")]
    expected: Counter[Key] = Counter((f.check, str(f.status), f.section) for f in declared)
    produced: Counter[Key] = Counter(
        (f.check, f.status.value, f.section)
        for f in report.findings
        if f.status in (Status.FAIL, Status.WARN)
    )
    for (check, status, section), n in sorted((expected - produced).items(), key=str):
        problems.append(f"missing {status} {check} § {section}" + (f" (x{n})" if n > 1 else ""))
    for (check, status, section), n in sorted((produced - expected).items(), key=str):
        problems.append(f"unexpected {status} {check} § {section}" + (f" (x{n})" if n > 1 else ""))
    for wanted in expect.findings:
        matching = [
            f
            for f in report.findings
            if f.check == wanted.check
            and f.status.value == wanted.status
            and (wanted.section is None or f.section == wanted.section)
        ]
        if wanted.status in ("INFO", "PASS") and not matching:
            problems.append(f"missing {wanted.status} {wanted.check}")
        if (
            wanted.priority is not None
            and matching
            and not any(
                f.priority is not None and f.priority.value == wanted.priority for f in matching
            )
        ):
            problems.append(f"{wanted.check} {wanted.status} is not {wanted.priority}")
        # Resources are looked for in findings of the same status, not anywhere in the check.
        for resource in wanted.resources_include:
            if not any(resource in f.resources for f in matching):
                problems.append(f"{wanted.check} {wanted.status} does not name {resource}")
    for unwanted in expect.must_not:
        if any(
            f.check == unwanted.check and f.status.value == unwanted.status for f in report.findings
        ):
            problems.append(f"produced excluded {unwanted.status} {unwanted.check}")
    reasons = [s.reason for s in report.skipped]
    for fragment in expect.skipped_include:
        if not any(fragment in reason for reason in reasons):
            problems.append(f"no skipped reason contains {fragment!r}")
    # Every skip must be declared: an undeclared AccessDenied or paging refusal is a change.
    for reason in reasons:
        if not any(fragment in reason for fragment in expect.skipped_include):
            problems.append(f"undeclared skip: {reason}")
    return result
