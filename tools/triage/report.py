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


class OldRecording(BaseModel):
    """A replayed recording made by an earlier version than the one replaying it, which
    lacked calls this version makes: the checks that went without, and how to re-record.

    Said once for the whole report: each skipped check's reason says it too, but a reader
    of a long Skipped list must not have to work out that the file is simply old."""

    recorded_with: str | None = Field(
        description="The recording's version stamp; null when it has none (made by a "
        "version from before recordings were stamped)."
    )
    replayed_with: str = Field(description="The hyperpod-debug version that replayed it.")
    checks: list[str] = Field(description="Checks skipped for a call the recording lacks.")
    calls: list[str] = Field(description="The IAM actions of the calls it lacks.")
    rerecord: str = Field(description="The command that records the cluster again.")

    @property
    def message(self) -> str:
        made = (
            "an earlier hyperpod-debug (it has no version stamp)"
            if self.recorded_with is None
            else f"hyperpod-debug {self.recorded_with}"
        )
        lacked = (
            f"{len(self.checks)} check(s) lacked data it never recorded: {', '.join(self.checks)}"
            if self.checks
            else "No check was skipped for it, but some reads found nothing recorded"
        )
        return (
            f"This recording predates hyperpod-debug {self.replayed_with}: it was made by "
            f"{made}. {lacked} (not recorded: {', '.join(self.calls)}). Re-record the "
            f"cluster with this version for a complete triage: {self.rerecord}"
        )

    def to_json(self) -> dict[str, Any]:
        return {**self.model_dump(mode="json"), "message": self.message}


class TriageReport(BaseModel):
    cluster: ClusterIdentity
    node: str | None = None
    recorded: bool = False
    findings: list[Finding] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    old_recording: OldRecording | None = None

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
            # Only on a replay that lacked calls of a newer version: reports of live runs
            # and complete recordings keep their shape.
            **({"old_recording": self.old_recording.to_json()} if self.old_recording else {}),
        }
