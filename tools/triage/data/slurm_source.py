"""Whose Slurm answered: this machine's, when it belongs to the cluster being triaged.

A login node of cluster A run with `--cluster B` has a working sinfo, but it lists A's
nodes: judged as B's, they would be wrong findings and would steer which of B's nodes get
probed. So the local answer is used only when it names this cluster's instances:
1. the instance ids in this machine's `/opt/ml/config/resource_config.json` overlap the
   instance ids ListClusterNodes returned; or, when that file cannot be read,
2. the node names sinfo lists here overlap the host names ListClusterNodes gave
   (`PrivateDnsHostname`, shortened as Slurm names its nodes).
Otherwise the controller is asked over SSM, and the reason travels with the findings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tools.parsers.slurm_config import parse_resource_config
from tools.parsers.slurm_names import short_hostname
from tools.parsers.slurm_sinfo import parse_sinfo_nodes
from tools.parsers.slurm_text import tool_missing
from tools.probes.model import NodeProbes, ProbeOutput
from tools.triage.data.sagemaker_model import ClusterNode

LOCAL = "local"
_EXAMPLES = 3


@dataclass(frozen=True)
class LocalVerdict:
    """Whether this machine's Slurm is the triaged cluster's, and the evidence for it."""

    belongs: bool
    reason: str


@dataclass(frozen=True)
class SlurmSource:
    """Where the Slurm controller probes of this run ran, and why there."""

    host: str  # LOCAL, or the controller's instance id
    reason: str  # why this source answered
    local_rejected: str = ""  # why this machine's Slurm was not used ("" if not tried)

    @property
    def local(self) -> bool:
        return self.host == LOCAL

    def describe(self) -> str:
        if self.local:
            return f"this machine ({self.reason})"
        text = f"the controller {self.host} over SSM"
        if self.local_rejected:
            text += f", not this machine's Slurm ({self.local_rejected})"
        return text

    def evidence(self) -> dict[str, str]:
        found = {"slurm_source": "this machine" if self.local else f"controller {self.host}"}
        found["slurm_source_reason"] = self.reason
        if self.local_rejected:
            found["local_slurm_rejected"] = self.local_rejected
        return found


def _usable(output: ProbeOutput | None) -> str:
    """Why an output cannot be trusted ("" when it can)."""
    if output is None:
        return "did not run"
    if tool_missing(output.stdout):
        return "not installed here"
    if output.truncated or output.timed_out:
        return "did not finish"
    if output.exit_code != 0:
        return "no exit code" if output.exit_code is None else f"exit code {output.exit_code}"
    return ""


def _examples(values: Iterable[str]) -> str:
    ordered = sorted(values)
    shown = ", ".join(ordered[:_EXAMPLES])
    return shown + ("…" if len(ordered) > _EXAMPLES else "")


def _from_resource_config(
    output: ProbeOutput | None, instance_ids: set[str], cluster: str
) -> tuple[LocalVerdict | None, str]:
    """A verdict from resource_config.json, or None and why the file could not be used."""
    problem = _usable(output)
    if problem or output is None:
        return None, f"resource_config.json could not be read ({problem})"
    config = parse_resource_config(output.stdout)
    if config.error:
        return None, f"resource_config.json could not be read ({config.error})"
    listed = {i.instance_id for i in config.instances if i.instance_id}
    if not listed:
        return None, "resource_config.json names no instance ids"
    shared = listed & instance_ids
    if shared:
        return LocalVerdict(
            True,
            f"its resource_config.json lists {len(shared)} of cluster {cluster}'s instances "
            f"({_examples(shared)})",
        ), ""
    return LocalVerdict(
        False,
        f"its resource_config.json lists {len(listed)} instance(s) ({_examples(listed)}), "
        f"none of them in cluster {cluster}: this machine belongs to another cluster",
    ), ""


def _from_sinfo(
    output: ProbeOutput | None, host_names: set[str], cluster: str, why_not_config: str
) -> LocalVerdict:
    problem = _usable(output)
    if problem or output is None:
        return LocalVerdict(
            False,
            f"{why_not_config} and sinfo gave nothing to compare ({problem}): nothing ties "
            f"this machine to cluster {cluster}",
        )
    names = {n.name.lower() for n in parse_sinfo_nodes(output.stdout).nodes}
    shared = names & host_names
    if shared:
        return LocalVerdict(
            True,
            f"sinfo here lists {len(shared)} of cluster {cluster}'s nodes by host name "
            f"({_examples(shared)}); {why_not_config}",
        )
    if not names:
        return LocalVerdict(
            False, f"{why_not_config} and sinfo here lists no nodes to compare with {cluster}"
        )
    return LocalVerdict(
        False,
        f"{why_not_config}, and none of the {len(names)} node(s) sinfo lists here "
        f"({_examples(names)}) is a host of cluster {cluster}",
    )


def local_slurm_verdict(
    probes: NodeProbes, hyperpod_nodes: list[ClusterNode], cluster: str
) -> LocalVerdict:
    """Whether the Slurm probes run on this machine describe `cluster`, whose
    ListClusterNodes summaries are `hyperpod_nodes` (see the module docstring)."""
    instance_ids = {n.instance_id for n in hyperpod_nodes if n.instance_id}
    host_names = {
        short_hostname(n.private_dns_hostname) for n in hyperpod_nodes if n.private_dns_hostname
    }
    verdict, why_not_config = _from_resource_config(
        probes.output("slurm_resource_config"), instance_ids, cluster
    )
    if verdict is not None:
        return verdict
    return _from_sinfo(probes.output("slurm_nodes"), host_names, cluster, why_not_config)
