"""Typed results: every check returns findings; prose is rendered from them at the edge."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools.sections import SECTIONS, section


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


def fail(
    check: str,
    priority: Priority,
    section_id: str,
    message: str,
    *,
    resources: list[str] | None = None,
    **evidence: Any,
) -> Finding:
    return Finding(
        check=check,
        status=Status.FAIL,
        priority=priority,
        section=section_id,
        message=message,
        resources=resources or [],
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
    return Finding(
        check=check,
        status=Status.WARN,
        priority=priority,
        section=section_id,
        message=message,
        resources=resources or [],
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
    return Finding(
        check=check,
        status=Status.PASS,
        section=section_id,
        message=message,
        resources=resources or [],
        evidence=evidence,
    )


def info(
    check: str,
    section_id: str,
    message: str,
    *,
    resources: list[str] | None = None,
    **evidence: Any,
) -> Finding:
    return Finding(
        check=check,
        status=Status.INFO,
        section=section_id,
        message=message,
        resources=resources or [],
        evidence=evidence,
    )
