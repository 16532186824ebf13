"""§ D.2: known lifecycle-script failures in the LifecycleConfig CloudWatch streams.

CloudWatch is asked once (one FilterLogEvents query over every LifecycleConfig stream,
with a broad any-term pattern) and the returned lines are classified here, in Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tools.checks._logs import no_log_group, stream_coverage, stream_parts
from tools.checks._text import clip, quoted
from tools.findings import Finding, Priority, fail, info, passed
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_LOGS = "lifecycle-logs"

STREAM_PREFIX = "LifecycleConfig/"
LOG_CAP = 300


def _rx(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


@dataclass(frozen=True)
class LogFamily:
    key: str
    title: str
    pattern: re.Pattern[str]


# The most specific cause first; the generic script failure is reported only for streams
# that no specific family explains.
LOG_FAMILIES: tuple[LogFamily, ...] = (
    LogFamily(
        "crlf",
        "CRLF (Windows) line endings in a lifecycle script",
        _rx(r"\$'\\r'|\\r'?: command not found|\r: command not found|/bin/(ba)?sh\^M"),
    ),
    LogFamily(
        "s3-timeout",
        "timeout reaching S3 (check the S3 endpoint and routing, § B.4)",
        _rx(
            r"(connect|read) timeout on endpoint url|could not connect to the endpoint url"
            r"|(connection|connect|read|request) timed? ?out.{0,120}\bs3\b"
            r"|\bs3\b.{0,120}timed? ?out"
        ),
    ),
    LogFamily(
        "access-denied",
        "access denied (check the instance role and bucket policy, § D.1)",
        _rx(
            r"AccessDenied|An error occurred \(403\)|\b403\b.{0,40}Forbidden"
            r"|Forbidden.{0,40}\b403\b|is not authorized to perform"
        ),
    ),
    LogFamily(
        "parameter-mismatch",
        "parameter or instance-group name mismatch with provisioning_parameters.json",
        _rx(
            r"KeyError|provisioning_parameters\S*.{0,120}(error|not found|missing|invalid|mismatch)"
            r"|(error|not found|missing|invalid|mismatch).{0,120}provisioning_parameters"
            r"|instance[ _-]?group\b.{0,120}\bnot (found|defined|present|in)"
        ),
    ),
    LogFamily(
        "script-failure",
        "lifecycle script failure",
        _rx(
            r"exit (code|status)[ :=]*[1-9]|returned (a )?non-zero|non-zero exit"
            r"|(script|on_create\S*|lifecycle|provision\w*)\b.{0,80}\bfail(ed|ure|s)?\b"
            r"|\bfail(ed|ure)\b.{0,80}\b(script|on_create|lifecycle)"
        ),
    ),
)
GENERIC = "script-failure"

# One CloudWatch query for every family: any term (CloudWatch terms are case-sensitive).
LOG_FILTER = " ".join(
    f"?{term}"
    for term in (
        '"command not found"',
        "timeout",
        '"timed out"',
        '"Could not connect"',
        "AccessDenied",
        "Forbidden",
        '"(403)"',
        '"not authorized"',
        "KeyError",
        "provisioning_parameters",
        '"not found"',
        '"exit code"',
        '"exit status"',
        '"non-zero"',
        "failed",
        "Failed",
        "FAILED",
        "failure",
        "Failure",
    )
)


def classify_line(message: str) -> LogFamily | None:
    for family in LOG_FAMILIES:
        if family.pattern.search(message or ""):
            return family
    return None


def judge_lifecycle_logs(
    events: list[dict[str, Any]],
    *,
    log_group_exists: bool = True,
    streams: list[str] | None = None,
    node: str | None = None,
    cap: int = LOG_CAP,
) -> list[Finding]:
    """FAIL P0 per failure family found in LifecycleConfig streams, naming the instances."""
    if not log_group_exists:
        return [no_log_group(CHECK_LOGS, "L", "Lifecycle logs")]
    findings: list[Finding] = []
    if streams is not None:
        findings.append(stream_coverage(CHECK_LOGS, "D.2", "LifecycleConfig", streams, node))
    # stream -> family key -> first matching message
    hits: dict[str, dict[str, str]] = {}
    for event in events:
        if not isinstance(event, dict):
            continue
        stream = str(event.get("logStreamName") or "")
        if node is not None and stream_parts(stream)[1] != node:
            continue
        family = classify_line(str(event.get("message") or ""))
        if family is not None:
            hits.setdefault(stream, {}).setdefault(family.key, str(event.get("message")))
    by_family: dict[str, list[tuple[str, str]]] = {}
    for stream, families in hits.items():
        specific = [k for k in families if k != GENERIC]
        for key in specific or [GENERIC]:
            by_family.setdefault(key, []).append((stream, families[key]))
    for family in LOG_FAMILIES:
        members = sorted(by_family.get(family.key, []))
        if not members:
            continue
        instances = sorted({stream_parts(s)[1] for s, _ in members if stream_parts(s)[1]})
        sample_stream, sample = members[0]
        shown = ", ".join(instances[:5]) + ("…" if len(instances) > 5 else "")
        findings.append(
            fail(
                CHECK_LOGS,
                Priority.P0,
                "D.2",
                f"Lifecycle scripts on {shown or 'unknown instances'} failed "
                f"({family.title}): {quoted(sample)}",
                resources=instances,
                family=family.key,
                streams=[s for s, _ in members][:20],
                sample_stream=sample_stream,
                sample=clip(sample),
            )
        )
    if len(events) >= cap:
        findings.append(
            info(
                CHECK_LOGS,
                "D.2",
                f"Only the first {cap} candidate lifecycle log lines of the last week were read",
                cap=cap,
            )
        )
    if not by_family:
        findings.append(
            passed(
                CHECK_LOGS,
                "D.2",
                "No lifecycle script errors in the LifecycleConfig streams of the last week"
                + (f" for {node}" if node else ""),
                candidate_lines=len(events),
            )
        )
    return findings


@check(CHECK_LOGS, section="D.2", title="Lifecycle script logs")
def lifecycle_logs(data: ClusterData) -> Iterable[Finding]:
    """Known lifecycle failure patterns in the LifecycleConfig CloudWatch streams."""
    if not data.log_group_exists():
        return judge_lifecycle_logs([], log_group_exists=False)
    streams = [str(s.get("logStreamName", "")) for s in data.log_streams(STREAM_PREFIX)]
    events = data.log_events(STREAM_PREFIX, LOG_FILTER, cap=LOG_CAP)
    return judge_lifecycle_logs(events, streams=streams, node=data.target.node)
