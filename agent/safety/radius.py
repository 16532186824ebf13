"""The blast radius of a command: one sentence on what it affects (`_blast_radius`).

Its kind (see `agent.safety.kinds`) and its targets (see `agent.safety.targets`) say who is
hit and how: which nodes reboot or are replaced, which network objects or Kubernetes
objects change, which workloads are interrupted, where data is destroyed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.safety.model import SuggestionKind
from agent.safety.targets import _NETWORK_PREFIXES, _TARGET
from tools.command_safety import CommandClass
from tools.command_safety.parsed import parse_line

# A rank-2 verdict whose nodes are replaced only if they fail (StartClusterHealthCheck,
# tools/command_safety/aws.py): the loss is possible, not certain.
_MAY_REPLACE = re.compile(r"\bthose that fail are\b[^;]*\breplaced\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Named:
    """A command's targets sorted by what they are, for the blast-radius sentence."""

    nodes: list[str]
    networks: list[str]
    clusters: list[str]

    @classmethod
    def of(cls, targets: list[str], command: str) -> _Named:
        clusters = [m.group("cluster") for m in _TARGET.finditer(command) if m.group("cluster")]
        networks = [t for t in targets if t.startswith(_NETWORK_PREFIXES)]
        nodes = [t for t in targets if t not in networks and t not in clusters]
        return cls(nodes, networks, list(dict.fromkeys(clusters)))

    def who(self, fallback: str, *, everything: bool = False) -> str:
        """The nodes (or all targets), then "in cluster c"; ``fallback`` when none."""
        names = [*self.nodes, *self.networks] if everything else self.nodes
        where = f" in cluster {', '.join(self.clusters)}" if self.clusters else ""
        if not names:
            return f"cluster {', '.join(self.clusters)}" if self.clusters else fallback
        return ", ".join(names) + where


def _tools(command: str) -> set[str]:
    """The programs the line runs, named as the shell resolves them (one parse, shared with
    the classifier: ``'scontrol'`` or ``/usr/bin/kubectl`` count as scontrol and kubectl)."""
    parsed = parse_line(command)
    return {stage.tool for stage in parsed.stages} if parsed is not None else set()


def _reboot_how(command: str) -> str:
    if "batch-reboot-cluster-nodes" in command or "node-health-status" in command:
        return "HyperPod node reboot"
    if "reboot-instances" in command:
        return "graceful EC2 reboot"
    if "scontrol" in command or "scontrol" in _tools(command):
        return "Slurm-driven reboot"
    return "OS reboot"


def _config_radius(verdict: CommandClass, named: _Named, command: str) -> str:
    groups = [t for t in named.networks if t.startswith("sg-")]
    if groups:
        return f"changes security group {', '.join(groups)} rules for every node that uses it"
    if named.networks:
        return f"changes {', '.join(named.networks)} for every node and endpoint that uses it"
    if "kubectl" in command or "kubectl" in _tools(command):
        return f"changes Kubernetes objects on {named.who('the cluster')} ({verdict.reason})"
    return f"changes the configuration of {named.who('the cluster')} ({verdict.reason})"


def _blast_radius(
    kind: SuggestionKind, verdict: CommandClass, targets: list[str], command: str
) -> str:
    named = _Named.of(targets, command)
    its, it = ("its", "it") if len(named.nodes) <= 1 else ("their", "them")
    if kind == "investigate":
        return f"changes nothing ({verdict.reason})"
    if kind == "reboot":
        who = named.who("the node it runs on")
        return f"reboots {who} ({_reboot_how(command)}; running jobs on {it} stop)"
    if kind == "replace":
        reason = verdict.reason.lower()
        if "replace" in reason:
            who = named.who("the named nodes")
            return f"replaces {who}: {its} root and secondary volumes are destroyed"
        if "terminat" in reason or "deletes nodes" in reason:
            return f"removes {named.who('the named instances')}: {its} volumes are lost"
        who = named.who("the node it runs on", everything=True)
        return f"destroys data on {who} ({verdict.reason}); this cannot be undone"
    if kind == "config":
        return _config_radius(verdict, named, command)
    if kind == "workload":
        who = named.who("the cluster")
        if verdict.destructive_rank == 2:
            return f"interrupts workloads on {who} and destroys data ({verdict.reason})"
        return f"interrupts workloads on {who} ({verdict.reason})"
    prefix = "unclassified, treated as a change: " if verdict.kind == "unknown" else ""
    who = named.who("the node it runs on", everything=True)
    if verdict.destructive_rank == 2 and _MAY_REPLACE.search(verdict.reason):
        return f"may destroy data on {who}: {verdict.reason}; a replacement cannot be undone"
    if verdict.destructive_rank == 2:
        return f"destroys data on {who} ({verdict.reason}); this cannot be undone"
    return f"{prefix}changes state on {who} ({verdict.reason})"
