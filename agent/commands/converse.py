"""What `chat` and `ask` share: building the agent from their options.

The provider is built first: with no key or credentials the command stops with one line
before anything is read. Recordings (`--recorded`, repeatable) form a sequence: the first
is triaged, each re-triage after a reported fix moves on to the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent.commands.common import EXIT_FAILED, EXIT_USAGE, die, shown
from agent.commands.options import ProviderChoice

if TYPE_CHECKING:
    from agent.commands.cluster_setup import ClusterArgs
    from agent.loop import Agent
    from agent.transcript import Transcript


@dataclass(frozen=True)
class AgentOptions:
    cluster: ClusterArgs
    recorded: list[Path]
    provider: ProviderChoice
    model: str | None
    script: Path | None
    max_tool_rounds: int
    stream: bool


def build_agent(options: AgentOptions, transcript: Transcript) -> Agent:
    from agent.commands.cluster_setup import session_set_up
    from agent.loop import Agent, AgentSettings
    from agent.providers.base import ProviderArgumentError, ProviderUnavailable
    from agent.providers.factory import make_provider

    cluster_set_up = session_set_up(
        options.cluster, options.recorded, mismatch=_recording_elsewhere
    )
    try:
        provider = make_provider(
            options.provider.value,
            model=options.model,
            region=cluster_set_up.region,
            profile=options.cluster.profile,
            script=options.script,
        )
    except ProviderArgumentError as exc:  # no or a bad --script: a bad argument
        die(str(exc), EXIT_USAGE, "usage")
    except ProviderUnavailable as exc:  # no key or credentials: a missing prerequisite
        die(str(exc), EXIT_FAILED, "provider")
    toolset = cluster_set_up.toolset()
    transcript.meta.update(
        {
            "provider": provider.name,
            "model": provider.model,
            "cluster": toolset.state.cluster,
            "region": toolset.state.region,
            "recorded": [str(p) for p in options.recorded],
        }
    )
    return Agent(
        provider,
        toolset,
        settings=AgentSettings(max_tool_rounds=options.max_tool_rounds, stream=options.stream),
        on_event=transcript.add,
    )


def _recording_elsewhere(_path: Path, recorded_region: str, region: str) -> str:
    return f"the recording is from {shown(recorded_region)}; --region {shown(region)} differs"
