"""§ D: lifecycle scripts — can the instance role read the bucket (D.1), did they fail (D.2).

D.1 evaluates the execution role's identity policies only (bucket policies are not read), so
a FAIL names what is missing rather than claiming the bucket is unreadable by every path.
D.2 asks CloudWatch once (one FilterLogEvents query over every LifecycleConfig stream, with
a broad any-term pattern) and classifies the returned lines here, in Python.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from tools.checks._text import clip, quoted
from tools.findings import Finding, Priority, fail, info, passed
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_BUCKET = "lifecycle-bucket-access"
CHECK_LOGS = "lifecycle-logs"

MANAGED_PREFIX = "sagemaker-"
STREAM_PREFIX = "LifecycleConfig/"
LOG_CAP = 300

# -- D.1: S3 access of the execution role --------------------------------------------------


def parse_s3_uri(uri: str) -> tuple[str, str] | None:
    """(bucket, key prefix) of an s3:// or https:// S3 URI; None when it is not one."""
    parsed = urlparse(uri.strip())
    if parsed.scheme == "s3" and parsed.netloc:
        return parsed.netloc, parsed.path.lstrip("/")
    if parsed.scheme == "https" and parsed.netloc:
        host, path = parsed.netloc.lower(), parsed.path.lstrip("/")
        virtual = re.match(r"^(?P<bucket>[a-z0-9.-]+)\.s3[.-]", host)
        if virtual:
            return virtual.group("bucket"), path
        if host.startswith("s3.") or host.startswith("s3-") or host == "s3.amazonaws.com":
            bucket, _, key = path.partition("/")
            return (bucket, key) if bucket else None
    return None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _matches_any(patterns: list[Any], value: str, *, case: bool) -> bool:
    for pattern in patterns:
        if not isinstance(pattern, str):
            continue
        if case and fnmatch.fnmatchcase(value, pattern):
            return True
        if not case and fnmatch.fnmatchcase(value.lower(), pattern.lower()):
            return True
    return False


def _statement_applies(statement: dict[str, Any], action: str, resource: str) -> bool:
    if "Action" in statement:
        action_ok = _matches_any(_as_list(statement["Action"]), action, case=False)
    elif "NotAction" in statement:
        action_ok = not _matches_any(_as_list(statement["NotAction"]), action, case=False)
    else:
        return False
    if "Resource" in statement:
        resource_ok = _matches_any(_as_list(statement["Resource"]), resource, case=True)
    elif "NotResource" in statement:
        resource_ok = not _matches_any(_as_list(statement["NotResource"]), resource, case=True)
    else:
        return False
    return action_ok and resource_ok


def policy_decision(documents: list[dict[str, Any]], action: str, resource: str) -> str:
    """'deny' (explicit), 'allow', or 'implicit-deny' over identity-policy documents.

    Conditions are not evaluated: a conditional Allow counts as an Allow (optimistic), a
    conditional Deny as a Deny.
    """
    allowed = False
    for document in documents:
        if not isinstance(document, dict):
            continue
        for statement in _as_list(document.get("Statement")):
            if not isinstance(statement, dict) or not _statement_applies(
                statement, action, resource
            ):
                continue
            if statement.get("Effect") == "Deny":
                return "deny"
            if statement.get("Effect") == "Allow":
                allowed = True
    return "allow" if allowed else "implicit-deny"


def _partition(role_arn: str) -> str:
    parts = role_arn.split(":")
    return parts[1] if len(parts) > 1 and parts[1].startswith("aws") else "aws"


@dataclass(frozen=True)
class LifecycleSource:
    group: str
    role: str
    uri: str
    bucket: str
    key: str


def lifecycle_sources(
    groups: list[dict[str, Any]],
) -> tuple[list[LifecycleSource], list[Finding]]:
    """Each group's lifecycle source, plus INFO findings for groups that cannot be judged."""
    sources: list[LifecycleSource] = []
    notes: list[Finding] = []
    for group in groups:
        name = str(group.get("InstanceGroupName") or "?")
        config = group.get("LifeCycleConfig")
        uri = str(config.get("SourceS3Uri") or "") if isinstance(config, dict) else ""
        parsed = parse_s3_uri(uri) if uri else None
        if parsed is None:
            notes.append(
                info(
                    CHECK_BUCKET,
                    "D.1",
                    f"Instance group {name}: no readable LifeCycleConfig.SourceS3Uri "
                    f"({quoted(uri, 120) if uri else 'missing'})",
                    group=name,
                    source=clip(uri, 120),
                )
            )
            continue
        bucket, prefix = parsed
        on_create = (
            str(config.get("OnCreate") or "on_create.sh") if isinstance(config, dict) else ""
        )
        if prefix and not prefix.endswith("/"):
            prefix += "/"
        sources.append(
            LifecycleSource(
                group=name,
                role=str(group.get("ExecutionRole") or ""),
                uri=uri,
                bucket=bucket,
                key=f"{prefix}{on_create}",
            )
        )
    return sources, notes


def roles_to_check(sources: list[LifecycleSource]) -> list[str]:
    """Execution roles whose policies decide access: those of buckets not named sagemaker-*."""
    return sorted({s.role for s in sources if s.role and not s.bucket.startswith(MANAGED_PREFIX)})


def judge_bucket_access(
    sources: list[LifecycleSource], policies: dict[str, list[dict[str, Any]]]
) -> list[Finding]:
    """FAIL P0 when a non-sagemaker-* lifecycle bucket is not readable by the group's role."""
    verdicts: dict[tuple[str, str, tuple[str, ...], str], list[LifecycleSource]] = {}
    for source in sources:
        if source.bucket.startswith(MANAGED_PREFIX):
            key: tuple[str, str, tuple[str, ...], str] = (source.role, source.bucket, (), "managed")
        elif not source.role:
            key = ("", source.bucket, (), "no-role")
        else:
            documents = policies.get(source.role, [])
            partition = _partition(source.role)
            checks = (
                ("s3:GetObject", f"arn:{partition}:s3:::{source.bucket}/{source.key}"),
                ("s3:ListBucket", f"arn:{partition}:s3:::{source.bucket}"),
            )
            missing: list[str] = []
            denied = False
            for action, resource in checks:
                decision = policy_decision(documents, action, resource)
                if decision != "allow":
                    missing.append(action)
                    denied = denied or decision == "deny"
            verdict = "denied" if denied else ("missing" if missing else "granted")
            key = (source.role, source.bucket, tuple(missing), verdict)
        verdicts.setdefault(key, []).append(source)
    findings: list[Finding] = []
    for (role, bucket, lacking, verdict), members in sorted(verdicts.items()):
        groups = sorted(s.group for s in members)
        evidence: dict[str, Any] = {
            "groups": groups,
            "bucket": bucket,
            "role": role,
            "source": members[0].uri,
            "missing_actions": list(lacking),
        }
        named = ", ".join(groups)
        role_name = role.rsplit("/", 1)[-1] if role else ""
        if verdict == "managed":
            findings.append(
                passed(
                    CHECK_BUCKET,
                    "D.1",
                    f"Lifecycle bucket {bucket} ({named}) is covered by the managed instance-role "
                    "policy (sagemaker-* buckets)",
                    **evidence,
                )
            )
        elif verdict == "no-role":
            findings.append(
                info(
                    CHECK_BUCKET,
                    "D.1",
                    f"Instance group {named} has no ExecutionRole: access to lifecycle bucket "
                    f"{bucket} not judged",
                    **evidence,
                )
            )
        elif verdict == "granted":
            findings.append(
                passed(
                    CHECK_BUCKET,
                    "D.1",
                    f"Instance role {role_name} may read lifecycle bucket {bucket} ({named})",
                    **evidence,
                )
            )
        else:
            how = "explicitly deny" if verdict == "denied" else "do not grant"
            findings.append(
                fail(
                    CHECK_BUCKET,
                    Priority.P0,
                    "D.1",
                    f"Instance role {role_name} cannot read lifecycle bucket {bucket} "
                    f"({named}): its policies {how} {' and '.join(lacking)} "
                    "(the managed policy only covers sagemaker-* buckets)",
                    resources=[role, f"s3://{bucket}"],
                    **evidence,
                )
            )
    return findings


# -- D.2: lifecycle script output ----------------------------------------------------------


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


def stream_parts(stream: str) -> tuple[str, str]:
    """(group, instance id) of `<Prefix>/<group>/<instance-id>`; blanks for other shapes."""
    parts = stream.split("/")
    if len(parts) >= 3:
        return parts[-2], parts[-1]
    return "", parts[-1] if parts else ""


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
        return [
            info(
                CHECK_LOGS,
                "L",
                "Lifecycle logs not read: the cluster has no CloudWatch log group "
                "(see the cloudwatch-logs finding)",
            )
        ]
    findings: list[Finding] = []
    if streams is not None:
        mine = [s for s in streams if node is None or stream_parts(s)[1] == node]
        findings.append(
            info(
                CHECK_LOGS,
                "D.2",
                f"{len(mine)} LifecycleConfig log streams" + (f" for {node}" if node else ""),
                streams=len(mine),
            )
        )
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


@check(CHECK_BUCKET, section="D.1", title="Lifecycle bucket access")
def lifecycle_bucket_access(data: ClusterData) -> Iterable[Finding]:
    """Whether each group's execution role may read its lifecycle scripts from S3."""
    sources, notes = lifecycle_sources(data.instance_groups())
    policies = {role: data.role_policy_documents(role) for role in roles_to_check(sources)}
    return [*notes, *judge_bucket_access(sources, policies)]


@check(CHECK_LOGS, section="D.2", title="Lifecycle script logs")
def lifecycle_logs(data: ClusterData) -> Iterable[Finding]:
    """Known lifecycle failure patterns in the LifecycleConfig CloudWatch streams."""
    if not data.log_group_exists():
        return judge_lifecycle_logs([], log_group_exists=False)
    streams = [str(s.get("logStreamName", "")) for s in data.log_streams(STREAM_PREFIX)]
    events = data.log_events(STREAM_PREFIX, LOG_FILTER, cap=LOG_CAP)
    return judge_lifecycle_logs(events, streams=streams, node=data.target.node)
