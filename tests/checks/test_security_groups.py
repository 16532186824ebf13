"""§ A rule of tools/checks/security_groups.py over literal DescribeSecurityGroups dicts."""

from __future__ import annotations

from typing import Any

from tools.checks.security_groups import CHECK_ID, judge_security_groups
from tools.findings import Finding, Priority, Status

SG, OVERRIDE_SG = "sg-cluster", "sg-override"


def self_rule(group_id: str, protocol: str = "-1", **ports: int) -> dict[str, Any]:
    return {
        "IpProtocol": protocol,
        "UserIdGroupPairs": [{"GroupId": group_id, "UserId": "111122223333"}],
        "IpRanges": [],
        **ports,
    }


INTERNET = {"IpProtocol": "-1", "UserIdGroupPairs": [], "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}


def group(
    group_id: str = SG,
    inbound: list[dict[str, Any]] | None = None,
    outbound: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "GroupId": group_id,
        "IpPermissions": [self_rule(group_id)] if inbound is None else inbound,
        "IpPermissionsEgress": [self_rule(group_id), INTERNET] if outbound is None else outbound,
    }


def problems(findings: list[Finding]) -> list[tuple[Status, Priority | None, list[str]]]:
    return [
        (f.status, f.priority, f.resources)
        for f in findings
        if f.status in (Status.FAIL, Status.WARN)
    ]


def test_healthy_group_passes() -> None:
    findings = judge_security_groups([group()], [SG])
    assert [(f.check, f.status, f.section) for f in findings] == [(CHECK_ID, Status.PASS, "A")]
    assert findings[0].evidence == {"inbound_self_all": True, "outbound_self_all": True}


def test_missing_outbound_self_rule_fails() -> None:
    findings = judge_security_groups([group(outbound=[INTERNET])], [SG])
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]
    assert "outbound" in findings[0].message
    assert "inbound" not in findings[0].message
    assert findings[0].evidence["outbound_self_all"] is False
    assert not findings[0].message.endswith(".")


def test_missing_inbound_self_rule_fails() -> None:
    findings = judge_security_groups([group(inbound=[])], [SG])
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]
    assert "inbound" in findings[0].message
    assert findings[0].evidence["inbound_self_all"] is False


def test_both_directions_missing_is_one_finding() -> None:
    findings = judge_security_groups([group(inbound=[], outbound=[INTERNET])], [SG])
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]
    assert "inbound and outbound" in findings[0].message


def test_self_rule_with_a_port_range_does_not_count() -> None:
    ranged = self_rule(SG, "tcp", FromPort=0, ToPort=65535)
    findings = judge_security_groups([group(inbound=[ranged])], [SG])
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]


def test_all_traffic_rule_from_another_group_does_not_count() -> None:
    findings = judge_security_groups([group(inbound=[self_rule("sg-elsewhere")])], [SG])
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]


def test_override_group_is_judged_too() -> None:
    broken = group(OVERRIDE_SG, outbound=[INTERNET])
    findings = judge_security_groups([group(), broken], [SG, OVERRIDE_SG])
    assert problems(findings) == [(Status.FAIL, Priority.P0, [OVERRIDE_SG])]
    assert [f.status for f in findings if f.resources == [SG]] == [Status.PASS]


def test_missing_group_fails() -> None:
    findings = judge_security_groups([group()], [SG, "sg-gone"])
    assert problems(findings) == [(Status.FAIL, Priority.P0, ["sg-gone"])]
    assert "does not exist" in findings[0].message


def test_no_outbound_internet_rule_warns() -> None:
    findings = judge_security_groups([group(outbound=[self_rule(SG)])], [SG])
    assert problems(findings) == [(Status.WARN, Priority.P1, [SG])]
    assert "0.0.0.0/0" in findings[-1].message


def test_missing_keys_fail_both_directions() -> None:
    findings = judge_security_groups([{"GroupId": SG}], [SG])
    assert problems(findings) == [
        (Status.FAIL, Priority.P0, [SG]),
        (Status.WARN, Priority.P1, [SG]),
    ]
