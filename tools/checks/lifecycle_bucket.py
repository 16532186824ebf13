"""§ D.1: can each instance group's execution role read its lifecycle scripts from S3?

Only the execution role's identity policies are evaluated (bucket policies are not read),
so a FAIL names what is missing rather than claiming the bucket is unreadable by every
path. Buckets named sagemaker-* are covered by the managed instance-role policy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from tools.checks._iam_policy import policy_decision
from tools.checks._text import clip, quoted
from tools.findings import Finding, Priority, fail, info, passed
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_BUCKET = "lifecycle-bucket-access"

MANAGED_PREFIX = "sagemaker-"


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


@check(CHECK_BUCKET, section="D.1", title="Lifecycle bucket access")
def lifecycle_bucket_access(data: ClusterData) -> Iterable[Finding]:
    """Whether each group's execution role may read its lifecycle scripts from S3."""
    sources, notes = lifecycle_sources(data.instance_groups())
    policies = {role: data.role_policy_documents(role) for role in roles_to_check(sources)}
    return [*notes, *judge_bucket_access(sources, policies)]
