"""The aws CLI: read-only and mutating API verbs, aws s3, and SSM start-session.

Verbs are judged by their prefix (describe-, list-, get- ... read; update-, delete- ...
change configuration; reboot-, terminate- ... change state). An SSM session that runs a
command is as safe as that command, so its ``--parameters`` are classified in turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tools.commands.args import option, positionals, word_set
from tools.commands.result import CommandClass, Handler, Rank, combine, mut, ro, unknown

_AWS_GLOBAL_VALUE = word_set(
    "--region --profile --output --query --endpoint-url --color --ca-bundle --cli-read-timeout"
    " --cli-connect-timeout --cli-binary-format"
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
        " remove- reset- restore- import-"
    )
)
_AWS_STATE_PREFIXES: tuple[tuple[str, Rank, str], ...] = (
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
_AWS_CONFIG_SERVICES = word_set("ec2 sagemaker eks iam fsx route53 elbv2 elb ssm s3api logs")
_SSM_READONLY_DOCS = word_set("AWS-StartNonInteractiveCommand AWS-StartInteractiveCommand")


def _ssm_inner_commands(parameters: str) -> list[str]:
    """Commands carried by ``--parameters`` of an SSM session document."""
    text = parameters.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        value = data.get("command", [])
        return [str(v) for v in value] if isinstance(value, list) else [str(value)]
    if text.startswith("command="):
        inner = text.removeprefix("command=").strip()
        if inner.startswith("[") and inner.endswith("]"):
            inner = inner[1:-1]
        return [inner.strip().strip("'\"")]
    return [text]


def _aws_ssm_start_session(args: Sequence[str], depth: int) -> CommandClass:
    # Imported here: the dispatcher imports this module for its handler table.
    from tools.commands.classifier import classify_nested

    document = option(args, "--document-name")
    if document is None:
        return ro("interactive SSM session: opens a shell, changes nothing by itself")
    if document not in _SSM_READONLY_DOCS:
        return unknown(f"SSM session with document {document}")
    parameters = option(args, "--parameters")
    if parameters is None:
        return ro(f"SSM session ({document}) with no command")
    inner = combine([classify_nested(c, depth + 1) for c in _ssm_inner_commands(parameters)])
    if inner.kind == "read_only":
        return ro(f"SSM session runs a read-only command ({inner.reason})")
    reason = f"SSM session runs: {inner.reason}"
    return CommandClass(inner.kind, inner.touches_config, inner.destructive_rank, reason)


def _aws_s3(verb: str, words: Sequence[str]) -> CommandClass:
    label = f"aws s3 {verb}"
    if verb in ("ls", "presign"):
        return ro(f"{label} is read-only")
    if verb == "cp" and len(words) >= 4 and words[3] == "-":
        return ro(f"{label} to stdout is read-only")
    return mut(f"{label} writes objects or files", 2 if verb in ("rm", "rb", "sync") else 0)


def _aws(args: Sequence[str], depth: int) -> CommandClass:
    words = positionals(args, _AWS_GLOBAL_VALUE)
    if not words or words[0] == "help":
        return ro("aws CLI help or version")
    if len(words) < 2:
        return unknown("aws command without an operation")
    service, verb = words[0], words[1]
    label = f"aws {service} {verb}"
    if service == "ssm" and verb == "start-session":
        return _aws_ssm_start_session(args, depth)
    if service == "s3":
        return _aws_s3(verb, words)
    if verb.startswith(_AWS_READ_PREFIXES) or verb == "help":
        return ro(f"{label} is a read-only API")
    for prefix, rank, what in _AWS_STATE_PREFIXES:
        if verb.startswith(prefix):
            return mut(f"{label} {what}", rank)
    if verb.startswith(_AWS_CONFIG_PREFIXES):
        wipes = verb == "update-cluster-software" or (
            verb.startswith("delete-") and ("cluster" in verb or "volume" in verb)
        )
        config = service in _AWS_CONFIG_SERVICES
        return mut(f"{label} changes configuration", 2 if wipes else 0, config=config)
    return unknown(f"{label}: operation not recognised")


HANDLERS: dict[str, Handler] = {"aws": _aws}
