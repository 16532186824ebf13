"""Deep health check result lines → typed outcomes, and the `deep_health_check_log` probe.

HyperPod's deep health checks write their results in two places (SageMaker Developer Guide,
"Deep health checks", section "Logs from the deep health checks"):

- on each node, `/var/log/aws/clusters/sagemaker-deep-health-check.log`, one line per
  event: an ISO time, a level and a message, e.g.
  `2024-08-20T22:25:02Z    info    DCGM diagnostic health summary: dcgmCheckLevel: 0 ...
  replacementRequired: false rebootRequired:false` (spaces or tabs between the fields);
- in CloudWatch, streams `DeepHealthCheckResults/<log_stream_id>` of the cluster's log
  group, one JSON object a line: `{"level": "error", "ts": "...", "msg": "Encountered
  FaultyInstance. Replace the Instance. ... ERROR:Bandwidth has less than threshold ..."}`.

Only the documented examples were available: the wording of failed tests other than these
is inferred, so the parser is tolerant. A line is a replacement verdict when it says
`replacementRequired: true` or names a faulty instance to replace; a reboot verdict when
it says `rebootRequired: true`; a failure when its level is error (or fatal/critical) or
its message says a check failed; a pass when it says a check succeeded or passed (or both
required flags are false); anything else is context.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from tools.probes.catalog import DHC_LOG_PATH

_TIME = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
_PLAIN = re.compile(rf"^\s*(?P<ts>{_TIME})\s+(?P<level>[A-Za-z]+)\s+(?P<msg>.*)$")
_FLAG = r"\s*[:=]\s*\"?(?P<v>true|false)\b"
_REPLACEMENT = re.compile(rf"replacementRequired{_FLAG}", re.IGNORECASE)
_REBOOT = re.compile(rf"rebootRequired{_FLAG}", re.IGNORECASE)
_REPLACE_WORDS = re.compile(r"FaultyInstance|replace the instance", re.IGNORECASE)
_FAILED_WORDS = re.compile(
    r"\b(fail(?:ed|ure|s)?|error:)|less than threshold|did not pass", re.IGNORECASE
)
_PASSED_WORDS = re.compile(r"\b(success(?:ful)?|passed|succeeded)\b", re.IGNORECASE)
_FAILED_LEVELS = frozenset({"error", "fatal", "critical", "crit", "panic"})
_INSTANCE = re.compile(r"\bi-[0-9a-f]{8}(?:[0-9a-f]{9})?\b")
_MISSING = re.compile(r"No such file or directory", re.IGNORECASE)
_DENIED = re.compile(r"Permission denied", re.IGNORECASE)


class DhcOutcome(StrEnum):
    """What one line says, worst first."""

    REPLACE = "replace"
    REBOOT = "reboot"
    FAILED = "failed"
    PASSED = "passed"
    CONTEXT = "context"


@dataclass(frozen=True, slots=True)
class DhcLine:
    text: str  # the line as read (the message of a JSON line)
    timestamp: str  # "" when the line carries none
    level: str  # lower case; "" when unknown
    outcome: DhcOutcome
    instance_id: str  # an instance id the line names, "" when none


def _flag(pattern: re.Pattern[str], text: str) -> bool | None:
    match = pattern.search(text)
    return None if match is None else match.group("v").lower() == "true"


def _outcome(level: str, message: str) -> DhcOutcome:
    replacement, reboot = _flag(_REPLACEMENT, message), _flag(_REBOOT, message)
    if replacement or _REPLACE_WORDS.search(message):
        return DhcOutcome.REPLACE
    if reboot:
        return DhcOutcome.REBOOT
    if level in _FAILED_LEVELS or _FAILED_WORDS.search(message):
        return DhcOutcome.FAILED
    if _PASSED_WORDS.search(message) or (replacement is False and reboot is False):
        return DhcOutcome.PASSED
    return DhcOutcome.CONTEXT


def _json_fields(text: str) -> tuple[str, str, str] | None:
    """(time, level, message) of a JSON result line, or None when it is no such object."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        body = json.loads(text[start:])
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    message = body.get("msg", body.get("message"))
    if not isinstance(message, str):
        return None
    return str(body.get("ts") or ""), str(body.get("level") or ""), message


def parse_dhc_line(text: str) -> DhcLine | None:
    """One result line (plain or JSON), or None for a blank line."""
    line = text.strip()
    if not line:
        return None
    fields = _json_fields(line)
    if fields is None:
        plain = _PLAIN.match(line)
        fields = (
            (plain.group("ts"), plain.group("level"), plain.group("msg"))
            if plain
            else ("", "", line)
        )
    timestamp, level, message = fields
    level = level.lower()
    found = _INSTANCE.search(message)
    return DhcLine(
        text=message,
        timestamp=timestamp,
        level=level,
        outcome=_outcome(level, message),
        instance_id=found.group(0) if found else "",
    )


LogState = Literal["read", "missing", "denied", "empty"]


@dataclass(frozen=True, slots=True)
class DhcLog:
    """The node's deep health check log tail: its lines, or why there are none."""

    state: LogState
    lines: tuple[DhcLine, ...] = ()
    problem: str = ""

    def of(self, *outcomes: DhcOutcome) -> tuple[DhcLine, ...]:
        return tuple(line for line in self.lines if line.outcome in outcomes)


def parse_dhc_log(text: str) -> DhcLog:
    """The `deep_health_check_log` probe: `tail` of the log, or tail's complaint."""
    stripped = text.strip()
    if not stripped:
        return DhcLog("empty")
    first = stripped.splitlines()[0]
    if first.startswith("tail:") and DHC_LOG_PATH in first:
        if _MISSING.search(first):
            return DhcLog("missing", problem=first)
        if _DENIED.search(first):
            return DhcLog("denied", problem=first)
    lines = tuple(p for raw in stripped.splitlines() if (p := parse_dhc_line(raw)) is not None)
    return DhcLog("read", lines)
