"""Evaluating IAM identity-policy documents for one action on one resource.

Just enough of the IAM evaluation logic for § D.1: Action / NotAction and Resource /
NotResource with wildcards, an explicit Deny over any Allow. Conditions are not evaluated,
and only the documents handed over are read (for D.1 the execution role's identity
policies, not the bucket policy), so callers report what those documents lack rather than
claiming the resource is unreadable by every path.

A Deny that carries a Condition is not an explicit deny of the request: the usual
`Deny s3:* when aws:SecureTransport is false` never applies to the HTTPS requests the AWS
CLI makes. Such statements are counted apart (`Decision.conditional_denies`), never as a
deny. A conditional Allow counts as an Allow (optimistic: the caller reports a grant).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field

from tools.triage.data.iam_model import PolicyDocument, PolicyStatement


def _matches_any(patterns: tuple[str, ...], value: str, *, case: bool) -> bool:
    for pattern in patterns:
        if case and fnmatch.fnmatchcase(value, pattern):
            return True
        if not case and fnmatch.fnmatchcase(value.lower(), pattern.lower()):
            return True
    return False


def _statement_applies(statement: PolicyStatement, action: str, resource: str) -> bool:
    if statement.actions is not None:
        action_ok = _matches_any(statement.actions, action, case=False)
    elif statement.not_actions is not None:
        action_ok = not _matches_any(statement.not_actions, action, case=False)
    else:
        return False
    if statement.resources is not None:
        resource_ok = _matches_any(statement.resources, resource, case=True)
    elif statement.not_resources is not None:
        resource_ok = not _matches_any(statement.not_resources, resource, case=True)
    else:
        return False
    return action_ok and resource_ok


@dataclass(frozen=True)
class Decision:
    """The outcome for one action on one resource over identity-policy documents."""

    verdict: str  # "deny" (explicit, unconditional), "allow" or "implicit-deny"
    conditional_denies: list[str] = field(default_factory=list)
    """Condition keys of Deny statements that apply but carry a Condition (not evaluated)."""


def evaluate(documents: Sequence[PolicyDocument], action: str, resource: str) -> Decision:
    """An unconditional Deny wins; a conditional Deny is noted, not counted as a deny."""
    allowed = False
    denied = False
    conditional: list[str] = []
    for document in documents:
        for statement in document.statements:
            if not _statement_applies(statement, action, resource):
                continue
            effect = statement.effect
            if effect == "Deny":
                if not statement.conditional:
                    denied = True
                else:
                    # An unreadable Condition is still a condition: not evaluated either.
                    conditional.extend(statement.condition_keys or ["(unreadable condition)"])
            elif effect == "Allow":
                allowed = True
    verdict = "deny" if denied else ("allow" if allowed else "implicit-deny")
    return Decision(verdict=verdict, conditional_denies=sorted(set(conditional)))


def policy_decision(documents: Sequence[PolicyDocument], action: str, resource: str) -> str:
    """'deny' (explicit, unconditional), 'allow', or 'implicit-deny' (see `evaluate`)."""
    return evaluate(documents, action, resource).verdict
