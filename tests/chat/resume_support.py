"""A saved conversation to resume: one turn on a recorded cluster that leaves a security-group
fix pending, saved with `/save`, and the script of the turn after it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from agent.cli import app

from .pty_chat import ROOT

CLUSTERS = ROOT / "evals" / "clusters"
BEFORE, AFTER = CLUSTERS / "sg-outbound-self-missing.json", CLUSTERS / "healthy-eks.json"
SG = "sg-0a1b2c3d4e5f60001"
SG_FIX = (
    f"aws ec2 authorize-security-group-egress --group-id {SG} --region us-west-2 "
    f"--ip-permissions 'IpProtocol=-1,UserIdGroupPairs=[{{GroupId={SG}}}]'"
)
FIRST_TURN: list[dict[str, Any]] = [
    {"text": "Triaging first.", "tool_calls": [{"name": "triage", "input": {}}]},
    {
        "tool_calls": [
            {
                "name": "suggest_command",
                "input": {"command": SG_FIX, "purpose": "Add the EFA egress rule.", "section": "A"},
            }
        ]
    },
    {"text": "The security group lacks its outbound self rule (§ A)."},
]
AFTER_FIX: list[dict[str, Any]] = [{"text": "The § A finding cleared."}]


def run(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, list(args), input=stdin, env=env)


def script(path: Path, turns: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return path


def saved_conversation(tmp_path: Path) -> Path:
    """A chat that leaves a change pending, saved; the file's path."""
    saved = tmp_path / "handover.jsonl"
    first = script(tmp_path / "first.json", FIRST_TURN)
    lines = ["my NCCL job hangs, password=hunter2", f"/save {saved}", "/quit"]
    result = run(
        "chat",
        "--no-color",
        "--provider",
        "scripted",
        "--script",
        str(first),
        "--recorded",
        str(BEFORE),
        "--recorded",
        str(AFTER),
        stdin="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.output
    assert "Transcript saved" in result.output
    return saved


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
