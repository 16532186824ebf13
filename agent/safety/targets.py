"""What a command names: its targets (`targets_of`), instance ids and the nodes it names.

Targets are resource ids (instances, node names, security groups, subnets...), cluster
names after ``--cluster-name`` / ``--name``, the instance of an SSM ``--target``, and any
token that is an id seen in the cluster."""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent.safety.vocabulary import ID_PATTERN

_TARGET = re.compile(
    ID_PATTERN.pattern
    + r"|(?<![\w-])--(?:cluster-name|name)(?:=|[ \t]+)['\"]?(?P<cluster>[^\s'\"`]+)"
    # An SSM target names its node as sagemaker-cluster:<id>_<group>-<instance id>.
    + r"|(?<![\w-])--target(?:=|[ \t]+)[^\s-]*-(?:[^\s-]*-)*?(?P<ssm>i-[0-9a-f]{4,17})(?![\w-])"
)
_INSTANCE = re.compile(r"(?<![0-9A-Za-z])i-[0-9a-f]{4,17}(?![0-9A-Za-z])")
_TOKEN = re.compile(r"[^\s=,'\"\[\]{}()`]+")
_NETWORK_PREFIXES = ("sg-", "subnet-", "vpc-", "rtb-", "eni-", "vpce-", "igw-", "nat-", "acl-")


def targets_of(command: str, known_ids: Iterable[str] = ()) -> list[str]:
    """The ids a command names, in order, each once: resource ids, node names, cluster
    names after --cluster-name / --name, and any token that is one of ``known_ids``."""
    found: list[tuple[int, str]] = []
    for match in _TARGET.finditer(command):
        named = match.group("cluster") or match.group("ssm") or match.group()
        found.append((match.start(), named))
    known = frozenset(known_ids)
    if known:
        found.extend((m.start(), m.group()) for m in _TOKEN.finditer(command) if m.group() in known)
    return list(dict.fromkeys(value for _, value in sorted(found)))


def instance_ids(command: str) -> list[str]:
    """Instance ids anywhere in the command, also inside hyperpod-i-… and SSM targets."""
    return list(dict.fromkeys(_INSTANCE.findall(command)))


def _named_nodes(command: str, known_ids: frozenset[str]) -> list[frozenset[str]]:
    """The nodes a command names, each as the names it may go by: an instance id with its
    hyperpod-i-… node name, a Slurm ip-… name, or a known node name seen in the cluster."""
    nodes: dict[str, frozenset[str]] = {}
    for instance in instance_ids(command):
        nodes[instance] = frozenset({instance, f"hyperpod-{instance}"})
    for match in ID_PATTERN.finditer(command):
        if match.group().startswith("ip-"):
            nodes.setdefault(match.group(), frozenset({match.group()}))
    if known_ids:
        for match in _TOKEN.finditer(command):
            name = match.group()
            covered = any(name in aliases for aliases in nodes.values())
            if name in known_ids and not covered and not name.startswith(_NETWORK_PREFIXES):
                nodes[name] = frozenset({name})
    return list(nodes.values())
