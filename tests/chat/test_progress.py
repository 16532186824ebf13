"""The live display: how tool calls are described, what a terminal shows, and the loop's
progress hook that feeds it."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console

from agent.activity import (
    ModelCallEnded,
    ModelCallStarted,
    ProgressEvent,
    TextShown,
    ToolEnded,
    ToolStarted,
)
from agent.chat.progress import LiveProgress, attached, describe, tool_line, waiting_text
from agent.loop import Agent
from agent.providers.base import ModelRequest, ModelResponse, ProviderError, TextCallback
from agent.providers.retries import RetryNotice
from agent.providers.scripted import ScriptedProvider
from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.cluster import ClusterSession
from tools.recorded.model import load_recorded
from tools.target import TriageTarget

from .pty_chat import ROOT

NODE = "i-0123456789abcdef0"


def toolset_for(name: str) -> Toolset:
    recording = load_recorded(ROOT / "evals" / "clusters" / f"{name}.json")
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    state = ConversationState(cluster=target.cluster, region=target.region)
    return Toolset(ClusterSession(target=target, recordings=[recording]), state)


@pytest.mark.parametrize(
    ("name", "arguments", "shown"),
    [
        ("triage", {}, "triage (whole cluster)"),
        ("triage", {"instance_id": NODE}, f"triage {NODE}"),
        ("read_reference", {"section": "A"}, "read_reference § A"),
        ("read_reference", {"section": "G.2", "offset": 8000}, "read_reference § G.2 from 8,000"),
        ("explain_signal", {"text": "x" * 1234}, "explain_signal (1,234 characters)"),
        ("use_cluster", {"cluster": "ml", "region": "us-west-2"}, "use_cluster ml (us-west-2)"),
        (
            "list_findings",
            {"status": ["FAIL"], "section": "G", "instance_id": NODE},
            f"list_findings FAIL § G {NODE}",
        ),
        ("check_efa_health", {"instance_id": NODE}, f"check_efa_health {NODE}"),
        ("list_checks", {}, "list_checks"),
        ("mystery", {"a": "one", "b": 2, "c": "three", "d": {"x": 1}}, "mystery a=one b=2"),
    ],
)
def test_a_tool_call_is_described_in_words(
    name: str, arguments: dict[str, Any], shown: str
) -> None:
    assert describe(name, arguments) == shown


def test_a_description_is_display_safe_and_short() -> None:
    shown = describe("suggest_command", {"command": "echo \x1b]0;forged\x07" + "y" * 500})

    assert "\x1b" not in shown
    assert "{" not in shown  # never the raw JSON input
    assert len(shown) < 120


def test_tool_lines_for_success_error_and_not_run() -> None:
    done = ToolEnded("triage", {}, 3.41)
    failed = ToolEnded("triage", {}, 0.2, error="no cluster is open\nnext line")
    skipped = ToolEnded("triage", {}, 0.0, ran=False)

    assert tool_line(done) == "● triage (whole cluster) 3.4 s"
    assert tool_line(failed) == "✗ triage (whole cluster) 0.2 s: no cluster is open\\nnext line"
    assert tool_line(skipped) == "– triage (whole cluster) (not run: a change is proposed)"
    assert waiting_text("thinking", 12.3) == "thinking 12 s · Ctrl-C cancels"


def _terminal() -> tuple[io.StringIO, Console]:
    out = io.StringIO()
    return out, Console(file=out, force_terminal=True, width=80, color_system=None)


def test_the_display_leaves_tool_and_retry_lines_and_erases_its_spinner() -> None:
    out, console = _terminal()
    display = LiveProgress(console)

    display(ModelCallStarted())
    display.retry(RetryNotice("overloaded", 529, 2.0, 1, 3))
    display(ModelCallEnded(2.5, completed=True))
    display(ToolStarted("read_reference", {"section": "A"}))
    display(ToolEnded("read_reference", {"section": "A"}, 0.01))
    display(ToolStarted("triage", {}))
    display(ToolEnded("triage", {}, 1.0, completed=False))  # interrupted: no line

    shown = out.getvalue()
    assert "API overloaded, retrying in 2.0 s (1/3)" in shown
    assert "● read_reference § A 0.0 s" in shown
    assert "● triage" not in shown
    assert display._live is None  # every spinner stopped


def test_text_stops_the_spinner_before_it_is_printed() -> None:
    _out, console = _terminal()
    display = LiveProgress(console)

    display(ModelCallStarted())
    assert display._live is not None
    display(TextShown())
    assert display._live is None


def test_piped_output_gets_no_display(capsys: pytest.CaptureFixture[str]) -> None:
    agent = Agent(ScriptedProvider.from_turns([]), toolset_for("demo-eks"))

    with attached(agent, no_color=True, stream=io.StringIO()):
        assert agent.on_progress is None


# -- the hook in the loop ----------------------------------------------------------------------


def _recording_agent(provider: Any) -> tuple[Agent, list[ProgressEvent]]:
    events: list[ProgressEvent] = []
    agent = Agent(provider, toolset_for("demo-eks"), on_progress=events.append)
    return agent, events


def test_the_loop_reports_model_and_tool_calls_in_order() -> None:
    provider = ScriptedProvider.from_turns(
        [
            {"tool_calls": [{"name": "read_reference", "input": {"section": "A"}}]},
            {"text": "Section A covers the cluster status."},
        ]
    )
    agent, events = _recording_agent(provider)

    agent.ask("what is section A?")

    kinds = [type(e).__name__ for e in events]
    assert [k for k in kinds if k != "TextShown"] == [
        "ModelCallStarted",
        "ModelCallEnded",
        "ToolStarted",
        "ToolEnded",
        "ModelCallStarted",
        "ModelCallEnded",
    ]
    # The answer's text comes with the second call: while it streams or when the safety
    # gate releases its last paragraph, never before that call started.
    assert "TextShown" in kinds
    assert kinds.index("TextShown") > 4
    ended = next(e for e in events if isinstance(e, ToolEnded))
    assert (ended.name, ended.input, ended.error, ended.ran) == (
        "read_reference",
        {"section": "A"},
        None,
        True,
    )
    assert all(e.completed for e in events if isinstance(e, ModelCallEnded))


def test_a_failing_tool_reports_its_error() -> None:
    provider = ScriptedProvider.from_turns(
        [{"tool_calls": [{"name": "read_reference", "input": {"section": "Z.9"}}]}, {"text": "ok"}]
    )
    agent, events = _recording_agent(provider)

    agent.ask("read Z.9")

    [ended] = [e for e in events if isinstance(e, ToolEnded)]
    # The tool's message tells the model how to call it again; the person is only told
    # that the call was refused, never the instruction meant for the model.
    assert ended.error == "refused; the agent was told why"
    results = agent.messages[2]["content"]
    assert isinstance(results, list)
    assert results[0]["is_error"] is True


def test_a_tool_failure_of_the_cluster_is_said_in_the_users_words() -> None:
    provider = ScriptedProvider.from_turns(
        [{"tool_calls": [{"name": "triage", "input": {}}]}, {"text": "ok"}]
    )
    agent = Agent(provider, Toolset(ClusterSession(target=None), ConversationState()))
    events: list[object] = []
    agent.on_progress = events.append

    agent.ask("triage please")

    [ended] = [e for e in events if isinstance(e, ToolEnded)]
    assert ended.error is not None
    assert "use_cluster" not in ended.error  # the model's instruction
    assert "cluster" in ended.error.lower()


class _Failing:
    name = "scripted"
    model = "failing"

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResponse:
        raise self.error


@pytest.mark.parametrize("error", [ProviderError("down"), KeyboardInterrupt()])
def test_a_model_call_that_raises_still_reports_its_end(error: BaseException) -> None:
    agent, events = _recording_agent(_Failing(error))

    with pytest.raises(type(error)):
        agent.ask("hello")

    assert [type(e) for e in events] == [ModelCallStarted, ModelCallEnded]
    last = events[-1]
    assert isinstance(last, ModelCallEnded)
    assert not last.completed
