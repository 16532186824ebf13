"""Parsers of the Slurm controller probes: sinfo, squeue, scontrol ping, resource_config.json.

Each parser takes the raw stdout of one catalogued probe (stderr folded in) and returns a
frozen value; none of them raises, whatever the text. Lines that are not what the probe's
fixed format prints are counted, and lines that look like Slurm errors are kept, so a
check can say "could not read" instead of judging an empty list.

Formats (from the Slurm sources and man pages):

* `sinfo --Node --noheader --format='%N|%T|%H|%E'`: one line per node *and partition* (a
  node in two partitions is listed twice); `%T` is the long state in lower case, e.g.
  `idle`, `down*`, `drained`, `draining`, `fail`, `failing`, `mixed-`, `allocated+`, with
  one suffix character for a state flag (`*` not responding, `~` powered off, `#` powering
  up, `!` power down pending, `%` powering down, `$` maintenance reservation, `@` reboot
  requested, `^` reboot issued, `-` planned by the backfill scheduler, `+` on `allocated`
  for completing); `%H` is the time the reason was set (`Unknown` without one); `%E` the
  reason (`none` without one).
* `squeue --noheader --states=CG,CF --format='%i|%T|%M|%N|%j'`: `%M` is the time used,
  `[days-]hours:minutes:seconds`, shortened to `hours:mm:ss` or `minutes:ss`; `%N` is a
  compressed host list such as `ip-10-1-2-[3-4]`.
* `scontrol ping`: `Slurmctld(primary) at <host> is UP` (or `DOWN`), one line per
  controller; old releases join them: `Slurmctld(primary/backup) at a/b is UP/DOWN`.
* `/opt/ml/config/resource_config.json`: `InstanceGroups[].{Name, InstanceType,
  Instances[].{InstanceName, CustomerIpAddress}}` (an `InstanceId` is read when present).
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# -- shared ------------------------------------------------------------------------------

_ERROR_HINTS = re.compile(
    r"error|unable to contact|connection refused|connect failure|timed out|"
    r"not found|no such file|permission denied|invalid|could not",
    re.IGNORECASE,
)
_MISSING_TOOL = re.compile(r"command not found|not found: (?:sinfo|squeue|scontrol)", re.I)
_MAX_KEPT_ERRORS = 5


def tool_missing(text: str) -> bool:
    """The probe's command is not installed where it ran (the shell said so)."""
    return bool(_MISSING_TOOL.search(text or ""))


def _lines(text: str) -> Iterator[str]:
    for raw in (text or "").splitlines():
        line = raw.strip()
        if line:
            yield line


def _keep_error(errors: list[str], line: str) -> bool:
    """Remember an error-looking line (a few of them); True when the line was one."""
    if not _ERROR_HINTS.search(line):
        return False
    if len(errors) < _MAX_KEPT_ERRORS:
        errors.append(line[:300])
    return True


# -- Slurm node names and IP addresses ----------------------------------------------------

_IP_NAME = re.compile(r"^ip-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})$")


def short_hostname(hostname: str) -> str:
    """`ip-10-1-2-3.us-west-2.compute.internal` -> `ip-10-1-2-3` (lower case)."""
    return (hostname or "").strip().split(".", 1)[0].lower()


def ip_from_node_name(name: str) -> str | None:
    """The IPv4 address a HyperPod Slurm node name encodes (`ip-10-1-2-3` -> `10.1.2.3`)."""
    match = _IP_NAME.match(short_hostname(name))
    if match is None:
        return None
    octets = [int(part) for part in match.groups()]
    if any(octet > 255 for octet in octets):
        return None
    return ".".join(str(octet) for octet in octets)


def node_name_from_ip(ip: str) -> str | None:
    """The Slurm node name of a private IPv4 address (`10.1.2.3` -> `ip-10-1-2-3`)."""
    try:
        address = ipaddress.IPv4Address((ip or "").strip())
    except ValueError:
        return None
    return "ip-" + str(address).replace(".", "-")


# -- host lists ---------------------------------------------------------------------------

HOSTLIST_CAP = 1024  # names expanded from one host list; a job on more is reported as is
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def _split_top_level(text: str) -> list[str] | None:
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
            if depth > 1:
                return None
        elif char == "]":
            depth -= 1
            if depth < 0:
                return None
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    if depth != 0:
        return None
    parts.append(text[start:])
    return [p for p in parts if p]


def _expand_one(expr: str, cap: int) -> list[str] | None:
    open_at = expr.find("[")
    if open_at < 0:
        return [expr]
    close_at = expr.find("]", open_at)
    prefix, body, rest = expr[:open_at], expr[open_at + 1 : close_at], expr[close_at + 1 :]
    tails = _expand_one(rest, cap)
    if tails is None:
        return None
    names: list[str] = []
    for item in body.split(","):
        match = _RANGE.match(item.strip())
        if match is None:
            return None
        first, last = match.group(1), match.group(2) or match.group(1)
        width = len(first) if first.startswith("0") else 0
        low, high = int(first), int(last)
        if high < low:
            return None
        for number in range(low, min(high, low + cap) + 1):
            for tail in tails:
                names.append(f"{prefix}{number:0{width}d}{tail}")
                if len(names) > cap:
                    return names
    return names


def expand_hostlist(text: str, cap: int = HOSTLIST_CAP) -> tuple[str, ...]:
    """Slurm's compressed host list (`ip-10-1-2-[3-4,7],ip-10-1-3-9`) as names, at most
    `cap` of them; a malformed list yields the parts that can be read."""
    parts = _split_top_level((text or "").strip())
    if parts is None:
        return ()
    names: list[str] = []
    for part in parts:
        expanded = _expand_one(part.strip(), cap)
        if expanded is None or any(not n or any(c.isspace() for c in n) for n in expanded):
            continue
        names.extend(expanded)
        if len(names) >= cap:
            return tuple(names[:cap])
    return tuple(names)


# -- sinfo --------------------------------------------------------------------------------

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
_STATE_WORD = re.compile(r"^[A-Z_]+$")

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
    if not _STATE_WORD.match(base):
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


_NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def parse_sinfo_nodes(text: str) -> SinfoNodes:
    """Node lines of the sinfo probe, one entry per node (partition duplicates merged)."""
    seen: dict[str, SlurmNode] = {}
    errors: list[str] = []
    unreadable = 0
    for line in _lines(text):
        fields = line.split("|", 3)
        if len(fields) != 4 or not _NODE_NAME.match(fields[0].strip()):
            if not _keep_error(errors, line):
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


# -- squeue -------------------------------------------------------------------------------

_JOB_STATES = {"CG": "COMPLETING", "CF": "CONFIGURING"}
_JOB_ID = re.compile(r"^\d+[0-9_+\[\]\-,%]*$")
_ELAPSED = re.compile(
    r"^(?:(?P<days>\d+)-(?P<dh>\d+):(?P<dm>\d+):(?P<ds>\d+)"
    r"|(?P<h>\d+):(?P<hm>\d+):(?P<hs>\d+)"
    r"|(?P<m>\d+):(?P<ms>\d+))$"
)


def parse_elapsed(text: str) -> int | None:
    """squeue's time used (`1-02:03:04`, `2:03:04`, `3:04`) in seconds; None otherwise
    (`INVALID`, `UNLIMITED`, garbage or out-of-range fields)."""
    match = _ELAPSED.match((text or "").strip())
    if match is None:
        return None
    g = match.groupdict()
    if g["days"] is not None:
        days, hours, minutes, seconds = (int(g[k]) for k in ("days", "dh", "dm", "ds"))
        if hours > 23:
            return None
    elif g["h"] is not None:
        days, hours, minutes, seconds = 0, int(g["h"]), int(g["hm"]), int(g["hs"])
    else:
        days, hours, minutes, seconds = 0, 0, int(g["m"]), int(g["ms"])
    if minutes > 59 or seconds > 59:
        return None
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


@dataclass(frozen=True)
class SlurmJob:
    job_id: str
    state: str  # COMPLETING or CONFIGURING (or the state as printed when it is another)
    elapsed: str  # as squeue printed it
    elapsed_s: int | None  # the same in seconds, None when unreadable
    nodes: str  # the compressed host list as printed
    node_names: tuple[str, ...]  # expanded, at most HOSTLIST_CAP
    name: str


@dataclass(frozen=True)
class SqueueJobs:
    jobs: tuple[SlurmJob, ...]
    errors: tuple[str, ...] = ()
    unreadable: int = 0


def parse_squeue_jobs(text: str) -> SqueueJobs:
    jobs: list[SlurmJob] = []
    errors: list[str] = []
    unreadable = 0
    seen: set[str] = set()
    for line in _lines(text):
        fields = line.split("|", 4)
        if len(fields) != 5 or not _JOB_ID.match(fields[0].strip()):
            if not _keep_error(errors, line):
                unreadable += 1
            continue
        job_id, state, elapsed, nodes, name = (f.strip() for f in fields)
        state = state.upper()
        state = _JOB_STATES.get(state, state)
        if job_id in seen:
            continue
        if not _STATE_WORD.match(state):
            unreadable += 1
            continue
        seen.add(job_id)
        jobs.append(
            SlurmJob(
                job_id=job_id,
                state=state,
                elapsed=elapsed,
                elapsed_s=parse_elapsed(elapsed),
                nodes=nodes,
                node_names=expand_hostlist(nodes),
                name=name,
            )
        )
    return SqueueJobs(tuple(jobs), tuple(errors), unreadable)


# -- scontrol ping ------------------------------------------------------------------------

_PING = re.compile(
    r"Slurmctld\((?P<role>[^()]{1,60})\)\s+at\s+(?P<host>\S+)\s+is\s+"
    r"(?P<state>(?:UP|DOWN)(?:/(?:UP|DOWN))*)\b"
)


@dataclass(frozen=True)
class Controller:
    role: str  # primary, backup, backup1, ...
    host: str
    up: bool


@dataclass(frozen=True)
class PingResult:
    controllers: tuple[Controller, ...]
    errors: tuple[str, ...] = ()

    @property
    def primary(self) -> Controller | None:
        for controller in self.controllers:
            if controller.role.lower() == "primary":
                return controller
        return self.controllers[0] if self.controllers else None

    @property
    def answering(self) -> bool:
        """Some slurmctld answered the ping."""
        return any(c.up for c in self.controllers)


def parse_scontrol_ping(text: str) -> PingResult:
    controllers: list[Controller] = []
    errors: list[str] = []
    for line in _lines(text):
        found = False
        for match in _PING.finditer(line):
            found = True
            roles = match.group("role").split("/")
            hosts = match.group("host").split("/")
            states = match.group("state").split("/")
            for index, role in enumerate(roles):
                host = hosts[index] if index < len(hosts) else ""
                state = states[index] if index < len(states) else ""
                controllers.append(Controller(role.strip(), host.strip(), state.upper() == "UP"))
        if not found:
            _keep_error(errors, line)
    return PingResult(tuple(controllers), tuple(errors))


# -- resource_config.json -----------------------------------------------------------------

_INSTANCE_ID = re.compile(r"^i-[0-9a-f]{8,32}$")


@dataclass(frozen=True)
class ResourceInstance:
    group: str
    instance_type: str
    instance_id: str  # "" when the file names the instance otherwise
    instance_name: str
    ip: str  # CustomerIpAddress, "" when missing or not an IPv4 address


@dataclass(frozen=True)
class ResourceConfig:
    instances: tuple[ResourceInstance, ...]
    groups: tuple[str, ...]
    error: str = ""  # why nothing could be read ("" when the file was read)


def _json_object(text: str) -> Any:
    candidates = [text]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            continue
    return None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def parse_resource_config(text: str) -> ResourceConfig:
    """Instance groups and their instances; garbage yields an empty config with `error`."""
    data = _json_object(text or "")
    if not isinstance(data, dict):
        return ResourceConfig((), (), "not a JSON object")
    groups = data.get("InstanceGroups")
    if not isinstance(groups, list):
        return ResourceConfig((), (), "no InstanceGroups list")
    names: list[str] = []
    instances: list[ResourceInstance] = []
    for group in groups:
        if not isinstance(group, dict):
            continue
        group_name = _text(group.get("Name")) or _text(group.get("InstanceGroupName"))
        instance_type = _text(group.get("InstanceType"))
        names.append(group_name)
        members = group.get("Instances")
        for member in members if isinstance(members, list) else []:
            if not isinstance(member, dict):
                continue
            name = _text(member.get("InstanceName"))
            explicit = _text(member.get("InstanceId"))
            instance_id = next((v for v in (explicit, name) if _INSTANCE_ID.match(v)), "")
            ip = _text(member.get("CustomerIpAddress"))
            instances.append(
                ResourceInstance(
                    group=group_name,
                    instance_type=instance_type,
                    instance_id=instance_id,
                    instance_name=name,
                    ip=ip if node_name_from_ip(ip) else "",
                )
            )
    return ResourceConfig(tuple(instances), tuple(names))
