"""The AWS Support ticket checklist, filled from what the conversation knows.

Escalation is the last step of the workflow; the ticket must carry what Support asks for
first. Everything known is filled in from the workflow state and the latest triage; what is
not known is listed as missing, never guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.toolset.budget import clip_line
from tools.findings import Status
from tools.triage.render import finding_line

if TYPE_CHECKING:
    from agent.state import ConversationState
    from agent.toolset.cluster import ClusterSession

MAX_LINES = 25


def draft_ticket(state: ConversationState, session: ClusterSession) -> dict[str, Any]:
    report = state.latest
    identity = report.cluster if report else None
    problems = report.problems() if report else []
    instances = list(state.instance_ids)
    groups: list[str] = []
    for finding in problems:
        for resource in finding.resources:
            if resource.startswith("i-") and resource not in instances:
                instances.append(resource)
    for finding in problems:
        group = finding.evidence.get("group") or finding.evidence.get("instance_group")
        if isinstance(group, str) and group not in groups:
            groups.append(group)
    hardware = [
        finding_line(f) for f in problems if f.section.startswith("G") and f.status is Status.FAIL
    ]
    fields: dict[str, Any] = {
        "cluster_name": identity.name if identity else state.cluster,
        "cluster_arn": identity.arn if identity and identity.arn else None,
        "region": (identity.region if identity else None) or state.region,
        "orchestrator": (identity.orchestrator if identity else None) or state.orchestrator,
        "instance_ids": instances[:50],
        "instance_groups": groups,
        "failure_window_utc": None,
        "error_strings": state.error_strings,
        "xids": state.xids,
        "hardware_findings": [clip_line(x, 400) for x in hardware[:MAX_LINES]],
        "triage_lines": [clip_line(finding_line(f), 400) for f in problems[:MAX_LINES]],
        "changes_already_applied": [s.command for s in state.applied],
        "log_bundle_s3_uri": None,
    }
    missing = [
        name
        for name, value in fields.items()
        if value in (None, [], "")
        and name not in ("changes_already_applied", "hardware_findings", "xids")
    ]
    steps = []
    if fields["cluster_name"] and fields["region"]:
        name, region = fields["cluster_name"], fields["region"]
        steps.append(f"aws sagemaker describe-cluster --cluster-name {name} --region {region}")
        for instance in instances[:3]:
            steps.append(
                f"aws sagemaker list-cluster-nodes --cluster-name {name} --region {region} "
                f"--query \"ClusterNodeSummaries[?InstanceId=='{instance}']\""
            )
        focus = f" --node {instances[0]}" if instances else ""
        steps.append(
            f"hyperpod-debug triage --cluster {name} --region {region}{focus} > triage.txt"
        )
    return {
        "ticket": fields,
        "missing": missing,
        "before_opening": steps,
        "recorded_cluster": session.recorded,
        "next": "Show the user the filled fields, ask for the missing ones (the UTC failure "
        "window, the log bundle's S3 URI), and tell them which of the escalation criteria "
        "applies.",
    }
