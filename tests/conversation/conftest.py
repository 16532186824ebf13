"""Fixtures of the agent tests: a clean Anthropic environment and the loopback fake API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .fake_messages_api import FakeMessagesAPI

FAKE_KEY = "sk-ant-test-0123456789abcdef"

_ANTHROPIC_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
)


@pytest.fixture
def clean_anthropic_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key, no base URL, no profile: nothing of the developer's setup leaks in."""
    for name in _ANTHROPIC_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path / "anthropic-config"))


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch, clean_anthropic_env: None) -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        yield server
        server.assert_loopback_only()
