"""What the chat says to a person: the banner, the help, /triage without a cluster,
/explain with a cluster open, /findings naming what could not run, /cluster's usage.
In-process: a ChatSession over a recording (or no cluster) with a script of no turns."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.chat.banner import banner
from agent.chat.basic import SKIPPED_SHOWN, skipped_lines
from agent.chat.failures import NO_CLUSTER
from agent.chat.piped import PipedReader
from agent.chat.repl import handle
from agent.chat.session import ChatSession
from agent.chat.slash import commands, help_epilog, help_text
from agent.commands.conversation_output import AnswerPrinter
from agent.loop import Agent
from agent.providers.anthropic_api import KEYLESS_DEMO, NO_KEY_MESSAGE
from agent.providers.scripted import Script, ScriptedProvider
from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.cluster import ClusterSession
from agent.transcript import Transcript
from tools.findings import Skipped
from tools.recorded.model import load_recorded
from tools.target import TriageTarget

ROOT = Path(__file__).resolve().parents[2]
# Words addressed to the model that a person must never be shown.
MODEL_WORDS = ("use_cluster", "ask the user", "Tell the user", "call triage")


def chat_session(recording: str | None = None) -> tuple[ChatSession, io.StringIO]:
    if recording is None:
        toolset = Toolset(ClusterSession(), ConversationState())
    else:
        recorded = load_recorded(ROOT / "evals" / "clusters" / f"{recording}.json")
        target = TriageTarget(cluster=recorded.cluster, region=recorded.region)
        toolset = Toolset(
            ClusterSession(target=target, recordings=[recorded]),
            ConversationState(cluster=target.cluster, region=target.region),
        )
    out = io.StringIO()
    agent = Agent(ScriptedProvider(Script(turns=[])), toolset)
    session = ChatSession(
        agent, AnswerPrinter(True, stream=out), Transcript(), PipedReader(io.StringIO())
    )
    return session, out


def said(session: ChatSession, out: io.StringIO, message: str) -> str:
    start = len(out.getvalue())
    assert handle(session, message)
    return out.getvalue()[start:]


# -- the banner and the help -------------------------------------------------------------


def test_the_banner_says_what_to_type_first_on_a_terminal_only() -> None:
    piped = banner(provider="scripted", model="m", where="hp (us-west-2)", interactive=False)
    assert piped == "hyperpod-debug chat · scripted:m · hp (us-west-2)"
    shown = banner(provider="scripted", model="m", where="hp (us-west-2)", interactive=True)
    assert "Describe the problem or paste an error" in shown
    assert "/triage checks the cluster" in shown
    assert "/help" in shown
    assert "/quit" in shown
    none = banner(provider="scripted", model="m", where=None, interactive=True)
    assert "no cluster yet" in none
    assert "/cluster NAME REGION" in none


def test_the_help_lists_every_command_with_its_other_names() -> None:
    text = help_text()
    for command in commands():
        assert command.usage in text
        for alias in command.aliases:
            assert alias in text
    assert "/help" in text
    assert "/exit" in text
    assert "/cluster NAME REGION" in text
    # `chat --help` shows the same list, unwrapped by click.
    epilog = help_epilog()
    assert epilog.startswith("\b\n")
    assert all(line in epilog for line in text.splitlines()[2:])


def test_the_no_key_message_points_at_the_keyless_demo_of_the_readme() -> None:
    assert KEYLESS_DEMO in NO_KEY_MESSAGE
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    # The README runs the same demo (its command spans lines there).
    demo = " ".join(KEYLESS_DEMO.split()).replace("hyperpod-debug", ".venv/bin/hyperpod-debug")
    assert demo.replace("\\", "") in readme.replace("\\ ", "")
    for word in KEYLESS_DEMO.split():
        if word.endswith(".json"):
            assert (ROOT / word).is_file(), word


# -- slash commands ------------------------------------------------------------------------


def test_triage_without_a_cluster_tells_the_person_how_to_name_one() -> None:
    session, out = chat_session()
    shown = said(session, out, "/triage")
    assert NO_CLUSTER in shown
    assert "/cluster NAME REGION" in shown
    assert not any(word.lower() in shown.lower() for word in MODEL_WORDS), shown


def test_explain_with_a_cluster_open_points_at_slash_triage() -> None:
    text = "NCCL WARN NET/OFI no route to host"
    session, out = chat_session("demo-eks")
    shown = said(session, out, f"/explain {text}")
    assert "/triage" in shown
    assert "hyperpod-debug triage" not in shown
    alone, alone_out = chat_session()
    assert "hyperpod-debug triage --cluster" in said(alone, alone_out, f"/explain {text}")


def test_findings_names_the_checks_that_could_not_run() -> None:
    session, out = chat_session("ec2-access-denied")
    said(session, out, "/triage")
    report = session.agent.state.latest
    assert report is not None
    assert report.skipped
    shown = said(session, out, "/findings")
    assert f"{len(report.skipped)} check(s) skipped:" in shown
    for skip in report.skipped[:SKIPPED_SHOWN]:
        assert f"- {skip.check}: " in shown
    assert "Missing IAM permission" in shown


def test_skipped_lines_are_clipped_and_counted_past_the_cap() -> None:
    many = [Skipped(check=f"check-{i}", reason="x" * 500) for i in range(SKIPPED_SHOWN + 3)]
    lines = skipped_lines(many)
    assert len(lines) == SKIPPED_SHOWN + 1
    assert all(len(line) < 200 for line in lines)
    assert lines[-1] == "  … and 3 more"


@pytest.mark.parametrize("argument", ["", "a b c", "hp"])
def test_cluster_needs_a_name_and_a_region(argument: str) -> None:
    session, out = chat_session()
    assert "usage: /cluster NAME REGION" in said(session, out, f"/cluster {argument}")
    assert session.agent.toolset.session.target is None


def test_cluster_refuses_a_malformed_name_before_reading_aws() -> None:
    session, out = chat_session()
    shown = said(session, out, "/cluster bad!name us-west-2")
    assert "cluster" in shown.lower()
    assert "usage" not in shown
    assert session.agent.toolset.session.target is None


def test_cluster_on_a_replay_says_it_cannot_open_another() -> None:
    session, out = chat_session("demo-eks")
    shown = said(session, out, "/cluster other us-east-1")
    assert "replays a recorded cluster" in shown
    assert session.agent.toolset.session.target is not None
