"""The tag rules: who manages a resource, read off its tags; pure, no AWS.

CloudFormation (and CDK and eksctl, which deploy through it) tags what it creates with
``aws:cloudformation:stack-name``, ``aws:cloudformation:stack-id`` and
``aws:cloudformation:logical-id``; the ``aws:`` prefix is reserved for AWS and case-
insensitive, and no user can set or change it (CloudFormation Template Reference, "Resource
tag"). Such a resource is ``tagged``; `confirm` makes it ``confirmed`` once the stack's own
record (DescribeStackResource) names the same resource.

Terraform, OpenTofu, Pulumi and the rest leave no standard tag. Teams mark what they
manage by convention (``ManagedBy=terraform``, ``managed-by``, ``Terraform=true``, Pulumi's
``pulumi:project`` / ``pulumi:stack`` from its auto-tagging examples): those are ``likely``,
never more, since anyone can write any such tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tools.ownership.model import IacOwner, Manager
from tools.text import clip
from tools.triage.data.ownership_model import StackResource, Tags

STACK_NAME = "aws:cloudformation:stack-name"
STACK_ID = "aws:cloudformation:stack-id"
LOGICAL_ID = "aws:cloudformation:logical-id"
_NAME_CHARS = 128  # a stack name is at most 128 characters (CreateStack)
_TAG_CHARS = 120

# Keys whose value names the tool that manages the resource, compared with their
# separators removed and lower-cased: ManagedBy, managed-by, managed_by, created_by...
_TOOL_KEYS = frozenset(
    {
        "managedby",
        "createdby",
        "provisionedby",
        "deployedby",
        "provisioner",
        "iac",
        "iactool",
        "createdwith",
        "automation",
    }
)
# Words in such a value, and the manager each means. OpenTofu, Terragrunt and CDKTF all
# plan and apply Terraform configurations; CDK, SAM and eksctl deploy CloudFormation stacks.
_TOOL_WORDS: tuple[tuple[re.Pattern[str], Manager, str | None], ...] = (
    (re.compile(r"terraform|terragrunt|opentofu|\btofu\b|cdktf"), "terraform", None),
    (re.compile(r"pulumi"), "pulumi", None),
    (re.compile(r"cloud-?formation|\bcfn\b|\bcdk\b|\bsam\b|eksctl"), "cloudformation", None),
    (re.compile(r"crossplane"), "other", "crossplane"),
    (re.compile(r"ansible"), "other", "ansible"),
)
# Keys that alone say which tool manages the resource: Terraform=true, terraform:workspace,
# tf_workspace, pulumi:project, pulumi:stack...
_TOOL_KEY_PREFIXES: tuple[tuple[re.Pattern[str], Manager], ...] = (
    (re.compile(r"^(?:terraform|tf)(?:[:_\-./]|$)", re.IGNORECASE), "terraform"),
    (re.compile(r"^pulumi(?:[:_\-./]|$)", re.IGNORECASE), "pulumi"),
)
_NO = frozenset({"false", "no", "0", "off", "none", "n"})
_SEPARATORS = re.compile(r"[\s_\-.:/]+")


def _tag(key: str, value: str) -> str:
    """key=value as shown in Markdown code: a backtick in a tag would end the code span."""
    return clip(f"{key}={value}" if value else key, _TAG_CHARS).replace("`", "'")


def _code(value: str) -> str:
    """A stack name or logical id (letters, digits, hyphens by CloudFormation's rules),
    clipped and kept out of Markdown's way all the same: it is shown in code spans."""
    return clip(value, _NAME_CHARS).replace("`", "'")


def _lookup(tags: Tags, key: str) -> str | None:
    """The value of ``key``; the aws: prefix is case-insensitive, so is the match."""
    for k, v in tags:
        if k.lower() == key:
            return v
    return None


def cloudformation_claim(tags: Tags) -> tuple[str, str] | None:
    """(stack name or id, logical id) from CloudFormation's own tags, or None. The stack
    id is preferred: it names this stack alone, also once deleted, where a name may have
    been reused by a later stack."""
    logical = _lookup(tags, LOGICAL_ID)
    stack = _lookup(tags, STACK_ID) or _lookup(tags, STACK_NAME)
    if not logical or not stack:
        return None
    return stack, logical


def _convention(tags: Tags) -> tuple[Manager, str | None, str] | None:
    """(manager, tool, tag) of the first tag following a known convention."""
    for key, value in tags:
        if key.lower().startswith("aws:"):
            continue
        if _SEPARATORS.sub("", key.lower()) in _TOOL_KEYS:
            for pattern, manager, tool in _TOOL_WORDS:
                if pattern.search(value.lower()):
                    return manager, tool, _tag(key, value)
        for prefix, manager in _TOOL_KEY_PREFIXES:
            if prefix.match(key) and value.strip().lower() not in _NO:
                return manager, None, _tag(key, value)
    return None


def owner_from_tags(resource: str, tags: Tags) -> IacOwner:
    """Who manages ``resource`` by its tags alone: CloudFormation's own tags (``tagged``),
    a convention (``likely``), or unknown."""
    claim = cloudformation_claim(tags)
    if claim is not None:
        name = _lookup(tags, STACK_NAME) or _stack_name_of(claim[0])
        return IacOwner(
            resource=resource,
            manager="cloudformation",
            confidence="tagged",
            stack=_code(name),
            logical_id=_code(claim[1]),
            tag=_tag(STACK_NAME, name),
        )
    found = _convention(tags)
    if found is not None:
        manager, tool, tag = found
        return IacOwner(resource=resource, manager=manager, confidence="likely", tool=tool, tag=tag)
    return IacOwner(resource=resource, manager="unknown")


def _stack_name_of(stack: str) -> str:
    """The name inside a stack id: arn:aws:cloudformation:REGION:ACCOUNT:stack/NAME/UUID."""
    parts = stack.split("/")
    return parts[1] if stack.startswith("arn:") and len(parts) >= 3 else stack


def confirm(owner: IacOwner, record: StackResource, aliases: Iterable[str]) -> IacOwner:
    """``owner`` (CloudFormation-tagged) with the stack's record of it: ``confirmed`` with
    the last drift status when the stack's resource is this one (its physical id is one of
    ``aliases``: the id, name or ARN it goes by); still ``tagged`` and saying why when the
    stack now holds another resource under that logical id."""
    drift = {
        "drift_status": clip(record.drift_status, 40) if record.drift_status else None,
        "drift_checked": clip(record.drift_checked, 40) if record.drift_checked else None,
    }
    if record.stack_name:
        drift["stack"] = _code(record.stack_name)
    if record.physical_id is not None and record.physical_id in set(aliases):
        return owner.model_copy(update={"confidence": "confirmed", **drift})
    other = clip(record.physical_id, 120) if record.physical_id else "no physical resource"
    return owner.model_copy(
        update={"note": f"the stack's resource {owner.logical_id} is now {other}, not this one"}
    )


def unconfirmed(owner: IacOwner, reason: str) -> IacOwner:
    """``owner`` (tagged) when the stack's record could not be read: said, not hidden."""
    return owner.model_copy(update={"note": clip(reason, 200)})
