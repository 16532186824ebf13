"""Deep health check results: the node's log tail (probe `deep_health_check_log`) and the
CloudWatch `DeepHealthCheckResults/*` lines.

The line shapes follow the examples of the SageMaker Developer Guide ("Deep health checks",
"Logs from the deep health checks"): on the node, `<ISO time> <level> <message>` with the
DCGM summary's `replacementRequired: ... rebootRequired:...`; in CloudWatch, JSON objects
with `level`, `ts` and `msg` ("Encountered FaultyInstance. Replace the Instance. ...").
Failure lines other than those examples are written in the same shape; their exact wording
is not documented.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Literal

from cluster_simulator.base import RECORDED_AT, iso
from tools.probes.catalog import DHC_LOG_PATH

Verdict = Literal["pass", "replace", "reboot", "failed"]


def _stamp(moment: datetime) -> str:
    return iso(moment)


def node_log(verdict: Verdict = "pass", at: datetime | None = None) -> str:
    """The tail of /var/log/aws/clusters/sagemaker-deep-health-check.log after one
    InstanceStress run: stress-ng, the GPU/PCI count, the DCGM summary and EFA loopback."""
    start = at or RECORDED_AT - timedelta(days=10, hours=-1)
    replace, reboot = verdict == "replace", verdict == "reboot"
    dcgm_level = "error" if replace or reboot else "info"
    lines = [
        (
            0,
            "info",
            "Executing Hardware stress check with command: stress-ng, and args: "
            "[--cpu 32 --vm 2 --hdd 1 --fork 8 --switch 4 --timeout 60 --metrics]",
        ),
        (60, "info", "stress-ng success"),
        (60, "info", "GpuPci Count check success"),
        (
            1800,
            dcgm_level,
            "DCGM diagnostic health summary: dcgmCheckLevel: 4 dcgmVersion: "
            "3.3.7 gpuDriverVersion: 535.183.01, gpuDeviceIds: [2330] "
            f"replacementRequired: {str(replace).lower()} rebootRequired:{str(reboot).lower()}",
        ),
    ]
    if verdict == "failed":
        lines.append((1880, "error", "EFA Loopback check failed for device: rdmap0s29"))
    else:
        lines.append(
            (
                1880,
                "info",
                "EFA Loopback check passed for device: rdmap0s29 . Output summary "
                "is MaxBw: 58.590000, AvgBw: 32.420000, MaxTypicalLat: 30.870000, "
                "MinTypicalLat: 20.080000, AvgLat: 21.630000",
            )
        )
    return "".join(
        f"{_stamp(start + timedelta(seconds=s))}\t{level}\t{text}\n" for s, level, text in lines
    )


def node_log_missing() -> str:
    """tail's answer on a node where no deep health check has run."""
    return f"tail: cannot open '{DHC_LOG_PATH}' for reading: No such file or directory\n"


def cloudwatch_faulty(instance_id: str, moment: datetime, instance_type: str) -> str:
    """A CloudWatch result line for an instance the cluster-level check found faulty."""
    return json.dumps(
        {
            "level": "error",
            "ts": _stamp(moment),
            "msg": f"Encountered FaultyInstance. Replace the Instance. Region: us-west-2, "
            f"InstanceType: {instance_type}, InstanceId: {instance_id}. ERROR:Bandwidth has "
            "less than threshold: Expected minimum threshold :80,NCCL Test output Bw: 30",
        }
    )
