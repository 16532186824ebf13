"""Typed IAM policy documents: the statements § D.1 evaluates (tools/checks/_iam_policy.py).

A policy document is free-form JSON, so parsing keeps exactly what evaluation reads and
how it reads it: a key that is present but empty still decides which branch applies
(`Action: []` matches nothing, where a statement without Action falls to NotAction), so
each pattern list is None when its key is absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _patterns(statement: dict[str, Any], key: str) -> tuple[str, ...] | None:
    """The string patterns under `key` (others never match), or None without the key."""
    if key not in statement:
        return None
    return tuple(p for p in _as_list(statement[key]) if isinstance(p, str))


def _condition_keys(condition: Any) -> tuple[str, ...]:
    """The condition keys of a statement (`aws:SecureTransport`, ...); () without one."""
    if not isinstance(condition, dict) or not condition:
        return ()
    keys: list[str] = []
    for operator, tests in condition.items():
        if isinstance(tests, dict) and tests:
            keys.extend(str(key) for key in tests)
        else:
            keys.append(str(operator))
    return tuple(sorted(set(keys)))


@dataclass(frozen=True, slots=True)
class PolicyStatement:
    """One statement: Effect, Action / NotAction, Resource / NotResource, Condition."""

    effect: str  # "Allow", "Deny", or whatever else the document says ("" when absent)
    actions: tuple[str, ...] | None
    not_actions: tuple[str, ...] | None
    resources: tuple[str, ...] | None
    not_resources: tuple[str, ...] | None
    conditional: bool  # carries a Condition (anything but a missing or empty one)
    condition_keys: tuple[str, ...]  # () when the Condition is not a readable mapping

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> PolicyStatement:
        effect = raw.get("Effect")
        return cls(
            effect=effect if isinstance(effect, str) else "",
            actions=_patterns(raw, "Action"),
            not_actions=_patterns(raw, "NotAction"),
            resources=_patterns(raw, "Resource"),
            not_resources=_patterns(raw, "NotResource"),
            conditional=raw.get("Condition") not in (None, {}, [], ""),
            condition_keys=_condition_keys(raw.get("Condition")),
        )


@dataclass(frozen=True, slots=True)
class PolicyDocument:
    """An identity-policy document; statements that are not objects are left out."""

    statements: tuple[PolicyStatement, ...]

    @classmethod
    def from_api(cls, raw: Any) -> PolicyDocument:
        if not isinstance(raw, dict):
            return cls(statements=())
        return cls(
            statements=tuple(
                PolicyStatement.from_api(s)
                for s in _as_list(raw.get("Statement"))
                if isinstance(s, dict)
            )
        )
