"""`/cluster NAME REGION`: point the chat at a cluster, and the check at the chat's start.

Both go through the toolset the model uses (its `use_cluster` tool, `Toolset.open_target`),
so the person and the model open a cluster the same way: the credentials preflight
(sts:GetCallerIdentity through the guarded read-only session), then DescribeCluster. A wrong
name, region or credentials is said in one line before a model turn is paid for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.chat.failures import failure_line
from agent.chat.slash import SlashCommand
from tools.display import argument as shown_argument

if TYPE_CHECKING:
    from agent.chat.session import ChatSession

USAGE = "usage: /cluster NAME REGION (or /cluster ARN)"
_ORCHESTRATORS = {"eks": "EKS", "slurm": "Slurm"}


def _region_of(session: ChatSession, cluster: str, region: str | None) -> str | None:
    """The region typed, else the one in the cluster's ARN, else the chat's --region."""
    from tools.target import CLUSTER_ARN

    if region:
        return region
    match = CLUSTER_ARN.match(cluster)
    if match:
        return match.group("region")
    return session.agent.state.region


def _cluster(session: ChatSession, argument: str) -> bool:
    words = argument.split()
    region = _region_of(session, words[0], words[1] if len(words) > 1 else None) if words else None
    if not words or len(words) > 2 or region is None:
        session.printer.note(USAGE)
        return True
    result = session.agent.toolset.call("use_cluster", {"cluster": words[0], "region": region})
    if result.failure is not None:
        session.printer.note(failure_line(session, result.failure))
        return True
    from agent.toolset.outputs import UseClusterOutput  # loaded by the call above

    opened = result.output_as(UseClusterOutput)
    session.transcript.meta.update({"cluster": opened.opened, "region": opened.region})
    session.printer.note(opened_line(opened.opened, opened.region, opened.orchestrator))
    return True


def opened_line(cluster: str, region: str, orchestrator: str | None) -> str:
    kind = _ORCHESTRATORS.get(orchestrator or "", "")
    where = f"{region}, {kind}" if kind else region
    return f"Cluster {shown_argument(cluster, 200)} ({where}) is open; /triage checks it."


def check_at_start(session: ChatSession) -> None:
    """A live cluster named on the command line is opened before the first message, so that
    unusable credentials or a wrong name are said before a model turn is spent. Silent when
    it opens, and for a replay."""
    problem = session.agent.toolset.open_target()
    if problem is not None:
        session.printer.note(failure_line(session, problem))


COMMAND = SlashCommand(
    "/cluster",
    "/cluster NAME REGION",
    "open a live cluster (checks credentials and that it exists)",
    _cluster,
)
