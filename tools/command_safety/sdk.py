"""AWS SDK calls written in inline code, read as the aws CLI operations they are.

A model (or text planted in a cluster) can write a change as a one-liner instead of an
aws command: ``python3 -c "import boto3; boto3.client('ec2').revoke_security_group_egress(
...)"``. The interpreter running inline code is never read-only, but the warnings a block
needs (the IaC note for a security group, data loss for a deletion, a replacement) depend
on the operation, and the operation is written in the code: boto3 names each API operation
in snake_case (``revoke_security_group_egress``), the JavaScript SDK v3 as a PascalCase
command class (``RevokeSecurityGroupEgressCommand``), and the aws CLI in kebab-case
(``revoke-security-group-egress``), the same words in all three (botocore's service models
hold one operation name, from which both the CLI and boto3 derive theirs).

Code that hands a command line to the system (``os.system("sudo reboot")``,
``subprocess.run(["kubectl", "delete", ...])``, ``execSync("...")``) is read the same way:
`shell_lines` returns those lines, for the classifier to judge as lines of their own.

`sdk_operations` returns the aws CLI words (``["aws", "ec2", "revoke-security-group-egress"]``)
for every call it can tie to a service, so the classifier judges them with the aws rules.
Only the words are read, never run or imported. The scan is linear: flat patterns, no
nesting, and at most `_MOST_CALLS` calls are returned.
"""

from __future__ import annotations

import re
import shlex

_MOST_CALLS = 32
# boto3.client('ec2'), session.client(service_name="sagemaker"), boto3.resource('s3')
_PY_SERVICE = re.compile(
    r"""\b(?:client|resource)\(\s*(?:service_name\s*=\s*)?['"]([a-z0-9-]{2,40})['"]"""
)
# new EC2Client({...}), new SageMakerClient(...): the v3 client classes name the service.
_JS_SERVICE = re.compile(r"\bnew\s+([A-Z][A-Za-z0-9]{1,40})Client\b")
# .revoke_security_group_egress( — a method of two words or more, called.
_PY_CALL = re.compile(r"\.([a-z][a-z0-9]{0,40}(?:_[a-z0-9]{1,40}){1,12})\s*\(")
# new RevokeSecurityGroupEgressCommand( — a v3 command object.
_JS_CALL = re.compile(r"\bnew\s+((?:[A-Z][a-z0-9]*){2,16})Command\s*\(")
_PASCAL_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*")
# boto3 helpers that are not API operations (paging, waiting, the client's own plumbing).
_NOT_OPERATIONS = frozenset(
    {"get_paginator", "get_waiter", "can_paginate", "generate_presigned_url",
     "generate_presigned_post", "download_file", "download_fileobj"}
)  # fmt: skip
# Transfer helpers that are operations in all but name: what the CLI calls them.
_HELPERS = {
    "upload_file": "put-object",
    "upload_fileobj": "put-object",
    "copy_object": "copy-object",
}
# When no client is named, the operation's words tell the service for the resources whose
# change calls for the IaC note; anything else stays without a service (the interpreter
# alone makes the line unknown).
_SERVICE_BY_WORD = (
    ("security_group", "ec2"),
    ("subnet", "ec2"),
    ("vpc", "ec2"),
    ("route_table", "ec2"),
    ("network_acl", "ec2"),
    ("instances", "ec2"),
    ("cluster_nodes", "sagemaker"),
    ("nodegroup", "eks"),
    ("stack", "cloudformation"),
)


# The SDKs' "s3" client is the low-level API, which the CLI calls s3api (aws s3 is its own
# set of file commands).
_CLI_SERVICE = {"s3": "s3api"}


def _js_service(name: str) -> str:
    return name.lower()  # EC2Client → ec2, SageMakerClient → sagemaker, EKSClient → eks


def _kebab_from_pascal(name: str) -> str:
    return "-".join(word.lower() for word in _PASCAL_WORD.findall(name))


def _service_for(operation: str, named: list[tuple[int, str]], at: int) -> str | None:
    """The service of the client named last before ``at``; else one the words imply."""
    before = [service for position, service in named if position < at]
    if before:
        return before[-1]
    if named:
        return named[0][1]
    return next((service for word, service in _SERVICE_BY_WORD if word in operation), None)


def sdk_operations(code: str) -> list[list[str]]:
    """The aws CLI words of each AWS SDK call in ``code`` that names its service."""
    named = [(m.start(), m.group(1)) for m in _PY_SERVICE.finditer(code)]
    named += [(m.start(), _js_service(m.group(1))) for m in _JS_SERVICE.finditer(code)]
    named.sort()
    calls: list[tuple[int, str]] = []
    for match in _PY_CALL.finditer(code):
        method = match.group(1)
        if method in _HELPERS:
            calls.append((match.start(), _HELPERS[method]))
        elif method not in _NOT_OPERATIONS:
            calls.append((match.start(), method.replace("_", "-")))
    calls += [(m.start(), _kebab_from_pascal(m.group(1))) for m in _JS_CALL.finditer(code)]
    calls.sort()
    operations: list[list[str]] = []
    for at, operation in calls[:_MOST_CALLS]:
        service = _service_for(operation.replace("-", "_"), named, at)
        if service is not None:
            operations.append(["aws", _CLI_SERVICE.get(service, service), operation])
    return operations


# os.system("..."), os.popen('...'), subprocess.run("...", shell=True), execSync("..."): a
# string literal handed to a shell; subprocess.*(["tool", "arg", ...]): an argument list.
_SHELL_STRING = re.compile(
    r"""\b(?:os\.system|os\.popen|subprocess\.[a-z_]{2,20}|exec(?:Sync)?|spawnSync|system)"""
    r"""\(\s*(?:(['"])([^'"\n]{1,2000})\1|\[([^\]\n]{1,2000})\])"""
)
_LIST_ITEM = re.compile(r"""(['"])([^'"\n]*)\1""")


def shell_lines(code: str) -> list[str]:
    """The command lines that ``code`` hands to a shell or runs as an argument list."""
    lines: list[str] = []
    for match in _SHELL_STRING.finditer(code):
        if match.group(2) is not None:
            lines.append(match.group(2))
        else:
            items = [item.group(2) for item in _LIST_ITEM.finditer(match.group(3))]
            if items:
                lines.append(shlex.join(items))
        if len(lines) >= _MOST_CALLS:
            break
    return lines
