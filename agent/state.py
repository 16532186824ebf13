"""The conversation's workflow state, kept by code rather than left to the model.

What is known (cluster, region, instance ids, error strings), what triage found (every
report of this conversation, for comparison), which commands were proposed and are waiting
for the user, and which were reported applied (a reboot reported done is what allows a
replacement without the replace-before-reboot flag, as does a finding whose row of the
remediation table, tools/remediation/, allows replacing first).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.safety.model import Suggestion
from tools.findings import Finding, Status
from tools.remediation import EVIDENCE_KEY, replacement_first
from tools.target import CLUSTER_ARN, CLUSTER_NAME, REGION
from tools.triage.report import TriageReport

Language = Literal["en", "zh"]
MAX_ERROR_STRINGS = 20
MAX_NODE_STATUSES = 500
NODE_IDS = ("i-", "hyperpod-i-", "ip-")
# A node as the conversation names one: an instance id, hyperpod-i-..., a Slurm name.
_NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_STATUS = re.compile(r"^[A-Za-z][A-Za-z0-9_ -]{0,63}$")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
# Lines that read like error text worth keeping verbatim for a support ticket.
_ERRORISH = re.compile(
    r"error|fail|exception|denied|timeout|timed out|xid|nccl|oom|killed|refused|unreachable|"
    r"panic|crashloop|not found|unhealthy|错误|失败|异常|超时",
    re.IGNORECASE,
)


def reboot_targets(applied: Iterable[Suggestion]) -> set[str]:
    """The nodes the applied reboots acted on: instance ids and node names (hyperpod-i-...,
    ip-...), as a replacement may name the node either way."""
    return {
        target
        for suggestion in applied
        if suggestion.kind == "reboot"
        for target in suggestion.targets
        if target.startswith(NODE_IDS)
    }


def replace_first_nodes(findings: Iterable[Finding]) -> dict[str, str]:
    """Node → remediation row, for the FAIL or WARN findings that name a row allowing a
    replacement before a reboot (the first such row per node). The tools show it beside
    their findings, so the model and the eval grader see the same evidence the safety
    layer waives its replace-before-reboot flag on."""
    nodes: dict[str, str] = {}
    for finding in findings:
        if finding.status not in (Status.FAIL, Status.WARN):
            continue
        row = finding.evidence.get(EVIDENCE_KEY)
        if not isinstance(row, str) or not replacement_first(row):
            continue
        for resource in finding.resources:
            if resource.startswith(NODE_IDS):
                nodes.setdefault(resource, row)
    return nodes


def detect_language(text: str, default: Language = "en") -> Language:
    """Chinese when the text has more CJK characters than a sprinkle among Latin ones.

    Identifiers, commands and pasted logs are Latin in both languages, so a handful of
    Chinese characters is enough to say the user writes Chinese."""
    cjk = len(_CJK.findall(text))
    if cjk >= 2 and cjk * 4 >= min(len(_LATIN.findall(text)), 40):
        return "zh"
    if _LATIN.search(text):
        return "en" if cjk == 0 else default
    return default


def error_lines(text: str) -> list[str]:
    lines = [ln.strip() for ln in text.splitlines()]
    return [ln[:300] for ln in lines if ln and _ERRORISH.search(ln)]


@dataclass
class ConversationState:
    cluster: str | None = None
    region: str | None = None
    orchestrator: str | None = None
    focus_node: str | None = None
    language: Language = "en"
    instance_ids: list[str] = field(default_factory=list)
    error_strings: list[str] = field(default_factory=list)
    xids: list[int] = field(default_factory=list)
    triages: list[TriageReport] = field(default_factory=list)
    # When each of `triages` ran (UTC): how old the evidence is (/context, a resumed chat).
    triage_times: list[datetime] = field(default_factory=list)
    pending: list[Suggestion] = field(default_factory=list)
    # Suggestions made through suggest_command during the current turn (the loop resets it).
    turn_suggestions: list[Suggestion] = field(default_factory=list)
    applied: list[Suggestion] = field(default_factory=list)
    rebooted: set[str] = field(default_factory=set)
    # Node → the remediation row of a finding (triage or a check) that allows replacing it
    # before a reboot: conclusive evidence by the table, seen in this conversation.
    replace_first: dict[str, str] = field(default_factory=dict)
    slurm_controllers: set[str] = field(default_factory=set)
    retriages: int = 0
    # Instance id → ListClusterNodes status, as the latest triage read it, for the nodes its
    # problems name and the nodes the user named: a node suggestion's precondition.
    node_statuses: dict[str, str] = field(default_factory=dict)
    # At most this many triage reports are kept, the oldest dropped first (None: all). A
    # long-lived MCP server sets it: each report is tens of KB, and only the latest two are
    # ever compared. `dropped_triages` counts the reports dropped, so triages keep their
    # numbers.
    keep_triages: int | None = None
    dropped_triages: int = 0

    @property
    def triage_count(self) -> int:
        """How many triages ran in this conversation, the dropped ones included."""
        return self.dropped_triages + len(self.triages)

    @property
    def triage_done(self) -> bool:
        return bool(self.triages)

    @property
    def latest(self) -> TriageReport | None:
        return self.triages[-1] if self.triages else None

    def note_user_text(self, text: str) -> None:
        """Keep what the user's own message tells: its language, then its ids and error
        strings. Only the user's messages set the conversation's language."""
        self.language = detect_language(text, self.language)
        self.note_text(text)

    def note_text(self, text: str) -> None:
        """Keep the ids and error strings of a text (the explain extractor reads them as
        data; nothing in them is followed). The language stays: a log line the model passes
        to explain_signal is English whatever language the user writes, and must not switch
        the system prompt or the command blocks to English."""
        from tools.explain.identifiers import extract_identifiers
        from tools.explain.sanitize import clean_text

        cleaned, _ = clean_text(text)
        ids = extract_identifiers(cleaned)
        for instance in ids.instance_ids:
            if instance not in self.instance_ids:
                self.instance_ids.append(instance)
        for xid in ids.xids:
            if xid not in self.xids:
                self.xids.append(xid)
        if self.region is None and ids.regions:
            self.region = ids.regions[0]
        for error in error_lines(cleaned):
            if error not in self.error_strings and len(self.error_strings) < MAX_ERROR_STRINGS:
                self.error_strings.append(error)

    def note_findings(self, findings: Iterable[Finding]) -> None:
        """Keep the nodes whose FAIL or WARN findings name a remediation row that allows a
        replacement before a reboot (the safety layer waives replace-before-reboot there)."""
        for node, row in replace_first_nodes(findings).items():
            self.replace_first.setdefault(node, row)
            if node.startswith("i-"):
                self.replace_first.setdefault(f"hyperpod-{node}", row)

    def note_triage(self, report: TriageReport) -> None:
        self.triages.append(report)
        self.triage_times.append(datetime.now(UTC))
        if self.keep_triages is not None and len(self.triages) > self.keep_triages:
            dropped = len(self.triages) - max(self.keep_triages, 2)
            del self.triages[:dropped]
            del self.triage_times[:dropped]
            self.dropped_triages += dropped
        self.note_findings(report.findings)
        self.cluster = report.cluster.name or self.cluster
        self.region = report.cluster.region or self.region
        self.orchestrator = report.cluster.orchestrator or self.orchestrator

    def note_node_statuses(self, statuses: dict[str, str]) -> None:
        """Keep the listed status of the nodes the latest triage's problems name and of the
        nodes named in the conversation (at most MAX_NODE_STATUSES): what a node suggestion
        is pinned to. A node the listing no longer has is dropped."""
        report = self.latest
        wanted = {i for i in self.instance_ids if i.startswith("i-")}
        if report is not None:
            for finding in report.problems():
                wanted.update(r.removeprefix("hyperpod-") for r in finding.resources)
        kept = {i: statuses[i] for i in sorted(wanted) if i in statuses}
        self.node_statuses = dict(list(kept.items())[:MAX_NODE_STATUSES])

    def propose(self, suggestion: Suggestion) -> None:
        if suggestion.mutating and all(s.command != suggestion.command for s in self.pending):
            self.pending.append(suggestion)

    def mark_applied(self) -> list[Suggestion]:
        """The user reports the pending changes made: a reboot counts as tried for its
        targets from now on."""
        done, self.pending = self.pending, []
        self.applied.extend(done)
        self.rebooted.update(reboot_targets(done))
        return done

    @property
    def latest_time(self) -> datetime | None:
        return self.triage_times[-1] if self.triage_times else None

    # -- saved and resumed (`/save`, `chat --resume`) -------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """What a resumed conversation needs, as JSON. The suggestions of the turn in progress
        are left out: a save happens between turns, and each turn starts without them."""
        return SavedState(
            cluster=self.cluster,
            region=self.region,
            orchestrator=self.orchestrator,
            focus_node=self.focus_node,
            language=self.language,
            instance_ids=self.instance_ids,
            error_strings=self.error_strings,
            xids=self.xids,
            triages=self.triages,
            triage_times=self.triage_times,
            pending=self.pending,
            applied=self.applied,
            rebooted=sorted(self.rebooted),
            replace_first=self.replace_first,
            slurm_controllers=sorted(self.slurm_controllers),
            retriages=self.retriages,
            node_statuses=self.node_statuses,
        ).model_dump(mode="json")

    def load(self, data: Any) -> None:
        """Take over a saved state (`to_json`'s output) in place: the toolset and the agent
        share this object. Raises ValueError (pydantic's ValidationError is one) when the data
        is not a saved state; nothing changes then."""
        saved = SavedState.model_validate(data)
        if saved.triage_times and len(saved.triage_times) != len(saved.triages):
            raise ValueError("triage_times and triages differ in length")
        self.cluster = saved.cluster
        self.region = saved.region
        self.orchestrator = saved.orchestrator
        self.focus_node = saved.focus_node
        self.language = saved.language
        self.instance_ids = list(saved.instance_ids)
        self.error_strings = list(saved.error_strings)
        self.xids = list(saved.xids)
        self.triages = list(saved.triages)
        self.triage_times = list(saved.triage_times)
        self.pending = list(saved.pending)
        self.turn_suggestions = []
        self.applied = list(saved.applied)
        self.rebooted = set(saved.rebooted)
        self.replace_first = dict(saved.replace_first)
        self.slurm_controllers = set(saved.slurm_controllers)
        self.retriages = saved.retriages
        self.node_statuses = dict(saved.node_statuses)


class SavedState(BaseModel):
    """The JSON form of a ConversationState in a transcript's state line. Unknown fields are
    refused: a file that does not match is not resumed on a guess. The cluster, region and
    orchestrator go into the system prompt, outside the model-visible history: each must be
    what opening a cluster could have set (a name, an ARN, a region, eks or slurm), so a
    forged file cannot write instructions there."""

    model_config = ConfigDict(extra="forbid")

    cluster: str | None = None
    region: str | None = None
    orchestrator: Literal["eks", "slurm"] | None = None
    focus_node: str | None = None
    language: Language = "en"
    instance_ids: list[str] = Field(default_factory=list)
    error_strings: list[str] = Field(default_factory=list)
    xids: list[int] = Field(default_factory=list)
    triages: list[TriageReport] = Field(default_factory=list)
    triage_times: list[datetime] = Field(default_factory=list)
    pending: list[Suggestion] = Field(default_factory=list)
    applied: list[Suggestion] = Field(default_factory=list)
    rebooted: list[str] = Field(default_factory=list)
    replace_first: dict[str, str] = Field(default_factory=dict)
    slurm_controllers: list[str] = Field(default_factory=list)
    retriages: int = Field(default=0, ge=0)
    node_statuses: dict[str, str] = Field(default_factory=dict)

    @field_validator("cluster")
    @classmethod
    def _cluster(cls, value: str | None) -> str | None:
        if value is not None and not (CLUSTER_NAME.match(value) or CLUSTER_ARN.match(value)):
            raise ValueError("not a cluster name or ARN")
        return value

    @field_validator("region")
    @classmethod
    def _region(cls, value: str | None) -> str | None:
        if value is not None and not REGION.match(value):
            raise ValueError("not an AWS region name")
        return value

    @field_validator("focus_node")
    @classmethod
    def _node(cls, value: str | None) -> str | None:
        if value is not None and not _NODE_NAME.match(value):
            raise ValueError("not a node name")
        return value

    @field_validator("node_statuses")
    @classmethod
    def _statuses(cls, value: dict[str, str]) -> dict[str, str]:
        # Node names and the statuses ListClusterNodes gives (Running, Failure, ...) only:
        # the file is data, and these are read back into verdicts shown to the user.
        for node, status in value.items():
            if not _NODE_NAME.match(node) or not _STATUS.match(status):
                raise ValueError("not a node name and a node status")
        return value
