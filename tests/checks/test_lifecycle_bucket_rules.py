"""§ D.1 rules without their words: what a role's identity policies say about reading its
lifecycle bucket, and how groups sharing one answer merge."""

from __future__ import annotations

from typing import Any

from tools.checks.lifecycle_bucket import (
    Access,
    LifecycleSource,
    RoleBucketAccess,
    bucket_access_verdicts,
    role_bucket_access,
)
from tools.triage.data.iam_model import PolicyDocument

ROLE = "arn:aws:iam::111122223333:role/hp-exec"
OTHER_ROLE = "arn:aws:iam::111122223333:role/other"


def source(group: str, bucket: str = "lcs", role: str = ROLE) -> LifecycleSource:
    # The URI names the group so that a merged verdict shows whose URI it kept.
    return LifecycleSource(group, role, f"s3://{bucket}/x/?{group}", bucket, "x/on_create.sh")


def policy(effect: str, action: str, resource: str, **condition: Any) -> PolicyDocument:
    statement: dict[str, Any] = {"Effect": effect, "Action": action, "Resource": resource}
    if condition:
        statement["Condition"] = condition
    return PolicyDocument.from_api({"Statement": [statement]})


def test_grant_of_both_reads() -> None:
    access = role_bucket_access(source("gpu"), [policy("Allow", "s3:*", "*")])
    assert access == RoleBucketAccess(ROLE, "lcs", Access.GRANTED)


def test_missing_reads_are_named() -> None:
    granted = policy("Allow", "s3:GetObject", "arn:aws:s3:::lcs/*")
    access = role_bucket_access(source("gpu"), [granted])
    assert (access.access, access.missing, access.denied) == (
        Access.MISSING,
        ("s3:ListBucket",),
        (),
    )


def test_an_explicit_deny_outweighs_a_grant() -> None:
    documents = [policy("Allow", "s3:*", "*"), policy("Deny", "s3:GetObject", "*")]
    access = role_bucket_access(source("gpu"), documents)
    assert (access.access, access.denied) == (Access.DENIED, ("s3:GetObject",))


def test_a_conditional_deny_is_recorded_but_not_a_deny() -> None:
    documents = [
        policy("Allow", "s3:*", "*"),
        policy("Deny", "s3:*", "*", Bool={"aws:SecureTransport": "false"}),
    ]
    access = role_bucket_access(source("gpu"), documents)
    assert (access.access, access.conditional_denies) == (
        Access.GRANTED,
        ("aws:SecureTransport",),
    )


def test_a_group_without_a_role_is_not_judged() -> None:
    access = role_bucket_access(source("gpu", role=""), [policy("Deny", "*", "*")])
    assert access == RoleBucketAccess("", "lcs", Access.NO_ROLE)


def test_groups_sharing_an_answer_merge_and_verdicts_sort_by_role_then_bucket() -> None:
    sources = [source("gpu"), source("cpu"), source("ops", role=OTHER_ROLE), source("a", "b2")]
    policies = {ROLE: [policy("Allow", "s3:*", "*")]}
    verdicts = bucket_access_verdicts(sources, policies)
    assert [(v.access.role, v.access.bucket, v.access.access, v.groups) for v in verdicts] == [
        (ROLE, "b2", Access.GRANTED, ("a",)),
        (ROLE, "lcs", Access.GRANTED, ("cpu", "gpu")),
        (OTHER_ROLE, "lcs", Access.MISSING, ("ops",)),
    ]
    assert verdicts[1].source == "s3://lcs/x/?gpu"  # the first group given, not the first sorted
