"""Run every applicable check against one cluster; the one place that catches errors."""

from __future__ import annotations

import logging
from collections.abc import Callable

from tools.aws.errors import AwsAccessError, CredentialsMissing
from tools.findings import Finding, Skipped, Status
from tools.registry import CheckOutput, CheckSpec, all_checks
from tools.sources import SourceUnavailable
from tools.triage.data import ClusterData
from tools.triage.report import ClusterIdentity, TriageReport

log = logging.getLogger(__name__)

ProgressCallback = Callable[[str, int, int], None]

# Problems first, most severe first; PASS and INFO keep the order the checks ran in.
_STATUS_ORDER = {Status.FAIL: 0, Status.WARN: 1, Status.INFO: 2, Status.PASS: 2}


def run_check(spec: CheckSpec, data: ClusterData) -> CheckOutput:
    """Run one check; AWS errors become skips, a bug becomes a loud skip, not a crash."""
    try:
        findings = list(spec.run(data))
    except CredentialsMissing:
        raise
    except (AwsAccessError, SourceUnavailable) as exc:
        return CheckOutput(
            check=spec.id, skipped=[Skipped(check=spec.id, reason=exc.reason, hint=exc.hint)]
        )
    except Exception as exc:  # a defect in a check must not hide the others
        log.exception("check %s failed", spec.id)
        return CheckOutput(
            check=spec.id,
            skipped=[
                Skipped(
                    check=spec.id,
                    reason=f"internal error in check {spec.id}: {type(exc).__name__}: {exc}",
                    hint="Please report this with the triage JSON output.",
                )
            ],
        )
    return CheckOutput(check=spec.id, findings=findings)


def identity(data: ClusterData, account: str = "") -> ClusterIdentity:
    return ClusterIdentity(
        name=data.cluster_name,
        arn=data.cluster_arn,
        id=data.cluster_id,
        region=data.target.region,
        orchestrator=data.orchestrator,
        account=account,
    )


def run_triage(
    data: ClusterData,
    *,
    account: str = "",
    progress: ProgressCallback | None = None,
) -> TriageReport:
    """DescribeCluster first (ClusterNotFound propagates), then every applicable check."""
    data.cluster()
    specs = [spec for spec in all_checks() if spec.applies_to(data.orchestrator)]
    findings: list[Finding] = []
    skipped: list[Skipped] = []
    for index, spec in enumerate(specs, start=1):
        if progress is not None:
            progress(spec.title, index, len(specs))
        output = run_check(spec, data)
        findings.extend(output.findings)
        skipped.extend(output.skipped)
    findings.sort(key=lambda f: (_STATUS_ORDER[f.status], f.priority or ""))
    return TriageReport(
        cluster=identity(data, account),
        node=data.target.node,
        recorded=data.access.replaying,
        findings=findings,
        skipped=skipped,
    )
