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
is inferred. A line is a replacement verdict only in the documented wording: the flag
`replacementRequired: true` (also `replacementRequired=true` and the JSON
`"replacementRequired": true`), or "Encountered FaultyInstance" / "Replace the Instance";
a reboot verdict when it says `rebootRequired: true` in the same forms; a failure when its
level is error (or fatal/critical) or its message says a check failed ("failed",
"failure", "error:", "less than threshold", "did not pass"), whole words only and not
under a zero count ("0 failures", "Failed: 0") or a negation ("no failures", "did not
fail"); a pass when it says a check succeeded or passed (or both required flags are
false); anything else is context.

Each line also names the test it reports on, when it names one of the documented ones
(stress-ng, the GPU/PCI count, DCGM, EFA loopback, NCCL, NCCOM, Neuron), and the device
("device: rdmap0s29"): the check judges the newest result of each test, so an older
result of the same test is history (see `tools.checks.deep_health_checks`).
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
# `key: value`, `key=value` and the JSON `"key": value` (the key's closing quote).
_FLAG = r"\"?\s*[:=]\s*\"?(?P<v>true|false)\b"
_REPLACEMENT = re.compile(rf"\breplacementRequired{_FLAG}", re.IGNORECASE)
_REBOOT = re.compile(rf"\brebootRequired{_FLAG}", re.IGNORECASE)
# The documented replacement wording only; "Checking for FaultyInstance" asks, it does not say.
_REPLACE_WORDS = re.compile(
    r"\bEncountered\s+FaultyInstance\b|\bReplace\s+the\s+Instance\b", re.IGNORECASE
)
_FAILED_WORDS = re.compile(
    r"\b(?:fail|fails|failed|failure|failures|unsuccessful)\b|\berrors?\s*:"
    r"|\bless than threshold\b|\bdid not pass\b",
    re.IGNORECASE,
)
_PASSED_WORDS = re.compile(r"\b(?:success|successful|passed|succeeded)\b", re.IGNORECASE)
# What makes a failure or verdict word say the opposite: a negation just before it ("no
# failures", "did not fail", "no need to replace the instance"), a zero count before it
# ("0 failures", "12 passed, 0 failed"; not "GPU 0 failed", where 0 names the GPU) or
# after it ("Failed: 0", "errors = none").
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:no|not|never|without|zero|none|didn't|don't|no need to)"
    r"|(?:^|[,;:(\[]|\band)\s*0)\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
_ZERO_AFTER = re.compile(r"^\s*[:=]?\s*(?:0|none)\b", re.IGNORECASE)
# The documented tests, by the words their lines use (SageMaker DG, "Deep health checks":
# stress-ng, GpuPci / GPU/NVLink count, DCGM diagnostics, EFA loopback, NCCL, NCCOM,
# Neuron sysfs / hardware check). Order matters: the Replace line names NCCL after ERROR.
_TESTS = (
    ("nccl", re.compile(r"\bnccl\b", re.IGNORECASE)),
    ("nccom", re.compile(r"\bnccom\b", re.IGNORECASE)),
    ("dcgm", re.compile(r"\bdcgm\b", re.IGNORECASE)),
    ("efa", re.compile(r"\befa\b", re.IGNORECASE)),
    ("stress", re.compile(r"\bstress-ng\b|\bhardware stress\b", re.IGNORECASE)),
    ("gpu-count", re.compile(r"\bGpuPci\b|\bGPU/NVLink count\b", re.IGNORECASE)),
    ("neuron", re.compile(r"\bneuron\b", re.IGNORECASE)),
)
_DEVICE = re.compile(r"\bdevice:?\s*(?P<d>[A-Za-z0-9_.:-]*[A-Za-z0-9])", re.IGNORECASE)
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
    test: str = ""  # the documented test it reports on (see _TESTS), "" when none is named
    device: str = ""  # the device it names ("device: rdmap0s29"), "" when none

    @property
    def subject(self) -> tuple[str, str]:
        """What the line's result is about: a later result on the same subject replaces it."""
        return self.test, self.device


def _flag(pattern: re.Pattern[str], text: str) -> bool | None:
    match = pattern.search(text)
    return None if match is None else match.group("v").lower() == "true"


def _says(pattern: re.Pattern[str], text: str) -> bool:
    """Whether a match of `pattern` stands, neither negated nor counted zero."""
    return any(
        not _NEGATED_BEFORE.search(text[max(0, m.start() - 40) : m.start()])
        and not _ZERO_AFTER.match(text[m.end() :])
        for m in pattern.finditer(text)
    )


def _outcome(level: str, message: str) -> DhcOutcome:
    replacement, reboot = _flag(_REPLACEMENT, message), _flag(_REBOOT, message)
    if replacement or _says(_REPLACE_WORDS, message):
        return DhcOutcome.REPLACE
    if reboot:
        return DhcOutcome.REBOOT
    if level in _FAILED_LEVELS or _says(_FAILED_WORDS, message):
        return DhcOutcome.FAILED
    if replacement is False and reboot is False:
        return DhcOutcome.PASSED
    if _PASSED_WORDS.search(message):
        # "not passed", "not successful": a failure said the other way round.
        return DhcOutcome.PASSED if _says(_PASSED_WORDS, message) else DhcOutcome.FAILED
    return DhcOutcome.CONTEXT


def _test_of(message: str) -> str:
    return next((name for name, pattern in _TESTS if pattern.search(message)), "")


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
    device = _DEVICE.search(message)
    return DhcLine(
        text=message,
        timestamp=timestamp,
        level=level,
        outcome=_outcome(level, message),
        instance_id=found.group(0) if found else "",
        test=_test_of(message),
        device=device.group("d") if device else "",
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
