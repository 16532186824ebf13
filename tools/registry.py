"""The one explicit registry of checks.

Each check is registered once with its section, title, scope and typed input/output
models, so the CLI runs them all and the agent exposes each one as a typed tool. A check is
a function from fetched cluster data to findings; it never catches AWS errors itself (the
runner turns them into `skipped` entries in one place).

Scope: a "cluster" check judges the whole cluster and takes no argument; a "node" check can
be focused on one instance (`NodeScope.instance_id`), and then judges that node alone
through a view of the same fetched data (`ClusterData.for_node`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.findings import Finding, Findings, Skipped
from tools.sections import section as lookup_section
from tools.target import INSTANCE_ID

if TYPE_CHECKING:
    from tools.triage.data import ClusterData

Orchestrator = Literal["eks", "slurm"]
Scope = Literal["cluster", "node"]
CheckFunction = Callable[["ClusterData"], Iterable[Finding]]


class ClusterScope(BaseModel):
    """A cluster-wide check: no arguments."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class NodeScope(BaseModel):
    """A check that can look at one node, or at every node when no instance is given."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance_id: str | None = Field(
        default=None,
        pattern=INSTANCE_ID.pattern,
        description="EC2 instance id of the one node to judge, e.g. i-0123456789abcdef0; "
        "omit to judge every node the triage looks at.",
    )


INPUT_MODELS: dict[str, type[BaseModel]] = {"cluster": ClusterScope, "node": NodeScope}


class CheckOutput(BaseModel):
    """What one check returns to its caller (the triage runner or the agent)."""

    check: str
    findings: list[Finding] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)


@dataclass(frozen=True)
class CheckSpec:
    id: str
    section: str
    title: str
    description: str
    run: CheckFunction
    orchestrators: frozenset[str] = field(default_factory=lambda: frozenset({"eks", "slurm"}))
    scope: Scope = "cluster"
    input_model: type[BaseModel] = ClusterScope
    output_model: type[BaseModel] = CheckOutput

    def applies_to(self, orchestrator: str) -> bool:
        return orchestrator in self.orchestrators


_REGISTRY: dict[str, CheckSpec] = {}


def check(
    check_id: str | Findings,
    *,
    title: str,
    section: str | None = None,
    orchestrators: Iterable[Orchestrator] = ("eks", "slurm"),
    scope: Scope = "cluster",
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check function under a unique id. Given the check's `Findings`, its id
    and section come from there (bound once, see tools/findings.py); given a bare id, the
    section is named here."""
    if isinstance(check_id, Findings):
        if section not in (None, check_id.section):
            raise ValueError(f"check {check_id.check!r}: section {section!r} is not its own")
        registered_id, registered_section = check_id.check, check_id.section
    elif section is None:
        raise ValueError(f"check {check_id!r} needs a section")
    else:
        registered_id, registered_section = check_id, section
    lookup_section(registered_section)

    def decorate(func: CheckFunction) -> CheckFunction:
        if registered_id in _REGISTRY:
            raise ValueError(f"check {registered_id!r} registered twice")
        _REGISTRY[registered_id] = CheckSpec(
            id=registered_id,
            section=registered_section,
            title=title,
            description=(func.__doc__ or title).strip(),
            run=func,
            orchestrators=frozenset(orchestrators),
            scope=scope,
            input_model=INPUT_MODELS[scope],
        )
        return func

    return decorate


def all_checks() -> list[CheckSpec]:
    """Every registered check, in the order of the explicit module list."""
    import tools.checks  # noqa: F401  (importing registers the checks)

    return list(_REGISTRY.values())


def get_check(check_id: str) -> CheckSpec:
    all_checks()
    try:
        return _REGISTRY[check_id]
    except KeyError:
        raise KeyError(f"unknown check {check_id!r}") from None
