"""The table as the system prompt's destructive-order partial renders it."""

from __future__ import annotations

from dataclasses import dataclass

from tools.remediation.model import Replacement, Rule
from tools.remediation.rules import RULES, SLURM_DRAIN

# -- the table as the system prompt shows it ----------------------------------------------------

HEADINGS: dict[Replacement, str] = {
    Replacement.IMMEDIATELY: "Replace first (the evidence is conclusive; isolate the node first)",
    Replacement.AFTER_REBOOT: "First step as named; replace only after a reboot did not help",
    Replacement.AFTER_FIRST_ACTION: "Fix the cause first; replacing a node is the last step",
    Replacement.NEVER: "Never replace on this evidence",
}


@dataclass(frozen=True, slots=True)
class PromptLine:
    """One line of the prompt's table: the evidence of every row of a group that shares the
    same section and words, joined (the prompt is sent on every request: no line twice)."""

    evidence: str
    section: str
    words: str


@dataclass(frozen=True, slots=True)
class Group:
    """The rows that share one replacement rule, under its heading."""

    replacement: Replacement
    heading: str
    rules: tuple[Rule, ...]

    @property
    def lines(self) -> tuple[PromptLine, ...]:
        """The rows as the prompt states them: conclusive rows by their first action alone
        (it is the replacement), the others by their whole advice."""
        merged: dict[tuple[str, str], list[str]] = {}
        for row in self.rules:
            words = row.first if self.replacement is Replacement.IMMEDIATELY else row.advice
            merged.setdefault((row.section, words), []).append(row.evidence)
        return tuple(
            PromptLine("; ".join(evidence), section, words)
            for (section, words), evidence in merged.items()
        )


@dataclass(frozen=True, slots=True)
class PromptTable:
    """What the destructive-order partial renders: the groups and the Slurm drain."""

    groups: tuple[Group, ...]
    slurm_drain: str


def prompt_table() -> PromptTable:
    """Every row, grouped by when replacement is justified (conclusive evidence first)."""
    groups = tuple(
        Group(kind, HEADINGS[kind], tuple(r for r in RULES if r.replacement is kind))
        for kind in (
            Replacement.IMMEDIATELY,
            Replacement.AFTER_REBOOT,
            Replacement.AFTER_FIRST_ACTION,
            Replacement.NEVER,
        )
    )
    return PromptTable(tuple(g for g in groups if g.rules), SLURM_DRAIN)
