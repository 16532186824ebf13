"""§ B.5 aws-hyperpod namespace (tools/checks/hyperpod_namespace.py): literal namespaces, a
replayed EKS world, and an RBAC denial that must not read as a missing namespace."""

from __future__ import annotations

import json

from cluster_simulator.node_samples.k8s_objects import hyperpod_namespace
from tools.checks.hyperpod_namespace import CHECK_ID, judge_hyperpod_namespace
from tools.findings import Priority, Status
from tools.kube.access import KubeAccess
from tools.registry import get_check
from tools.triage.data.kube_model import Namespace
from tools.triage.runner import run_checks

from ._kube_world import kube_data, world_and_objects


def test_present_namespace_passes() -> None:
    [finding] = judge_hyperpod_namespace([Namespace.from_api(hyperpod_namespace())])
    assert (finding.check, finding.status, finding.section) == (CHECK_ID, Status.PASS, "B.5")


def test_missing_namespace_fails_p1() -> None:
    [finding] = judge_hyperpod_namespace([])
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P1, "B.5")
    assert "aws-hyperpod" in finding.message
    assert finding.evidence["exists"] is False


def test_terminating_namespace_fails_p1() -> None:
    [finding] = judge_hyperpod_namespace([Namespace.from_api(hyperpod_namespace("Terminating"))])
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P1)
    assert "Terminating" in finding.message


def test_only_eks_clusters_are_judged() -> None:
    assert get_check(CHECK_ID).orchestrators == frozenset({"eks"})


def test_registered_check_reads_the_namespace_through_kubernetes() -> None:
    world, objects, _ = world_and_objects()
    [finding] = run_checks(kube_data(world, objects), [CHECK_ID])[0].findings
    assert finding.status is Status.PASS
    objects.namespaces = []
    [finding] = run_checks(kube_data(world, objects), [CHECK_ID])[0].findings
    assert finding.status is Status.FAIL


def test_an_rbac_denial_is_skipped_not_missing() -> None:
    world, _, _ = world_and_objects()
    body = json.dumps({"kind": "Status", "message": 'namespaces is forbidden: User "x"'})

    def forbidden(method: str, path: str, query: list[tuple[str, str]]) -> tuple[int, bytes]:
        return 403, body.encode()

    data = kube_data(world, kube=lambda: KubeAccess(forbidden))
    [output] = run_checks(data, [CHECK_ID])
    assert output.findings == []
    [skipped] = output.skipped
    assert "forbidden" in skipped.reason


def test_a_recording_without_namespaces_is_skipped_not_missing() -> None:
    world, objects, _ = world_and_objects()
    objects.namespaces = None
    [output] = run_checks(kube_data(world, objects), [CHECK_ID])
    assert output.findings == []
    assert "older version" in output.skipped[0].reason
