"""Fixtures shared by the moto triage tests (helpers in _moto_cluster.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.triage.node_sources import NodeOptions

from ._moto_cluster import MotoClient, MotoCluster, build_cluster, register_probes, without_retries


@pytest.fixture
def cluster(moto_server: str, moto_client: MotoClient) -> MotoCluster:
    return build_cluster(moto_client, moto_server)


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Register the probe checks for this test only."""
    return register_probes(monkeypatch)


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """open_access() without retries: moto's 500s come back at once."""
    without_retries(monkeypatch)


@pytest.fixture
def aws_only(tmp_path: Path) -> NodeOptions:
    """Node options for a moto run: no probes (neither SSM nor this machine's sinfo) and no
    kubeconfig, so open_cluster reads AWS and nothing of the developer's machine."""
    return NodeOptions(kubeconfig=tmp_path / "no-kubeconfig", probes=False)
