"""§ D.2 rules of tools/checks/_lifecycle_standing.py on literal lines: where each failure
stands (the verdicts), without the finding wording."""

from __future__ import annotations

from tools.checks._lifecycle_standing import (
    ClusterOutcome,
    Standing,
    StreamHit,
    family_failures,
    standing_of,
)
from tools.triage.data.logs_model import LogScan

KEY_ERROR = "KeyError: 'worker'"


def hit(instance: str, group: str = "gpu-workers", moment: int = 1) -> StreamHit:
    return StreamHit(f"LifecycleConfig/{group}/{instance}", moment, KEY_ERROR)


def test_a_failure_on_a_node_the_cluster_has_fails_unless_it_is_running() -> None:
    scan = LogScan(statuses={"i-0a": "Running", "i-0b": "Pending"})
    assert standing_of(hit("i-0a"), scan, ClusterOutcome()) is Standing.RUNNING
    assert standing_of(hit("i-0b"), scan, ClusterOutcome()) is Standing.FAILING
    assert standing_of(hit("i-0a"), LogScan(), ClusterOutcome()) is Standing.FAILING


def test_a_gone_node_is_history_unless_its_create_or_update_failed() -> None:
    scan = LogScan(statuses={})
    assert standing_of(hit("i-0gone"), scan, ClusterOutcome()) is Standing.HISTORY
    failed_cluster = ClusterOutcome(cluster_status="RollingBack")
    assert standing_of(hit("i-0gone"), scan, failed_cluster) is Standing.ROOT_CAUSE
    failed_group = ClusterOutcome(
        cluster_status="InService", failed_groups=frozenset({"gpu-workers"})
    )
    assert standing_of(hit("i-0gone"), scan, failed_group) is Standing.ROOT_CAUSE
    assert standing_of(hit("i-0gone", group="cpu"), scan, failed_group) is Standing.HISTORY


def test_failures_are_split_by_standing_in_report_order_members_sorted() -> None:
    scan = LogScan(statuses={"i-0a": "Running", "i-0b": "Pending"})
    hits = [hit("i-0gone"), hit("i-0b", moment=3), hit("i-0a")]
    failures = family_failures({"parameter-mismatch": hits}, scan, ClusterOutcome())
    assert [(f.family.key, f.standing) for f in failures] == [
        ("parameter-mismatch", Standing.FAILING),
        ("parameter-mismatch", Standing.RUNNING),
        ("parameter-mismatch", Standing.HISTORY),
    ]
    assert [m.stream for m in failures[0].members] == ["LifecycleConfig/gpu-workers/i-0b"]
