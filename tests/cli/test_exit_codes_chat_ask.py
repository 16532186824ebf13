"""The exit-code and JSON contract of `chat` and `ask`: a bad --script is a bad argument
(2); piped `chat` fails (1) when every message sent to the agent failed; `ask --format
json` prints a JSON error object on stdout and still exits non-zero; a live cluster named
at the start is checked before a model turn is spent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from agent.chat.failures import NO_CLUSTER
from agent.chat.slash import commands
from agent.cli import app

from ._cli_support import REGION, assert_clean_exit, run

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "evals" / "clusters" / "demo-eks.json")
MODEL_WORDS = ("use_cluster", "ask the user", "Tell the user")


def script(tmp_path: Path, turns: list[dict[str, object]]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return str(path)


def chat(stdin: str, *args: str) -> Result:
    return CliRunner().invoke(app, ["chat", "--no-color", *args], input=stdin)


# -- a bad --script is a bad argument ------------------------------------------------------


@pytest.mark.parametrize("command", ["chat", "ask"])
@pytest.mark.parametrize("problem", ["none", "missing", "not json", "wrong shape"])
def test_a_missing_or_malformed_script_exits_2_with_one_line(
    tmp_path: Path, command: str, problem: str
) -> None:
    args = [command, *(["question"] if command == "ask" else []), "--provider", "scripted"]
    path = tmp_path / "script.json"
    if problem == "not json":
        path.write_text("{turns: [", encoding="utf-8")
    elif problem == "wrong shape":
        path.write_text('{"turns": [{"txt": "hi"}]}', encoding="utf-8")
    if problem != "none":
        args += ["--script", str(path)]
    result = CliRunner().invoke(app, [*args, "--recorded", DEMO], input="hello\n")
    assert_clean_exit(result, 2)
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: ")
    assert "--script" in result.stderr


# -- piped chat: every message failed → 1 --------------------------------------------------


def test_piped_chat_exits_1_when_every_message_failed(tmp_path: Path) -> None:
    result = chat("hello\nanother\n", "--provider", "scripted", "--script", script(tmp_path, []))
    assert_clean_exit(result, 1)
    assert result.stdout.count("error: the script has no model turn left") == 2


def test_piped_chat_exits_0_when_a_message_got_an_answer(tmp_path: Path) -> None:
    turns: list[dict[str, object]] = [{"text": "Hello."}]
    result = chat("hello\nanother\n", "--provider", "scripted", "--script", script(tmp_path, turns))
    assert_clean_exit(result, 0)
    assert "Hello." in result.stdout


def test_piped_chat_of_slash_commands_only_is_not_a_failure(tmp_path: Path) -> None:
    path = script(tmp_path, [])
    result = chat("/findings\n/help\n/quit\n", "--provider", "scripted", "--script", path)
    assert_clean_exit(result, 0)


# -- ask --format json: an error is an object too --------------------------------------------


def error_of(result: Result) -> dict[str, str]:
    payload = json.loads(result.stdout)
    assert set(payload) == {"error"}
    error: dict[str, str] = payload["error"]
    assert set(error) == {"kind", "message"}
    return error


def test_ask_json_without_a_key_is_a_provider_error_object() -> None:
    result = run("ask", "why?", "--recorded", DEMO, "--format", "json")
    assert_clean_exit(result, 1)
    error = error_of(result)
    assert error["kind"] == "provider"
    assert "ANTHROPIC_API_KEY" in error["message"]
    assert "--provider scripted" in error["message"]  # the keyless demo
    assert error["message"] in result.stderr  # the usual line is still on stderr


def test_ask_json_with_a_bad_argument_is_a_usage_error_object(tmp_path: Path) -> None:
    no_script = run("ask", "why?", "--provider", "scripted", "--recorded", DEMO, "-f", "json")
    assert_clean_exit(no_script, 2)
    assert error_of(no_script)["kind"] == "usage"
    empty = run(
        "ask", "  ", "--provider", "scripted", "--script", script(tmp_path, []), "-f", "json"
    )
    assert_clean_exit(empty, 2)
    assert error_of(empty) == {
        "kind": "usage",
        "message": "nothing to ask: give a question or pasted error text",
    }


def test_ask_json_when_the_model_fails_mid_turn_is_a_provider_error_object(tmp_path: Path) -> None:
    turns: list[dict[str, object]] = [{"tool_calls": [{"name": "triage", "input": {}}]}]
    path = script(tmp_path, turns)
    result = run(
        "ask", "why?", "--provider", "scripted", "--script", path, "--recorded", DEMO, "-f", "json"
    )
    assert_clean_exit(result, 1)
    error = error_of(result)
    assert error["kind"] == "provider"
    assert "no model turn left" in error["message"]


def test_ask_text_prints_no_json_on_an_error() -> None:
    result = run("ask", "why?", "--recorded", DEMO)
    assert_clean_exit(result, 1)
    assert result.stdout == ""


# -- chat --help names the slash commands ----------------------------------------------------


def test_chat_help_lists_the_slash_commands() -> None:
    result = run("chat", "--help")
    assert_clean_exit(result, 0)
    for command in commands():
        assert command.usage in result.stdout


# -- a live cluster is checked before a model turn -------------------------------------------


def test_triage_without_a_cluster_says_how_to_name_one(tmp_path: Path) -> None:
    result = chat("/triage\n", "--provider", "scripted", "--script", script(tmp_path, []))
    assert_clean_exit(result, 0)
    assert NO_CLUSTER in result.stdout
    assert not any(word in result.stdout for word in MODEL_WORDS)


def test_a_wrong_cluster_is_said_at_the_start_and_cluster_opens_another(
    tmp_path: Path, live: str
) -> None:
    path = script(tmp_path, [])
    args = ["--cluster", "no-such", "--region", REGION, "--no-probes", "--provider", "scripted"]
    result = chat("/cluster hp\n/quit\n", *args, "--script", path)
    assert_clean_exit(result, 0)
    lines = result.stdout.splitlines()
    assert lines[0] == f"hyperpod-debug chat · scripted:scripted · no-such ({REGION})"
    # Before any message: the cluster is not there; the region's clusters are named.
    assert "no-such" in lines[1]
    assert "hp" in lines[1]
    assert lines[1].endswith("Check the name and region: /cluster NAME REGION.")
    assert f"Cluster hp ({REGION}, Slurm) is open; /triage checks it." in result.stdout
    assert not any(word in result.stdout for word in MODEL_WORDS)


def test_unusable_credentials_are_said_before_a_model_turn(
    tmp_path: Path, live: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AWS_SECURITY_TOKEN", raising=False)
    path = script(tmp_path, [])
    args = ["--cluster", "hp", "--region", REGION, "--no-probes", "--provider", "scripted"]
    result = chat("/quit\n", *args, "--script", path)
    assert_clean_exit(result, 0)
    second = result.stdout.splitlines()[1]
    assert second.startswith("AWS credentials are not usable")
    assert "Fix your AWS credentials" in second
    assert not any(word in result.stdout for word in MODEL_WORDS)


def test_ask_dash_from_a_pipe_reads_in_silence(tmp_path: Path) -> None:
    from agent.commands.ask import READING_STDIN

    path = script(tmp_path, [{"text": "Answered."}])
    args = ["ask", "-", "--provider", "scripted", "--script", path, "--recorded", DEMO]
    result = CliRunner().invoke(app, [*args, "--no-color"], input="why?\n")
    assert_clean_exit(result, 0)
    assert READING_STDIN not in result.stderr
    assert "Answered." in result.stdout
