"""Run checks against one cluster (all of them, or a chosen few); the one place that
catches errors."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from tools.aws.errors import AwsAccessError, CredentialsMissing
from tools.findings import Finding, Skipped, Status
from tools.registry import CheckOutput, CheckSpec, all_checks, get_check
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


def not_applicable(spec: CheckSpec, orchestrator: str) -> CheckOutput:
    kinds = " and ".join(
        sorted(o.upper() if o == "eks" else o.capitalize() for o in spec.orchestrators)
    )
    return CheckOutput(
        check=spec.id,
        skipped=[
            Skipped(
                check=spec.id,
                reason=f"applies to {kinds} clusters only; this one is {orchestrator or 'unknown'}",
            )
        ],
    )


def run_checks(
    data: ClusterData,
    ids: Iterable[str] | None = None,
    *,
    progress: ProgressCallback | None = None,
) -> list[CheckOutput]:
    """Run the named checks (every applicable one when `ids` is None), in registry order.

    DescribeCluster is read first, so ClusterNotFound propagates before any check runs. A
    named check that does not apply to this orchestrator answers with a skip saying so; an
    unknown id raises KeyError.
    """
    data.cluster()
    if ids is None:
        specs = [spec for spec in all_checks() if spec.applies_to(data.orchestrator)]
    else:
        wanted = {get_check(check_id).id for check_id in ids}
        specs = [spec for spec in all_checks() if spec.id in wanted]
    outputs: list[CheckOutput] = []
    for index, spec in enumerate(specs, start=1):
        if progress is not None:
            progress(spec.title, index, len(specs))
        if not spec.applies_to(data.orchestrator):
            outputs.append(not_applicable(spec, data.orchestrator))
        else:
            outputs.append(run_check(spec, data))
    return outputs


def identity(data: ClusterData) -> ClusterIdentity:
    return ClusterIdentity(
        name=data.cluster_name,
        arn=data.cluster_arn,
        id=data.cluster_id,
        region=data.target.region,
        orchestrator=data.orchestrator,
        account=data.account,
    )


def build_report(data: ClusterData, outputs: Iterable[CheckOutput]) -> TriageReport:
    """One report from check outputs: problems first, most severe first."""
    findings: list[Finding] = []
    skipped: list[Skipped] = []
    for output in outputs:
        findings.extend(output.findings)
        skipped.extend(output.skipped)
    findings.sort(key=lambda f: (_STATUS_ORDER[f.status], f.priority or ""))
    return TriageReport(
        cluster=identity(data),
        node=data.target.node,
        recorded=data.access.replaying,
        findings=findings,
        skipped=skipped,
    )


def run_triage(
    data: ClusterData,
    *,
    progress: ProgressCallback | None = None,
) -> TriageReport:
    """DescribeCluster first (ClusterNotFound propagates), then every applicable check."""
    return build_report(data, run_checks(data, progress=progress))
