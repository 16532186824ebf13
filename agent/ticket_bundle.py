"""The ticket's node log bundle commands and its `summary.md`, rendered from `TicketFacts`.

Every command here is text for the user to run on their own machine or node; nothing is
run. Values quoted from the cluster were redacted when the facts were built.
"""

from __future__ import annotations

import shlex
from datetime import UTC, datetime

from agent.ticket import (
    CHECKLIST,
    CLUSTER_ID,
    GROUP_NAME,
    INSTANCE_ID,
    AffectedNode,
    TicketFacts,
    utc,
)
from tools.ownership.model import IacOwner
from tools.text import clip

# -- node log bundle -----------------------------------------------------------------------


def _accelerator(node: AffectedNode, facts: TicketFacts) -> str:
    kind = node.instance_type.removeprefix("ml.")
    if kind.startswith(("trn", "inf")):
        return "neuron"
    if kind.startswith(("p", "g")) or any(
        h.instance_id == node.instance_id for h in facts.hardware
    ):
        return "nvidia"
    return ""


def node_log_commands(facts: TicketFacts, node: AffectedNode) -> tuple[str, list[str]]:
    """(how to open a session on the node, the read-only collection commands to run there)
    for one affected node, per § L. The user runs them; nothing here runs them."""
    instance = node.instance_id
    group = node.group if GROUP_NAME.match(node.group) else "<GROUP>"
    cluster_id = facts.cluster_id if CLUSTER_ID.match(facts.cluster_id) else "<CLUSTER_ID>"
    session = (
        f"aws ssm start-session --target sagemaker-cluster:{cluster_id}_{group}-{instance} "
        f"--region {shlex.quote(facts.region)}"
    )
    since = (
        f'--since "{facts.window_start.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")} UTC"'
        if facts.window_start
        else '--since "24 hours ago"'
    )
    out = f"/tmp/hyperpod-ticket-{instance}"
    commands = [
        f"mkdir -p {out} && cd {out}",
        "sudo journalctl -k -b --no-pager > kernel-this-boot.log",
        "sudo journalctl -k -b -1 --no-pager > kernel-previous-boot.log 2>&1",
        "sudo dmesg -T > dmesg.txt",
    ]
    if facts.orchestrator == "slurm":
        commands.append(f"sudo journalctl -u slurmd -u slurmctld {since} --no-pager > slurm.log")
        commands.append(
            "sinfo -R > sinfo-R.txt 2>&1; scontrol show node $(hostname) > scontrol-node.txt 2>&1"
        )
    else:
        commands.append(
            f"sudo journalctl -u kubelet -u containerd {since} --no-pager > kubelet-containerd.log"
        )
    accelerator = _accelerator(node, facts)
    if accelerator == "nvidia":
        commands += [
            f"sudo nvidia-bug-report.sh --output-file {out}/nvidia-bug-report.log",
            "nvidia-smi -q > nvidia-smi-q.txt 2>&1",
            "sudo dcgmi health -c > dcgmi-health.txt 2>&1",
        ]
    elif accelerator == "neuron":
        commands += [
            "neuron-ls > neuron-ls.txt 2>&1",
            "sudo journalctl -k -b --no-pager | grep -i neuron > neuron-kernel.log",
        ]
    logs = ["/var/log/provision/provisioning.log"]
    if accelerator == "nvidia":
        logs.append("/var/log/nvidia-dcgm")
    commands.append(
        f"sudo tar czf {out}.tar.gz --ignore-failed-read -C /tmp hyperpod-ticket-{instance} "
        + " ".join(logs)
    )
    return session, commands


def cloudwatch_commands(facts: TicketFacts) -> list[str]:
    """The § L CloudWatch and cluster-event reads for the affected nodes, with real names."""
    name, region = shlex.quote(facts.cluster_name), shlex.quote(facts.region)
    cluster_id = facts.cluster_id if CLUSTER_ID.match(facts.cluster_id) else "<CLUSTER_ID>"
    group_path = f"/aws/sagemaker/Clusters/{name}/{cluster_id}"
    start = str(int(facts.window_start.timestamp() * 1000)) if facts.window_start else "<EPOCH_MS>"
    commands = []
    for node in facts.nodes:
        if not INSTANCE_ID.match(node.instance_id):
            continue
        group = node.group if GROUP_NAME.match(node.group) else "<GROUP>"
        commands += [
            f"aws sagemaker list-cluster-events --cluster-name {name} --node-id "
            f"{node.instance_id} --region {region} "
            "--query 'Events[].{Time:EventTime,Level:EventLevel,Description:Description}'",
            f"aws logs filter-log-events --log-group-name {group_path} "
            f"--log-stream-name-prefix SagemakerHealthMonitoringAgent/{group}/{node.instance_id} "
            f"--start-time {start} --region {region} --query 'events[].message' --output text",
            f"aws logs filter-log-events --log-group-name {group_path} "
            f"--log-stream-name-prefix LifecycleConfig/{group}/{node.instance_id} "
            f"--start-time {start} --region {region} --query 'events[].message' --output text",
        ]
        if len(commands) >= 9:
            break
    return commands


# -- summary.md ------------------------------------------------------------------------------


def _code(value: str | None) -> str:
    if not value:
        return "—"
    return "`" + clip(value, 200).replace("`", "'").replace("|", "\\|") + "`"


def _fenced(line: str) -> str:
    """A quoted line cannot close the code fence it sits in."""
    return line.replace("```", "' ' '")


def owner_line(owner: IacOwner) -> str:
    """Who manages one resource, in one line of the summary (values already clipped)."""
    if owner.manager == "cloudformation" and owner.confidence in ("confirmed", "tagged"):
        line = f"CloudFormation stack {_code(owner.stack)} (logical id {_code(owner.logical_id)})"
        if owner.confidence == "confirmed":
            drift = owner.drift_status or "no drift check on record"
            when = f", {owner.drift_checked}" if owner.drift_checked else ""
            return f"{line}, confirmed by DescribeStackResource; last drift check: {drift}{when}"
        return f"{line}, from its tags, not confirmed ({owner.note or 'not read'})"
    if owner.manager != "unknown":
        name = {"terraform": "Terraform", "pulumi": "Pulumi", "cloudformation": "CloudFormation"}
        tool = name.get(owner.manager, owner.tool or "another tool")
        return f"likely {tool} (tag {_code(owner.tag)})"
    return f"unknown{f' ({owner.note})' if owner.note else ''}"


def render_summary(facts: TicketFacts, *, created: datetime) -> str:
    """The markdown summary of a ticket bundle (redact it once more before writing)."""
    orchestrator = {"eks": "EKS", "slurm": "Slurm"}.get(facts.orchestrator, facts.orchestrator)
    out = [
        f"# AWS Support case: HyperPod cluster {facts.cluster_name}",
        "",
        f"Prepared by `hyperpod-debug ticket` on {utc(created)} from a read-only triage"
        f"{' of a recorded cluster' if facts.recorded else ''}"
        f"{f' focused on {facts.focus_node}' if facts.focus_node else ''}. Secret-looking "
        "values are redacted in every file of this bundle; read it before you attach it.",
        "",
        "## Cluster",
        "",
        "| field | value |",
        "|---|---|",
        f"| Cluster name | {_code(facts.cluster_name)} |",
        f"| Cluster ARN | {_code(facts.cluster_arn)} |",
        f"| Cluster id | {_code(facts.cluster_id)} |",
        f"| Region | {_code(facts.region)} |",
        f"| Orchestrator | {orchestrator or '—'} |",
        "",
    ]
    if facts.owners:
        out += ["## Who manages the cluster's resources", ""]
        out += [f"- {_code(o.resource)}: {owner_line(o)}" for o in facts.owners]
        out.append("")
    out += ["## Affected nodes", ""]
    if facts.nodes:
        out += ["| instance id | node name | instance group |", "|---|---|---|"]
        out += [
            f"| {_code(n.instance_id)} | {_code(n.node_name)} | {_code(n.group)} |"
            for n in facts.nodes
        ]
    else:
        out.append("No FAIL or WARN finding names an instance: add the affected instance ids.")
    out += [
        "",
        "Instance groups: "
        + (", ".join(_code(g) for g in facts.instance_groups) or "— (add them)"),
        "",
        "## Failure window (UTC)",
        "",
    ]
    if facts.window_start is not None:
        out += [
            f"- Start: {utc(facts.window_start)} ({facts.window_source})",
            f"- End: {utc(facts.window_end)} (when the triage read the cluster)",
        ]
    else:
        out += [
            "- Start: unknown — no finding carries a timestamp; fill in when the failure "
            "began (or re-run with `--since`)",
            f"- End: {utc(facts.window_end)} (when the triage read the cluster)",
        ]
    out += ["", "## Exact error strings", ""]
    if facts.error_strings:
        out += ["```text", *(_fenced(s) for s in facts.error_strings), "```"]
    else:
        out.append(
            "None quoted by the findings: paste the errors you saw (pod logs, CloudWatch, dmesg)."
        )
    out += ["", "## Hardware details (Xid / ECC / DCGM)", ""]
    out.append("Xid numbers: " + (", ".join(str(x) for x in facts.xids) or "none seen"))
    for detail in facts.hardware:
        out += ["", f"- {detail.line}"]
        out += [f"  - {d}" for d in detail.details]
    if not facts.hardware:
        out += ["", "No GPU finding for the affected nodes."]
    out += ["", "## Triage findings (P0 / P1)", ""]
    if facts.triage_lines:
        out += ["```text", *(_fenced(s) for s in facts.triage_lines), "```"]
    else:
        out.append("Triage found no P0 or P1 problem.")
    out += ["", "The whole report is in `triage.txt` and `triage.json`.", ""]
    out += _checklist(facts)
    out += [
        "",
        "## Before opening the case (run yourself, read-only)",
        "",
        "**Run yourself**",
        "",
        "```bash",
        *facts.before_opening(),
        *cloudwatch_commands(facts),
        "```",
        "",
        "## Node log bundle (run yourself on each affected node)",
        "",
        "These commands only read logs and device state and write into `/tmp` on the node; "
        "for a bulk collection across many nodes use **hyperpod-issue-report** (§ L). Collect "
        "before a reboot or replacement, then upload the archive to an S3 bucket of yours "
        "and put its URI in the case.",
    ]
    for node in [n for n in facts.nodes if INSTANCE_ID.match(n.instance_id)][:8]:
        session, commands = node_log_commands(facts, node)
        label = node.instance_id + (f" ({clip(node.group, 80)})" if node.group else "")
        out += [
            "",
            f"### {label}",
            "",
            "**Run yourself** — open a session on the node:",
            "",
            "```bash",
            session,
            "```",
            "",
            "**Run yourself** — on the node:",
            "",
            "```bash",
            *commands,
            "```",
            "",
            "**Run yourself** — upload (writes to your bucket):",
            "",
            "```bash",
            f"aws s3 cp /tmp/hyperpod-ticket-{node.instance_id}.tar.gz "
            f"s3://<YOUR_BUCKET>/hyperpod-tickets/ --region {shlex.quote(facts.region)}",
            "```",
        ]
    if not facts.command_instances():
        out += ["", "No affected instance id is known: re-run with `--node <INSTANCE_ID>`."]
    return "\n".join(out) + "\n"


def _checklist(facts: TicketFacts) -> list[str]:
    done = [
        bool(facts.cluster_arn and facts.region),
        bool(facts.orchestrator),
        bool(facts.nodes and facts.instance_groups),
        facts.window_start is not None,
        bool(facts.error_strings),
        bool(facts.hardware or facts.xids),
        True,
        False,
    ]
    lines = ["## Attach to the case", ""]
    for item, ok in zip(CHECKLIST, done, strict=True):
        lines.append(f"- [{'x' if ok else ' '}] {item}")
    return lines
