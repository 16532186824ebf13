"""§ L: whether the cluster's CloudWatch log group exists; the lifecycle-script and Health
Monitoring Agent logs the other checks read live there."""

from __future__ import annotations

from collections.abc import Iterable

from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_CLOUDWATCH_LOGS = "cloudwatch-logs"
CLOUDWATCH_LOGS_FINDINGS = Findings(CHECK_CLOUDWATCH_LOGS, "L")


def judge_log_group(exists: bool, log_group: str) -> list[Finding]:
    if exists:
        return [
            CLOUDWATCH_LOGS_FINDINGS.passed(
                f"CloudWatch log group {log_group} exists", log_group=log_group
            )
        ]
    return [
        CLOUDWATCH_LOGS_FINDINGS.warn(
            Priority.P2,
            f"No CloudWatch logs: log group {log_group} does not exist, so lifecycle and "
            "health-agent logs cannot be read (collect node logs instead)",
            log_group=log_group,
        )
    ]


@check(CLOUDWATCH_LOGS_FINDINGS, title="CloudWatch log group")
def cloudwatch_logs(data: ClusterData) -> Iterable[Finding]:
    """Whether the cluster's CloudWatch log group exists (lifecycle and HMA logs live there)."""
    return judge_log_group(data.log_group_exists(), data.log_group_name)
