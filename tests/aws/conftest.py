"""Fixtures shared by the moto triage tests (helpers in _moto_cluster.py)."""

from __future__ import annotations

import pytest

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
