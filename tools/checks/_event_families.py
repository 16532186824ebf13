"""The pattern families of cluster events: which section an Error or Warn event points to.

`tools/checks/events.py` matches an event's `Description` (or, for an unexplained Error
event, its DescribeClusterEvent FailureMessage) against this table, first match wins.
Wording that `explain` shares comes from the signal registry (tools.signals) by id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.signals import compile_alternation, wording


@dataclass(frozen=True)
class Family:
    key: str
    section: str
    title: str
    pattern: re.Pattern[str]
    also: str = ""  # a second section worth reading, named in the message


# Order matters: the first family that matches wins (EFA before generic health checks,
# lifecycle before network words that lifecycle failures often contain).
FAMILIES: tuple[Family, ...] = (
    Family(
        "efa-health-check",
        "A",
        "EFA health checks",
        compile_alternation(
            r"\bEFA\b.{0,60}\b(health|check|test|fail)",
            r"\b(health|connectivity) ?checks?\b.{0,60}\bEFA\b",
        ),
    ),
    Family(
        "lifecycle",
        "D",
        "lifecycle scripts",
        compile_alternation(
            r"life ?cycle",
            r"\bLCS\b",
            r"on_?create",
            *wording("lifecycle.on_init_complete"),
            r"provisioning[ _]parameters",
            r"(provisioning|bootstrap|setup) script",
        ),
    ),
    Family(
        "capacity",
        "C",
        "capacity or Availability Zone",
        # "capacity (is) not available / unavailable" moved ahead of "(not|no…) capacity":
        # the two cannot start a match at the same character, so no description changes.
        compile_alternation(
            r"insufficient\w*\s*(instance\s*)?capacity",
            *wording("capacity.insufficient"),
            r"capacity (is )?unavailable",
            r"(not|no|enough|sufficient) (have )?(sufficient |enough )?capacity",
            r"availability zones?\b",
            r"\bAZ\b",
            r"reservation (is )?(expired|not active|exhausted)",
            *wording("capacity.training_plan"),
        ),
    ),
    Family(
        "network",
        "B",
        "bootstrap or network configuration",
        compile_alternation(
            r"bootstrap",
            r"network (mis)?configur\w*",
            r"misconfigured network",
            r"\bVPC\b",
            r"subnet",
            r"security ?groups?",
            r"\bENIs?\b",
            r"network interface",
            r"\bDNS\b",
            r"\bNAT\b",
            r"route table",
            r"VPC endpoint",
        ),
        also="A",
    ),
    Family(
        "hardware",
        "F",
        "hardware faults or node recovery",
        compile_alternation(
            r"hardware",
            r"health ?checks?",
            r"UnschedulablePending\w*",
            r"replac\w*",
            r"reboot\w*",
            r"\bXid\b",
            r"\bGPU",
            r"\bECC\b",
            r"NVLink",
            r"faulty",
            r"unhealthy",
            r"impaired",
            r"degraded",
        ),
    ),
)
UNMAPPED = Family("unmapped", "F", "unclassified provisioning errors", compile_alternation(r"(?!)"))
