"""Parsers of what says who runs the Slurm cluster: `scontrol ping` (which slurmctld
answers) and `/opt/ml/config/resource_config.json` (which instances HyperPod put in it).

* `scontrol ping`: `Slurmctld(primary) at <host> is UP` (or `DOWN`), one line per
  controller; old releases join them: `Slurmctld(primary/backup) at a/b are UP/DOWN`.
* `resource_config.json`: `InstanceGroups[].{Name, InstanceType,
  Instances[].{InstanceName, CustomerIpAddress}}` (an `InstanceId` is read when present).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tools.parsers.slurm_names import node_name_from_ip
from tools.parsers.slurm_text import keep_error, lines

# -- scontrol ping ------------------------------------------------------------------------

# Current releases print one line per controller, "Slurmctld(primary) at ctl-a is UP"
# (scontrol.c, _ping_slurmctld: "Slurmctld(%s) at %s is %s"); older ones (Slurm 2.x to 17.x)
# join the primary and backup with slashes and "are": "Slurmctld(primary/backup) at
# ctl-a/ctl-b are UP/DOWN", with "(NULL)" as the backup host when none is configured.
_PING = re.compile(
    r"Slurmctld\((?P<role>[^()]{1,60})\)\s+at\s+(?P<host>\S+)\s+(?:is|are)\s+"
    r"(?P<state>(?:UP|DOWN)(?:/(?:UP|DOWN))*)\b",
    re.IGNORECASE,
)
# What the joined form prints for a controller slot that is not configured.
_NO_HOST = ("", "(null)")


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
    for line in lines(text):
        found = False
        for match in _PING.finditer(line):
            found = True
            roles = match.group("role").split("/")
            hosts = match.group("host").split("/")
            states = match.group("state").split("/")
            for index, role in enumerate(roles):
                host = (hosts[index] if index < len(hosts) else "").strip()
                state = states[index] if index < len(states) else ""
                if host.lower() in _NO_HOST:
                    continue  # no backup controller configured: nothing to report on
                controllers.append(Controller(role.strip(), host, state.upper() == "UP"))
        if not found:
            keep_error(errors, line)
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
