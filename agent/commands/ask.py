"""`hyperpod-debug ask TEXT`: one turn of the agent (with its tool rounds), for scripts."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agent.commands.cluster_options import SESSION_OPTIONS, ClusterArgs, cluster_options
from agent.commands.common import EXIT_FAILED, EXIT_USAGE, Stopped, die, lenient_stdin, shown
from agent.commands.converse import AgentOptions
from agent.commands.options import (
    MAX_TOOL_ROUNDS,
    ModelOption,
    NoColorOption,
    ProviderChoice,
    ProviderOption,
    RecordedSequenceOption,
    ScriptOption,
    ToolRoundsOption,
    TranscriptOption,
)

if TYPE_CHECKING:
    from agent.transcript import Transcript


class AskFormat(StrEnum):
    text = "text"
    json = "json"


@cluster_options(SESSION_OPTIONS)
def ask_command(
    text: Annotated[str, typer.Argument(help="The question or pasted error text ('-': stdin).")],
    cluster_args: ClusterArgs,
    recorded: RecordedSequenceOption = None,
    provider: ProviderOption = ProviderChoice.anthropic,
    model: ModelOption = None,
    script: ScriptOption = None,
    output_format: Annotated[
        AskFormat, typer.Option("--format", "-f", help="text, or one JSON object.")
    ] = AskFormat.text,
    transcript_path: TranscriptOption = None,
    max_tool_rounds: ToolRoundsOption = MAX_TOOL_ROUNDS,
    no_color: NoColorOption = False,
) -> None:
    """Ask the agent one question: it triages, reads the reference and proposes commands
    for you to run (it never runs them). With --format json an error is one JSON object
    too: {"error": {"kind": "usage" | "provider" | "failed", "message": "..."}}."""
    import sys

    from agent.transcript import Transcript

    as_json = output_format is AskFormat.json
    try:
        if text == "-":
            lenient_stdin()
            if sys.stdin.isatty():  # a person at a terminal would otherwise see nothing
                typer.echo(READING_STDIN, err=True)
            text = sys.stdin.read()
        if not text.strip():
            die("nothing to ask: give a question or pasted error text", EXIT_USAGE)
        options = AgentOptions(
            cluster=cluster_args,
            recorded=list(recorded or []),
            provider=provider,
            model=model,
            script=script,
            max_tool_rounds=max_tool_rounds,
            stream=not as_json,
        )
        result = _ask(text, options, Transcript({"command": "ask"}), transcript_path, no_color)
    except Stopped as stop:
        if as_json:  # a script reading stdout gets an object either way
            _echo_json(error_object(stop.kind, stop.message))
        raise
    if as_json:
        _echo_json(json_output(result))


READING_STDIN = "reading the question from standard input; end with Ctrl-D"


def _ask(
    text: str,
    options: AgentOptions,
    transcript: Transcript,
    transcript_path: Path | None,
    no_color: bool,
) -> dict[str, Any]:
    """One turn; its JSON form. Stops (`die`) on what prevents it."""
    from agent.chat.progress import attached
    from agent.commands.conversation_output import AnswerPrinter
    from agent.commands.converse import build_agent
    from agent.providers.base import ProviderError

    agent = build_agent(options, transcript)
    printer = AnswerPrinter(no_color) if options.stream else None
    try:
        # Spinner and tool lines on a terminal in text mode; retry notices on stderr else.
        with attached(agent, no_color=no_color, live=options.stream):
            result = agent.ask(text, emit=printer)
    except ProviderError as exc:
        _save(transcript, transcript_path)
        die(str(exc), EXIT_FAILED, "provider")
    _save(transcript, transcript_path)
    return result.to_json()


def error_object(kind: str, message: str) -> dict[str, Any]:
    """What `ask --format json` prints on an error: `kind` is "usage" (bad arguments, exit
    2), "provider" (no key or credentials for the model provider, or its API failed, exit
    1) or "failed" (anything else that stopped the run, exit 1). Redacted as the answer
    is."""
    from tools.redaction import redact_strings

    redacted: dict[str, Any] = redact_strings({"error": {"kind": kind, "message": message}})
    return redacted


def _echo_json(payload: dict[str, Any]) -> None:
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    typer.echo(text.encode("utf-8", "replace").decode("utf-8"))


def json_output(payload: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer as it may leave the program: every string redacted whole (the
    environment's credentials, every secret pattern), tool inputs by key name too
    (`{"password": ...}`)."""
    from tools.redaction import redact, redact_strings

    redacted: dict[str, Any] = redact_strings(payload)
    redacted["tool_calls"] = redact(redacted.get("tool_calls", []))
    return redacted


def _save(transcript: object, path: Path | None) -> None:
    from agent.transcript import Transcript

    if path is not None and isinstance(transcript, Transcript):
        try:
            transcript.save(path)
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
            reason = exc.strerror if isinstance(exc, OSError) else "not a usable file name"
            typer.echo(f"error: cannot write the transcript {shown(path)}: {reason}", err=True)


def register(app: typer.Typer) -> None:
    app.command("ask")(ask_command)
