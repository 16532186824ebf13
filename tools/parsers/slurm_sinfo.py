"""Parser of the sinfo probe: Slurm node states and the reasons Slurm gives for them.

`sinfo --Node --noheader --format='%N|%T|%H|%E'` prints one line per node *and partition*
(a node in two partitions is listed twice); `%T` is the long state in lower case, e.g.
`idle`, `down*`, `drained`, `draining`, `fail`, `failing`, `mixed-`, `allocated+`, with
one suffix character for a state flag (`*` not responding, `~` powered off, `#` powering
up, `!` power down pending, `%` powering down, `$` maintenance reservation, `@` reboot
requested, `^` reboot issued, `-` planned by the backfill scheduler, `+` on `allocated`
for completing); `%H` is the time the reason was set (`Unknown` without one); `%E` the
reason (`none` without one). Format from the Slurm sources and man pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.parsers.slurm_text import STATE_WORD, keep_error, lines

# Suffix characters of the long and compact state forms, and the flag each one means.
STATE_SUFFIXES: dict[str, str] = {
    "*": "NOT_RESPONDING",
    "~": "POWERED_DOWN",
    "#": "POWERING_UP",
    "!": "POWER_DOWN",
    "%": "POWERING_DOWN",
    "$": "MAINTENANCE",
    "@": "REBOOT_REQUESTED",
    "^": "REBOOT_ISSUED",
    "-": "PLANNED",
    "+": "COMPLETING",
}
# Compact (`%t`) and alternative spellings, so either format reads the same.
_BASE_ALIASES: dict[str, str] = {
    "ALLOC": "ALLOCATED",
    "MIX": "MIXED",
    "COMP": "COMPLETING",
    "DRAIN": "DRAINED",
    "DRNG": "DRAINING",
    "FAILG": "FAILING",
    "UNK": "UNKNOWN",
    "FUTR": "FUTURE",
    "BOOT": "REBOOT",
    "NPC": "PERFCTRS",
    "RESV": "RESERVED",
    "PLND": "PLANNED",
    "POW_DN": "POWER_DOWN",
    "POW_UP": "POWER_UP",
    "NO_RESPOND": "NOT_RESPONDING",
}
# Words that appear after `+` in the complete state form (`idle+drain+not_responding`).
_FLAG_WORDS = frozenset(
    {
        "DRAIN",
        "FAIL",
        "NOT_RESPONDING",
        "COMPLETING",
        "MAINTENANCE",
        "REBOOT_REQUESTED",
        "REBOOT_ISSUED",
        "POWERED_DOWN",
        "POWERING_UP",
        "POWERING_DOWN",
        "POWER_DOWN",
        "PLANNED",
        "INVALID_REG",
        "RESERVED",
        "CLOUD",
        "DYNAMIC_NORM",
        "DYNAMIC_FUTURE",
    }
)

# The problems the checks judge, most severe first.
DOWN, FAIL, NOT_RESPONDING, INVALID, DRAIN = (
    "DOWN",
    "FAIL",
    "NOT_RESPONDING",
    "INVALID_REGISTRATION",
    "DRAIN",
)
PROBLEM_ORDER: tuple[str, ...] = (DOWN, FAIL, NOT_RESPONDING, INVALID, DRAIN)


@dataclass(frozen=True)
class NodeState:
    """A Slurm node state split into its base and its flags."""

    raw: str
    base: str  # DOWN, IDLE, DRAINED, DRAINING, FAIL, FAILING, MIXED, ... ("" if unreadable)
    flags: frozenset[str]

    @property
    def problems(self) -> tuple[str, ...]:
        """What keeps this node out of service, most severe first (empty when healthy)."""
        found: set[str] = set()
        if self.base == "DOWN":
            found.add(DOWN)
        if self.base in ("FAIL", "FAILING") or "FAIL" in self.flags:
            found.add(FAIL)
        if "NOT_RESPONDING" in self.flags:
            found.add(NOT_RESPONDING)
        # INVAL: slurmd registered fewer resources (CPUs, GPUs, memory) than configured.
        if self.base == "INVAL" or "INVALID_REG" in self.flags:
            found.add(INVALID)
        if self.base in ("DRAINED", "DRAINING") or "DRAIN" in self.flags:
            found.add(DRAIN)
        return tuple(p for p in PROBLEM_ORDER if p in found)


def parse_node_state(text: str) -> NodeState:
    """`down*` -> base DOWN + NOT_RESPONDING; `drng` -> DRAINING; `idle+drain` -> IDLE +
    DRAIN; anything unreadable -> base ""."""
    raw = (text or "").strip()
    token = raw.upper()
    flags: set[str] = set()
    while token and token[-1] in STATE_SUFFIXES:
        flags.add(STATE_SUFFIXES[token[-1]])
        token = token[:-1]
    parts = token.split("+")
    base = _BASE_ALIASES.get(parts[0], parts[0])
    if not STATE_WORD.match(base):
        return NodeState(raw, "", frozenset(flags))
    for part in parts[1:]:
        word = _BASE_ALIASES.get(part, part)
        if word in _FLAG_WORDS:
            flags.add(word)
        elif word in {"DRAINED", "DRAINING"}:
            flags.add("DRAIN")
    return NodeState(raw, base, frozenset(flags))


@dataclass(frozen=True)
class SlurmNode:
    name: str
    state: NodeState
    reason: str  # "" when Slurm has none
    reason_time: str  # when the reason was set, as sinfo prints it ("" when unknown)

    @property
    def problems(self) -> tuple[str, ...]:
        return self.state.problems


@dataclass(frozen=True)
class SinfoNodes:
    nodes: tuple[SlurmNode, ...]
    errors: tuple[str, ...] = ()  # lines that look like Slurm or shell errors
    unreadable: int = 0  # other lines that are not `name|state|time|reason`

    def problem_nodes(self) -> list[SlurmNode]:
        return [n for n in self.nodes if n.problems]


# A host name, or a HyperPod one a masked archive wrote (`ip-<IP_3>`, tools/masking.py).
_NODE_NAME = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,127}|ip-<IP_\d{1,9}>)$")


def parse_sinfo_nodes(text: str) -> SinfoNodes:
    """Node lines of the sinfo probe, one entry per node (partition duplicates merged)."""
    seen: dict[str, SlurmNode] = {}
    errors: list[str] = []
    unreadable = 0
    for line in lines(text):
        fields = line.split("|", 3)
        if len(fields) != 4 or not _NODE_NAME.match(fields[0].strip()):
            if not keep_error(errors, line):
                unreadable += 1
            continue
        name, state_text, when, reason = (f.strip() for f in fields)
        state = parse_node_state(state_text)
        if not state.base:
            unreadable += 1
            continue
        if name in seen:
            continue
        seen[name] = SlurmNode(
            name=name,
            state=state,
            reason="" if reason.lower() in ("none", "(null)") else reason,
            reason_time="" if when.lower() in ("unknown", "none", "n/a") else when,
        )
    return SinfoNodes(tuple(seen.values()), tuple(errors), unreadable)
