"""`hyperpod-debug ask TEXT`: one turn of the agent (with its tool rounds), for scripts."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from agent.commands.common import EXIT_FAILED, die, lenient_stdin, shown
from agent.commands.converse import AgentOptions
from agent.commands.options import (
    MAX_TOOL_ROUNDS,
    ClusterOption,
    ContextOption,
    KubeconfigOption,
    ModelOption,
    NoColorOption,
    NodeOption,
    NoProbesOption,
    ProfileOption,
    ProviderChoice,
    ProviderOption,
    RecordedSequenceOption,
    RegionOption,
    ScriptOption,
    ToolRoundsOption,
    TranscriptOption,
)


class AskFormat(StrEnum):
    text = "text"
    json = "json"


def ask_command(
    text: Annotated[str, typer.Argument(help="The question or pasted error text ('-': stdin).")],
    cluster: ClusterOption = None,
    region: RegionOption = None,
    node: NodeOption = None,
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
    profile: ProfileOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    no_probes: NoProbesOption = False,
) -> None:
    """Ask the agent one question: it triages, reads the reference and proposes commands
    for you to run (it never runs them)."""
    import sys

    from agent.chat.progress import attached
    from agent.commands.cluster_setup import ClusterArgs
    from agent.commands.conversation_output import AnswerPrinter
    from agent.commands.converse import build_agent
    from agent.providers.base import ProviderError
    from agent.transcript import Transcript

    if text == "-":
        lenient_stdin()
        text = sys.stdin.read()
    if not text.strip():
        die("nothing to ask: give a question or pasted error text", 2)
    as_json = output_format is AskFormat.json
    transcript = Transcript({"command": "ask"})
    agent = build_agent(
        AgentOptions(
            cluster=ClusterArgs(
                cluster=cluster,
                region=region,
                node=node,
                profile=profile,
                kubeconfig=kubeconfig,
                context=context,
                no_probes=no_probes,
            ),
            recorded=list(recorded or []),
            provider=provider,
            model=model,
            script=script,
            max_tool_rounds=max_tool_rounds,
            stream=not as_json,
        ),
        transcript,
    )
    printer = None if as_json else AnswerPrinter(no_color)
    try:
        # Spinner and tool lines on a terminal in text mode; retry notices on stderr else.
        with attached(agent, no_color=no_color, live=not as_json):
            result = agent.ask(text, emit=printer)
    except ProviderError as exc:
        _save(transcript, transcript_path)
        die(str(exc), EXIT_FAILED)
    _save(transcript, transcript_path)
    if as_json:
        text = json.dumps(json_output(result.to_json()), indent=2, ensure_ascii=False)
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
