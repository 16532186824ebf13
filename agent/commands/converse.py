"""What `chat` and `ask` share: their options, and building the agent from them.

The provider is built first: with no key or credentials the command stops with one line
before anything is read. Recordings (`--recorded`, repeatable) form a sequence: the first
is triaged, each re-triage after a reported fix moves on to the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.common import (
    EXIT_FAILED,
    EXIT_USAGE,
    build_target,
    die,
    load_recording_or_exit,
    resolve_region,
    shown,
)

if TYPE_CHECKING:
    from agent.loop import Agent
    from agent.transcript import Transcript


class ProviderChoice(StrEnum):
    anthropic = "anthropic"
    bedrock = "bedrock"
    scripted = "scripted"


RecordedOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--recorded",
        help="Replay a recorded cluster; repeat it to give the cluster after a fix (each "
        "re-triage moves to the next file).",
    ),
]
ProviderOption = Annotated[
    ProviderChoice,
    typer.Option("--provider", help="anthropic (ANTHROPIC_API_KEY), bedrock (AWS), scripted."),
]
ModelOption = Annotated[str | None, typer.Option("--model", help="Model id to use.")]
ScriptOption = Annotated[
    Path | None, typer.Option("--script", help="Model turns to replay (--provider scripted).")
]
TranscriptOption = Annotated[
    Path | None,
    typer.Option("--transcript", help="Write the conversation as JSONL, secrets redacted."),
]
ToolRoundsOption = Annotated[
    int, typer.Option("--max-tool-rounds", min=1, max=50, help="Tool rounds per turn.")
]


@dataclass(frozen=True)
class AgentOptions:
    cluster: str | None
    region: str | None
    node: str | None
    recorded: list[Path]
    provider: ProviderChoice
    model: str | None
    script: Path | None
    profile: str | None
    kubeconfig: Path | None
    context: str | None
    no_probes: bool
    max_tool_rounds: int
    stream: bool


def build_agent(options: AgentOptions, transcript: Transcript) -> Agent:
    from agent.loop import Agent
    from agent.providers.base import ProviderUnavailable
    from agent.providers.factory import make_provider
    from agent.state import ConversationState
    from agent.toolset import Toolset
    from agent.toolset.cluster import ClusterSession
    from tools.triage.node_sources import NodeOptions

    recordings = [load_recording_or_exit(path) for path in options.recorded]
    cluster, region = options.cluster, options.region
    if recordings:
        first = recordings[0]
        for path, other in zip(options.recorded[1:], recordings[1:], strict=True):
            if (other.cluster, other.region) != (first.cluster, first.region):
                die(
                    f"{shown(path)} records {shown(other.cluster)} ({shown(other.region)}), "
                    f"not {shown(first.cluster)} ({shown(first.region)}): a sequence of "
                    "recordings must be one cluster",
                    EXIT_USAGE,
                )
        if region and region != first.region:
            die(
                f"the recording is from {shown(first.region)}; --region {shown(region)} differs",
                EXIT_USAGE,
            )
        cluster, region = cluster or first.cluster, first.region
    target = None
    if cluster:
        target = build_target(cluster, resolve_region(region, cluster), options.node)
    elif options.node:
        die("--node needs --cluster (or --recorded)", EXIT_USAGE)
    try:
        provider = make_provider(
            options.provider.value,
            model=options.model,
            region=target.region if target else region,
            profile=options.profile,
            script=options.script,
        )
    except ProviderUnavailable as exc:
        die(str(exc), EXIT_FAILED)
    session = ClusterSession(
        target=target,
        recordings=recordings,
        options=NodeOptions(
            kubeconfig=options.kubeconfig, context=options.context, probes=not options.no_probes
        ),
        profile=options.profile,
    )
    state = ConversationState(
        cluster=target.cluster if target else None,
        region=target.region if target else region,
        focus_node=target.node if target else None,
    )
    transcript.meta.update(
        {
            "provider": provider.name,
            "model": provider.model,
            "cluster": state.cluster,
            "region": state.region,
            "recorded": [str(p) for p in options.recorded],
        }
    )
    return Agent(
        provider,
        Toolset(session, state),
        max_tool_rounds=options.max_tool_rounds,
        stream=options.stream,
        on_event=transcript.add,
    )
