"""The aws CLI: read-only and mutating API verbs, aws s3, and SSM start-session.

Verbs are judged by their prefix (describe-, list-, get- ... read; update-, delete- ...
change configuration; reboot-, terminate- ... change state). An SSM session that runs a
command is as safe as that command, so its ``--parameters`` are classified in turn: every
value given (the CLI keeps the last of a repeated option, so each one could be the one that
runs), and a session whose parameters come from a file or ``--cli-input-json`` is unknown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tools.command_safety.args import (
    HARMLESS_TARGETS,
    grammar,
    option_values,
    parse,
    positionals,
    word_set,
)
from tools.command_safety.result import CommandClass, Handler, Rank, combine, mut, ro, unknown

_AWS_GLOBAL_VALUE = word_set(
    "--region --profile --output --query --endpoint-url --color --ca-bundle --cli-read-timeout"
    " --cli-connect-timeout --cli-binary-format"
)
_AWS_GLOBAL = grammar(
    values=" ".join(_AWS_GLOBAL_VALUE),
    flags="--debug --no-verify-ssl --no-paginate --no-sign-request --no-cli-pager"
    " --cli-auto-prompt --no-cli-auto-prompt --version --help",
    abbreviate=False,
)
# Read operations that stream their response into a local file named on the line.
_AWS_DOWNLOADS = word_set(
    "s3api:get-object s3api:get-object-torrent glacier:get-job-output"
    " kinesis-video-media:get-media kinesis-video-archived-media:get-clip"
    " mediastore-data:get-object ebs:get-snapshot-block"
)
_AWS_READ_PREFIXES = tuple(
    word_set(
        "describe- list- get- filter- lookup- search- batch-get- head- validate- simulate-"
        " estimate- wait"
    )
)
_AWS_CONFIG_PREFIXES = tuple(
    word_set(
        "update- modify- authorize- revoke- create- delete- put- attach- detach- associate-"
        " disassociate- replace- enable- disable- register- deregister- tag- untag- set- add-"
        " remove- reset- restore- import- request-"
    )
)
_AWS_STATE_PREFIXES: tuple[tuple[str, Rank, str], ...] = (
    # HyperPod's on-demand deep health check: the nodes leave service while it runs and,
    # per the StartClusterHealthCheck API reference ("The unhealthy nodes will be
    # automatically rebooted or replaced"), those that fail are rebooted or replaced. A
    # replacement destroys the node's root and secondary volumes, so it ranks with the
    # replacements (rank 2, the data-loss flag) though nothing is replaced unless it fails;
    # the reason says "replaced", never "replaces", so the safety layer does not take it for
    # a replacement of its own (agent.safety.kinds).
    (
        "start-cluster-health-check",
        2,
        "runs deep health checks: the nodes leave service, and those that fail are "
        "rebooted or replaced (a replaced node loses its root and secondary volumes)",
    ),
    ("batch-reboot-", 1, "reboots nodes"),
    ("reboot-", 1, "reboots instances"),
    ("batch-replace-", 2, "replaces nodes (root and secondary volumes are destroyed)"),
    ("batch-delete-", 2, "deletes nodes"),
    ("terminate-", 2, "terminates instances"),
    ("stop-", 2, "stops instances (instance-store data is lost)"),
    ("start-", 0, "starts resources"),
    ("send-", 0, "sends commands or messages"),
    ("cancel-", 0, "cancels operations"),
    ("run-", 0, "launches resources"),
    ("invoke", 0, "invokes a function"),
    ("copy-", 0, "copies resources"),
    ("execute-", 0, "executes statements"),
)
_AWS_CONFIG_SERVICES = word_set(
    "ec2 sagemaker eks iam fsx route53 elbv2 elb ssm s3api logs cloudformation"
)
# Deleting one of these loses the data it holds (a stack: every resource it created).
_DATA_HOLDERS = (
    "cluster", "volume", "file-system", "stack", "snapshot", "bucket", "db-", "backup",
    "table", "repository", "log-group", "data-repository",
)  # fmt: skip
# SSM Automation runbooks AWS publishes that act on instances, by what they do.
_SSM_AUTOMATIONS: dict[str, tuple[Rank, str]] = {
    "AWS-TerminateEC2Instance": (2, "terminates instances (their volumes are destroyed)"),
    "AWS-StopEC2Instance": (2, "stops instances (instance-store data is lost)"),
    "AWS-RestartEC2Instance": (1, "reboots instances (stops and starts them)"),
}
# An upload to S3 that is cluster configuration: a lifecycle script (LifeCycleConfig's
# SourceS3Uri holds on_create.sh and the files it sources) changes what every new node runs.
_LIFECYCLE_KEY = ("lifecycle", "on_create", "on-create", "provisioning_parameters")
_SSM_READONLY_DOCS = word_set("AWS-StartNonInteractiveCommand AWS-StartInteractiveCommand")


def _ssm_inner_commands(parameters: str) -> list[str] | None:
    """Commands carried by ``--parameters`` of an SSM session document; None if not visible."""
    text = parameters.strip()
    if text.startswith(("file://", "fileb://", "http://", "https://")):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        value = data.get("command", [])
        return [str(v) for v in value] if isinstance(value, list) else [str(value)]
    if data is not None:
        return None
    if text.startswith("command="):
        inner = text.removeprefix("command=").strip()
        if inner.startswith("[") and inner.endswith("]"):
            inner = inner[1:-1]
        return [inner.strip().strip("'\"")]
    return [text]


def _aws_ssm_start_session(args: Sequence[str], depth: int) -> CommandClass:
    # Imported here: the dispatcher imports this module for its handler table.
    from tools.command_safety.classifier import classify_nested

    if option_values(args, "--cli-input-json") or option_values(args, "--cli-input-yaml"):
        return unknown("SSM session whose document and command come from --cli-input-json")
    documents = option_values(args, "--document-name")
    if not documents:
        return ro("interactive SSM session: opens a shell, changes nothing by itself")
    strange = [d for d in documents if d not in _SSM_READONLY_DOCS]
    if strange:
        return unknown(f"SSM session with document {strange[-1]}")
    commands: list[str] = []
    for parameters in option_values(args, "--parameters"):
        inner_commands = _ssm_inner_commands(parameters)
        if inner_commands is None:
            return unknown("SSM session whose command is in a file or not readable")
        commands.extend(inner_commands)
    if not commands:
        return ro(f"SSM session ({documents[-1]}) with no command")
    inner = combine([classify_nested(c, depth + 1) for c in commands])
    if inner.kind == "read_only":
        return ro(f"SSM session runs a read-only command ({inner.reason})")
    reason = f"SSM session runs: {inner.reason}"
    return CommandClass(inner.kind, inner.touches_config, inner.destructive_rank, reason)


def _aws_s3(verb: str, words: Sequence[str]) -> CommandClass:
    label = f"aws s3 {verb}"
    if verb in ("ls", "presign"):
        return ro(f"{label} is read-only")
    if verb == "cp" and len(words) == 4 and words[2].startswith("s3://") and words[3] == "-":
        return ro(f"{label} to stdout is read-only")
    rank: Rank = 2 if verb in ("rm", "rb", "sync") else 0
    destination = words[-1] if len(words) > 2 else ""
    if destination.startswith("s3://") and (
        destination.endswith(".sh") or any(key in destination.lower() for key in _LIFECYCLE_KEY)
    ):
        return mut(
            f"{label} uploads lifecycle scripts (the cluster's configuration)", rank, config=True
        )
    return mut(f"{label} writes objects or files", rank)


def _aws_ssm_automation(args: Sequence[str]) -> CommandClass:
    documents = option_values(args, "--document-name")
    known = [_SSM_AUTOMATIONS[d] for d in documents if d in _SSM_AUTOMATIONS]
    if known:
        rank, what = max(known)
        return mut(f"aws ssm start-automation-execution ({documents[-1]}) {what}", rank)
    shown = documents[-1] if documents else "no document named"
    return unknown(f"aws ssm start-automation-execution runs {shown}, whose steps are not read")


def _aws_cloudformation(label: str, verb: str) -> CommandClass:
    """Every CloudFormation change is a change of the infrastructure a stack holds: deploy
    creates or updates a stack, execute-change-set applies one, rollback and
    continue-update-rollback put resources back. Only ``package`` stays on this side: it
    uploads local artifacts to S3 and prints a template."""
    if verb == "package":
        return mut(f"{label} uploads local artifacts to S3")
    if verb.startswith("delete-") and "stack" in verb:
        return mut(f"{label} deletes stacks and the resources they created", 2, config=True)
    return mut(f"{label} changes the infrastructure a stack manages", config=True)


def _operation_help(args: Sequence[str], words: Sequence[str]) -> bool:
    """``aws SERVICE OPERATION help``: the operation's manual page, nothing runs. Only that
    shape: "help" as an option's value (``--cluster-name help``, ``--query help``) or after
    any option is an argument, and the operation runs."""
    if len(words) != 3 or words[2] != "help" or args[-1] != "help":
        return False
    operation = len(args) - 2
    return operation >= 0 and args[operation] == words[1]


def _aws(args: Sequence[str], depth: int) -> CommandClass:
    before = parse(args, _AWS_GLOBAL, stop=True)
    if before.error is not None:
        return unknown(f"aws option {before.error} before the service not recognised")
    words = positionals(args, _AWS_GLOBAL_VALUE)
    if not words or words[0] == "help" or _operation_help(args, words):
        return ro("aws CLI help or version")
    if len(words) < 2:
        return unknown("aws command without an operation")
    service, verb = words[0], words[1]
    label = f"aws {service} {verb}"
    if service == "ssm" and verb == "start-session":
        return _aws_ssm_start_session(args, depth)
    if service == "s3":
        return _aws_s3(verb, words)
    if service == "ssm" and verb == "start-automation-execution":
        return _aws_ssm_automation(args)
    if f"{service}:{verb}" in _AWS_DOWNLOADS and args[-1] not in HARMLESS_TARGETS:
        return mut(f"{label} writes the response into a local file")
    if verb.startswith(_AWS_READ_PREFIXES) or verb == "help" or (service, verb) == ("logs", "tail"):
        return ro(f"{label} is a read-only API")
    if service == "cloudformation":
        return _aws_cloudformation(label, verb)
    for prefix, rank, what in _AWS_STATE_PREFIXES:
        if verb.startswith(prefix):
            return mut(f"{label} {what}", rank)
    if verb.startswith(_AWS_CONFIG_PREFIXES):
        wipes = verb == "update-cluster-software" or (
            verb.startswith("delete-") and any(holder in verb for holder in _DATA_HOLDERS)
        )
        config = service in _AWS_CONFIG_SERVICES
        return mut(f"{label} changes configuration", 2 if wipes else 0, config=config)
    return unknown(f"{label}: operation not recognised")


HANDLERS: dict[str, Handler] = {"aws": _aws}
