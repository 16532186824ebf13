"""Folding the same non-problem line repeated node by node into one finding.

The on-node checks judge each probed node on its own, so when the probes fail the same way
on many nodes (16 failing nodes whose sessions never opened, times some 25 outputs read)
the report would carry one "Could not read <what> on i-0abc (...): <why>" line per node and
output: hundreds of lines and a JSON report far over its budget, all saying one thing. The
same holds for healthy or informational lines that differ only in the node they name ("i-0abc
(ml.p5.48xlarge): DCGM health Healthy").

`group_repeated` folds such findings into one per check, status, section and message (with
the node's id taken out): the message names how many nodes and the first few ids, the
resources keep every id (bounded, with a total, by `Finding` itself) and the evidence keeps
what all of them share plus the first node's own values as an example.

Only INFO and PASS lines are folded. A FAIL or WARN is a problem to act on, node by node:
each stays its own line, counted in the summary by priority, with its own evidence (and the
number of probed nodes, hence of such lines, is already bounded by --max-probe-nodes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tools.findings import Finding, Status

# From three nodes on. One or two lines say it as briefly as a folded line would, and
# name each node where the reader looks for it; a focused triage (--node) or the usual
# failing node plus one accelerator node keep exactly the lines they always had, which the
# bundled scenarios match. From three on, each further node would only repeat the line.
GROUP_FROM = 3
# Ids named in a folded message; the rest are counted ("and 13 more") and kept in resources.
IDS_SHOWN = 3

_FOLDED = frozenset({Status.INFO, Status.PASS})
# An EC2 / HyperPod instance id, the only resource a line is folded over.
_INSTANCE = re.compile(r"i-[0-9A-Za-z]+")
# Where a node is named: its id on its own (not inside "hyperpod-i-0abc"), and the
# "(group, type)" label the checks put right after it, when there is one.
_MENTION = r"(?<![\w-]){id}(?![\w-])(?: \((?P<label>[^()]+)\))?"
_PLACE = "\x00"  # stands for the node's id in a message's shape


@dataclass
class _Group:
    """Findings of one shape; `nodes` keeps each node's first finding, in report order."""

    first: Finding
    label: str | None
    span: tuple[int, int]  # where the first finding's message names its node (and label)
    nodes: dict[str, Finding] = field(default_factory=dict)
    members: list[Finding] = field(default_factory=list)


def group_repeated(findings: Iterable[Finding]) -> list[Finding]:
    """The findings with every INFO or PASS line repeated on `GROUP_FROM` or more nodes
    folded into one, placed where its first line was; everything else as it was, in order.

    Lines fold when they come from the same check with the same status and section, name
    one instance (as their only resource, once in the message), and read the same once that
    node's id is taken out: the same output that could not be read for the same reason,
    the same verdict. A different reason, label or wording keeps them apart."""
    ordered = list(findings)
    groups: dict[tuple[str, Status, str, str], _Group] = {}
    shape_of: list[tuple[str, Status, str, str] | None] = []
    for finding in ordered:
        shaped = _shape(finding)
        if shaped is None:
            shape_of.append(None)
            continue
        template, label, span = shaped
        key = (finding.check, finding.status, finding.section, template)
        group = groups.setdefault(key, _Group(first=finding, label=label, span=span))
        group.nodes.setdefault(finding.resources[0], finding)
        group.members.append(finding)
        shape_of.append(key)

    result: list[Finding] = []
    placed: set[tuple[str, Status, str, str]] = set()
    for finding, shape in zip(ordered, shape_of, strict=True):
        if shape is None or len(groups[shape].nodes) < GROUP_FROM:
            result.append(finding)
        elif shape not in placed:
            placed.add(shape)
            result.append(_folded(groups[shape]))
    return result


def _shape(finding: Finding) -> tuple[str, str | None, tuple[int, int]] | None:
    """The message with its node's id taken out, the node's label and where the message
    names the node (with its label); None when the finding is not a one-node INFO or PASS
    line that names its node once."""
    if finding.status not in _FOLDED or len(finding.resources) != 1:
        return None
    instance = finding.resources[0]
    if not _INSTANCE.fullmatch(instance):
        return None
    mentions = list(re.finditer(_MENTION.format(id=re.escape(instance)), finding.message))
    if len(mentions) != 1:
        return None
    mention = mentions[0]
    # The label stays in the shape: nodes of another group or type read differently, and
    # folding them together would drop the label the reader sees today.
    label = mention.group("label")
    message = finding.message
    template = message[: mention.start()] + _PLACE + message[mention.start() + len(instance) :]
    return template, label, mention.span()


def _folded(group: _Group) -> Finding:
    """One finding for the group: "on i-0abc (gpu-workers, ml.p5...)" becomes "on 16 nodes
    (gpu-workers, ml.p5...; i-0abc, i-0abd, i-0abe and 13 more)"."""
    first = group.first
    ids = list(group.nodes)
    shown = ", ".join(ids[:IDS_SHOWN])
    if len(ids) > IDS_SHOWN:
        shown += f" and {len(ids) - IDS_SHOWN} more"
    where = f"{len(ids)} nodes ({shown})"
    if group.label is not None:
        where = f"{len(ids)} nodes ({group.label}; {shown})"
    start, end = group.span
    message = first.message[:start] + where + first.message[end:]
    return Finding(
        check=first.check,
        status=first.status,
        priority=first.priority,
        section=first.section,
        message=message,
        resources=ids,
        evidence=_merged_evidence(group),
    )


def _merged_evidence(group: _Group) -> dict[str, Any]:
    """What every folded line's evidence shares, the node count, and the first node's
    own values (its exit code, its output) as an example of the rest."""
    members = group.members
    first = group.first.evidence
    keys: list[str] = []
    for member in members:
        keys.extend(k for k in member.evidence if k not in keys)
    shared = {
        k: first[k]
        for k in keys
        if k in first and all(k in m.evidence and m.evidence[k] == first[k] for m in members)
    }
    evidence: dict[str, Any] = {**shared, "node_count": len(group.nodes)}
    own = {k: first[k] for k in keys if k not in shared and k in first}
    if own:
        evidence["example"] = {"instance": group.first.resources[0], **own}
    return evidence
