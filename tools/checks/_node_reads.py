"""What the on-node checks share: reading one probe's output and saying why it is unusable.

A probe that did not run, did not finish or whose command is missing is not a fault of the
node: checks report it as INFO ("could not read ...") and judge nothing from it; a probe
its timeout killed reads as no output at all, so no check can mistake its first lines for
the whole answer. Output
that arrived is still judged when it parses (df exits 1 when one of its paths is missing,
yet its other rows are good); `problem` is for the check to use when nothing parsed, or to
say that a judged output was cut short.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tools.findings import Finding, Findings, info, passed
from tools.parsers.kernel_log import KernelLog, parse_kernel_log
from tools.probes.model import NodeProbes
from tools.text import clip

_NOT_INSTALLED = re.compile(r"command not found|: not found\s*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class ProbeText:
    text: str  # stdout ("" when the probe did not run)
    problem: str | None  # why the output may be missing or incomplete; None when clean
    truncated: bool = False


def read_probe(node: NodeProbes, name: str) -> ProbeText:
    output = node.output(name)
    if output is None:
        return ProbeText("", "the probe did not run")
    if output.truncated:
        return ProbeText(output.stdout, "the session ended before the probe finished", True)
    if output.exit_code is None:
        return ProbeText(output.stdout, "the probe never finished", True)
    if output.timed_out:
        # Its timeout killed it: what it printed is a prefix of an answer, and a prefix read
        # as the whole (a clean kernel log, a full GPU list) is the one wrong reading. No
        # check judges any of it.
        problem = f"the probe timed out (exit {output.exit_code}) before it finished"
        return ProbeText("", problem, True)
    if output.exit_code == 127 or (output.exit_code != 0 and _NOT_INSTALLED.search(output.stdout)):
        return ProbeText(output.stdout, "the command is not installed on the node")
    if output.exit_code != 0:
        return ProbeText(output.stdout, f"the probe exited with code {output.exit_code}")
    return ProbeText(output.stdout, None)


def node_label(node: NodeProbes) -> str:
    """The instance id, with its group and type when known: "i-0abc (gpu-workers, ml.p5...)"."""
    parts = [p for p in (node.group, node.instance_type) if p]
    return f"{node.instance_id} ({', '.join(parts)})" if parts else node.instance_id


def unreadable(
    findings: Findings,
    what: str,
    node: NodeProbes,
    problem: str | None,
    probe: str,
    **evidence: Any,
) -> Finding:
    """INFO of the `findings` check: this node's `what` could not be read, so the check
    judged nothing from it."""
    # A problem may quote the node's own output (a refused dmesg, systemctl's complaint).
    reason = clip(problem, 200) if problem else "its output was not recognised"
    return findings.info(
        f"Could not read {what} on {node_label(node)}: {reason}",
        resources=[node.instance_id],
        probe=probe,
        problem=reason,
        **evidence,
    )


def partly_read(check_id: str, section_id: str, what: str, node: NodeProbes, probe: str) -> Finding:
    """INFO: the output was cut short; what arrived was judged, the rest is unknown."""
    return info(
        check_id,
        section_id,
        f"Could not read all of {what} on {node_label(node)}: the probe did not finish, "
        "only the output that arrived was judged",
        resources=[node.instance_id],
        probe=probe,
        problem="truncated",
    )


def healthy_summary(
    check_id: str, section_id: str, what: str, nodes: Sequence[str], **evidence: Any
) -> list[Finding]:
    """One PASS naming every node judged healthy (none when no node was)."""
    if not nodes:
        return []
    return [
        passed(
            check_id,
            section_id,
            f"{what} on {len(nodes)} node(s): {', '.join(nodes)}",
            resources=list(nodes),
            **evidence,
        )
    ]


def read_kernel_log(
    node: NodeProbes,
    probe: str,
    check_id: str,
    section_id: str,
    notes: list[Finding] | None,
) -> KernelLog | None:
    """A kernel log probe parsed, or None when it failed with nothing to show; the INFO
    saying so (or that it was cut short) goes to `notes` when given. An empty output of a
    probe that ran cleanly is a clean log: its grep found no signature."""
    what = "the kernel log" if probe == "kernel_log" else "the previous boot's kernel log"
    read = read_probe(node, probe)
    if read.problem is not None and not read.text.strip():
        if notes is not None:
            notes.append(
                unreadable(Findings(check_id, section_id), what, node, read.problem, probe)
            )
        return None
    if read.truncated and notes is not None:
        notes.append(partly_read(check_id, section_id, what, node, probe))
    log = parse_kernel_log(read.text)
    if log.refused is not None:
        if notes is not None:
            notes.append(unreadable(Findings(check_id, section_id), what, node, log.refused, probe))
        return None
    return log
