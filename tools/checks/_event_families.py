"""The pattern families of cluster events: which section an Error or Warn event points to.

`tools/checks/events.py` matches an event's `Description` (or, for an unexplained Error
event, its DescribeClusterEvent FailureMessage) against this table, first match wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    key: str
    section: str
    title: str
    pattern: re.Pattern[str]
    also: str = ""  # a second section worth reading, named in the message


def _rx(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


# Order matters: the first family that matches wins (EFA before generic health checks,
# lifecycle before network words that lifecycle failures often contain).
FAMILIES: tuple[Family, ...] = (
    Family(
        "efa-health-check",
        "A",
        "EFA health checks",
        _rx(
            r"\bEFA\b.{0,60}\b(health|check|test|fail)"
            r"|\b(health|connectivity) ?checks?\b.{0,60}\bEFA\b"
        ),
    ),
    Family(
        "lifecycle",
        "D",
        "lifecycle scripts",
        _rx(
            r"life ?cycle|\bLCS\b|on_?create|OnInitComplete|provisioning[ _]parameters"
            r"|(provisioning|bootstrap|setup) script"
        ),
    ),
    Family(
        "capacity",
        "C",
        "capacity or Availability Zone",
        _rx(
            r"insufficient\w*\s*(instance\s*)?capacity|InsufficientInstanceCapacity"
            r"|(not|no|enough|sufficient) (have )?(sufficient |enough )?capacity"
            r"|capacity (is )?(not available|unavailable)|availability zones?\b|\bAZ\b"
            r"|reservation (is )?(expired|not active|exhausted)|training plan"
        ),
    ),
    Family(
        "network",
        "B",
        "bootstrap or network configuration",
        _rx(
            r"bootstrap|network (mis)?configur\w*|misconfigured network|\bVPC\b|subnet"
            r"|security ?groups?|\bENIs?\b|network interface|\bDNS\b|\bNAT\b|route table"
            r"|VPC endpoint"
        ),
        also="A",
    ),
    Family(
        "hardware",
        "F",
        "hardware faults or node recovery",
        _rx(
            r"hardware|health ?checks?|UnschedulablePending\w*|replac\w*|reboot\w*|\bXid\b"
            r"|\bGPU|\bECC\b|NVLink|faulty|unhealthy|impaired|degraded"
        ),
    ),
)
UNMAPPED = Family("unmapped", "F", "unclassified provisioning errors", _rx(r"(?!)"))
