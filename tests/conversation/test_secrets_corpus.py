"""The secrets corpus (issue 22): every plant, from every source, on every output channel;
none may survive. The failure message gives "planted N / surviving M" per channel."""

from __future__ import annotations

from pathlib import Path

from .secrets_channels import measure, report


def test_no_planted_secret_survives_on_any_channel(tmp_path: Path) -> None:
    channels = measure(tmp_path)
    assert {c.name for c in channels} >= {
        "ask text output",
        "ask --format json",
        "ask transcript",
        "chat output",
        "chat /save transcript",
        "MCP tool results",
        "ticket files",
        "ticket files (--mask)",
    }
    assert all(c.output.strip() for c in channels), report(channels)
    assert all(len(c.planted) >= 70 for c in channels), report(channels)
    assert not any(c.surviving for c in channels), "\n" + report(channels)
