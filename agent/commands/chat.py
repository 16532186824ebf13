"""`hyperpod-debug chat`: talk to the agent about a cluster or a ticket.

Works on a terminal (streaming, Markdown) and with piped stdin (one message a line, plain
text out). Slash commands act without the model: /triage, /explain TEXT, /findings,
/suggestions, /copy N (print suggested command N alone, and on a terminal put it on the
clipboard), /done (you applied the changes: re-triage and compare), /save FILE (never
replaces a file; /save! FILE does), /quit. A message that says the pending change was made
("Both done.", "三条命令都执行了") re-triages as /done does; one that only may mean it ("it's
back up", "好了") makes the chat ask "Re-triage now?" first.
"""

from __future__ import annotations

import sys

import typer

from agent.commands.common import lenient_stdin
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


def chat_command(
    cluster: ClusterOption = None,
    region: RegionOption = None,
    node: NodeOption = None,
    recorded: RecordedSequenceOption = None,
    provider: ProviderOption = ProviderChoice.anthropic,
    model: ModelOption = None,
    script: ScriptOption = None,
    transcript_path: TranscriptOption = None,
    max_tool_rounds: ToolRoundsOption = MAX_TOOL_ROUNDS,
    no_color: NoColorOption = False,
    profile: ProfileOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    no_probes: NoProbesOption = False,
) -> None:
    """Chat with the agent: it triages read-only, explains, and proposes commands for you."""
    from agent.chat.basic import save
    from agent.chat.piped import PipedReader
    from agent.chat.repl import run
    from agent.chat.session import ChatSession
    from agent.chat.slash import help_text
    from agent.chat.terminal import TerminalReader
    from agent.commands.cluster_setup import ClusterArgs
    from agent.commands.conversation_output import AnswerPrinter
    from agent.commands.converse import build_agent
    from agent.transcript import Transcript

    lenient_stdin()
    transcript = Transcript({"command": "chat"})
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
            stream=True,
        ),
        transcript,
    )
    printer = AnswerPrinter(no_color, numbered=True)  # suggestion blocks numbered for /copy
    interactive = sys.stdin.isatty()
    reader = TerminalReader() if interactive else PipedReader()
    session = ChatSession(agent, printer, transcript, reader)
    target = agent.toolset.session.target
    where = f"{target.cluster} ({target.region})" if target else "no cluster yet"
    printer.note(f"hyperpod-debug chat · {agent.provider.name}:{agent.provider.model} · {where}")
    if interactive:
        printer.note(help_text())
    try:
        run(session)
    finally:
        if transcript_path is not None:
            save(transcript, transcript_path, printer)


def register(app: typer.Typer) -> None:
    app.command("chat")(chat_command)
