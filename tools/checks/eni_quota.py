"""§ B.7: network interfaces in use against the Region's network-interface quota.

The quota (Service Quotas `vpc` / `L-DF5E4CA3`, "Network interfaces per Region", default
5,000) counts per account and Region, not per VPC, so interfaces are counted Region-wide;
the cluster VPC's share is reported beside it. Every HyperPod node brings several interfaces
(an EFA instance one per EFA device), so a Region near its quota fails replacements and
scale-ups with NetworkInterfaceLimitExceeded even when subnets have addresses to spare.

- FAIL P0 at or over the quota: no new interface can be created now.
- FAIL P1 from FAIL_PERCENT % of the quota: the next scale-up or a few replacements reach it.
- WARN P1 above WARN_PERCENT %.
- PASS otherwise; INFO when the quota has no usable value.

GetServiceQuota answers only for quotas with an applied value ("If the applied quota value
is not available for a quota, the quota is not retrieved"): when it says there is none, the
documented default stands in. An AccessDenied on either read skips the check (the runner
reports the missing permission).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.aws.errors import AccessDenied, AwsAccessError
from tools.checks._network import cluster_subnets, managed_vpc_finding, vpc_ids
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.network import ENI_QUOTA_CODE, ENI_QUOTA_SERVICE

CHECK_ID = "eni-quota"
FINDINGS = Findings(CHECK_ID, "B.7")
WARN_PERCENT = 80
FAIL_PERCENT = 95
DEFAULT_QUOTA = 5_000  # Amazon VPC quotas: network interfaces per Region, default
_NO_APPLIED_VALUE = "NoSuchResource"


def judge_eni_quota(
    in_use: int,
    quota: float | None,
    *,
    at_least: bool = False,
    quota_source: str = "applied",
    per_vpc: dict[str, int] | None = None,
    cluster_vpcs: list[str] | None = None,
) -> list[Finding]:
    """One finding: interfaces in the Region (`at_least` when the list was capped) against
    the quota, with the cluster VPCs' share in the evidence."""
    cluster_share = {v: (per_vpc or {}).get(v, 0) for v in cluster_vpcs or []}
    evidence: dict[str, Any] = {
        "in_use": in_use,
        "at_least": at_least,
        "quota": quota,
        "quota_source": quota_source,
        "quota_code": f"{ENI_QUOTA_SERVICE}/{ENI_QUOTA_CODE}",
        "cluster_vpcs": cluster_share,
    }
    if not quota or quota <= 0:
        return [
            FINDINGS.info(
                f"Network interface quota has no usable value; {in_use} interfaces in use",
                **evidence,
            )
        ]
    percent = 100 * in_use / quota
    evidence["percent"] = round(percent, 1)
    shown = f"{'at least ' if at_least else ''}{in_use} of {quota:g}"
    share = "".join(f"; {n} in {vpc}" for vpc, n in cluster_share.items())
    what = f"Network interfaces in the Region: {shown} ({percent:.0f}% of the quota{share})"
    if in_use >= quota:
        return [
            FINDINGS.fail(
                Priority.P0,
                f"{what}: at the quota, no new interface can be created, so node "
                "replacements and scale-ups fail",
                **evidence,
            )
        ]
    if percent >= FAIL_PERCENT:
        return [
            FINDINGS.fail(
                Priority.P1,
                f"{what}: the next scale-up or a few node replacements will reach the quota",
                **evidence,
            )
        ]
    if percent > WARN_PERCENT:
        return [FINDINGS.warn(Priority.P1, f"{what}: close to the quota", **evidence)]
    return [FINDINGS.passed(what, **evidence)]


def _quota(data: ClusterData) -> tuple[float | None, str]:
    """(quota value, "applied" or "default"); AccessDenied propagates (the check skips)."""
    try:
        value = data.eni_quota().value
    except AccessDenied:
        raise
    except AwsAccessError as exc:
        if _NO_APPLIED_VALUE not in exc.reason:
            raise
        return float(DEFAULT_QUOTA), "default"
    return value, "applied"


@check(FINDINGS, title="Network interfaces per Region")
def eni_quota(data: ClusterData) -> Iterable[Finding]:
    """Network interfaces in the Region against the Service Quotas value L-DF5E4CA3."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(FINDINGS, "the network interface quota")]
    quota, source = _quota(data)
    listed = data.network_interfaces()
    per_vpc: dict[str, int] = {}
    for item in listed.items:
        per_vpc[item.vpc_id] = per_vpc.get(item.vpc_id, 0) + 1
    # A denied subnet read: vpc-membership reports it.
    cluster_vpcs = vpc_ids(data.optional(lambda: cluster_subnets(data)) or ())
    return judge_eni_quota(
        len(listed.items),
        quota,
        at_least=listed.truncated,
        quota_source=source,
        per_vpc=per_vpc,
        cluster_vpcs=cluster_vpcs,
    )
