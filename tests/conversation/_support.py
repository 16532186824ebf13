"""Shared helpers for the agent tests: bundled recordings opened as a conversation would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.cluster import ClusterSession
from tools.aws.session import AwsAccess
from tools.recorded.model import load_recorded
from tools.target import TriageTarget

ROOT = Path(__file__).resolve().parents[2]
CLUSTERS = ROOT / "evals" / "clusters"


def recording_path(name: str) -> Path:
    return CLUSTERS / f"{name}.json"


def toolset_for(*names: str, node: str | None = None) -> Toolset:
    recordings = [load_recorded(recording_path(n)) for n in names]
    first = recordings[0]
    target = TriageTarget(cluster=first.cluster, region=first.region, node=node)
    session = ClusterSession(target=target, recordings=recordings)
    state = ConversationState(cluster=target.cluster, region=target.region, focus_node=node)
    return Toolset(session, state)


def count_aws_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = []
    original = AwsAccess._invoke

    def counting(self: AwsAccess, service: str, operation: str, params: dict[str, Any]) -> Any:
        calls.append((service, operation))
        return original(self, service, operation, params)

    monkeypatch.setattr(AwsAccess, "_invoke", counting)
    return calls
