"""What each tool returns, as pydantic models: the model reads their compact JSON dump, an
MCP client gets it as structured content validated against their JSON Schema.

The dump is the contract, byte for byte: field order is key order, and a field declared with
`omitted()` is left out of the dump while it is None (a key that only appears when it says
something: `guess`, `replace_first`, `old_recording`, the `<list>_not_shown` counters
`budget.fit_output` adds), while a plain `X | None` field is dumped as null.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from agent.safety.model import Suggestion
from agent.verify import Verdict, all_valid
from tools.findings import Skipped
from tools.ownership.model import IacOwner
from tools.registry import Scope
from tools.triage.report import ClusterIdentity

if TYPE_CHECKING:
    from pydantic import GetJsonSchemaHandler
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import CoreSchema


def _is_none(value: object) -> bool:
    return value is None


def _never_null(schema: dict[str, Any]) -> None:
    """The schema of an `omitted()` field: its type alone, as it is absent rather than
    null when it has no value."""
    options = schema.pop("anyOf", None)
    if isinstance(options, list):
        (kept,) = [o for o in options if o != {"type": "null"}]
        schema.update(kept)
    schema.pop("default", None)


def omitted(description: str | None = None) -> Any:
    """A field absent from the dump (not null) while it has no value."""
    return Field(
        default=None, exclude_if=_is_none, description=description, json_schema_extra=_never_null
    )


def not_shown(items: str) -> Any:
    """The counter `budget.fit` adds when it drops items from the end of a list."""
    return omitted(f"How many {items} were dropped to keep the result small.")


class ToolOutput(BaseModel):
    """A tool's answer. Frozen: a result is trimmed by copying (`budget.fit_output`)."""

    model_config = ConfigDict(frozen=True)

    def payload(self) -> dict[str, Any]:
        """The JSON object the model reads (and MCP's structured content)."""
        return self.model_dump(mode="json")


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True)


# -- triage ------------------------------------------------------------------------------------


class ProblemGroup(_Part):
    """FAIL / WARN findings of one rule, with a few of their report lines."""

    check: str
    status: str
    priority: str
    section: str
    count: int
    lines: list[str] = Field(description="Exact report lines, at most a few.")
    resources: list[str]
    resources_total: int
    replace_first: dict[str, str] | None = omitted(
        "Nodes that may be replaced before a reboot, with the remediation row allowing it."
    )


class SkipGroup(_Part):
    """Checks that could not run for the same reason."""

    reason: str
    hint: str
    checks: list[str]


class TriageOutput(ToolOutput):
    triage_number: int
    cluster: ClusterIdentity
    focus_node: str | None
    recorded: bool
    counts: dict[str, int] = Field(description="By status, by priority, and skipped.")
    problem_groups: list[ProblemGroup]
    skipped: list[SkipGroup]
    next: str
    old_recording: str | None = omitted(
        "The recording predates this version: which checks lacked data, how to re-record."
    )
    skipped_not_shown: int | None = not_shown("skip groups")
    problem_groups_not_shown: int | None = not_shown("problem groups")


# -- one check -------------------------------------------------------------------------------


class CheckProblem(_Part):
    line: str
    resources: list[str]
    evidence: str = Field(description="The values the rule judged, as compact JSON.")


class CheckToolOutput(ToolOutput):
    """Every `check_*` tool's answer."""

    check: str
    focus_node: str | None
    problems: list[CheckProblem]
    other_findings: list[str]
    skipped: list[Skipped]
    replace_first: dict[str, str] | None = omitted(
        "Nodes that may be replaced before a reboot, with the remediation row allowing it."
    )
    other_findings_not_shown: int | None = not_shown("other findings")
    problems_not_shown: int | None = not_shown("problems")


# -- listings --------------------------------------------------------------------------------


class CheckEntry(_Part):
    id: str
    tool: str
    section: str
    title: str
    scope: Scope
    applies: bool


class CheckListOutput(ToolOutput):
    checks: list[CheckEntry]


class FindingLine(_Part):
    line: str
    check: str
    resources: list[str]


class FindingsOutput(ToolOutput):
    total_matching: int
    offset: int
    findings: list[FindingLine]
    next_offset: int | None
    findings_not_shown: int | None = not_shown("findings")


# -- explain_signal --------------------------------------------------------------------------


class SectionMatch(_Part):
    section: str
    title: str
    score: float
    why: str
    next_checks: list[str]
    guess: Literal[True] | None = omitted(
        "A closest-by-wording guess, not a signature match (absent otherwise)."
    )


class TimeWindowFound(_Part):
    start: str
    end: str


class FoundIdentifiers(_Part):
    """The identifiers found in the text; a kind with none found is absent."""

    # Read from `Identifiers.to_json`: a key this model lacks is an error, not dropped.
    model_config = ConfigDict(frozen=True, extra="forbid")

    cluster_names: list[str] | None = omitted()
    cluster_arns: list[str] | None = omitted()
    cluster_ids: list[str] | None = omitted()
    regions: list[str] | None = omitted()
    instance_ids: list[str] | None = omitted()
    instance_groups: list[str] | None = omitted()
    security_group_ids: list[str] | None = omitted()
    subnet_ids: list[str] | None = omitted()
    vpc_ids: list[str] | None = omitted()
    xids: list[int] | None = omitted()
    slurm_nodes: list[str] | None = omitted()
    eks_nodes: list[str] | None = omitted()
    time_window: TimeWindowFound | None = omitted()


class ExplainOutput(ToolOutput):
    message: str
    matches: list[SectionMatch]
    identifiers: FoundIdentifiers
    instruction_lines_ignored: int
    matches_not_shown: int | None = not_shown("matches")


# -- references, comparison ------------------------------------------------------------------


class ReferenceOutput(ToolOutput):
    section: str
    title: str
    text: str
    total_chars: int
    next_offset: int | None = Field(description="Where the next chunk starts; null at the end.")


class ComparisonCounts(_Part):
    cleared: int
    new: int
    remaining: int


class ComparisonOutput(ToolOutput):
    before_triage: int
    after_triage: int
    counts: ComparisonCounts
    cleared: list[str]
    new: list[str]
    remaining: list[str]
    cleared_not_shown: int | None = not_shown("cleared lines")
    remaining_not_shown: int | None = not_shown("remaining lines")
    new_not_shown: int | None = not_shown("new lines")


# -- suggestions -----------------------------------------------------------------------------


class SuggestionOutput(ToolOutput):
    suggestion: Suggestion
    shown_to_user: str = Field(description="The block the software shows the user.")
    next: str


class VerifyOutput(ToolOutput):
    verdicts: list[Verdict]
    all_valid: bool
    verdicts_not_shown: int | None = not_shown("verdicts")

    @classmethod
    def of(cls, verdicts: list[Verdict]) -> VerifyOutput:
        """The verdicts, and whether there are some and all are valid (as
        `agent.verify.to_json` says it for `verify --format json`)."""
        return cls(verdicts=verdicts, all_valid=all_valid(verdicts))


# -- support ticket, cluster -----------------------------------------------------------------


class _KnownFieldsOnly:
    """The serialization schema of an owner written without its null fields: a field that
    may be None is absent rather than null, so only the others are required (pydantic would
    describe IacOwner's own dump, every field required and nullable). Inline, not a change
    to the `IacOwner` definition a suggestion's full dump shares."""

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        generated = handler(schema)
        if handler.mode != "serialization":
            return generated
        owner = copy.deepcopy(handler.resolve_ref_schema(generated))
        properties: dict[str, Any] = owner["properties"]
        nullable = {name for name, field in properties.items() if _allows_null(field)}
        for name in nullable:
            _never_null(properties[name])
        owner["required"] = [name for name in properties if name not in nullable]
        return owner


def _allows_null(field: dict[str, Any]) -> bool:
    return {"type": "null"} in field.get("anyOf", [])


# An owner as the ticket lists it: only what is known (no null fields).
OwnerEntry = Annotated[
    IacOwner,
    PlainSerializer(lambda owner: owner.model_dump(mode="json", exclude_none=True)),
    _KnownFieldsOnly(),
]


class FailureWindow(_Part):
    start: str
    end: str
    source: str


class TicketFields(_Part):
    # Filled from a dict (agent.toolset.ticket_tool): a key this model lacks is an error.
    model_config = ConfigDict(frozen=True, extra="forbid")

    cluster_name: str | None
    cluster_arn: str | None
    region: str | None
    orchestrator: str | None
    instance_ids: list[str]
    node_names: list[str]
    instance_groups: list[str]
    failure_window_utc: FailureWindow | None
    error_strings: list[str]
    xids: list[int]
    hardware_findings: list[str]
    triage_lines: list[str]
    changes_already_applied: list[str]
    log_bundle_s3_uri: str | None
    resource_owners: list[OwnerEntry] | None = omitted(
        "Who manages the resources the suggestions change, when read."
    )
    hardware_findings_not_shown: int | None = not_shown("hardware findings")
    error_strings_not_shown: int | None = not_shown("error strings")
    triage_lines_not_shown: int | None = not_shown("triage lines")
    instance_ids_not_shown: int | None = not_shown("instance ids")
    resource_owners_not_shown: int | None = not_shown("resource owners")


class TicketOutput(ToolOutput):
    ticket: TicketFields
    missing: list[str] = Field(description="Ticket fields still to be asked for.")
    before_opening: list[str]
    node_log_bundle: dict[str, list[str]]
    recorded_cluster: bool
    next: str


class UseClusterOutput(ToolOutput):
    opened: str
    region: str
    orchestrator: str
    next: str
