"""Typed results: every check returns findings; prose is rendered from them at the edge."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools.sections import SECTIONS, section

# Items of one list (or entries of one mapping) a finding keeps, whatever the cluster size:
# the JSON report of a 20,000-node cluster stays small and a reader sees the first (worst)
# items with counts of the rest.
EVIDENCE_ITEMS = 50


def bounded(
    name: str, items: Iterable[Any], limit: int = EVIDENCE_ITEMS, *, total: int | None = None
) -> dict[str, Any]:
    """Evidence for a list that grows with the cluster, to splat into a finding:
    `{name: first limit items}`, plus `<name>_total` and `<name>_not_shown` when some are
    left out. Order the items worst first: the first ones are the ones kept. `total` is the
    count of all the items when `items` holds only the first ones (to build no more than
    are kept)."""
    values = list(items)
    count = max(len(values), total or 0)
    kept: dict[str, Any] = {name: values[:limit]}
    if count > limit:
        kept[f"{name}_total"] = count
        kept[f"{name}_not_shown"] = count - limit
    return kept


def cap_evidence(evidence: dict[str, Any], limit: int = EVIDENCE_ITEMS) -> dict[str, Any]:
    """`evidence` with every list or mapping longer than `limit` (at any depth inside
    mappings, and inside the mappings a list holds) cut to its first `limit` items, with
    `<key>_total` and `<key>_not_shown` beside it. A key that already has `<key>_total`
    (made by `bounded`) is left as it is. Small evidence comes back unchanged."""
    capped: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for key, value in evidence.items():
        capped[key] = _capped(key, value, f"{key}_total" in evidence, counts, limit)
    for key, count in counts.items():
        capped.setdefault(key, count)
    return capped


def _capped(key: str, value: Any, counted: bool, counts: dict[str, int], limit: int) -> Any:
    if isinstance(value, dict):
        if len(value) > limit and not counted:
            counts[f"{key}_total"] = len(value)
            counts[f"{key}_not_shown"] = len(value) - limit
            value = dict(list(value.items())[:limit])
        return cap_evidence(value, limit)
    if not isinstance(value, list | tuple | set | frozenset):
        return value
    if len(value) > limit and not counted:
        counts[f"{key}_total"] = len(value)
        counts[f"{key}_not_shown"] = len(value) - limit
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else list(value)
        value = items[:limit]
    if any(isinstance(item, dict) for item in value):
        return [cap_evidence(item, limit) if isinstance(item, dict) else item for item in value]
    return value


class Status(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"
    INFO = "INFO"


class Priority(StrEnum):
    P0 = "P0"  # blocks running
    P1 = "P1"  # degrades
    P2 = "P2"  # informational


class Finding(BaseModel):
    """One judged fact about the cluster, with the evidence the rule looked at."""

    model_config = ConfigDict(frozen=True)

    check: str = Field(description="Id of the check that produced this finding.")
    status: Status
    priority: Priority | None = Field(
        default=None, description="Set on FAIL and WARN: P0 blocks, P1 degrades, P2 informs."
    )
    section: str = Field(description='Reference section, e.g. "A", "B.2", "G.1.a".')
    message: str
    resources: list[str] = Field(default_factory=list, description="Instance, SG, subnet ids.")
    evidence: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        """Evidence and resources stay bounded whatever the cluster size."""
        if not isinstance(data, dict):
            return data
        evidence = data.get("evidence")
        resources = data.get("resources")
        if isinstance(resources, list) and len(resources) > EVIDENCE_ITEMS:
            evidence = {
                **(evidence or {}),
                "resources_total": len(resources),
                "resources_not_shown": len(resources) - EVIDENCE_ITEMS,
            }
            data = {**data, "resources": resources[:EVIDENCE_ITEMS]}
        if isinstance(evidence, dict):
            data = {**data, "evidence": cap_evidence(evidence)}
        return data

    @field_validator("section")
    @classmethod
    def _known_section(cls, value: str) -> str:
        if value not in SECTIONS:
            raise ValueError(f"unknown reference section {value!r}")
        return value

    @model_validator(mode="after")
    def _priority_on_problems(self) -> Finding:
        if self.status in (Status.FAIL, Status.WARN) and self.priority is None:
            raise ValueError(f"{self.status} finding needs a priority")
        return self

    @property
    def reference(self) -> str:
        return section(self.section).reference

    @property
    def pointer(self) -> str:
        return section(self.section).pointer

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        data["reference"] = self.reference
        return data


class Skipped(BaseModel):
    """A check that could not run, and why (AccessDenied, tool missing, node unreachable)."""

    model_config = ConfigDict(frozen=True)

    check: str
    reason: str
    hint: str = ""


class Site(NamedTuple):
    """Which check a finding is of and the reference section it points to. Unchecked here:
    the finding validates the section (a `Findings` checks it when the check binds it)."""

    check: str
    section: str


def finding(
    site: Site,
    status: Status,
    message: str,
    *,
    priority: Priority | None = None,
    resources: list[str] | None = None,
    evidence: dict[str, Any] | None = None,
) -> Finding:
    """The one constructor every finding goes through (`Findings` and the four shorthands
    below call it), so what a finding holds is decided in one place."""
    return Finding(
        check=site.check,
        status=status,
        priority=priority,
        section=site.section,
        message=message,
        resources=resources or [],
        evidence=evidence or {},
    )


def fail(
    check: str,
    priority: Priority,
    section_id: str,
    message: str,
    *,
    resources: list[str] | None = None,
    **evidence: Any,
) -> Finding:
    return finding(
        Site(check, section_id),
        Status.FAIL,
        message,
        priority=priority,
        resources=resources,
        evidence=evidence,
    )


def warn(
    check: str,
    priority: Priority,
    section_id: str,
    message: str,
    *,
    resources: list[str] | None = None,
    **evidence: Any,
) -> Finding:
    return finding(
        Site(check, section_id),
        Status.WARN,
        message,
        priority=priority,
        resources=resources,
        evidence=evidence,
    )


def passed(
    check: str,
    section_id: str,
    message: str,
    *,
    resources: list[str] | None = None,
    **evidence: Any,
) -> Finding:
    return finding(
        Site(check, section_id), Status.PASS, message, resources=resources, evidence=evidence
    )


def info(
    check: str,
    section_id: str,
    message: str,
    *,
    resources: list[str] | None = None,
    **evidence: Any,
) -> Finding:
    return finding(
        Site(check, section_id), Status.INFO, message, resources=resources, evidence=evidence
    )


@dataclass(frozen=True, slots=True)
class Findings:
    """The findings of one check, with its id and reference section bound once:
    `FINDINGS = Findings(CHECK_ID, "A")`, then `FINDINGS.fail(Priority.P0, "...")`. A
    finding that points to another section than the check's own is made with
    `FINDINGS.at("G.1.a").fail(...)`."""

    check: str
    section: str

    def __post_init__(self) -> None:
        section(self.section)  # an unknown section fails at import, not at the first finding

    def at(self, section_id: str) -> Findings:
        """The same check's findings in another reference section."""
        return Findings(self.check, section_id)

    def fail(
        self,
        priority: Priority,
        message: str,
        *,
        resources: list[str] | None = None,
        **evidence: Any,
    ) -> Finding:
        return finding(
            Site(self.check, self.section),
            Status.FAIL,
            message,
            priority=priority,
            resources=resources,
            evidence=evidence,
        )

    def warn(
        self,
        priority: Priority,
        message: str,
        *,
        resources: list[str] | None = None,
        **evidence: Any,
    ) -> Finding:
        return finding(
            Site(self.check, self.section),
            Status.WARN,
            message,
            priority=priority,
            resources=resources,
            evidence=evidence,
        )

    def passed(
        self,
        message: str,
        *,
        resources: list[str] | None = None,
        **evidence: Any,
    ) -> Finding:
        return finding(
            Site(self.check, self.section),
            Status.PASS,
            message,
            resources=resources,
            evidence=evidence,
        )

    def info(
        self,
        message: str,
        *,
        resources: list[str] | None = None,
        **evidence: Any,
    ) -> Finding:
        return finding(
            Site(self.check, self.section),
            Status.INFO,
            message,
            resources=resources,
            evidence=evidence,
        )
