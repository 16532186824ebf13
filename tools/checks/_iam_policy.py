"""Evaluating IAM identity-policy documents for one action on one resource.

Just enough of the IAM evaluation logic for § D.1: Action / NotAction and Resource /
NotResource with wildcards, an explicit Deny over any Allow. Conditions are not evaluated,
and only the documents handed over are read (for D.1 the execution role's identity
policies, not the bucket policy), so callers report what those documents lack rather than
claiming the resource is unreadable by every path.
"""

from __future__ import annotations

import fnmatch
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


def policy_decision(documents: list[dict[str, Any]], action: str, resource: str) -> str:
    """'deny' (explicit), 'allow', or 'implicit-deny' over identity-policy documents.

    Conditions are not evaluated: a conditional Allow counts as an Allow (optimistic), a
    conditional Deny as a Deny.
    """
    allowed = False
    for document in documents:
        if not isinstance(document, dict):
            continue
        for statement in _as_list(document.get("Statement")):
            if not isinstance(statement, dict) or not _statement_applies(
                statement, action, resource
            ):
                continue
            if statement.get("Effect") == "Deny":
                return "deny"
            if statement.get("Effect") == "Allow":
                allowed = True
    return "allow" if allowed else "implicit-deny"
