"""§ D.1 rules over literal DescribeCluster / IAM dicts.

Covers tools/checks/lifecycle_bucket.py (D.1, with _iam_policy.py): can each execution
role read its lifecycle scripts' bucket.
"""

from __future__ import annotations

from typing import Any

import pytest

from cluster_simulator import base
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.checks import lifecycle_bucket
from tools.checks._iam_policy import evaluate, policy_decision
from tools.checks.lifecycle_bucket import (
    CHECK_BUCKET,
    LifecycleSource,
    judge_bucket_access,
    lifecycle_bucket_access,
    parse_s3_uri,
    roles_to_check,
)
from tools.findings import Finding, Priority, Status
from tools.target import TriageTarget
from tools.triage.data import ClusterData
from tools.triage.data.iam_model import PolicyDocument
from tools.triage.data.sagemaker_model import InstanceGroup

ROLE = "arn:aws:iam::111122223333:role/hp-exec"


def group(name: str, uri: Any, role: Any = ROLE, on_create: str = "on_create.sh") -> Any:
    return {
        "InstanceGroupName": name,
        "ExecutionRole": role,
        "LifeCycleConfig": {"SourceS3Uri": uri, "OnCreate": on_create},
    }


def allow(actions: Any, resources: Any, effect: str = "Allow") -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": effect, "Action": actions, "Resource": resources}],
    }


MANAGED = allow(
    ["s3:ListBucket", "s3:GetObject"], ["arn:aws:s3:::sagemaker-*", "arn:aws:s3:::sagemaker-*/*"]
)


def lifecycle_sources(
    groups: list[dict[str, Any]],
) -> tuple[list[LifecycleSource], list[Finding]]:
    # The rule takes parsed instance groups; the cases stay literal DescribeCluster entries.
    return lifecycle_bucket.lifecycle_sources(InstanceGroup.from_api(g) for g in groups)


def parsed(documents: list[Any]) -> list[PolicyDocument]:
    """Policy documents as IAM returns them (free-form JSON), parsed as the read does."""
    return [PolicyDocument.from_api(d) for d in documents]


def judge(groups: list[Any], documents: list[dict[str, Any]]) -> list[Any]:
    sources, notes = lifecycle_sources(groups)
    return notes + judge_bucket_access(sources, {ROLE: parsed(documents)})


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("s3://my-bucket/lcs/", ("my-bucket", "lcs/")),
        ("s3://my-bucket", ("my-bucket", "")),
        ("https://my-bucket.s3.us-west-2.amazonaws.com/lcs/", ("my-bucket", "lcs/")),
        ("https://s3.us-west-2.amazonaws.com/my-bucket/lcs/", ("my-bucket", "lcs/")),
        ("ftp://x/y", None),
        ("not a uri", None),
    ],
)
def test_parse_s3_uri(uri: str, expected: Any) -> None:
    assert parse_s3_uri(uri) == expected


def test_sagemaker_bucket_with_the_managed_policy_passes() -> None:
    sources, _ = lifecycle_sources([group("gpu", "s3://sagemaker-lcs/x/")])
    assert roles_to_check(sources) == [ROLE]
    [finding] = judge_bucket_access(sources, {ROLE: parsed([MANAGED])})
    assert finding.status is Status.PASS
    assert "AmazonSageMakerClusterInstanceRolePolicy" in finding.message


def test_sagemaker_bucket_without_the_managed_policy_warns_p1() -> None:
    other = allow(["s3:GetObject", "s3:ListBucket"], ["arn:aws:s3:::data", "arn:aws:s3:::data/*"])
    [finding] = judge([group("gpu", "s3://sagemaker-lcs/x/")], [other])
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert "neither AmazonSageMakerClusterInstanceRolePolicy" in finding.message
    assert "a bucket policy may still allow it; not read" in finding.message
    assert finding.evidence["managed_bucket"] is True
    assert ROLE in finding.resources


def test_sagemaker_bucket_with_an_equivalent_inline_grant_passes() -> None:
    doc = allow("s3:*", ["arn:aws:s3:::sagemaker-lcs", "arn:aws:s3:::sagemaker-lcs/*"])
    [finding] = judge([group("gpu", "s3://sagemaker-lcs/x/")], [doc])
    assert finding.status is Status.PASS


def test_other_bucket_with_managed_policy_only_warns_p1() -> None:
    [finding] = judge([group("gpu", "s3://my-company-lcs/hyperpod/")], [MANAGED])
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert finding.section == "D.1"
    assert finding.check == CHECK_BUCKET
    assert finding.message.startswith(
        "Identity policies of role hp-exec do not grant s3:GetObject/ListBucket on lifecycle "
        "bucket my-company-lcs (gpu) (a bucket policy may still allow it; not read)"
    )
    assert "sagemaker-*" in finding.message
    assert ROLE in finding.resources
    assert finding.evidence["missing_actions"] == ["s3:GetObject", "s3:ListBucket"]


def test_grant_on_the_bucket_passes() -> None:
    doc = allow(
        ["s3:GetObject", "s3:ListBucket"],
        ["arn:aws:s3:::my-company-lcs", "arn:aws:s3:::my-company-lcs/*"],
    )
    [finding] = judge([group("gpu", "s3://my-company-lcs/hyperpod/")], [MANAGED, doc])
    assert finding.status is Status.PASS


@pytest.mark.parametrize(
    ("actions", "resources"),
    [
        ("s3:*", "*"),
        ("*", "*"),
        (["s3:Get*", "s3:List*"], ["arn:aws:s3:::my-company-*", "arn:aws:s3:::my-company-*/*"]),
        (["S3:GETOBJECT", "s3:listbucket"], ["arn:aws:s3:::my-company-lcs*"]),
        (
            ["s3:GetObject", "s3:ListBucket"],
            ["arn:aws:s3:::my-company-lcs", "arn:aws:s3:::my-company-lcs/hyperpod/*"],
        ),
    ],
)
def test_wildcards_are_honoured(actions: Any, resources: Any) -> None:
    [finding] = judge([group("gpu", "s3://my-company-lcs/hyperpod/")], [allow(actions, resources)])
    assert finding.status is Status.PASS


def test_grant_on_another_prefix_does_not_count() -> None:
    doc = allow(
        ["s3:GetObject", "s3:ListBucket"],
        ["arn:aws:s3:::my-company-lcs", "arn:aws:s3:::my-company-lcs/other/*"],
    )
    [finding] = judge([group("gpu", "s3://my-company-lcs/hyperpod/")], [doc])
    assert finding.status is Status.WARN
    assert finding.evidence["missing_actions"] == ["s3:GetObject"]
    assert "do not grant s3:GetObject on" in finding.message


def test_explicit_deny_wins() -> None:
    docs = [allow("s3:*", "*"), allow("s3:GetObject", "arn:aws:s3:::my-company-lcs/*", "Deny")]
    [finding] = judge([group("gpu", "s3://my-company-lcs/hyperpod/")], docs)
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert "explicitly deny s3:GetObject (" in finding.message
    assert finding.evidence["denied_actions"] == ["s3:GetObject"]


def test_explicit_deny_names_what_is_also_not_granted() -> None:
    docs = [allow("s3:GetObject", "arn:aws:s3:::my-company-lcs/*", "Deny")]
    [finding] = judge([group("gpu", "s3://my-company-lcs/hyperpod/")], docs)
    assert finding.status is Status.FAIL
    assert "explicitly deny s3:GetObject and do not grant s3:ListBucket" in finding.message


def secure_transport_deny() -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Deny",
                "Action": "s3:*",
                "Resource": "*",
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            }
        ],
    }


def test_conditional_deny_is_not_an_explicit_deny() -> None:
    docs = [MANAGED, secure_transport_deny()]
    [finding] = judge([group("gpu", "s3://sagemaker-lcs/x/")], docs)
    assert finding.status is Status.PASS
    assert finding.evidence["conditional_denies"] == ["aws:SecureTransport"]
    decision = evaluate(parsed(docs), "s3:GetObject", "arn:aws:s3:::sagemaker-lcs/x/on_create.sh")
    assert decision.verdict == "allow"
    assert decision.conditional_denies == ["aws:SecureTransport"]


def test_conditional_deny_without_a_grant_warns_not_fails() -> None:
    [finding] = judge([group("gpu", "s3://my-company-lcs/x/")], [secure_transport_deny()])
    assert finding.status is Status.WARN
    assert finding.evidence["denied_actions"] == []


@pytest.mark.parametrize("condition", [{}, None])
def test_empty_condition_is_an_unconditional_deny(condition: Any) -> None:
    doc = allow("s3:*", "*", "Deny")
    doc["Statement"][0]["Condition"] = condition
    assert (
        policy_decision(parsed([MANAGED, doc]), "s3:GetObject", "arn:aws:s3:::sagemaker-x/k")
        == "deny"
    )


def test_unreadable_condition_is_still_a_condition() -> None:
    doc = allow("s3:*", "*", "Deny")
    doc["Statement"][0]["Condition"] = "garbage"
    decision = evaluate(parsed([MANAGED, doc]), "s3:GetObject", "arn:aws:s3:::sagemaker-x/k")
    assert decision.verdict == "allow"
    assert decision.conditional_denies == ["(unreadable condition)"]


def test_not_action_and_not_resource() -> None:
    doc = {
        "Statement": [{"Effect": "Allow", "NotAction": "iam:*", "NotResource": "arn:aws:s3:::x"}]
    }
    assert policy_decision(parsed([doc]), "s3:GetObject", "arn:aws:s3:::my/obj") == "allow"
    assert policy_decision(parsed([doc]), "iam:GetRole", "arn:aws:s3:::my/obj") == "implicit-deny"
    assert policy_decision(parsed([doc]), "s3:GetObject", "arn:aws:s3:::x") == "implicit-deny"


def test_garbage_policies_do_not_crash() -> None:
    docs: list[Any] = [{}, {"Statement": "nope"}, {"Statement": [{"Effect": "Allow"}]}, "x"]
    assert policy_decision(parsed(docs), "s3:GetObject", "arn:aws:s3:::b/k") == "implicit-deny"


def test_groups_sharing_role_and_bucket_make_one_finding() -> None:
    findings = judge(
        [group("gpu", "s3://lcs-bucket/a/"), group("cpu", "s3://lcs-bucket/a/")], [MANAGED]
    )
    [finding] = findings
    assert finding.evidence["groups"] == ["cpu", "gpu"]


def test_group_without_lifecycle_or_role_is_info() -> None:
    findings = judge(
        [{"InstanceGroupName": "a"}, group("b", "garbage"), group("c", "s3://x-bucket/", role="")],
        [],
    )
    assert [f.status for f in findings] == [Status.INFO, Status.INFO, Status.INFO]


def test_partition_follows_the_role() -> None:
    role = "arn:aws-cn:iam::111122223333:role/hp-exec"
    sources, _ = lifecycle_sources([group("gpu", "s3://lcs/", role=role)])
    doc = allow("s3:*", ["arn:aws-cn:s3:::lcs", "arn:aws-cn:s3:::lcs/*"])
    [finding] = judge_bucket_access(sources, {role: parsed([doc])})
    assert finding.status is Status.PASS


def bucket_check(world: World) -> list[Any]:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    data = ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)
    return list(lifecycle_bucket_access(data))


def test_registered_check_reads_the_role_of_a_sagemaker_bucket() -> None:
    findings = bucket_check(base.healthy_eks())
    assert [f.status for f in findings] == [Status.PASS]
    assert findings[0].evidence["bucket"] == base.LIFECYCLE_BUCKET


def test_registered_check_warns_when_the_managed_policy_is_not_attached() -> None:
    world = base.healthy_eks()
    world.role_attached_policies[base.ROLE_NAME] = []
    [finding] = bucket_check(world)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)
    assert base.ROLE_ARN in finding.resources
