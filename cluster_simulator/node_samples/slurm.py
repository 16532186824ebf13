"""Raw outputs of the Slurm controller probes, as the catalogued commands print them.

`sinfo` lists a node once per partition it belongs to, lower-case long states with their
suffix characters (`down*`), `Unknown` for a missing reason time and `none` for a missing
reason; `squeue` prints exactly the fields its probe asks for; `scontrol ping` one line per
controller, or Slurm's error when the controller cannot be reached.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

# (node name, long state as sinfo prints it, reason or "") ; reason time is fixed below.
SinfoNode = tuple[str, str, str]
# (job id, state, time used as squeue prints it, node list, job name)
SqueueJob = tuple[str, str, str, str, str]
# (group name, instance type, [(instance id, private IP)])
ResourceGroup = tuple[str, str, list[tuple[str, str]]]

REASON_TIME = "2026-11-20T10:42:17"


def sinfo(nodes: Sequence[SinfoNode], partitions: Sequence[str] = ("dev",)) -> str:
    """`sinfo --Node --noheader --format='%N|%T|%H|%E'`: each node once per partition."""
    lines: list[str] = []
    for name, state, reason in nodes:
        when = REASON_TIME if reason else "Unknown"
        lines.extend(f"{name}|{state}|{when}|{reason or 'none'}" for _ in partitions)
    return "\n".join(lines) + ("\n" if lines else "")


def squeue(jobs: Sequence[SqueueJob]) -> str:
    """`squeue --noheader --states=CG,CF --format='%i|%T|%M|%N|%j'`."""
    return "".join("|".join(job) + "\n" for job in jobs)


def scontrol_ping(up: bool = True, host: str = "ip-10-1-0-10") -> str:
    """`scontrol ping` against a single (primary) slurmctld."""
    return f"Slurmctld(primary) at {host} is {'UP' if up else 'DOWN'}\n"


def scontrol_ping_unreachable() -> str:
    """`scontrol ping` where the client cannot reach any controller configuration."""
    return "slurm_load_ctl_conf error: Unable to contact slurm controller (connect failure)\n"


def resource_config(groups: Sequence[ResourceGroup], cluster_name: str = "ml-cluster") -> str:
    """`/opt/ml/config/resource_config.json` with the groups and their instances."""
    document = {
        "ClusterConfig": {"ClusterName": cluster_name},
        "InstanceGroups": [
            {
                "Name": name,
                "InstanceType": instance_type,
                "Instances": [
                    {"InstanceName": instance_id, "CustomerIpAddress": ip}
                    for instance_id, ip in instances
                ],
            }
            for name, instance_type, instances in groups
        ],
    }
    return json.dumps(document, indent=2) + "\n"
