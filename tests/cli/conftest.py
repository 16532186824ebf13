"""Fixtures shared by the CLI contract tests (helpers in _cli_support.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._cli_support import MotoClient, live_cluster, write_recording


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    return write_recording(tmp_path)


@pytest.fixture
def live(moto_server: str, moto_client: MotoClient, monkeypatch: pytest.MonkeyPatch) -> str:
    """A cluster `hp` in moto, reachable through AWS_ENDPOINT_URL; returns its SG id."""
    return live_cluster(moto_server, moto_client, monkeypatch)
