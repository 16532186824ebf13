"""`hyperpod-debug explain` through typer's CliRunner, on a local app."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from agent.commands.explain import register


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.command()
    def other() -> None:
        """A second command, so that 'explain' stays a named subcommand."""

    return app


def test_text_output(app: typer.Typer) -> None:
    result = CliRunner().invoke(
        app, ["explain", "NVRM: Xid (PCI:0000:53:00): 79, pid=1 on i-0123456789abcdef0"]
    )
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("1. § G.2 Xid errors (score ")
    assert first.endswith("→ references/node-diagnostics-detail.md § G.2")
    assert "next: " in result.output
    assert "instance: i-0123456789abcdef0" in result.output


def test_json_output(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["explain", "--format", "json", "--top", "1", "Xid 48"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [m["section"] for m in data["matches"]] == ["G.3"]
    assert data["identifiers"]["xids"] == [48]


def test_reads_stdin_with_dash(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["explain", "-"], input="磁盘满了：No space left on device\n")
    assert result.exit_code == 0, result.output
    assert "§ I.1" in result.output


def test_reads_stdin_when_text_is_omitted(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["explain", "--format", "json"], input="TargetNotConnected")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["matches"][0]["section"] == "K"


def test_undecodable_stdin_is_replaced_not_fatal(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["explain", "-"], input=b"\xff\xfeXid 79\n")
    assert result.exit_code == 0, result.output
    assert "§ G.2" in result.output


def test_no_match_exits_zero_and_says_so(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["explain", "all good here"])
    assert result.exit_code == 0
    assert "No known error signature matched" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["explain", "--format", "xml", "Xid 79"],
        ["explain", "--top", "0", "Xid 79"],
        ["explain", "--top", "many", "Xid 79"],
        ["explain", "--bogus", "Xid 79"],
    ],
)
def test_bad_arguments_exit_2(app: typer.Typer, args: list[str]) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "Usage" in result.output or "error" in result.output.lower()


def test_empty_input_exits_2(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["explain", "-"], input="   \n")
    assert result.exit_code == 2
    assert "nothing to explain" in result.output
