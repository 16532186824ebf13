"""The chat's own commands: triage, findings, explain, suggestions, done, save, help, quit."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent.chat.slash import SlashCommand, help_text
from tools.display import argument as shown_argument

if TYPE_CHECKING:
    from agent.chat.session import ChatSession
    from agent.commands.conversation_output import AnswerPrinter
    from agent.transcript import Transcript
    from tools.findings import Skipped


def _quit(_session: ChatSession, _argument: str) -> bool:
    return False


def _help(session: ChatSession, _argument: str) -> bool:
    session.printer.note(help_text())
    return True


def _triage(session: ChatSession, _argument: str) -> bool:
    from agent.chat.failures import NO_CLUSTER, failure_line

    agent, printer = session.agent, session.printer
    result = agent.toolset.call("triage", {"instance_id": agent.state.focus_node})
    if result.failure is not None:
        # The person's wording; the failure's "next" is addressed to the model.
        line = failure_line(session, result.failure)
        printer.note(line if line == NO_CLUSTER else f"triage could not run: {line}")
        return True
    return _findings(session, "")


def _findings(session: ChatSession, _argument: str) -> bool:
    from tools.triage.render import finding_line

    agent, printer = session.agent, session.printer
    report = agent.state.latest
    if report is None:
        printer.note("No triage yet: type /triage or ask a question.")
        return True
    problems = report.problems()
    summary = report.summary
    lines = [finding_line(f) for f in problems] or ["No FAIL or WARN finding."]
    lines.append(
        f"{summary.by_status['FAIL']} FAIL, {summary.by_status['WARN']} WARN, "
        f"{len(report.skipped)} check(s) skipped" + (":" if report.skipped else "")
    )
    lines.extend(skipped_lines(report.skipped))
    printer.note("\n".join(lines))
    return True


SKIPPED_SHOWN = 12
SKIP_REASON_CHARS = 100


def skipped_lines(skipped: Sequence[Skipped]) -> list[str]:
    """One line per check that could not run, naming it and why (clipped: the reason may
    quote cluster text); past SKIPPED_SHOWN, how many more."""
    from tools.text import clip

    lines = [
        f"  - {clip(s.check, 80)}: {clip(s.reason, SKIP_REASON_CHARS)}"
        for s in skipped[:SKIPPED_SHOWN]
    ]
    if len(skipped) > SKIPPED_SHOWN:
        lines.append(f"  … and {len(skipped) - SKIPPED_SHOWN} more")
    return lines


def _explain(session: ChatSession, text: str) -> bool:
    from tools.explain.engine import explain
    from tools.explain.render import render_text

    if not text:
        session.printer.note("usage: /explain TEXT")
        return True
    # With a cluster open, the next step is this chat's /triage, not a command to run.
    opened = session.agent.toolset.session.target is not None
    result = explain(text, triage_step="/triage" if opened else None)
    session.printer.note(render_text(result).rstrip())
    return True


def _suggestions(session: ChatSession, _argument: str) -> bool:
    from agent.chat.copy import show_suggestions

    agent = session.agent
    if not agent.state.pending:
        session.printer.note("No suggested command is waiting for you.")
        return True
    show_suggestions(session)
    return True


def _done(session: ChatSession, argument: str) -> bool:
    from agent.chat.verify import approval_note

    if session.agent.state.pending:
        session.printer.note(approval_note(session))
    session.agent.done(argument, emit=session.printer)
    return True


def _save_command(overwrite: bool) -> SlashCommand:
    def run(session: ChatSession, argument: str) -> bool:
        if not argument:
            session.printer.note("usage: /save FILE (/save! FILE replaces an existing file)")
            return True
        save(session.transcript, Path(argument).expanduser(), session.printer, overwrite=overwrite)
        return True

    if overwrite:
        return SlashCommand("/save!", "/save! FILE", "the same, replacing FILE", run)
    return SlashCommand(
        "/save", "/save FILE", "write the transcript (secrets redacted; never replaces)", run
    )


def save(
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


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("/triage", "/triage", "triage the cluster (or the node in focus) now", _triage),
    SlashCommand("/findings", "/findings", "the latest triage's problems", _findings),
    SlashCommand("/explain", "/explain TEXT", "match pasted error text to the reference", _explain),
    SlashCommand(
        "/suggestions", "/suggestions", "the commands waiting for you to run", _suggestions
    ),
    SlashCommand("/done", "/done", "you applied the changes: re-triage and compare", _done),
    _save_command(overwrite=False),
    _save_command(overwrite=True),
    SlashCommand("/help", "/help", "this list", _help),
    SlashCommand("/quit", "/quit", "end the chat (also Ctrl-D)", _quit, ("/exit",)),
)
