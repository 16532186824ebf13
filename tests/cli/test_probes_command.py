"""`hyperpod-debug probes`: the catalogue a user can audit before granting SSM access."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agent.cli import app
from tools.probes.catalog import CATALOGUE, NODE_TIMEOUT_S


def test_json_lists_every_probe_with_its_exact_command() -> None:
    result = CliRunner().invoke(app, ["probes", "--json"])
    assert result.exit_code == 0
    listed = json.loads(result.stdout)
    assert listed["node_timeout_s"] == NODE_TIMEOUT_S
    assert {p["name"]: p["command"] for p in listed["probes"]} == {
        name: spec.command for name, spec in CATALOGUE.items()
    }


def test_text_names_every_probe_and_shows_commands_on_request() -> None:
    plain = CliRunner().invoke(app, ["probes"]).stdout
    assert all(name in plain for name in CATALOGUE)
    assert "$ nvidia-smi -L" not in plain
    detailed = CliRunner().invoke(app, ["probes", "--commands"]).stdout
    assert "$ nvidia-smi -L" in detailed
    assert f"at most {NODE_TIMEOUT_S} s" in detailed
