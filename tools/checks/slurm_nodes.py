"""§ H, § H.1: whether slurmctld answers, and Slurm nodes out of service with their reasons.

A node Slurm reports DOWN, FAIL(ING) or not responding takes no work: P0. DRAINED or
DRAINING takes no new work and INVAL registered fewer resources than configured: P1. The
reason is quoted because it decides where to look; "Node unexpectedly rebooted" is called
out, since Slurm keeps such a node DOWN until someone resumes it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from tools.checks._slurm import (
    GROUP_ABOVE,
    SAMPLES,
    could_not_read,
    instances_of,
    node_label,
    source_note,
    where,
    with_source,
)
from tools.findings import Finding, Findings, Priority
from tools.parsers.slurm_config import Controller, PingResult
from tools.parsers.slurm_sinfo import (
    DOWN,
    DRAIN,
    FAIL,
    INVALID,
    NOT_RESPONDING,
    SinfoNodes,
    SlurmNode,
)
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData
from tools.triage.data.slurm_reads import SlurmNodeRow, SlurmRead

CHECK_ID = "slurm-nodes"
FINDINGS = Findings(CHECK_ID, "H.1")
TOP_REASONS = 3
P0_PROBLEMS = frozenset({DOWN, FAIL, NOT_RESPONDING})
REBOOTED = re.compile(r"unexpectedly rebooted", re.IGNORECASE)

_WORDING = {
    DOWN: "DOWN",
    FAIL: "FAIL (failed by HyperPod or an administrator)",
    NOT_RESPONDING: "not responding to the controller",
    INVALID: "INVAL (slurmd registered fewer resources than configured)",
    DRAIN: "drained (takes no new jobs)",
}
_REBOOT_NOTE = (
    "; Slurm keeps a node that restarted underneath it DOWN: the restart is usually "
    "HyperPod's health monitoring agent or auto-repair rebooting it, or a crash (§ N), "
    "and the node has to be resumed in Slurm once the cause is fixed (§ H)"
)


def _priority(problems: Iterable[str]) -> Priority:
    return Priority.P0 if P0_PROBLEMS.intersection(problems) else Priority.P1


# -- the controller ---------------------------------------------------------------------


def _controller(controller: Controller) -> str:
    # Role and host are scontrol's text: clipped like any other output of the controller.
    return f"{clip(controller.role, 40)} at {clip(controller.host, 80)}"


def judge_controller(read: SlurmRead[PingResult], host: str) -> list[Finding]:
    """slurmctld answering `scontrol ping`; a failed ping is itself the signal."""
    if read.missing or read.tool_missing:
        return [could_not_read(CHECK_ID, "H", read, host, "the controller state (scontrol ping)")]
    ping = read.value or PingResult(())
    evidence: dict[str, Any] = {
        "controllers": [
            {"role": clip(c.role, 60), "host": clip(c.host, 120), "up": c.up}
            for c in ping.controllers
        ],
        # Slurm's error lines are the controller's text: clipped and redacted.
        "errors": [clip(line) for line in ping.errors],
        "problem": clip(read.problem) if read.problem else read.problem,
    }
    primary = ping.primary
    if not ping.answering:
        detail = (
            f"{_controller(primary)} is DOWN"
            if primary is not None
            else clip(ping.errors[0] if ping.errors else read.problem or "no answer", 160)
        )
        return [
            FINDINGS.at("H").fail(
                Priority.P0,
                f"slurmctld does not answer scontrol ping on {where(host)} ({detail}): no "
                "job can be scheduled and every node looks unresponsive",
                **evidence,
            )
        ]
    down = [c for c in ping.controllers if not c.up]
    findings: list[Finding] = []
    if down:
        names = ", ".join(_controller(c) for c in down)
        findings.append(
            FINDINGS.at("H").warn(
                Priority.P2,
                f"A slurmctld answers scontrol ping but {names} is DOWN: no failover is left",
                **evidence,
            )
        )
    else:
        up = ", ".join(_controller(c) for c in ping.controllers)
        findings.append(
            FINDINGS.at("H").passed(f"slurmctld answers scontrol ping ({up})", **evidence)
        )
    return findings


# -- the nodes --------------------------------------------------------------------------


def _state_text(node: SlurmNode) -> str:
    return " and ".join(_WORDING[p] for p in node.problems) + f" (state {clip(node.state.raw, 40)})"


def _one_node(node: SlurmNode, rows: Mapping[str, SlurmNodeRow]) -> Finding:
    text = f"Slurm node {node_label(node.name, rows)} is {_state_text(node)}"
    if node.reason:
        text += f", reason {quoted(node.reason, 160)}"
        if node.reason_time:
            text += f" since {clip(node.reason_time, 40)}"
    if REBOOTED.search(node.reason):
        text += _REBOOT_NOTE
    row = rows.get(node.name)
    instance = row.instance_id if row else ""
    evidence = {
        "node": node.name,
        "state": clip(node.state.raw, 60),
        "problems": list(node.problems),
        "reason": clip(node.reason),
        "reason_time": clip(node.reason_time, 60),
        "instance_id": instance or None,
        "group": row.group if row and row.group else None,
    }
    resources = [instance] if instance else []
    return FINDINGS.fail(_priority(node.problems), text, resources=resources, **evidence)


def _many_nodes(
    problem: str, members: list[SlurmNode], rows: Mapping[str, SlurmNodeRow]
) -> Finding:
    names = sorted(n.name for n in members)
    reasons = Counter(clip(n.reason, 120) for n in members if n.reason)
    common = reasons.most_common(TOP_REASONS)
    text = f"{len(members):,} Slurm nodes are {_WORDING[problem]}, e.g. {', '.join(names[:5])}"
    text += "…" if len(names) > 5 else ""
    if common:
        shown = "; ".join(f'"{reason}" ({count:,}x)' for reason, count in common)
        text += f"; most common reason{'s' if len(common) > 1 else ''}: {shown}"
    if any(REBOOTED.search(n.reason) for n in members):
        text += _REBOOT_NOTE
    problems = {p for n in members for p in n.problems}
    resources = instances_of(names, rows)[:SAMPLES]
    return FINDINGS.fail(
        _priority(problems),
        text,
        resources=resources,
        problem=problem,
        count=len(members),
        sample_nodes=names[:SAMPLES],
        common_reasons=[{"reason": r, "count": c} for r, c in common],
    )


def judge_slurm_nodes(
    sinfo: SinfoNodes,
    rows: Mapping[str, SlurmNodeRow],
    *,
    host: str = "local",
    group_above: int | None = GROUP_ABOVE,
) -> list[Finding]:
    """A count of nodes by state (INFO), then one FAIL per node out of service (grouped
    by its main problem above `group_above` nodes), or a PASS when every node is in use."""
    if not sinfo.nodes:
        detail = f": {clip(sinfo.errors[0], 160)}" if sinfo.errors else ""
        return [FINDINGS.info(f"sinfo on {where(host)} listed no nodes{detail}")]
    states = Counter(n.state.raw.lower() for n in sinfo.nodes)
    summary = ", ".join(f"{count} {state}" for state, count in sorted(states.items()))
    findings = [
        FINDINGS.info(
            f"Slurm lists {len(sinfo.nodes)} node{'s' if len(sinfo.nodes) != 1 else ''} "
            f"({summary})",
            counts=dict(sorted(states.items())),
        )
    ]
    buckets: dict[str, list[SlurmNode]] = defaultdict(list)
    for node in sinfo.problem_nodes():
        buckets[node.problems[0]].append(node)
    for problem in (p for p in (DOWN, FAIL, NOT_RESPONDING, INVALID, DRAIN) if p in buckets):
        members = buckets[problem]
        if group_above is not None and len(members) > group_above:
            findings.append(_many_nodes(problem, members, rows))
        else:
            findings.extend(_one_node(n, rows) for n in sorted(members, key=lambda n: n.name))
    if not buckets:
        findings.append(FINDINGS.passed(f"All {len(sinfo.nodes)} Slurm nodes are in service"))
    return findings


@check(FINDINGS, title="Slurm controller and node states", orchestrators=("slurm",), scope="node")
def slurm_nodes(data: ClusterData) -> Iterable[Finding]:
    """slurmctld answering scontrol ping, and every Slurm node that is DOWN, FAIL, not
    responding or drained, with its reason and instance id; and whose Slurm answered."""
    source = data.slurm_source()
    findings = source_note(CHECK_ID, "H", source) + _judge_cluster(data)
    return with_source(findings, source)


def _judge_cluster(data: ClusterData) -> list[Finding]:
    state = data.slurm_state()
    findings = judge_controller(state.ping, state.host)
    read = state.nodes
    if read.value is None or read.problem:
        findings.append(
            could_not_read(CHECK_ID, "H.1", read, state.host, "Slurm node states (sinfo)")
        )
        return findings
    node_map = data.slurm_node_map()
    rows = {r.slurm_name: r for r in node_map.rows if r.slurm_name}
    sinfo = read.value
    focus = data.target.node
    if focus is not None:
        name = node_map.name_of(focus)
        focused = [n for n in sinfo.nodes if n.name == name]
        if not focused:
            findings.append(
                FINDINGS.info(
                    f"Node {focus} is not among the Slurm nodes sinfo lists"
                    + (f" (its Slurm name would be {name})" if name else ""),
                    resources=[focus],
                )
            )
            return findings
        sinfo = SinfoNodes(tuple(focused))
    findings.extend(
        judge_slurm_nodes(sinfo, rows, host=state.host, group_above=None if focus else GROUP_ABOVE)
    )
    return findings
