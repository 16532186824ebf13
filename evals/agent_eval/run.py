"""Play one case's conversation through the real agent: its recordings, its user turns."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.loop import Agent, AgentSettings
from agent.providers.base import Provider, ProviderError, Usage
from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.cluster import ClusterSession
from agent.transcript import Transcript
from agent.turn import TurnResult
from evals.agent_eval.case import LoadedCase, Turn
from tools.recorded.model import RecordedFileError, load_recorded
from tools.target import TriageTarget

ProviderFactory = Callable[[LoadedCase], Provider]


@dataclass
class TurnRecord:
    turn: Turn
    result: TurnResult
    seconds: float


@dataclass
class ConversationRun:
    case_id: str
    repeat: int
    turns: list[TurnRecord] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    transcript: Transcript | None = None

    @property
    def usage(self) -> Usage:
        total = Usage()
        for record in self.turns:
            total = total + record.result.usage
        return total

    @property
    def tool_rounds(self) -> int:
        return sum(r.result.tool_rounds for r in self.turns)

    @property
    def model_calls(self) -> int:
        return sum(r.result.model_calls for r in self.turns)


def build_agent(loaded: LoadedCase, provider: Provider, transcript: Transcript) -> Agent:
    recordings = [load_recorded(path) for path in loaded.recording_paths]
    first = recordings[0]
    target = TriageTarget(cluster=first.cluster, region=first.region, node=loaded.case.node)
    session = ClusterSession(target=target, recordings=recordings)
    state = ConversationState(cluster=target.cluster, region=target.region, focus_node=target.node)
    return Agent(
        provider,
        Toolset(session, state),
        # The streaming path and its safety gate, as a user would meet them.
        settings=AgentSettings(stream=True, today=first.recorded_at[:10]),
        on_event=transcript.add,
    )


def run_case(
    loaded: LoadedCase, make_provider: ProviderFactory, repeat: int = 1
) -> ConversationRun:
    """The conversation, turn by turn. A provider failure or an unusable case becomes the
    run's `error`; nothing here raises for one bad case."""
    run = ConversationRun(case_id=loaded.case.id, repeat=repeat)
    transcript = Transcript({"case": loaded.case.id, "repeat": repeat})
    run.transcript = transcript
    start = time.perf_counter()
    try:
        agent = build_agent(loaded, make_provider(loaded), transcript)
        for turn in loaded.case.turns:
            began = time.perf_counter()
            result = agent.done(turn.user) if turn.done else agent.ask(turn.user)
            run.turns.append(TurnRecord(turn, result, time.perf_counter() - began))
    except ProviderError as exc:
        run.error = f"provider: {exc}"
    except RecordedFileError as exc:
        run.error = f"recording: {exc}"
    except Exception as exc:  # one broken case must not stop the suite
        run.error = f"{type(exc).__name__}: {exc}"[:500]
    run.seconds = time.perf_counter() - start
    return run
