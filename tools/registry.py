"""The one explicit registry of checks.

Each check is registered once with its section, title and typed input/output models, so
the CLI runs them all and the agent can expose each one as a typed tool. A check is a
function from fetched cluster data to findings; it never catches AWS errors itself (the
runner turns them into `skipped` entries in one place).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from tools.findings import Finding, Skipped
from tools.sections import section as lookup_section
from tools.triage.target import TriageTarget

if TYPE_CHECKING:
    from tools.triage.data import ClusterData

Orchestrator = Literal["eks", "slurm"]
CheckFunction = Callable[["ClusterData"], Iterable[Finding]]


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
    input_model: type[BaseModel] = TriageTarget
    output_model: type[BaseModel] = CheckOutput

    def applies_to(self, orchestrator: str) -> bool:
        return orchestrator in self.orchestrators


_REGISTRY: dict[str, CheckSpec] = {}


def check(
    check_id: str,
    *,
    section: str,
    title: str,
    orchestrators: Iterable[Orchestrator] = ("eks", "slurm"),
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check function under a unique id."""
    lookup_section(section)

    def decorate(func: CheckFunction) -> CheckFunction:
        if check_id in _REGISTRY:
            raise ValueError(f"check {check_id!r} registered twice")
        _REGISTRY[check_id] = CheckSpec(
            id=check_id,
            section=section,
            title=title,
            description=(func.__doc__ or title).strip(),
            run=func,
            orchestrators=frozenset(orchestrators),
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
