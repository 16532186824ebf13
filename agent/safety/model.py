"""A suggested command: what the user may run themselves, never something the agent runs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.ownership.model import IacOwner

SuggestionKind = Literal["investigate", "config", "workload", "node", "reboot", "replace"]
# Flags are stable strings (graded by evals); their human text is rendered at the edge.
FLAG_REPLACE_BEFORE_REBOOT = "replace-before-reboot"
FLAG_SLURM_CONTROLLER = "slurm-controller"
FLAG_BEFORE_TRIAGE = "before-triage"
FLAG_UNCLASSIFIED = "unclassified-command"
FLAG_DATA_LOSS = "data-loss"


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
