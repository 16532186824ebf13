"""Shared plumbing of the GPU, Neuron, EFA and version checks.

Which probed nodes a check judges (only those whose instance type has the hardware), how a
probe's output is read, and the INFO a check gives when it could not read that output: a
probe that did not run, was cut off or printed something unrecognisable is not evidence of
a fault, so it is never a FAIL. A probe that did not finish (its timeout killed it, or the
session ended first) is read as nothing at all: half a GPU list is not a lost GPU, and
half a row-remap report is not a clean one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from tools.findings import Finding, Findings, info
from tools.parsers.nvidia_smi import GpuQuery, GpuRow, parse_gpu_query
from tools.probes.instance_facts import InstanceFacts
from tools.probes.model import NodeProbes
from tools.text import clip
from tools.triage.data import ClusterData

_EXCERPT = 300
Parsed = TypeVar("Parsed")


@dataclass(frozen=True)
class ProbeText:
    """One probe's output on one node, or why there is none.

    `text` is None when there is nothing to judge: the probe did not run, or it did not
    finish (`truncated`: the session ended first; `timed_out`: its timeout killed it).
    What an unfinished probe printed is kept in `partial`, as evidence only."""

    name: str
    text: str | None
    exit_code: int | None = None
    truncated: bool = False
    timed_out: bool = False
    partial: str = ""

    @property
    def complete(self) -> bool:
        return self.text is not None

    @property
    def why(self) -> str:
        if self.timed_out:
            return (
                f"the probe timed out (exit {self.exit_code}) before it finished; "
                "a cut-off answer is not judged"
            )
        if self.truncated:
            return "the session ended before the probe finished"
        if self.text is None:
            return "the probe did not run"
        first = first_line(self.text)
        if not first:
            return "the probe printed nothing"
        status = f"exit {self.exit_code}, " if self.exit_code not in (0, None) else ""
        return f"{status}output: {first}"


def first_line(text: str) -> str:
    """The first non-blank line, clipped and redacted: it is the node's text."""
    return clip(next((line for line in text.splitlines() if line.strip()), ""), _EXCERPT)


def gpu_label(row: GpuRow) -> str:
    """ "GPU 3 (0000:53:00.0)"; a bus id cell that is not a bus id is shown clipped."""
    return clip(row.label, 60)


def read(node: NodeProbes, name: str) -> ProbeText:
    """The probe's output when it finished; otherwise no text, and why."""
    output = node.output(name)
    if output is None:
        return ProbeText(name, None)
    if not output.finished:
        return ProbeText(
            name,
            None,
            output.exit_code,
            truncated=output.truncated or output.exit_code is None,
            timed_out=output.timed_out,
            partial=output.stdout,
        )
    return ProbeText(name, output.stdout, output.exit_code)


def label(node: NodeProbes) -> str:
    return f"{node.instance_id} ({node.instance_type})" if node.instance_type else node.instance_id


def could_not_read(
    check: str, section: str, node: NodeProbes, what: str, probe: ProbeText
) -> Finding:
    return info(
        check,
        section,
        f"Could not read {what} on {label(node)}: {probe.why}",
        resources=[node.instance_id],
        probe=probe.name,
        exit_code=probe.exit_code,
        truncated=probe.truncated,
        **({"timed_out": True} if probe.timed_out else {}),
        output=clip(probe.text if probe.text is not None else probe.partial, _EXCERPT),
    )


def judged_nodes(
    data: ClusterData, expected: Callable[[InstanceFacts], int]
) -> list[tuple[NodeProbes, int]]:
    """Reachable probed nodes whose type should have the hardware, with the expected count.

    A node without a reported instance type is left out: nothing says what it should have.
    """
    judged: list[tuple[NodeProbes, int]] = []
    for node in data.reachable_nodes():
        if not node.instance_type:
            continue
        count = expected(data.instance_facts(node.instance_type))
        if count > 0:
            judged.append((node, count))
    return judged


def none_probed(check: str, section: str, what: str) -> Finding:
    return info(check, section, f"No probed node has {what}: nothing to judge")


def each_gpu_node(
    data: ClusterData,
    bound: Findings,
    *,
    probe: str,
    what: str,
    parse: Callable[[str], Parsed | None],
    judge: Callable[[NodeProbes, int, Parsed], Finding | Iterable[Finding]],
) -> list[Finding]:
    """The loop every NVIDIA check shares: each reachable GPU node's `probe` parsed, and
    judged when it finished and `parse` recognised it (it returns None otherwise), else an
    INFO saying
    `what` could not be read; one INFO when no probed node has GPUs (the INFOs are the
    `bound` check's, in its section)."""
    check, section = bound.check, bound.section
    nodes = judged_nodes(data, lambda facts: facts.gpus)
    if not nodes:
        return [none_probed(check, section, "NVIDIA GPUs")]
    findings: list[Finding] = []
    for node, expected in nodes:
        text = read(node, probe)
        # A probe cut off mid-output is not evidence: half a GPU list is not a lost GPU.
        parsed = parse(text.text) if text.text is not None else None
        if parsed is None:
            findings.append(could_not_read(check, section, node, what, text))
            continue
        judged = judge(node, expected, parsed)
        findings.extend([judged] if isinstance(judged, Finding) else judged)
    return findings


def recognised_query(text: str) -> GpuQuery | None:
    """`nvidia-smi --query-gpu` rows, or None when the output is not such rows."""
    query = parse_gpu_query(text)
    return query if query.recognised else None
