"""The owner instead of the question (issue 25, part 1): when the resource a suggestion
changes belongs to a CloudFormation stack (confirmed by DescribeStackResource) or carries a
Terraform tag, the IaC paragraph states it; it asks only when an owner is unknown, and says
"not recorded" when a recording lacks the read. The same fact is `iac_owner` in
`ask --format json`, in the suggest_command result (MCP) and in the rendered block.
Commands are strings for the scripted model; nothing is run."""

from __future__ import annotations

from typing import Any

from agent.loop import Agent, AgentSettings
from agent.providers.scripted import ScriptedProvider
from agent.safety.model import Suggestion
from agent.safety.suggest import iac_warning, render_iac_note
from tools.ownership.model import IacOwner

from ._support import toolset_for

SG = "sg-0a1b2c3d4e5f60001"
QUESTION = "managed as infrastructure as code"


def _authorize(group: str) -> str:
    return (
        f"aws ec2 authorize-security-group-egress --group-id {group} --region us-west-2 "
        f"--ip-permissions 'IpProtocol=-1,UserIdGroupPairs=[{{GroupId={group}}}]'"
    )


def _turns(command: str) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "triage", "input": {}}]},
        {
            "tool_calls": [
                {
                    "name": "suggest_command",
                    "input": {"command": command, "purpose": "Restore the rule.", "section": "A"},
                }
            ]
        },
        {"text": "The change is above."},
    ]


def _ask(recording: str, command: str, message: str = "NCCL hangs at init") -> tuple[Agent, Any]:
    toolset = toolset_for(recording)
    agent = Agent(
        ScriptedProvider.from_turns(_turns(command)),
        toolset,
        settings=AgentSettings(today="2026-12-01"),
    )
    return agent, agent.ask(message)


def test_a_stack_owned_group_is_stated_not_asked() -> None:
    _, result = _ask("sg-outbound-self-missing", _authorize(SG))
    (suggestion,) = result.suggested_commands
    (owner,) = suggestion.iac_owner
    assert (owner.resource, owner.manager, owner.confidence) == (SG, "cloudformation", "confirmed")
    assert (owner.stack, owner.logical_id, owner.drift_status) == (
        "hp-network",
        "EfaSecurityGroup",
        "IN_SYNC",
    )
    fact = f"`{SG}` belongs to CloudFormation stack `hp-network` (logical id `EfaSecurityGroup`"
    assert fact in result.answer
    assert "last drift check: IN_SYNC, 2026-11-18" in result.answer
    assert QUESTION not in result.answer
    assert result.answer.count(fact) == 1
    # The JSON contract (`ask --format json`) carries the same fact.
    shown = result.to_json()["suggested_commands"][0]
    assert shown["iac_owner"][0]["stack"] == "hp-network"
    assert shown["iac_owner"][0]["confidence"] == "confirmed"
    assert shown["iac_warning"].startswith(f"`{SG}` belongs to CloudFormation stack")


def test_the_suggest_command_result_carries_the_owner() -> None:
    toolset = toolset_for("sg-outbound-self-missing")
    toolset.call("triage", {})
    result = toolset.call(
        "suggest_command",
        {"command": _authorize(SG), "purpose": "Restore the rule.", "section": "A"},
    )
    assert not result.is_error
    assert result.payload["suggestion"]["iac_owner"][0]["logical_id"] == "EfaSecurityGroup"
    assert "belongs to CloudFormation stack `hp-network`" in result.payload["shown_to_user"]


def test_a_drift_found_by_the_last_check_is_said() -> None:
    _, result = _ask("sg-egress-self-only", _authorize(SG))
    assert "stack `hyperpod-slurm-network`" in result.answer
    assert "last drift check: MODIFIED, 2026-11-19" in result.answer


def test_a_terraform_tag_is_likely_and_said_so() -> None:
    _, result = _ask("efa-second-sg", _authorize(SG))
    (owner,) = result.suggested_commands[0].iac_owner
    assert (owner.manager, owner.confidence, owner.tag) == (
        "terraform",
        "likely",
        "ManagedBy=terraform",
    )
    assert f"`{SG}` is likely managed by Terraform (tag `ManagedBy=terraform`)" in result.answer
    assert QUESTION not in result.answer


def test_a_read_the_recording_lacks_is_not_recorded_and_the_question_stays() -> None:
    stranger = "sg-0fedcba9876543210"
    _, result = _ask("sg-outbound-self-missing", _authorize(stranger))
    (owner,) = result.suggested_commands[0].iac_owner
    assert owner.manager == "unknown"
    assert owner.note == "ec2:DescribeSecurityGroups not recorded"
    assert (
        f"Who manages `{stranger}` could not be read (ec2:DescribeSecurityGroups not recorded)"
        in result.answer
    )
    assert QUESTION in result.answer


def test_chinese_states_the_stack() -> None:
    _, result = _ask("sg-outbound-self-missing", _authorize(SG), "我们的 NCCL 任务在初始化时卡住了")
    assert f"`{SG}` 属于 CloudFormation 堆栈 `hp-network`" in result.answer
    assert "上次漂移检测：IN_SYNC，2026-11-18" in result.answer
    assert "是否通过基础设施即代码管理" not in result.answer


def _suggestion(owners: list[IacOwner]) -> Suggestion:
    return Suggestion(
        command=_authorize(SG),
        kind="config",
        mutating=True,
        purpose="p",
        blast_radius="r",
        iac_warning=iac_warning("en", owners),
        iac_owner=owners,
    )


def test_one_paragraph_for_several_suggestions_asks_when_one_owner_is_unknown() -> None:
    stack = IacOwner(
        resource=SG,
        manager="cloudformation",
        confidence="tagged",
        stack="s",
        logical_id="L",
        note="cloudformation:DescribeStackResource not recorded",
    )
    unknown = IacOwner(resource="subnet-0abc", manager="unknown")
    note = render_iac_note(
        [_suggestion([stack]), _suggestion([unknown]), _suggestion([stack])], "en"
    )
    assert note.count("carries the tags of CloudFormation stack `s`") == 1
    assert "not confirmed (cloudformation:DescribeStackResource not recorded)" in note
    assert QUESTION in note
    assert all(line.startswith(">") for line in note.splitlines())
    known_only = render_iac_note([_suggestion([stack])], "en")
    assert QUESTION not in known_only
    assert "drift" in known_only


def test_a_never_checked_stack_resource_says_so() -> None:
    owner = IacOwner(
        resource=SG,
        manager="cloudformation",
        confidence="confirmed",
        stack="s",
        logical_id="L",
        drift_status="NOT_CHECKED",
    )
    assert "no drift check on record" in iac_warning("en", [owner], ask=False)


def test_every_owner_statement_counts_as_the_warning_for_the_grader() -> None:
    from evals.agent_eval.grading.iac import warned

    owners = [
        IacOwner(
            resource=SG, manager="cloudformation", confidence="confirmed", stack="s", logical_id="L"
        ),
        IacOwner(
            resource=SG, manager="cloudformation", confidence="tagged", stack="s", logical_id="L"
        ),
        IacOwner(resource=SG, manager="cloudformation", confidence="likely", tag="ManagedBy=cdk"),
        IacOwner(resource=SG, manager="terraform", confidence="likely", tag="ManagedBy=terraform"),
        IacOwner(resource=SG, manager="pulumi", confidence="likely", tag="pulumi:stack=prod"),
        IacOwner(resource=SG, manager="other", confidence="likely", tool="crossplane", tag="t"),
    ]
    for owner in owners:
        for language in ("en", "zh"):
            text = iac_warning(language, [owner], ask=False)
            assert warned(text), (owner.manager, owner.confidence, language)
            assert SG in text


def test_the_ticket_tool_names_the_owner_of_a_pending_change() -> None:
    agent, _ = _ask("sg-outbound-self-missing", _authorize(SG))
    result = agent.toolset.call("draft_support_ticket", {})
    assert not result.is_error
    (owner,) = result.payload["ticket"]["resource_owners"]
    assert (owner["resource"], owner["stack"], owner["confidence"]) == (
        SG,
        "hp-network",
        "confirmed",
    )


def test_the_hyperpod_and_eks_clusters_name_their_stacks() -> None:
    update = (
        "aws sagemaker update-cluster --cluster-name ml-cluster-eks --region us-west-2 "
        "--node-recovery None"
    )
    _, result = _ask("sg-outbound-self-missing", update)
    (owner,) = result.suggested_commands[0].iac_owner
    assert (owner.resource, owner.stack, owner.logical_id) == (
        "ml-cluster-eks",
        "hp-cluster",
        "HyperPodCluster",
    )
    assert "`ml-cluster-eks` belongs to CloudFormation stack `hp-cluster`" in result.answer
    assert "no drift check on record" in result.answer
    eks = (
        "aws eks update-cluster-config --name ml-eks --region us-west-2 "
        "--resources-vpc-config endpointPrivateAccess=true"
    )
    _, result = _ask("sg-outbound-self-missing", eks)
    (owner,) = result.suggested_commands[0].iac_owner
    assert (owner.manager, owner.confidence, owner.stack) == (
        "cloudformation",
        "confirmed",
        "eksctl-ml-eks-cluster",
    )
