"""The verdict on a command line, and how the verdicts of its parts combine.

Every handler in this package returns a `CommandClass`; `combine` folds the verdicts of the
stages, redirections and substitutions of one line into the line's verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Kind = Literal["read_only", "mutating", "unknown"]
Rank = Literal[0, 1, 2]


@dataclass(frozen=True)
class CommandClass:
    kind: Kind
    touches_config: bool
    destructive_rank: Rank
    reason: str


# A tool's handler: (the arguments after the tool name, nesting depth) -> verdict.
Handler = Callable[[Sequence[str], int], CommandClass]


def ro(reason: str) -> CommandClass:
    return CommandClass("read_only", False, 0, reason)


def mut(reason: str, rank: Rank = 0, *, config: bool = False) -> CommandClass:
    return CommandClass("mutating", config, rank, reason)


# Block devices: writing into one destroys the filesystem on it and every file it held
# (NVMe instance store and EBS volumes, SCSI/Xen/virtio disks, RAID and device-mapper
# devices, loop and network block devices, and their /dev/disk/by-* links).
_BLOCK_DEVICE = re.compile(
    r"^/dev/(?:nvme\d|sd[a-z]|xvd[a-z]|vd[a-z]|hd[a-z]|md\d|dm-\d|mapper/|disk/|loop\d|nbd\d|root$)"
)


def writes_into(target: str, *, empties: bool = False) -> CommandClass:
    """The verdict of writing into `target`: a block device loses its data (rank 2), and so
    does a file emptied by a redirection that writes nothing into it (``: > file``)."""
    if _BLOCK_DEVICE.match(target):
        return mut(f"writes into block device {target} (its filesystem and data are destroyed)", 2)
    if empties:
        return mut(f"empties {target} (its contents are lost)", 2)
    return mut(f"writes into {target}")


def unknown(reason: str) -> CommandClass:
    return CommandClass("unknown", False, 0, reason)


_SEVERITY = {"read_only": 0, "unknown": 1, "mutating": 2}


def combine(parts: Sequence[CommandClass]) -> CommandClass:
    """As mutating as the worst part; config and rank from any part."""
    if not parts:
        return unknown("empty command")
    worst = max(parts, key=lambda p: _SEVERITY[p.kind])
    reasons = dict.fromkeys(p.reason for p in parts if p.kind == worst.kind)
    rank = max(p.destructive_rank for p in parts)
    return CommandClass(worst.kind, any(p.touches_config for p in parts), rank, "; ".join(reasons))
