"""`hyperpod-debug chat`: talk to the agent about a cluster or a ticket.

Works on a terminal (streaming, Markdown) and with piped stdin (one message a line, plain
text out). Slash commands act without the model (`agent.chat.slash`; `chat --help` lists
them from its registry). A message that says the pending change was made ("Both done.",
"三条命令都执行了") re-triages as /done does; one that only may mean it ("it's back up",
"好了") makes the chat ask "Re-triage now?" first.

Exit status: 0, or 1 when piped input sent messages to the agent and every one of them
failed (a script must not take a chat that never got an answer for a success); slash
commands alone are not a failure. Bad arguments exit 2 before the chat starts.

`--resume FILE` continues a saved conversation with its state (agent.chat.resume);
/cost and /context report on it.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.cluster_options import SESSION_OPTIONS, ClusterArgs, cluster_options
from agent.commands.common import EXIT_FAILED, EXIT_USAGE, die, lenient_stdin, use_colour
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
    from agent.chat.resume import Resumed
    from agent.chat.session import ChatSession
    from agent.loop import Agent
    from agent.transcript import Transcript


@cluster_options(SESSION_OPTIONS, access_before="resume")
def chat_command(
    cluster_args: ClusterArgs,
    recorded: RecordedSequenceOption = None,
    provider: ProviderOption = ProviderChoice.anthropic,
    model: ModelOption = None,
    script: ScriptOption = None,
    transcript_path: TranscriptOption = None,
    max_tool_rounds: ToolRoundsOption = MAX_TOOL_ROUNDS,
    no_color: NoColorOption = False,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            help="Continue a conversation saved with /save or --transcript (its cluster, "
            "triages and pending suggestions); --cluster, --region, --recorded override.",
        ),
    ] = None,
) -> None:
    """Chat with the agent: it triages read-only, explains, and proposes commands for you."""
    from agent.chat import progress
    from agent.chat.basic import save
    from agent.chat.repl import run
    from agent.commands.converse import build_agent
    from agent.transcript import Transcript

    lenient_stdin()
    resumed = None
    if resume is not None:
        resumed, cluster_args, recorded = _resumed(resume, cluster_args, recorded)
    transcript = Transcript(
        {"command": "chat", **({"resumed_from": resume.name} if resume else {})},
        resumed.saved.events if resumed else None,
    )
    agent = build_agent(
        AgentOptions(
            cluster=cluster_args,
            recorded=list(recorded or []),
            provider=provider,
            model=model,
            script=script,
            max_tool_rounds=max_tool_rounds,
            stream=True,
        ),
        transcript,
    )
    session = _start(agent, transcript, resumed, no_color)
    try:
        with progress.attached(agent, no_color=no_color):
            run(session)
    finally:
        if transcript_path is not None:
            save(transcript, transcript_path, session.printer)
    if (
        not session.interactive
        and session.messages_sent
        and session.messages_failed == session.messages_sent
    ):
        raise typer.Exit(EXIT_FAILED)


def _resumed(
    path: Path, cluster_args: ClusterArgs, recorded: list[Path] | None
) -> tuple[Resumed, ClusterArgs, list[Path]]:
    """The saved conversation, and where it goes on (its cluster, region and recordings):
    what the command line names first."""
    from agent.chat import resume as resuming

    try:
        resumed = resuming.load(path)
        place = resuming.where(
            resumed,
            cluster=cluster_args.cluster,
            region=cluster_args.region,
            recorded=list(recorded or []),
        )
    except resuming.TranscriptError as exc:
        die(str(exc), EXIT_USAGE)
    return (
        resumed,
        replace(cluster_args, cluster=place.cluster, region=place.region),
        place.recorded,
    )


def _start(
    agent: Agent, transcript: Transcript, resumed: Resumed | None, no_color: bool
) -> ChatSession:
    """The chat's session, its banner (and recap) shown and the cluster checked."""
    from agent.chat import warmup
    from agent.chat.banner import banner
    from agent.chat.cluster import check_at_start
    from agent.chat.piped import PipedReader
    from agent.chat.resume import attach, recap, restore
    from agent.chat.session import ChatSession
    from agent.chat.terminal import TerminalReader
    from agent.commands.conversation_output import AnswerPrinter

    attach(transcript, agent)
    if resumed is not None:
        restore(agent, resumed)
    printer = AnswerPrinter(no_color, numbered=True)  # suggestion blocks numbered for /copy
    # The prompt needs a terminal on both sides; `chat > file` reads lines as piped input does.
    interactive = sys.stdin.isatty() and sys.stdout.isatty()

    def prepare() -> None:
        # The SDK is imported while the user types, once the first prompt is drawn
        # (agent/chat/warmup.py); with piped input, at once.
        warmup.start(agent.provider)

    reader = (
        TerminalReader(colour=use_colour(no_color), on_shown=prepare)
        if interactive
        else PipedReader()
    )
    session = ChatSession(agent, printer, transcript, reader)
    target = agent.toolset.session.target
    where = f"{target.cluster} ({target.region})" if target else None
    printer.note(
        banner(
            provider=agent.provider.name,
            model=agent.provider.model,
            where=where,
            interactive=interactive,
        )
    )
    if resumed is not None:
        printer.note(recap(agent, resumed))
    check_at_start(session)
    if not interactive:
        prepare()
    return session


def register(app: typer.Typer) -> None:
    from agent.chat.slash import help_epilog

    app.command("chat", epilog=help_epilog())(chat_command)
