"""§ A–F event rules of tools/checks/events.py over literal ListClusterEvents dicts:
pattern families, grouping, described failures, the cap, age, focus node and bad input."""

from __future__ import annotations

import pytest

from tools.checks._cluster_events import classify
from tools.checks.events import MAX_DESCRIBED
from tools.findings import Priority, Status
from tools.triage.data.sagemaker_model import ClusterEvent

from ._events import NOW, event, failure_text, judge_events, needs_detail, problems


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("EFA health checks did not run successfully", "A"),
        ("The EFA connectivity check failed on 2 instances", "A"),
        ("Instance bootstrap failed because of a network misconfiguration", "B"),
        ("Security group sg-123 does not allow traffic from itself", "B"),
        ("Subnet subnet-1 has no free IP addresses", "B"),
        ("Lifecycle script on_create.sh failed on the instance", "D"),
        ("LifeCycleConfig execution timed out after 60 minutes", "D"),
        ("The on_create script returned an error", "D"),
        ("Insufficient capacity for ml.p5.48xlarge", "C"),
        ("InsufficientInstanceCapacity: try another Availability Zone", "C"),
        ("We currently do not have sufficient capacity to launch new ml.p5.48xlarge", "C"),
        ("No subnet in the Availability Zone with capacity", "C"),
        ("Node marked UnschedulablePendingReplacement after hardware fault", "F"),
        ("Instance failed deep health check and will be replaced", "F"),
        ("Instance reboot initiated by health monitoring", "F"),
    ],
)
def test_classify_families(text: str, section: str) -> None:
    family = classify(text)
    assert family is not None
    assert family.section == section


def test_classify_ignores_the_events_own_names() -> None:
    # "gpu-workers" must not look like a GPU fault, "vpc-test" not like a VPC problem
    generic = event("Instance creation in Cluster vpc-test and InstanceGroup gpu-workers failed")
    generic["ClusterName"] = "vpc-test"
    assert classify(str(generic["Description"]), ClusterEvent.from_api(generic)) is None


def test_unavailable_is_one_info_and_nothing_else() -> None:
    [finding] = judge_events([], available=False)
    assert finding.status is Status.INFO
    assert "events unavailable" in finding.message.lower()
    assert "Continuous" in finding.message


def test_error_event_fails_p0_in_its_section_with_count_latest_and_instances() -> None:
    findings = judge_events(
        [
            event("Lifecycle script failed (old)", instance="i-0b", minutes_ago=90, event_id="1"),
            event("Lifecycle script failed (new)", instance="i-0a", minutes_ago=10, event_id="2"),
        ],
        now=NOW,
    )
    [finding] = problems(findings)
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert finding.section == "D"
    assert finding.resources == ["i-0a", "i-0b"]
    assert finding.evidence["count"] == 2
    assert "(new)" in finding.message
    assert "2 Error events" in finding.message


def test_warn_event_warns_p1() -> None:
    [finding] = problems(judge_events([event("Insufficient capacity", level="Warn")], now=NOW))
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert finding.section == "C"


def test_network_events_point_to_b_and_mention_a() -> None:
    [finding] = problems(judge_events([event("Bootstrap failed: VPC misconfigured")], now=NOW))
    assert finding.section == "B"
    assert "§ A" in finding.message


def test_efa_events_point_to_a() -> None:
    [finding] = problems(
        judge_events([event("EFA health checks did not run successfully")], now=NOW)
    )
    assert (finding.status, finding.section) == (Status.FAIL, "A")


def test_unmapped_error_warns_p1_in_f_with_the_description() -> None:
    [finding] = problems(judge_events([event("Something odd happened")], now=NOW))
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert finding.section == "F"
    assert "Something odd happened" in finding.message


def test_info_events_are_not_judged() -> None:
    findings = judge_events([event("Lifecycle scripts completed", level="Info")], now=NOW)
    assert problems(findings) == []
    assert findings[-1].status is Status.PASS


def test_one_finding_per_family_and_level() -> None:
    findings = problems(
        judge_events(
            [
                event("Lifecycle script failed", event_id="1"),
                event("Lifecycle script failed again", event_id="2", instance="i-0b"),
                event("Insufficient capacity", event_id="3"),
                event("Lifecycle script slow", level="Warn", event_id="4"),
            ],
            now=NOW,
        )
    )
    assert sorted((f.section, f.status.value) for f in findings) == [
        ("C", "FAIL"),
        ("D", "FAIL"),
        ("D", "WARN"),
    ]


def test_described_failure_message_classifies_a_generic_description() -> None:
    generic = event("Instance creation in Cluster ml-cluster and InstanceGroup gpu-workers failed")
    detail = {
        "EventDetails": {
            "EventMetadata": {
                "Instance": {"FailureMessage": "We currently do not have sufficient capacity"}
            }
        }
    }
    [finding] = problems(judge_events([generic], details={"e-1": detail}, now=NOW))
    assert (finding.status, finding.section) == (Status.FAIL, "C")
    assert "sufficient capacity" in finding.message


def test_needs_detail_only_for_unexplained_errors_and_bounded() -> None:
    events = [event("Lifecycle script failed", event_id="mapped")]
    events += [event("Instance creation failed", event_id=f"u{i}", minutes_ago=i) for i in range(9)]
    events.append(event("Instance creation failed", level="Warn", event_id="warn"))
    wanted = needs_detail(events)
    assert len(wanted) == MAX_DESCRIBED
    assert wanted[0] == "u0"  # newest first
    assert "mapped" not in wanted
    assert "warn" not in wanted


def test_failure_text_is_lenient() -> None:
    assert failure_text({}) == ""
    assert failure_text({"EventDetails": {"EventMetadata": {"Instance": "garbage"}}}) == ""
    text = failure_text(
        {
            "EventDetails": {
                "EventMetadata": {
                    "Instance": {"FailureMessage": "boom", "LcsExecutionState": "Failed"}
                }
            }
        }
    )
    assert "boom" in text
    assert "Failed" in text


def test_truncated_event_list_warns_p2() -> None:
    findings = judge_events([], truncated=True, now=NOW)
    [capped] = problems(findings)
    assert (capped.status, capped.priority) == (Status.WARN, Priority.P2)
    assert "500" in capped.message
    assert "--node" in capped.message


def test_complete_event_list_has_no_cap_warning() -> None:
    assert problems(judge_events([], truncated=False, now=NOW)) == []


def test_focus_node_keeps_its_events_and_group_level_ones() -> None:
    findings = judge_events(
        [
            event("Lifecycle script failed", instance="i-other", event_id="1"),
            event("Insufficient capacity", instance=None, event_id="2"),
        ],
        node="i-focus",
        now=NOW,
    )
    assert [f.section for f in problems(findings)] == ["C"]


def test_old_events_are_reported_not_judged() -> None:
    findings = judge_events([event("Lifecycle script failed", minutes_ago=60 * 24 * 30)], now=NOW)
    assert problems(findings) == []
    assert any(f.status is Status.INFO and "older" in f.message for f in findings)


def test_garbage_events_do_not_crash() -> None:
    findings = judge_events(
        [{"EventLevel": "Error"}, {"EventLevel": "Warn", "EventTime": "not a time"}, "x"],  # type: ignore[list-item]
        now=NOW,
    )
    assert all(f.section == "F" for f in problems(findings))


def test_description_is_clipped_data() -> None:
    [finding] = problems(judge_events([event("Lifecycle failed\n" + "A" * 1000)], now=NOW))
    assert "\n" not in finding.message
    assert len(finding.message) < 500
