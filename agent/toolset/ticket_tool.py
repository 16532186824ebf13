"""The agent's `draft_support_ticket` tool: the `ticket` command's facts, as fields.

The same builder as `hyperpod-debug ticket` (`agent.ticket.build_ticket`); the result is
bounded like every tool result.
"""

from __future__ import annotations

import shlex
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agent.ticket import INSTANCE_ID, MAX_INSTANCES, MAX_LINES, build_ticket
from agent.ticket_bundle import node_log_commands
from agent.toolset.budget import DEFAULT_RESULT_CHARS, clip_line, dumps, fit_output
from agent.toolset.outputs import TicketFields, TicketOutput
from tools.redaction import redact_text

if TYPE_CHECKING:
    from agent.state import ConversationState
    from agent.toolset.cluster import ClusterSession


def draft_ticket(state: ConversationState, session: ClusterSession) -> dict[str, Any]:
    """`ticket_output` as the JSON object the model reads."""
    return ticket_output(state, session).payload()


def ticket_output(state: ConversationState, session: ClusterSession) -> TicketOutput:
    """`draft_support_ticket`: the same facts as the `ticket` command, as fields."""
    from tools.triage.open_cluster import recording_time

    report = state.latest
    fields: dict[str, Any] = {
        "cluster_name": state.cluster,
        "cluster_arn": None,
        "region": state.region,
        "orchestrator": state.orchestrator,
        "instance_ids": list(state.instance_ids)[:MAX_INSTANCES],
        "node_names": [],
        "instance_groups": [],
        "failure_window_utc": None,
        "error_strings": [clip_line(redact_text(s), 400) for s in state.error_strings],
        "xids": list(state.xids),
        "hardware_findings": [],
        "triage_lines": [],
        "changes_already_applied": [s.command for s in state.applied],
        "log_bundle_s3_uri": None,
    }
    # Who manages the resources this conversation's suggestions change (tools/ownership),
    # only when some were read.
    owners = {o.resource: o for s in [*state.applied, *state.pending] for o in s.iac_owner}
    if owners:
        fields["resource_owners"] = list(owners.values())
    steps: list[str] = []
    node_commands: dict[str, list[str]] = {}
    if report is not None:
        recording = session.recording
        now = recording_time(recording) if recording is not None else datetime.now(UTC)
        facts = build_ticket(
            report,
            now=now,
            instance_ids=state.instance_ids,
            error_strings=state.error_strings,
            xids=state.xids,
        )
        fields.update(
            cluster_name=facts.cluster_name or state.cluster,
            cluster_arn=facts.cluster_arn or None,
            region=facts.region or state.region,
            orchestrator=facts.orchestrator or state.orchestrator,
            instance_ids=facts.instance_ids,
            node_names=facts.node_names,
            instance_groups=facts.instance_groups,
            failure_window_utc=facts.window(),
            error_strings=[clip_line(s, 400) for s in facts.error_strings[:MAX_LINES]],
            xids=facts.xids,
            hardware_findings=[h.line for h in facts.hardware if h.line.startswith("[FAIL]")],
            triage_lines=facts.triage_lines,
        )
        steps = facts.before_opening()
        for node in facts.nodes[:3]:
            if INSTANCE_ID.match(node.instance_id):
                opener, commands = node_log_commands(facts, node)
                node_commands[node.instance_id] = [opener, *commands]
    elif state.cluster and state.region:
        steps = [
            f"aws sagemaker describe-cluster --cluster-name {shlex.quote(state.cluster)} "
            f"--region {shlex.quote(state.region)}"
        ]
    missing = [
        name
        for name, value in fields.items()
        if value in (None, [], "")
        and name
        not in (
            "changes_already_applied",
            "hardware_findings",
            "xids",
            "node_names",
            "resource_owners",
        )
    ]
    ticket = TicketFields.model_validate(fields)
    output = TicketOutput(
        ticket=ticket,
        missing=missing,
        before_opening=steps,
        node_log_bundle=node_commands,
        recorded_cluster=session.recorded,
        next="Show the user the filled fields, ask for the missing ones (the UTC failure "
        "window, the log bundle's S3 URI), and tell them which of the escalation criteria "
        "applies. The user can write the whole bundle with `hyperpod-debug ticket -o DIR`.",
    )
    # Bounded like every tool result: the longest lists give way first, counted.
    rest = len(dumps({k: v for k, v in output.payload().items() if k != "ticket"}))
    fitted = fit_output(
        ticket,
        DEFAULT_RESULT_CHARS - rest,
        ("hardware_findings", "error_strings", "triage_lines", "instance_ids", "resource_owners"),
    )
    return output.model_copy(update={"ticket": fitted})
