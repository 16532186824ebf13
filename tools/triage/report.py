"""The triage report: identity, findings, skips and the summary (JSON contract)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from tools.findings import Finding, Priority, Skipped, Status


class ClusterIdentity(BaseModel):
    name: str
    arn: str = ""
    id: str = ""
    region: str
    orchestrator: str = ""
    account: str = ""


class Summary(BaseModel):
    by_status: dict[str, int]
    by_priority: dict[str, int]


class TriageReport(BaseModel):
    cluster: ClusterIdentity
    node: str | None = None
    recorded: bool = False
    findings: list[Finding] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)

    @property
    def summary(self) -> Summary:
        by_status = {s.value: 0 for s in Status}
        by_priority = {p.value: 0 for p in Priority}
        for finding in self.findings:
            by_status[finding.status.value] += 1
            if finding.priority is not None and finding.status in (Status.FAIL, Status.WARN):
                by_priority[finding.priority.value] += 1
        return Summary(by_status=by_status, by_priority=by_priority)

    def problems(self) -> list[Finding]:
        return [f for f in self.findings if f.status in (Status.FAIL, Status.WARN)]

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster.model_dump(mode="json"),
            "node": self.node,
            "recorded": self.recorded,
            "findings": [f.to_json() for f in self.findings],
            "skipped": [s.model_dump(mode="json") for s in self.skipped],
            "summary": self.summary.model_dump(mode="json"),
        }
