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
from typing import Any, NamedTuple
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


class _Verdict(NamedTuple):
    """What one role's identity policies say about one bucket (groups sharing it merge)."""

    role: str
    bucket: str
    verdict: str  # granted, missing, denied or no-role
    missing: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    conditional_denies: tuple[str, ...] = ()


def _actions(actions: tuple[str, ...]) -> str:
    """s3:GetObject/ListBucket: one service prefix for a list of s3 actions."""
    names = [a.removeprefix("s3:") for a in actions]
    return "s3:" + "/".join(names) if names else ""


def judge_bucket_access(
    sources: list[LifecycleSource], policies: Mapping[str, Sequence[PolicyDocument]]
) -> list[Finding]:
    """Whether each group's execution role may read its lifecycle scripts, per its identity
    policies: PASS when granted, WARN P1 when not granted (a bucket policy may still allow
    it), FAIL P0 only on an unconditional explicit Deny."""
    verdicts: dict[_Verdict, list[LifecycleSource]] = {}
    for source in sources:
        if not source.role:
            key = _Verdict("", source.bucket, "no-role")
        else:
            documents = policies.get(source.role, [])
            partition = _partition(source.role)
            checks = (
                ("s3:GetObject", f"arn:{partition}:s3:::{source.bucket}/{source.key}"),
                ("s3:ListBucket", f"arn:{partition}:s3:::{source.bucket}"),
            )
            missing: list[str] = []
            denied: list[str] = []
            conditions: set[str] = set()
            for action, resource in checks:
                decision = evaluate(documents, action, resource)
                conditions.update(decision.conditional_denies)
                if decision.verdict == "deny":
                    denied.append(action)
                elif decision.verdict != "allow":
                    missing.append(action)
            verdict = "denied" if denied else ("missing" if missing else "granted")
            key = _Verdict(
                source.role,
                source.bucket,
                verdict,
                tuple(missing),
                tuple(denied),
                tuple(sorted(conditions)),
            )
        verdicts.setdefault(key, []).append(source)
    findings: list[Finding] = []
    for verdict_key, members in sorted(verdicts.items()):
        role, bucket, verdict = verdict_key.role, verdict_key.bucket, verdict_key.verdict
        lacking, denied_actions = verdict_key.missing, verdict_key.denied
        conditional = verdict_key.conditional_denies
        groups = sorted(s.group for s in members)
        managed = bucket.startswith(MANAGED_PREFIX)
        evidence: dict[str, Any] = {
            "groups": groups,
            "bucket": bucket,
            "role": role,
            "source": members[0].uri,
            "missing_actions": sorted([*lacking, *denied_actions]),
            "denied_actions": list(denied_actions),
            "managed_bucket": managed,
        }
        if conditional:
            # Deny statements with a Condition (e.g. aws:SecureTransport=false) were not
            # evaluated and do not count as a deny of the role's reads.
            evidence["conditional_denies"] = list(conditional)
        named = ", ".join(groups)
        role_name = role.rsplit("/", 1)[-1] if role else ""
        if verdict == "no-role":
            findings.append(
                BUCKET_FINDINGS.info(
                    f"Instance group {named} has no ExecutionRole: access to lifecycle bucket "
                    f"{bucket} not judged",
                    **evidence,
                )
            )
        elif verdict == "granted":
            via = f" (through {MANAGED_POLICY} or an equivalent grant)" if managed else ""
            findings.append(
                BUCKET_FINDINGS.passed(
                    f"Instance role {role_name} may read lifecycle bucket {bucket} ({named}){via}",
                    **evidence,
                )
            )
        elif verdict == "denied":
            findings.append(
                BUCKET_FINDINGS.fail(
                    Priority.P0,
                    f"Instance role {role_name} cannot read lifecycle bucket {bucket} "
                    f"({named}): its identity policies explicitly deny "
                    f"{_actions(denied_actions)}"
                    + (f" and do not grant {_actions(lacking)}" if lacking else "")
                    + " (no bucket policy can override an explicit deny)",
                    resources=[role, f"s3://{bucket}"],
                    **evidence,
                )
            )
        else:
            why = (
                f"; neither {MANAGED_POLICY} (which covers sagemaker-* buckets) nor an "
                "equivalent grant is attached"
                if managed
                else f"; the managed {MANAGED_POLICY} only covers sagemaker-* buckets"
            )
            findings.append(
                BUCKET_FINDINGS.warn(
                    Priority.P1,
                    f"Identity policies of role {role_name} do not grant {_actions(lacking)} "
                    f"on lifecycle bucket {bucket} ({named}) (a bucket policy may still allow "
                    f"it; not read){why}",
                    resources=[role, f"s3://{bucket}"],
                    **evidence,
                )
            )
    return findings


@check(BUCKET_FINDINGS, title="Lifecycle bucket access")
def lifecycle_bucket_access(data: ClusterData) -> Iterable[Finding]:
    """Whether each group's execution role may read its lifecycle scripts from S3."""
    sources, notes = lifecycle_sources(data.instance_groups())
    policies = {role: data.role_policy_documents(role) for role in roles_to_check(sources)}
    return [*notes, *judge_bucket_access(sources, policies)]
