"""The `dcgm_diag_logs` probe → the DCGM log directory and the newest nvvs log's verdict lines.

The probe prints `ls -1t /var/log/nvidia-dcgm` (newest first, or ls's refusal), a marker
line, the newest `nvvs*.log` name (nothing when dcgmi diag never ran here), then that log's
last lines. nvvs logs at debug level by default, one line per message:
``2025-06-27 06:32:30.806 ERROR [71830:71830] message [source.cpp:599] [Function]``.
Most lines are chatter; this module keeps the ones that carry a verdict: a test or plugin
that failed, a row remap pending or failed, and error messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from tools.probes.catalog import DCGM_LOG_MARKER


class NvvsLineKind(StrEnum):
    FAILED = "failed"  # a test or plugin result of Fail
    REMAP_FAILURE = "remap-failure"  # the diagnostic saw a failed row remap
    REMAP_PENDING = "remap-pending"  # the diagnostic saw a remap waiting for a reset
    ERROR = "error"  # an error message without a failed verdict


@dataclass(frozen=True)
class NvvsLine:
    kind: NvvsLineKind
    text: str  # the message, without the logger's timestamp
    timestamp: str | None = None


@dataclass(frozen=True)
class DcgmLogs:
    # "ok": the directory listed; "missing": no such directory; "denied": not allowed to
    # list it; "unparsed": the output is not the probe's.
    state: str
    listing: tuple[str, ...] = ()
    newest_log: str | None = None  # the newest nvvs*.log path, None when there is none
    lines: tuple[NvvsLine, ...] = ()
    problem: str | None = None  # ls's or tail's own complaint, when there was one

    def of_kind(self, *kinds: NvvsLineKind) -> tuple[NvvsLine, ...]:
        return tuple(line for line in self.lines if line.kind in kinds)


_STAMP = re.compile(r"^(?P<ts>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d{1,9})?)\s+")
# The logger's severity and [pid:tid] after the timestamp.
_SEVERITY = re.compile(r"^(?P<severity>[A-Z]{3,7})\s+\[\d{1,10}:\d{1,10}\]\s*")
# "Test memory: Fail", "FAIL: ...", "... result Fail", "Plugin pcie failed with ...": an
# uppercase FAIL anywhere or a capitalised Fail verdict after a colon or "result".
# Case matters: "FAIL" and "Fail" are verdicts, a lowercase "fail" in chatter is not.
_FAILED = re.compile(
    r"\bFAIL(?:ED|URE)?\b|(?::|\bresult(?:\s+is)?)\s*Fail(?:ed)?\b|"
    r"(?i:\bplugin\b.{0,60}\bfailed\b)"
)
_REMAP = re.compile(r"row[ _-]?remap\w*", re.IGNORECASE)
_REMAP_FAILED = re.compile(r"\bfail\w*", re.IGNORECASE)
_REMAP_PENDING = re.compile(r"\bpending\b", re.IGNORECASE)
# "Pending : No", "failure occurred = false": a remap field that says nothing happened.
_NEGATIVE = re.compile(r"[:=]\s*(?:no|none|0|false|n/a)\s*\.?$", re.IGNORECASE)
_ERROR_WORD = re.compile(r"\bError:")
_NOT_THERE = re.compile(r"no such file or directory", re.IGNORECASE)
_DENIED = re.compile(r"permission denied|operation not permitted", re.IGNORECASE)


def classify_nvvs_line(raw: str) -> NvvsLine | None:
    """The verdict one nvvs log line carries, or None for chatter."""
    line = raw.strip()
    match = _STAMP.match(line)
    timestamp = match["ts"] if match else None
    message = line[match.end() :] if match else line
    prefix = _SEVERITY.match(message)
    severity = prefix["severity"] if prefix else ""
    message = message[prefix.end() :] if prefix else message
    if _REMAP.search(message) and not _NEGATIVE.search(message):
        if _REMAP_FAILED.search(message):
            return NvvsLine(NvvsLineKind.REMAP_FAILURE, message, timestamp)
        if _REMAP_PENDING.search(message):
            return NvvsLine(NvvsLineKind.REMAP_PENDING, message, timestamp)
    if _FAILED.search(message):
        return NvvsLine(NvvsLineKind.FAILED, message, timestamp)
    if severity in ("ERROR", "FATAL") or _ERROR_WORD.search(message):
        return NvvsLine(NvvsLineKind.ERROR, message, timestamp)
    return None


def _listing_state(listing: list[str]) -> tuple[str, str | None]:
    for line in listing:
        if line.startswith("ls:") and _NOT_THERE.search(line):
            return "missing", line
        if line.startswith("ls:") and _DENIED.search(line):
            return "denied", line
    return "ok", None


def parse_dcgm_logs(text: str) -> DcgmLogs:
    """Never raises; output without the probe's marker is "unparsed"."""
    raw_lines = text.splitlines()
    try:
        marker = next(i for i, line in enumerate(raw_lines) if line.strip() == DCGM_LOG_MARKER)
    except StopIteration:
        return DcgmLogs("unparsed", problem=text.strip()[:300] or None)
    listing = [line.strip() for line in raw_lines[:marker] if line.strip()]
    state, problem = _listing_state(listing)
    after = [line for line in raw_lines[marker + 1 :] if line.strip()]
    if not after:
        return DcgmLogs(state, tuple(listing), None, (), problem)
    newest = after[0].strip()
    body = after[1:]
    if body and body[0].startswith("tail:"):
        # tail could not read the log it was given (permissions): its verdict is unknown.
        return DcgmLogs(state, tuple(listing), newest, (), body[0].strip()[:300])
    verdicts = tuple(v for raw in body if (v := classify_nvvs_line(raw)) is not None)
    return DcgmLogs(state, tuple(listing), newest, verdicts, problem)
