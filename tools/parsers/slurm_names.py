"""Slurm node names: the short host name, the IPv4 address a HyperPod node name encodes
(and back), and Slurm's compressed host lists (`ip-10-1-2-[3-4]`).

A masked ticket archive (tools/masking.py) writes an address as a placeholder, in a node
name too (`10.1.2.3` → `<IP_3>`, `ip-10-1-2-3` → `ip-<IP_3>`, the same number for the same
address): the name and its address stay one node, so a replay of the archive maps names to
instances as the recording did.
"""

from __future__ import annotations

import ipaddress
import re

# -- names and IP addresses --------------------------------------------------------------

_IP_NAME = re.compile(r"^ip-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})$")
# An address as a masked archive writes it, and a node name holding one.
MASKED_IP = re.compile(r"^<IP_\d{1,9}>$")
_MASKED_IP_NAME = re.compile(r"^ip-(<IP_\d{1,9}>)$")
_PLACEHOLDER_LOWERED = re.compile(r"<(ip|host)_(\d{1,9})>")


def short_hostname(hostname: str) -> str:
    """`ip-10-1-2-3.us-west-2.compute.internal` -> `ip-10-1-2-3` (lower case; a masked
    archive's placeholder keeps its case: `ip-<IP_3>`)."""
    lowered = (hostname or "").strip().split(".", 1)[0].lower()
    return _PLACEHOLDER_LOWERED.sub(lambda m: f"<{m.group(1).upper()}_{m.group(2)}>", lowered)


def ip_from_node_name(name: str) -> str | None:
    """The IPv4 address a HyperPod Slurm node name encodes (`ip-10-1-2-3` -> `10.1.2.3`;
    in a masked archive `ip-<IP_3>` -> `<IP_3>`)."""
    short = short_hostname(name)
    masked = _MASKED_IP_NAME.match(short)
    if masked is not None:
        return masked.group(1)
    match = _IP_NAME.match(short)
    if match is None:
        return None
    octets = [int(part) for part in match.groups()]
    if any(octet > 255 for octet in octets):
        return None
    return ".".join(str(octet) for octet in octets)


def node_name_from_ip(ip: str) -> str | None:
    """The Slurm node name of a private IPv4 address (`10.1.2.3` -> `ip-10-1-2-3`; in a
    masked archive `<IP_3>` -> `ip-<IP_3>`)."""
    if MASKED_IP.match((ip or "").strip()):
        return f"ip-{ip.strip()}"
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
