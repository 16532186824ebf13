"""`chat` and `ask` on the command line: the JSON contract, piped stdin with slash commands,
transcripts, and one clear line (no traceback) whenever the model cannot be used."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agent.cli import app

from ._support import recording_path
from .conftest import FAKE_KEY
from .fake_messages_api import FakeMessagesAPI, error_reply, message_reply, text

SG = "sg-0a1b2c3d4e5f60001"
SG_FIX = (
    f"aws ec2 authorize-security-group-egress --group-id {SG} --region us-west-2 "
    f"--ip-permissions 'IpProtocol=-1,UserIdGroupPairs=[{{GroupId={SG}}}]'"
)
JSON_KEYS = {
    "answer",
    "suggested_commands",
    "tool_calls",
    "cited_sections",
    "awaiting_approval",
    "usage",
}
SUGGESTION_KEYS = {
    "command",
    "kind",
    "mutating",
    "purpose",
    "targets",
    "blast_radius",
    "iac_warning",
    "iac_owner",
    "flags",
    "evidence",
    "preconditions",
}


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(app, list(args), input=stdin)


def script(tmp_path: Path, turns: list[dict[str, Any]]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return path


def fix_turns() -> list[dict[str, Any]]:
    return [
        {"text": "Triaging first.", "tool_calls": [{"name": "triage", "input": {}}]},
        {"tool_calls": [{"name": "read_reference", "input": {"section": "A"}}]},
        {
            "tool_calls": [
                {
                    "name": "suggest_command",
                    "input": {
                        "command": SG_FIX,
                        "purpose": "Add the EFA egress rule.",
                        "section": "A",
                    },
                }
            ]
        },
        {"text": "The security group lacks its outbound self rule (§ A). Managed by IaC?"},
        {"text": "The § A finding cleared."},
    ]


def scripted(tmp_path: Path, *recordings: str) -> list[str]:
    args = ["--provider", "scripted", "--script", str(script(tmp_path, fix_turns()))]
    for name in recordings:
        args += ["--recorded", str(recording_path(name))]
    return args


def assert_one_clean_line(result: Result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    return errors[0]


def test_ask_json_follows_the_contract(tmp_path: Path) -> None:
    result = run(
        "ask", "NCCL hangs", "--format", "json", *scripted(tmp_path, "sg-outbound-self-missing")
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == JSON_KEYS
    (suggestion,) = data["suggested_commands"]
    assert set(suggestion) == SUGGESTION_KEYS
    assert suggestion["kind"] == "config"
    assert suggestion["mutating"] is True
    assert suggestion["iac_warning"]
    # The group belongs to a CloudFormation stack in this recording (issue 25).
    assert [o["stack"] for o in suggestion["iac_owner"]] == ["hp-network"]
    assert SG in suggestion["targets"]
    assert data["awaiting_approval"] is True
    assert [c["name"] for c in data["tool_calls"]] == [
        "triage",
        "read_reference",
        "suggest_command",
    ]
    assert all(set(c) == {"name", "input", "is_error"} for c in data["tool_calls"])
    assert "A" in data["cited_sections"]
    assert set(data["usage"]) >= {"input_tokens", "output_tokens"}
    assert "Suggested command (run yourself)" in data["answer"]


def test_ask_text_shows_the_answer_and_the_suggestion(tmp_path: Path) -> None:
    result = run("ask", "NCCL hangs", "--no-color", *scripted(tmp_path, "sg-outbound-self-missing"))
    assert result.exit_code == 0, result.output
    assert "Triaging first." in result.output
    assert "Suggested command (run yourself)" in result.output
    assert SG_FIX in result.output


def test_chat_with_piped_stdin_and_slash_commands(tmp_path: Path) -> None:
    transcript = tmp_path / "chat.jsonl"
    stdin = "\n".join(
        [
            "my NCCL job hangs",
            "/suggestions",
            "/done",
            "/findings",
            "/explain NVRM: Xid (PCI:0000:a8:00): 79, GPU has fallen off the bus",
            f"/save {transcript}",
            "/quit",
            "never read",
        ]
    )
    args = scripted(tmp_path, "sg-outbound-self-missing", "healthy-eks")
    result = run("chat", "--no-color", *args, stdin=stdin + "\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "you> my NCCL job hangs" in out
    assert out.count("Suggested command (run yourself)") == 2  # the answer, then /suggestions
    assert "Re-triage after your change" in out
    assert "Cleared: 1" in out
    assert "No FAIL or WARN finding." in out  # /findings after the fix
    assert "G.2" in out  # /explain answered without the model
    assert "you> never read" not in out
    events = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert events[0]["type"] == "meta"
    assert {"user", "tool_call", "answer", "retriage"} <= {e["type"] for e in events}


@pytest.mark.parametrize(("reply", "retriaged"), [("y", True), ("n", False)])
def test_chat_asks_before_re_triaging_on_an_unclear_done(
    tmp_path: Path, reply: str, retriaged: bool
) -> None:
    # "It's back up now." may mean the change was made: the chat asks, the next line answers.
    stdin = "\n".join(["my NCCL job hangs", "It's back up now.", reply, "/quit"])
    args = scripted(tmp_path, "sg-outbound-self-missing", "healthy-eks")
    result = run("chat", "--no-color", *args, stdin=stdin + "\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("Re-triage now? [y/N]") == 1
    assert ("Re-triage after your change" in result.output) is retriaged
    assert ("Cleared: 1" in result.output) is retriaged


def test_chat_re_triages_on_a_plain_natural_done(tmp_path: Path) -> None:
    stdin = "\n".join(["my NCCL job hangs", "OK, that's done", "/quit"])
    args = scripted(tmp_path, "sg-outbound-self-missing", "healthy-eks")
    result = run("chat", "--no-color", *args, stdin=stdin + "\n")
    assert result.exit_code == 0, result.output
    assert "Re-triage now?" not in result.output
    assert "Cleared: 1" in result.output


def test_transcript_option_redacts_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    path = tmp_path / "ask.jsonl"
    result = run(
        "ask",
        f"password=hunter2 and key {FAKE_KEY}",
        "--transcript",
        str(path),
        *scripted(tmp_path, "sg-outbound-self-missing"),
    )
    assert result.exit_code == 0, result.output
    saved = path.read_text()
    assert FAKE_KEY not in saved
    assert "hunter2" not in saved
    assert FAKE_KEY not in result.output


@pytest.mark.usefixtures("clean_anthropic_env")
def test_no_key_is_one_line_naming_what_to_set() -> None:
    result = run("ask", "hello")
    line = assert_one_clean_line(result, 1)
    for needed in ("ANTHROPIC_API_KEY", "bedrock", "triage", "explain"):
        assert needed in line


def test_bedrock_without_credentials_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    result = run("ask", "hello", "--provider", "bedrock", "--region", "us-west-2")
    assert_one_clean_line(result, 1)


def test_scripted_without_a_script_is_one_line() -> None:
    # A bad argument (exit 2), not a missing prerequisite.
    line = assert_one_clean_line(run("ask", "hello", "--provider", "scripted"), 2)
    assert "--script" in line


def test_recordings_of_two_clusters_are_refused(tmp_path: Path) -> None:
    args = scripted(tmp_path, "healthy-eks", "healthy-slurm")
    line = assert_one_clean_line(run("ask", "hello", *args), 2)
    assert "one cluster" in line


def test_a_bad_node_id_is_a_usage_error(tmp_path: Path) -> None:
    args = scripted(tmp_path, "healthy-eks")
    assert_one_clean_line(run("ask", "hello", "--node", "i-xyz", *args), 2)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (error_reply(401, "authentication_error", "invalid x-api-key"), "ANTHROPIC_API_KEY"),
        (error_reply(404, "not_found_error", "model: claude-nope"), "claude-nope"),
    ],
)
def test_refused_key_or_unknown_model_is_one_line(
    api: FakeMessagesAPI, reply: Any, expected: str
) -> None:
    api.enqueue(reply)
    result = run(
        "ask", "hello", "--model", "claude-nope", "--recorded", str(recording_path("healthy-eks"))
    )
    line = assert_one_clean_line(result, 1)
    assert expected in line
    assert FAKE_KEY not in result.output


def test_an_unreachable_api_is_one_line(
    monkeypatch: pytest.MonkeyPatch, clean_anthropic_env: None
) -> None:
    with socket.socket() as probe:  # a loopback port with nothing listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    line = assert_one_clean_line(run("ask", "hello"), 1)
    assert "127.0.0.1" in line


def test_chat_keeps_going_after_a_model_failure(api: FakeMessagesAPI) -> None:
    api.enqueue(
        error_reply(400, "invalid_request_error", "bad request"), message_reply(text("Hi."))
    )
    result = run("chat", "--no-color", stdin="first\nsecond\n")
    assert result.exit_code == 0, result.output
    assert "error:" in result.output
    assert "Hi." in result.output
    assert "Traceback" not in result.output
