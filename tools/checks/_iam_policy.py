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
from dataclasses import dataclass, field
from typing import Any


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _matches_any(patterns: list[Any], value: str, *, case: bool) -> bool:
    for pattern in patterns:
        if not isinstance(pattern, str):
            continue
        if case and fnmatch.fnmatchcase(value, pattern):
            return True
        if not case and fnmatch.fnmatchcase(value.lower(), pattern.lower()):
            return True
    return False


def _statement_applies(statement: dict[str, Any], action: str, resource: str) -> bool:
    if "Action" in statement:
        action_ok = _matches_any(_as_list(statement["Action"]), action, case=False)
    elif "NotAction" in statement:
        action_ok = not _matches_any(_as_list(statement["NotAction"]), action, case=False)
    else:
        return False
    if "Resource" in statement:
        resource_ok = _matches_any(_as_list(statement["Resource"]), resource, case=True)
    elif "NotResource" in statement:
        resource_ok = not _matches_any(_as_list(statement["NotResource"]), resource, case=True)
    else:
        return False
    return action_ok and resource_ok


def _condition_keys(statement: dict[str, Any]) -> list[str]:
    """The condition keys of a statement (`aws:SecureTransport`, ...); [] without one."""
    condition = statement.get("Condition")
    if not isinstance(condition, dict) or not condition:
        return []
    keys: list[str] = []
    for operator, tests in condition.items():
        if isinstance(tests, dict) and tests:
            keys.extend(str(key) for key in tests)
        else:
            keys.append(str(operator))
    return sorted(set(keys))


@dataclass(frozen=True)
class Decision:
    """The outcome for one action on one resource over identity-policy documents."""

    verdict: str  # "deny" (explicit, unconditional), "allow" or "implicit-deny"
    conditional_denies: list[str] = field(default_factory=list)
    """Condition keys of Deny statements that apply but carry a Condition (not evaluated)."""


def evaluate(documents: list[dict[str, Any]], action: str, resource: str) -> Decision:
    """An unconditional Deny wins; a conditional Deny is noted, not counted as a deny."""
    allowed = False
    denied = False
    conditional: list[str] = []
    for document in documents:
        if not isinstance(document, dict):
            continue
        for statement in _as_list(document.get("Statement")):
            if not isinstance(statement, dict) or not _statement_applies(
                statement, action, resource
            ):
                continue
            effect = statement.get("Effect")
            if effect == "Deny":
                if statement.get("Condition") in (None, {}, [], ""):
                    denied = True
                else:
                    # An unreadable Condition is still a condition: not evaluated either.
                    conditional.extend(_condition_keys(statement) or ["(unreadable condition)"])
            elif effect == "Allow":
                allowed = True
    verdict = "deny" if denied else ("allow" if allowed else "implicit-deny")
    return Decision(verdict=verdict, conditional_denies=sorted(set(conditional)))


def policy_decision(documents: list[dict[str, Any]], action: str, resource: str) -> str:
    """'deny' (explicit, unconditional), 'allow', or 'implicit-deny' (see `evaluate`)."""
    return evaluate(documents, action, resource).verdict
