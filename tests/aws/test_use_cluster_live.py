"""use_cluster against a live cluster (moto): it opens the cluster at once (credentials
preflight, then DescribeCluster), so a wrong name, region or credentials is said when the
cluster is named, and a cluster that could not be opened can be replaced by another."""

from __future__ import annotations

import pytest

from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.cluster import ClusterSession
from agent.toolset.failures import FailureKind
from tools.triage.node_sources import NodeOptions

from ._moto_cluster import CLUSTER, REGION, MotoCluster


@pytest.fixture
def live(cluster: MotoCluster, aws_only: NodeOptions) -> Toolset:
    session = ClusterSession(options=aws_only, endpoint_url=cluster.url)
    return Toolset(session, ConversationState())


def test_use_cluster_opens_the_cluster_and_says_its_orchestrator(live: Toolset) -> None:
    result = live.call("use_cluster", {"cluster": CLUSTER, "region": REGION})
    assert not result.is_error, result.payload
    # moto drops DescribeCluster's Orchestrator: a cluster without it is Slurm.
    assert result.payload == {
        "opened": CLUSTER,
        "region": REGION,
        "orchestrator": "slurm",
        "next": "call triage",
    }
    assert (live.state.cluster, live.state.region, live.state.orchestrator) == (
        CLUSTER,
        REGION,
        "slurm",
    )
    again = live.call("use_cluster", {"cluster": "other", "region": REGION})
    assert again.is_error
    assert "already open" in again.payload["error"]


def test_an_unknown_cluster_is_named_with_the_regions_clusters_and_can_be_replaced(
    live: Toolset,
) -> None:
    missing = live.call("use_cluster", {"cluster": "no-such-cluster", "region": REGION})
    assert missing.is_error
    assert missing.failure is not None
    assert missing.failure.kind is FailureKind.NOT_FOUND
    assert CLUSTER in missing.payload["error"]  # the clusters that region has
    assert "Ask the user" in missing.payload["next"]  # the model's words stay the model's
    assert "Ask the user" not in missing.failure.user_text()
    assert live.session.target is None
    assert not live.call("use_cluster", {"cluster": CLUSTER, "region": REGION}).is_error


def test_unusable_credentials_are_said_when_the_cluster_is_named(
    live: Toolset, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AWS_SECURITY_TOKEN", raising=False)
    result = live.call("use_cluster", {"cluster": CLUSTER, "region": REGION})
    assert result.is_error
    assert result.failure is not None
    assert result.failure.kind is FailureKind.CREDENTIALS
    assert result.payload["next"].startswith("Tell the user")
    user = result.failure.user_text()
    assert "Tell the user" not in user
    assert user.startswith("AWS credentials are not usable")
    assert live.session.target is None


def test_open_target_checks_the_cluster_a_conversation_starts_on(live: Toolset) -> None:
    from tools.target import TriageTarget

    live.session.target = TriageTarget(cluster="no-such-cluster", region=REGION)
    problem = live.open_target()
    assert problem is not None
    assert problem.kind is FailureKind.NOT_FOUND
    assert live.session.target is None  # another may be named
    live.session.target = TriageTarget(cluster=CLUSTER, region=REGION)
    assert live.open_target() is None
    assert live.state.orchestrator == "slurm"
