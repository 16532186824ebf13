"""A bundled scenario: a base world, an edit, and the findings it must produce."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from cluster_simulator.world import World
from tools.recorded.model import Expectations, ExpectedFinding

Base = Literal["eks", "slurm"]


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    base: Base
    edit: Callable[[World], None]
    expect: list[tuple[str, str, str]] = field(default_factory=list)
    """(check, status, section) of every FAIL/WARN finding the triage must produce."""
    resources: dict[str, list[str]] = field(default_factory=dict)
    """check id -> resource ids its findings must name."""
    must_not: list[tuple[str, str]] = field(default_factory=list)
    """(check, status) pairs that must not appear."""
    node: str | None = None
    skipped_include: list[str] = field(default_factory=list)

    def expectations(self) -> Expectations:
        # `resources` belong to the first (most severe) finding declared for their check.
        first_of_check = {
            check: index for index, (check, _, _) in reversed(list(enumerate(self.expect)))
        }
        return Expectations(
            node=self.node,
            findings=[
                ExpectedFinding(
                    check=check,
                    status=status,
                    section=section,
                    resources_include=(
                        self.resources.get(check, []) if first_of_check[check] == index else []
                    ),
                )
                for index, (check, status, section) in enumerate(self.expect)
            ],
            must_not=[
                ExpectedFinding(check=check, status=status) for check, status in self.must_not
            ],
            skipped_include=self.skipped_include,
        )


def unchanged(world: World) -> None:
    """The edit of a healthy scenario."""
