"""`hyperpod-debug chat`: talk to the agent about a cluster or a ticket.

Works on a terminal (streaming, Markdown) and with piped stdin (one message a line, plain
text out). Slash commands act without the model: /triage, /explain TEXT, /findings,
/suggestions, /done (you applied the changes: re-triage and compare), /save FILE (never
replaces a file; /save! FILE does), /quit. A message that says the pending change was made
("Both done.", "三条命令都执行了") re-triages as /done does; one that only may mean it ("it's
back up", "好了") makes the chat ask "Re-triage now?" first.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

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
from tools.display import argument as shown_argument

if TYPE_CHECKING:
    from agent.commands.conversation_output import AnswerPrinter
    from agent.loop import Agent
    from agent.transcript import Transcript

HELP = (
    "Commands: /triage  /explain TEXT  /findings  /suggestions  /done  /save FILE  /quit\n"
    "Anything else is a message to the agent. It proposes commands for you to run; it never "
    "runs them. Tell it (or type /done) once you applied a change."
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
    printer = AnswerPrinter(no_color)
    interactive = sys.stdin.isatty()
    target = agent.toolset.session.target
    where = f"{target.cluster} ({target.region})" if target else "no cluster yet"
    printer.note(f"hyperpod-debug chat · {agent.provider.name}:{agent.provider.model} · {where}")
    if interactive:
        printer.note(HELP)
    try:
        _loop(agent, printer, transcript, interactive)
    finally:
        if transcript_path is not None:
            _save(transcript, transcript_path, printer)


def _read(interactive: bool) -> str | None:
    if interactive:
        try:
            return input("you> ")
        except EOFError:
            return None
    line = sys.stdin.readline()
    return line if line else None


def _loop(agent: Agent, printer: AnswerPrinter, transcript: Transcript, interactive: bool) -> None:
    from agent.providers.base import ProviderError

    while True:
        try:
            line = _read(interactive)
        except KeyboardInterrupt:
            printer.note("")
            return
        if line is None:
            return
        message = line.strip()
        if not message:
            continue
        if not interactive:
            printer.note(f"you> {shown_argument(message, 500)}")
        try:
            if message.startswith("/"):
                if not _slash(agent, printer, transcript, message):
                    return
            elif agent.maybe_done(message) and _confirm_retriage(agent, printer, interactive):
                agent.done(message, emit=printer)
            else:
                agent.ask(message, emit=printer)
        except ProviderError as exc:
            printer.note(f"error: {exc}")
        except KeyboardInterrupt:
            printer.note("(interrupted)")


RETRIAGE_QUESTION = {
    "en": "Re-triage now? [y/N]",
    "zh": "现在重新诊断吗？[y/N]",
}
_YES = frozenset({"y", "yes", "是", "是的", "好", "对", "嗯"})


def _confirm_retriage(agent: Agent, printer: AnswerPrinter, interactive: bool) -> bool:
    """A change is pending and the message may mean it was made: ask rather than guess.
    The next line answers (piped stdin too); anything but yes sends the message as it is."""
    question = RETRIAGE_QUESTION[agent.state.language]
    if interactive:
        try:
            answer = input(f"{question} ")
        except EOFError:
            return False
    else:
        printer.note(question)
        answer = sys.stdin.readline()
    return answer.strip().lower() in _YES


def _slash(agent: Agent, printer: AnswerPrinter, transcript: Transcript, message: str) -> bool:
    """Run one slash command; False ends the chat."""
    command, _, argument = message.partition(" ")
    argument = argument.strip()
    if command in ("/quit", "/exit"):
        return False
    if command == "/help":
        printer.note(HELP)
    elif command == "/triage":
        _triage(agent, printer)
    elif command == "/explain":
        _explain(printer, argument)
    elif command == "/findings":
        _findings(agent, printer)
    elif command == "/suggestions":
        _suggestions(agent, printer)
    elif command == "/done":
        agent.done(argument, emit=printer)
    elif command in ("/save", "/save!"):
        if not argument:
            printer.note("usage: /save FILE (/save! FILE replaces an existing file)")
        else:
            path = Path(argument).expanduser()
            _save(transcript, path, printer, overwrite=command == "/save!")
    else:
        printer.note(f"unknown command {shown_argument(command, 60)}. {HELP}")
    return True


def _triage(agent: Agent, printer: AnswerPrinter) -> None:
    result = agent.toolset.call("triage", {"instance_id": agent.state.focus_node})
    if result.is_error:
        printer.note(f"triage could not run: {result.payload.get('error')}")
        hint = result.payload.get("next")
        if hint:
            printer.note(str(hint))
        return
    _findings(agent, printer)


def _findings(agent: Agent, printer: AnswerPrinter) -> None:
    from tools.triage.render import finding_line

    report = agent.state.latest
    if report is None:
        printer.note("No triage yet: type /triage or ask a question.")
        return
    problems = report.problems()
    summary = report.summary
    lines = [finding_line(f) for f in problems] or ["No FAIL or WARN finding."]
    lines.append(
        f"{summary.by_status['FAIL']} FAIL, {summary.by_status['WARN']} WARN, "
        f"{len(report.skipped)} check(s) skipped"
    )
    printer.note("\n".join(lines))


def _explain(printer: AnswerPrinter, text: str) -> None:
    from tools.explain.engine import explain
    from tools.explain.render import render_text

    if not text:
        printer.note("usage: /explain TEXT")
        return
    printer.note(render_text(explain(text)).rstrip())


def _suggestions(agent: Agent, printer: AnswerPrinter) -> None:
    from agent.safety.suggest import render_suggestion

    if not agent.state.pending:
        printer.note("No suggested command is waiting for you.")
        return
    for suggestion in agent.state.pending:
        printer(render_suggestion(suggestion, agent.state.language))


def _save(
    transcript: Transcript, path: Path, printer: AnswerPrinter, *, overwrite: bool = True
) -> None:
    """Write the transcript (0600). `/save` never replaces a file: `/save!` does, and so
    does `--transcript`, a path the user named before the chat began."""
    try:
        transcript.save(path, overwrite=overwrite)
    except FileExistsError:
        printer.note(
            f"not saved: {shown_argument(path)} exists; /save! {shown_argument(path)} replaces it"
        )
        return
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        reason = exc.strerror if isinstance(exc, OSError) else "not a usable file name"
        printer.note(f"error: cannot write {shown_argument(path)}: {reason}")
        return
    printer.note(f"Transcript saved to {path} (secrets redacted).")


def register(app: typer.Typer) -> None:
    app.command("chat")(chat_command)
