"""Pin a suggestion to what it rests on: the findings, when they were read, and what `verify`
can re-read before the command is run.

A suggestion is judged once (agent.safety.suggest.build_suggestion, a pure function of the
command). Which findings it rests on depends on the conversation, so it is added here, from
the workflow state: the latest triage's FAIL and WARN findings that name one of the
suggestion's targets (a node, a security group...), else those of its reference section.

The preconditions are derived from those findings and from the suggestion's kind, never
written per case:

- every finding kept gives ``finding``: the check still reports that status on that
  resource (re-read by running that one check);
- a node action (node, reboot, replace) on a node whose ListClusterNodes status the triage
  read gives ``node-status``: the node is still listed with that status (a replaced node
  is no longer listed; a recovered one is Running again);
- a reboot or replacement on a Slurm cluster gives ``not-slurm-controller`` for each node
  it names that was not the controller when suggested (a replacement there is not
  supported; a reboot stops the scheduler).

A reboot since the evidence was read is not among them: HyperPod's node listing carries no
boot time, and /proc/uptime needs an SSM session on the node; a node rebooted by the health
agent usually shows through its status and its findings, which are re-read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from agent.safety.model import Evidence, Precondition, Suggestion

if TYPE_CHECKING:
    from agent.state import ConversationState
    from tools.findings import Finding

MAX_EVIDENCE = 8
"""Findings kept per suggestion: enough to show what it rests on, small in a transcript."""
MAX_PRECONDITIONS = 12
NODE_KINDS = frozenset({"node", "reboot", "replace"})
PROBLEM = ("FAIL", "WARN")


def node_id(name: str) -> str | None:
    """The instance id a target names (i-…, or Kubernetes' hyperpod-i-…); None otherwise."""
    bare = name.removeprefix("hyperpod-")
    return bare if bare.startswith("i-") else None


def aliases(name: str) -> set[str]:
    """A target and the other spelling of the same node, as findings may name it."""
    found = {name}
    bare = node_id(name)
    if bare is not None:
        found |= {bare, f"hyperpod-{bare}"}
    return found


def _same_section(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def chosen_findings(suggestion: Suggestion, findings: Sequence[Finding]) -> list[Finding]:
    """The FAIL and WARN findings the suggestion rests on: those naming one of its targets;
    when none does, those of its reference section."""
    problems = [f for f in findings if f.status.value in PROBLEM]
    named = set().union(*(aliases(t) for t in suggestion.targets)) if suggestion.targets else set()
    by_target = [f for f in problems if named & set(f.resources)]
    if by_target:
        return by_target[:MAX_EVIDENCE]
    if suggestion.section is None:
        return []
    section = suggestion.section
    return [f for f in problems if _same_section(f.section, section)][:MAX_EVIDENCE]


def evidence_of(
    findings: Iterable[Finding], read_at: datetime | None, triage: int
) -> list[Evidence]:
    return [
        Evidence(
            check=f.check,
            status=f.status.value,
            section=f.section,
            message=f.message,
            resources=list(f.resources),
            observed=dict(f.evidence),
            read_at=read_at,
            triage=triage,
        )
        for f in findings
    ]


def preconditions_of(
    suggestion: Suggestion,
    evidence: Sequence[Evidence],
    *,
    node_statuses: dict[str, str],
    slurm: bool,
    controllers: set[str],
    read_at: datetime | None,
) -> list[Precondition]:
    named = set().union(*(aliases(t) for t in suggestion.targets)) if suggestion.targets else set()
    found: list[Precondition] = []
    for item in evidence:
        # The resources the suggestion acts on, when the finding names them; else every one
        # the finding names (a section match), or the check as a whole (no resource).
        resources: list[str | None] = [r for r in item.resources if r in named]
        for resource in resources or item.resources[:3] or [None]:
            found.append(
                Precondition(
                    kind="finding",
                    resource=resource,
                    check=item.check,
                    expected=item.status,
                    since=item.read_at,
                )
            )
    if suggestion.kind in NODE_KINDS:
        nodes = list(dict.fromkeys(n for t in suggestion.targets if (n := node_id(t))))
        for node in nodes:
            status = node_statuses.get(node)
            if status is not None:
                found.append(
                    Precondition(kind="node-status", resource=node, expected=status, since=read_at)
                )
        if slurm and suggestion.kind in ("reboot", "replace"):
            for node in nodes:
                if not aliases(node) & controllers:
                    found.append(
                        Precondition(kind="not-slurm-controller", resource=node, since=read_at)
                    )
    unique = list({p.model_dump_json(): p for p in found}.values())
    return unique[:MAX_PRECONDITIONS]


def pin(suggestion: Suggestion, state: ConversationState) -> Suggestion:
    """The suggestion with the findings it rests on and its preconditions, from the latest
    triage of this conversation. A read-only suggestion, or one made before any triage,
    is returned as it is: there is nothing to re-check before running it."""
    report = state.latest
    if not suggestion.mutating or report is None:
        return suggestion
    read_at = state.latest_time
    evidence = evidence_of(
        chosen_findings(suggestion, report.findings), read_at, state.triage_count
    )
    preconditions = preconditions_of(
        suggestion,
        evidence,
        node_statuses=state.node_statuses,
        slurm=(state.orchestrator or report.cluster.orchestrator) == "slurm",
        controllers=state.slurm_controllers,
        read_at=read_at,
    )
    return suggestion.model_copy(update={"evidence": evidence, "preconditions": preconditions})
