"""§ A: EFA needs every cluster SG to allow all traffic to and from itself."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.findings import Finding, Priority, fail, passed, warn
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_ID = "efa-security-groups"


def _allows_all_from_self(permissions: list[dict[str, Any]], group_id: str) -> bool:
    return any(
        perm.get("IpProtocol") == "-1"
        and any(pair.get("GroupId") == group_id for pair in perm.get("UserIdGroupPairs", []))
        for perm in permissions
    )


def _allows_all_to_internet(permissions: list[dict[str, Any]]) -> bool:
    return any(
        perm.get("IpProtocol") == "-1"
        and any(r.get("CidrIp") == "0.0.0.0/0" for r in perm.get("IpRanges", []))
        for perm in permissions
    )


def judge_security_groups(groups: list[dict[str, Any]], expected_ids: list[str]) -> list[Finding]:
    """FAIL without an all-traffic self rule (either way); WARN without outbound 0.0.0.0/0."""
    findings: list[Finding] = []
    seen = {g.get("GroupId") for g in groups}
    for missing in sorted(set(expected_ids) - seen):
        findings.append(
            fail(
                CHECK_ID,
                Priority.P0,
                "A",
                f"Security group {missing} does not exist",
                resources=[missing],
            )
        )
    for group in sorted(groups, key=lambda g: str(g.get("GroupId"))):
        group_id = str(group.get("GroupId"))
        inbound = _allows_all_from_self(group.get("IpPermissions", []), group_id)
        outbound = _allows_all_from_self(group.get("IpPermissionsEgress", []), group_id)
        evidence = {"inbound_self_all": inbound, "outbound_self_all": outbound}
        missing_dirs = [d for d, ok in (("inbound", inbound), ("outbound", outbound)) if not ok]
        if missing_dirs:
            findings.append(
                fail(
                    CHECK_ID,
                    Priority.P0,
                    "A",
                    f"Security group {group_id} lacks the all-traffic {' and '.join(missing_dirs)} "
                    "rule referencing itself (EFA traffic is blocked)",
                    resources=[group_id],
                    **evidence,
                )
            )
        else:
            findings.append(
                passed(
                    CHECK_ID,
                    "A",
                    f"Security group {group_id} allows all traffic to and from itself",
                    resources=[group_id],
                    **evidence,
                )
            )
        if not _allows_all_to_internet(group.get("IpPermissionsEgress", [])):
            findings.append(
                warn(
                    CHECK_ID,
                    Priority.P1,
                    "A",
                    f"Security group {group_id} has no all-traffic outbound rule to 0.0.0.0/0 "
                    "(nodes may not reach AWS endpoints)",
                    resources=[group_id],
                )
            )
    return findings


@check(CHECK_ID, section="A", title="EFA security-group rules")
def efa_security_groups(data: ClusterData) -> Iterable[Finding]:
    """Inbound and outbound all-traffic self rules on every cluster and OverrideVpcConfig SG."""
    expected = data.cluster_security_group_ids()
    # DescribeSecurityGroups fails as a whole on one unknown id; judge the ones that exist.
    found, _missing = data.existing_security_groups(expected)
    return judge_security_groups(found, expected)
