"""The tag rules of tools/ownership/rules.py, on literal tags: CloudFormation's own tags
are `tagged` (confirmed only by the stack's record), conventions are `likely`, the rest
unknown."""

from __future__ import annotations

import pytest

from tools.ownership.rules import cloudformation_claim, confirm, owner_from_tags, unconfirmed
from tools.triage.data.ownership_model import StackResource, tags_from_api

SG = "sg-0a1b2c3d4e5f60001"
STACK_ID = "arn:aws:cloudformation:us-west-2:111122223333:stack/hp-network/1f2e3d4c"
CFN = (
    ("aws:cloudformation:stack-name", "hp-network"),
    ("aws:cloudformation:stack-id", STACK_ID),
    ("aws:cloudformation:logical-id", "EfaSecurityGroup"),
)


def _record(physical: str | None = SG, drift: str | None = "IN_SYNC") -> StackResource:
    return StackResource(
        stack_name="hp-network",
        stack_id=STACK_ID,
        logical_id="EfaSecurityGroup",
        physical_id=physical,
        resource_type="AWS::EC2::SecurityGroup",
        status="CREATE_COMPLETE",
        drift_status=drift,
        drift_checked="2026-11-30T08:00:00+00:00" if drift else None,
    )


def test_cloudformation_tags_are_tagged_with_stack_and_logical_id() -> None:
    owner = owner_from_tags(SG, (("Name", "efa"), *CFN))
    assert (owner.manager, owner.confidence) == ("cloudformation", "tagged")
    assert (owner.stack, owner.logical_id) == ("hp-network", "EfaSecurityGroup")
    # The stack id is what the record is asked by: it names this stack alone.
    assert cloudformation_claim(CFN) == (STACK_ID, "EfaSecurityGroup")


def test_the_aws_prefix_is_case_insensitive() -> None:
    upper = tuple((k.upper(), v) for k, v in CFN)
    assert owner_from_tags(SG, upper).manager == "cloudformation"


def test_stack_name_taken_from_the_id_when_the_name_tag_is_missing() -> None:
    owner = owner_from_tags(SG, CFN[1:])
    assert owner.stack == "hp-network"


def test_a_logical_id_without_a_stack_is_not_a_claim() -> None:
    assert owner_from_tags(SG, CFN[2:]).manager == "unknown"


@pytest.mark.parametrize(
    ("tags", "manager", "tool"),
    [
        ((("ManagedBy", "terraform"),), "terraform", None),
        ((("managed-by", "Terraform Cloud"),), "terraform", None),
        ((("managed_by", "opentofu"),), "terraform", None),
        ((("Terraform", "true"),), "terraform", None),
        ((("terraform:workspace", "prod"),), "terraform", None),
        ((("tf_module", "network"),), "terraform", None),
        ((("pulumi:project", "hyperpod"),), "pulumi", None),
        ((("CreatedBy", "pulumi"),), "pulumi", None),
        ((("ManagedBy", "CDK"),), "cloudformation", None),
        ((("managed-by", "crossplane"),), "other", "crossplane"),
    ],
)
def test_conventions_are_likely(tags: tuple[tuple[str, str], ...], manager: str, tool: str) -> None:
    owner = owner_from_tags(SG, tags)
    assert (owner.manager, owner.confidence, owner.tool) == (manager, "likely", tool)
    assert owner.tag is not None
    assert owner.tag.startswith(tags[0][0])


@pytest.mark.parametrize(
    "tags",
    [
        (),
        (("Name", "terraform-test-sg"),),  # a name is not a convention
        (("ManagedBy", "platform-team"),),  # a team, not a tool
        (("Terraform", "false"),),
        (("Owner", "pulumi-fan"),),
        (("terraformed", "yes"),),  # not terraform:… nor Terraform alone
    ],
)
def test_no_convention_is_unknown(tags: tuple[tuple[str, str], ...]) -> None:
    owner = owner_from_tags(SG, tags)
    assert (owner.manager, owner.confidence) == ("unknown", None)
    assert not owner.known


def test_cloudformation_tags_win_over_a_convention() -> None:
    assert owner_from_tags(SG, (("ManagedBy", "terraform"), *CFN)).manager == "cloudformation"


def test_a_backtick_in_a_tag_cannot_break_out_of_markdown_code() -> None:
    owner = owner_from_tags(SG, (("ManagedBy", "terraform`\nrm -rf /"),))
    assert owner.tag is not None
    assert "`" not in owner.tag
    assert "\n" not in owner.tag


def test_the_stack_record_confirms_with_the_last_drift_check() -> None:
    owner = confirm(owner_from_tags(SG, CFN), _record(), {SG})
    assert owner.confidence == "confirmed"
    assert (owner.drift_status, owner.drift_checked) == ("IN_SYNC", "2026-11-30T08:00:00+00:00")
    assert owner.note is None


def test_a_record_naming_another_resource_stays_tagged_and_says_so() -> None:
    owner = confirm(owner_from_tags(SG, CFN), _record(physical="sg-0ffff"), {SG})
    assert owner.confidence == "tagged"
    assert owner.note is not None
    assert "sg-0ffff" in owner.note


def test_a_record_not_read_stays_tagged_with_the_reason() -> None:
    owner = unconfirmed(owner_from_tags(SG, CFN), "denied (AccessDenied)")
    assert (owner.confidence, owner.note) == ("tagged", "denied (AccessDenied)")


def test_tags_parse_from_both_shapes() -> None:
    assert tags_from_api([{"Key": "a", "Value": "1"}, {"Key": "b"}, "junk"]) == (
        ("a", "1"),
        ("b", ""),
    )
    assert tags_from_api({"a": "1", "b": None}) == (("a", "1"), ("b", ""))
    assert tags_from_api(None) == ()


def test_stack_resource_parses_drift_information() -> None:
    record = StackResource.from_api(
        {
            "StackResourceDetail": {
                "StackName": "hp-network",
                "LogicalResourceId": "EfaSecurityGroup",
                "PhysicalResourceId": SG,
                "DriftInformation": {
                    "StackResourceDriftStatus": "MODIFIED",
                    "LastCheckTimestamp": "2026-11-30T08:00:00Z",
                },
            }
        }
    )
    assert (record.drift_status, record.drift_checked) == ("MODIFIED", "2026-11-30T08:00:00Z")
    assert StackResource.from_api({}).drift_status is None
