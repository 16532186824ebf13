"""§ D.1: can each instance group's execution role read its lifecycle scripts from S3?

Only the execution role's identity policies are evaluated (bucket policies are not read),
so a missing grant is a WARN that names what the role's policies lack, not a claim that
the bucket is unreadable by every path; only an unconditional explicit Deny in those
policies (which no bucket policy can override) is a FAIL. Buckets named sagemaker-* are
readable through the managed AmazonSageMakerClusterInstanceRolePolicy, so for them the
check verifies that the role carries it (or an equivalent grant).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, assert_never
from urllib.parse import urlparse

from tools.checks._iam_policy import evaluate
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData
from tools.triage.data.iam_model import PolicyDocument
from tools.triage.data.sagemaker_model import InstanceGroup

CHECK_BUCKET = "lifecycle-bucket-access"
BUCKET_FINDINGS = Findings(CHECK_BUCKET, "D.1")

MANAGED_PREFIX = "sagemaker-"
MANAGED_POLICY = "AmazonSageMakerClusterInstanceRolePolicy"


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
    groups: Iterable[InstanceGroup],
) -> tuple[list[LifecycleSource], list[Finding]]:
    """Each group's lifecycle source, plus INFO findings for groups that cannot be judged."""
    sources: list[LifecycleSource] = []
    notes: list[Finding] = []
    for group in groups:
        name = group.name or "?"
        uri = group.lifecycle_source
        parsed = parse_s3_uri(uri) if uri else None
        if parsed is None:
            notes.append(
                BUCKET_FINDINGS.info(
                    f"Instance group {name}: no readable LifeCycleConfig.SourceS3Uri "
                    f"({quoted(uri, 120) if uri else 'missing'})",
                    group=name,
                    source=clip(uri, 120),
                )
            )
            continue
        bucket, prefix = parsed
        on_create = group.lifecycle_on_create or "on_create.sh"
        if prefix and not prefix.endswith("/"):
            prefix += "/"
        sources.append(
            LifecycleSource(
                group=name,
                role=group.execution_role,
                uri=uri,
                bucket=bucket,
                key=f"{prefix}{on_create}",
            )
        )
    return sources, notes


def roles_to_check(sources: list[LifecycleSource]) -> list[str]:
    """Execution roles whose identity policies decide access (every group's, sagemaker-*
    buckets included: the managed policy that covers them must actually be attached)."""
    return sorted({s.role for s in sources if s.role})


class Access(StrEnum):
    """What a role's identity policies say about reading a lifecycle bucket (a StrEnum: the
    report orders verdicts by these values)."""

    DENIED = "denied"  # an unconditional explicit Deny of a read
    GRANTED = "granted"
    MISSING = "missing"  # not granted, not denied: a bucket policy may still allow it
    NO_ROLE = "no-role"  # the group has no execution role to judge


@dataclass(frozen=True, slots=True, order=True)
class RoleBucketAccess:
    """What one role's identity policies say about one bucket (groups sharing it merge)."""

    role: str
    bucket: str
    access: Access
    missing: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    conditional_denies: tuple[str, ...] = ()  # sorted; not evaluated, so not a deny


@dataclass(frozen=True, slots=True)
class BucketAccessVerdict:
    """One role-and-bucket access and the instance groups it decides for."""

    access: RoleBucketAccess
    groups: tuple[str, ...]  # sorted
    source: str  # the SourceS3Uri of the first of those groups


def _actions(actions: tuple[str, ...]) -> str:
    """s3:GetObject/ListBucket: one service prefix for a list of s3 actions."""
    names = [a.removeprefix("s3:") for a in actions]
    return "s3:" + "/".join(names) if names else ""


def role_bucket_access(
    source: LifecycleSource, documents: Sequence[PolicyDocument]
) -> RoleBucketAccess:
    """Whether `documents` (the role's identity policies) let it get the group's on-create
    script and list its bucket."""
    if not source.role:
        return RoleBucketAccess("", source.bucket, Access.NO_ROLE)
    partition = _partition(source.role)
    reads = (
        ("s3:GetObject", f"arn:{partition}:s3:::{source.bucket}/{source.key}"),
        ("s3:ListBucket", f"arn:{partition}:s3:::{source.bucket}"),
    )
    missing: list[str] = []
    denied: list[str] = []
    conditions: set[str] = set()
    for action, resource in reads:
        decision = evaluate(documents, action, resource)
        conditions.update(decision.conditional_denies)
        if decision.verdict == "deny":
            denied.append(action)
        elif decision.verdict != "allow":
            missing.append(action)
    access = Access.DENIED if denied else (Access.MISSING if missing else Access.GRANTED)
    return RoleBucketAccess(
        source.role,
        source.bucket,
        access,
        tuple(missing),
        tuple(denied),
        tuple(sorted(conditions)),
    )


def bucket_access_verdicts(
    sources: list[LifecycleSource], policies: Mapping[str, Sequence[PolicyDocument]]
) -> list[BucketAccessVerdict]:
    """One verdict per distinct access, the groups that share it merged, in access order."""
    members: dict[RoleBucketAccess, list[LifecycleSource]] = {}
    for source in sources:
        access = role_bucket_access(source, policies.get(source.role, []))
        members.setdefault(access, []).append(source)
    return [
        BucketAccessVerdict(access, tuple(sorted(s.group for s in shared)), source=shared[0].uri)
        for access, shared in sorted(members.items())
    ]


def _evidence(verdict: BucketAccessVerdict) -> dict[str, Any]:
    access = verdict.access
    evidence: dict[str, Any] = {
        "groups": list(verdict.groups),
        "bucket": access.bucket,
        "role": access.role,
        "source": verdict.source,
        "missing_actions": sorted([*access.missing, *access.denied]),
        "denied_actions": list(access.denied),
        "managed_bucket": access.bucket.startswith(MANAGED_PREFIX),
    }
    if access.conditional_denies:
        # Deny statements with a Condition (e.g. aws:SecureTransport=false) were not
        # evaluated and do not count as a deny of the role's reads.
        evidence["conditional_denies"] = list(access.conditional_denies)
    return evidence


def _role_name(role: str) -> str:
    return role.rsplit("/", 1)[-1] if role else ""


def word_no_role(verdict: BucketAccessVerdict) -> Finding:
    """INFO: without an execution role there is nothing to judge."""
    return BUCKET_FINDINGS.info(
        f"Instance group {', '.join(verdict.groups)} has no ExecutionRole: access to "
        f"lifecycle bucket {verdict.access.bucket} not judged",
        **_evidence(verdict),
    )


def word_granted(verdict: BucketAccessVerdict) -> Finding:
    """PASS, naming the managed policy for a sagemaker-* bucket."""
    bucket = verdict.access.bucket
    via = (
        f" (through {MANAGED_POLICY} or an equivalent grant)"
        if bucket.startswith(MANAGED_PREFIX)
        else ""
    )
    return BUCKET_FINDINGS.passed(
        f"Instance role {_role_name(verdict.access.role)} may read lifecycle bucket {bucket} "
        f"({', '.join(verdict.groups)}){via}",
        **_evidence(verdict),
    )


def word_denied(verdict: BucketAccessVerdict) -> Finding:
    """FAIL P0: no bucket policy can override an explicit deny."""
    access = verdict.access
    lacking = f" and do not grant {_actions(access.missing)}" if access.missing else ""
    return BUCKET_FINDINGS.fail(
        Priority.P0,
        f"Instance role {_role_name(access.role)} cannot read lifecycle bucket {access.bucket} "
        f"({', '.join(verdict.groups)}): its identity policies explicitly deny "
        f"{_actions(access.denied)}{lacking} (no bucket policy can override an explicit deny)",
        resources=[access.role, f"s3://{access.bucket}"],
        **_evidence(verdict),
    )


def word_missing(verdict: BucketAccessVerdict) -> Finding:
    """WARN P1: not granted by the role, though a bucket policy (not read) may allow it."""
    access = verdict.access
    why = (
        f"; neither {MANAGED_POLICY} (which covers sagemaker-* buckets) nor an "
        "equivalent grant is attached"
        if access.bucket.startswith(MANAGED_PREFIX)
        else f"; the managed {MANAGED_POLICY} only covers sagemaker-* buckets"
    )
    return BUCKET_FINDINGS.warn(
        Priority.P1,
        f"Identity policies of role {_role_name(access.role)} do not grant "
        f"{_actions(access.missing)} on lifecycle bucket {access.bucket} "
        f"({', '.join(verdict.groups)}) (a bucket policy may still allow it; not read){why}",
        resources=[access.role, f"s3://{access.bucket}"],
        **_evidence(verdict),
    )


def word(verdict: BucketAccessVerdict) -> Finding:
    """The finding that states one bucket-access verdict."""
    match verdict.access.access:
        case Access.NO_ROLE:
            return word_no_role(verdict)
        case Access.GRANTED:
            return word_granted(verdict)
        case Access.DENIED:
            return word_denied(verdict)
        case Access.MISSING:
            return word_missing(verdict)
        case _:
            assert_never(verdict.access.access)


def judge_bucket_access(
    sources: list[LifecycleSource], policies: Mapping[str, Sequence[PolicyDocument]]
) -> list[Finding]:
    """Whether each group's execution role may read its lifecycle scripts, per its identity
    policies: PASS when granted, WARN P1 when not granted (a bucket policy may still allow
    it), FAIL P0 only on an unconditional explicit Deny."""
    return [word(verdict) for verdict in bucket_access_verdicts(sources, policies)]


@check(BUCKET_FINDINGS, title="Lifecycle bucket access")
def lifecycle_bucket_access(data: ClusterData) -> Iterable[Finding]:
    """Whether each group's execution role may read its lifecycle scripts from S3."""
    sources, notes = lifecycle_sources(data.instance_groups())
    policies = {role: data.role_policy_documents(role) for role in roles_to_check(sources)}
    return [*notes, *judge_bucket_access(sources, policies)]
