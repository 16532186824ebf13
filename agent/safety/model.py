"""A suggested command: what the user may run themselves, never something the agent runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.ownership.model import IacOwner

SuggestionKind = Literal["investigate", "config", "workload", "node", "reboot", "replace"]
# Flags are stable strings (graded by evals); their human text is rendered at the edge.
FLAG_REPLACE_BEFORE_REBOOT = "replace-before-reboot"
FLAG_SLURM_CONTROLLER = "slurm-controller"
FLAG_BEFORE_TRIAGE = "before-triage"
FLAG_UNCLASSIFIED = "unclassified-command"
FLAG_DATA_LOSS = "data-loss"


class Evidence(BaseModel):
    """One finding a suggestion rests on, as it was read: which check said what about which
    resources, the values the rule judged (the finding's `evidence`) and when the triage
    that found it ran (None when that time is unknown, e.g. a state saved without it)."""

    model_config = ConfigDict(frozen=True)

    check: str
    status: str = Field(description="PASS, FAIL, WARN or INFO, as the check reported it.")
    section: str
    message: str
    resources: list[str] = Field(default_factory=list)
    observed: dict[str, Any] = Field(default_factory=dict)
    read_at: datetime | None = None
    triage: int | None = Field(default=None, description="Number of the triage (1 = first).")


PreconditionKind = Literal["finding", "node-status", "not-slurm-controller"]


class Precondition(BaseModel):
    """What must still hold for a suggestion to make sense, in a form `verify` re-reads:

    - ``finding``: check ``check`` still reports ``expected`` (FAIL or WARN) on ``resource``
      (re-read by running that one check);
    - ``node-status``: node ``resource`` is still listed with status ``expected``
      (ListClusterNodes);
    - ``not-slurm-controller``: node ``resource`` is not the Slurm controller
      (ListClusterNodes: the controller group)."""

    model_config = ConfigDict(frozen=True)

    kind: PreconditionKind
    resource: str | None = Field(default=None, description="None: the check as a whole.")
    check: str | None = None
    expected: str | None = None
    since: datetime | None = Field(default=None, description="When the value was read.")


class Suggestion(BaseModel):
    """One command for the user to run, with what it changes and what it risks.

    The JSON field names are a contract (`ask --format json` → `suggested_commands`)."""

    model_config = ConfigDict(frozen=True)

    command: str = Field(description="The exact command, real ids filled in.")
    kind: SuggestionKind
    mutating: bool = Field(description="False only for read-only commands.")
    purpose: str = Field(description="Why to run it, in one sentence.")
    targets: list[str] = Field(default_factory=list, description="Ids the command acts on.")
    blast_radius: str = Field(description="What it affects, e.g. 'reboots i-0abc...'.")
    iac_warning: str | None = Field(
        default=None,
        description="The IaC question and drift warning, for cluster / VPC / SG / subnet / EKS "
        "configuration changes; None otherwise (node and workload state: cordon, drain...).",
    )
    flags: list[str] = Field(default_factory=list, description="Stable flag ids, see FLAG_*.")
    section: str | None = Field(default=None, description="Reference section it comes from.")
    replace_basis: list[str] = Field(
        default_factory=list,
        description="For a replacement without the replace-before-reboot flag on a node that "
        "was not rebooted: the remediation-table rows (tools/remediation/) whose evidence, "
        "seen in this conversation, allows replacing before a reboot.",
    )
    iac_owner: list[IacOwner] = Field(
        default_factory=list,
        description="Who manages each resource the command changes (security groups, subnets, "
        "VPCs, the HyperPod and EKS clusters), read from their tags and CloudFormation "
        "(tools/ownership); with `iac_warning` only. Empty when nothing was looked up.",
    )
    source: Literal["tool", "text"] = Field(
        default="tool",
        description="'tool': proposed through suggest_command; 'text': found in the model's "
        "prose and turned into a suggestion by the safety layer.",
    )
    evidence: list[Evidence] = Field(
        default_factory=list,
        description="The findings it rests on (agent.safety.evidence.pin): those naming one of "
        "its targets, else those of its reference section.",
    )
    preconditions: list[Precondition] = Field(
        default_factory=list,
        description="What `verify` re-reads before the command is run; empty: nothing to check.",
    )
