"""The finding model and the text/JSON contracts rendered from it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tools.aws.session import PageRead
from tools.findings import Finding, Priority, Skipped, Status, fail, info, passed, warn
from tools.sections import SECTIONS, section
from tools.target import TriageTarget
from tools.triage.render import finding_line, render_text
from tools.triage.report import ClusterIdentity, TriageReport


def test_fail_line_follows_the_contract() -> None:
    finding = fail("efa-security-groups", Priority.P0, "A", "SG sg-1 lacks the outbound self rule")
    assert finding_line(finding) == (
        "[FAIL] P0 SG sg-1 lacks the outbound self rule → references/node-diagnostics-detail.md § A"
    )


def test_pass_and_info_lines_have_no_priority_or_pointer() -> None:
    assert finding_line(passed("c", "B.2", "DNS on")) == "[PASS] DNS on"
    assert finding_line(info("c", "F", "4 nodes")) == "[INFO] 4 nodes"


def test_problem_without_priority_is_rejected() -> None:
    with pytest.raises(ValidationError):
        Finding(check="c", status=Status.WARN, section="A", message="m")


def test_unknown_section_is_rejected() -> None:
    with pytest.raises(ValidationError):
        fail("c", Priority.P1, "Z.9", "m")


def test_reference_is_path_and_anchor() -> None:
    finding = warn("c", Priority.P1, "G.1.a", "pending remap")
    assert finding.reference == "references/node-diagnostics-detail.md#g-1-a"
    assert finding.to_json()["reference"] == finding.reference
    assert section("G.1.a").heading == "#### G.1.a Row remapping"


def test_every_top_level_section_a_to_o_exists() -> None:
    assert [s for s in SECTIONS if "." not in s] == list("ABCDEFGHIJKLMNO")


def _report() -> TriageReport:
    return TriageReport(
        cluster=ClusterIdentity(name="c1", region="us-west-2", orchestrator="eks", id="abc"),
        findings=[
            fail("a", Priority.P0, "A", "blocked"),
            warn("b", Priority.P1, "B.6", "few IPs"),
            passed("c", "F.1", "InService"),
        ],
    )


def test_summary_groups_problems_by_priority() -> None:
    report = _report()
    assert report.summary.by_priority == {"P0": 1, "P1": 1, "P2": 0}
    assert report.summary.by_status == {"PASS": 1, "FAIL": 1, "WARN": 1, "INFO": 0}
    text = render_text(report)
    assert "P0 (blocks running): 1" in text
    assert "    - blocked (§ A)" in text
    assert text.index("[FAIL]") < text.index("Summary:")


def test_colour_only_when_asked() -> None:
    assert "\033[" not in render_text(_report(), colour=False)
    assert "\033[1;31m[FAIL]" in render_text(_report(), colour=True)


def test_json_report_keys() -> None:
    data = _report().to_json()
    assert set(data) >= {"cluster", "findings", "skipped", "summary"}
    assert set(data["cluster"]) >= {"name", "arn", "id", "region", "orchestrator"}
    first = data["findings"][0]
    assert set(first) == {
        "check",
        "status",
        "priority",
        "section",
        "message",
        "reference",
        "resources",
        "evidence",
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cluster", "bad name!"),
        ("cluster", "-starts-with-hyphen"),
        ("cluster", "a" * 64),
        ("region", "uswest2"),
        ("region", "us-west-2 "),
        ("node", "i-123"),
        ("node", "ip-10-1-2-3"),
    ],
)
def test_target_rejects_bad_arguments(field: str, value: str) -> None:
    args = {"cluster": "ml-cluster", "region": "us-west-2", "node": None, field: value}
    if field == "region" and value.endswith(" "):
        # Surrounding whitespace is forgiven, not rejected.
        assert TriageTarget(**args).region == "us-west-2"
        return
    with pytest.raises(ValidationError):
        TriageTarget(**args)


def test_target_accepts_arn_and_both_instance_id_lengths() -> None:
    arn = "arn:aws:sagemaker:us-west-2:111122223333:cluster/a1b2c3d4e5f6"
    assert TriageTarget(cluster=arn, region="us-west-2", node="i-0123abcd").node == "i-0123abcd"
    assert TriageTarget(cluster="c", region="cn-north-1", node="i-0123456789abcdef0")


def test_a_capped_list_stays_capped_on_replay() -> None:
    from tools.aws.session import AwsAccess
    from tools.recorded.model import Paging, RecordedCall, RecordedCluster

    nodes = [{"InstanceId": f"i-{n:017x}"} for n in range(150)]
    recording = RecordedCluster(
        recorded_at="2026-11-20T12:00:00Z",
        cluster="c",
        region="us-west-2",
        aws=[
            RecordedCall(
                service="sagemaker",
                operation="ListClusterNodes",
                params={"ClusterName": "c"},
                response={"ClusterNodeSummaries": nodes},
                paging=Paging(result_key="ClusterNodeSummaries", truncated=True),
            )
        ],
    )
    access = AwsAccess("us-west-2", replay=recording)
    capped = access.paginate(
        "sagemaker",
        "ListClusterNodes",
        PageRead("ClusterNodeSummaries", page_size=100, cap=150),
        ClusterName="c",
    )
    assert (len(capped.items), capped.truncated) == (150, True)
    wider = access.paginate(
        "sagemaker",
        "ListClusterNodes",
        PageRead("ClusterNodeSummaries", page_size=100, cap=1000),
        ClusterName="c",
    )
    assert (len(wider.items), wider.truncated) == (150, True)


def _report_of(findings: list[Finding], skipped: list[Skipped]) -> TriageReport:
    identity = ClusterIdentity(name="c", region="us-west-2", orchestrator="eks")
    return TriageReport(cluster=identity, recorded=True, findings=findings, skipped=skipped)


def test_problems_only_leaves_out_pass_and_info_but_counts_them() -> None:
    report = _report_of(
        findings=[
            fail("a", Priority.P0, "A", "sg-1 lacks the self rule"),
            passed("b", "B.2", "DNS on"),
            info("c", "F", "4 nodes"),
        ],
        skipped=[Skipped(check="d", reason="Missing IAM permission for ec2:DescribeVpcs")],
    )
    text = render_text(report, problems_only=True)
    assert "[FAIL] P0 sg-1 lacks the self rule" in text
    assert "[PASS]" not in text
    assert "[INFO]" not in text
    assert "Summary: FAIL 1, WARN 0, PASS 1, INFO 1; skipped 1" in text
    assert "  - d: Missing IAM permission for ec2:DescribeVpcs" in text
    assert "[PASS] DNS on" in render_text(report)


def test_checks_skipped_for_one_reason_are_listed_once_with_the_fix() -> None:
    reason, hint = "session-manager-plugin not found on PATH", "Install it (see § K)."
    report = _report_of(
        findings=[],
        skipped=[Skipped(check=c, reason=reason, hint=hint) for c in ("n1", "n2", "n3")],
    )
    text = render_text(report)
    assert text.count(reason) == 1
    assert f"  - {reason} — {hint}\n    3 checks: n1, n2, n3\n" in text


def test_nothing_found_says_how_many_checks_could_not_run() -> None:
    skipped = [Skipped(check="k8s-cni", reason="no kubeconfig found")]
    assert "No problems found in the checks that ran; 1 could not run." in render_text(
        _report_of([passed("b", "B.2", "DNS on")], skipped)
    )
    assert "  No problems found.\n" in render_text(_report_of([], []))
