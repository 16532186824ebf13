"""Generated bad conversations: for every case, variants of its good script that a good
agent must never produce, played through the real agent and graded, to measure how
sensitive the graders are (`hyperpod-debug eval agent --mutate`).

A mutation rewrites only the model's turns of a case's script.json: the user's turns, the
recordings and the expectations stay the good case's own. Each kind names the graders that
must fail its variants (one is enough) and whether that failure must be a safety
violation. A kind that makes no sense for a case (a replacement swapped for a reboot in a
case with no reboot, a followed injection in a case with no planted text) reports why it
does not apply instead of producing a variant.

One kind changes the graded record after playing (`missing-iac`): today's gate adds the
IaC question and drift warning to every IaC-managed command it sees, so the conversation
it targets only exists if the gate misses one; the record is altered as that gate would
have left it, and the grader must catch it without the gate's help.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from agent.providers.scripted import ScriptedProvider
from evals.agent_eval.case import LoadedCase
from evals.agent_eval.graders import Grade, grade
from evals.agent_eval.mutate.kinds import (
    KIND_NAMES,
    KINDS,
    MutationKind,
    NotApplicable,
    claim_applied,
    missed_failing_node,
    replace_before_reboot,
)
from evals.agent_eval.mutate.script import (
    PostPlay,
    Script,
    case_facts,
    load_script,
    suggested_commands,
    user_turns,
)
from evals.agent_eval.run import ConversationRun, run_case

__all__ = [
    "KINDS",
    "KIND_NAMES",
    "MutationKind",
    "NotApplicable",
    "Sensitivity",
    "Variant",
    "case_facts",
    "claim_applied",
    "generate",
    "load_script",
    "measure",
    "missed_failing_node",
    "play",
    "replace_before_reboot",
    "suggested_commands",
    "to_json",
    "to_markdown",
    "user_turns",
]

# -- generating, playing, grading -----------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    case: LoadedCase
    kind: MutationKind
    script: Script
    post_play: PostPlay | None = None

    @property
    def id(self) -> str:
        return f"{self.case.case.id}:{self.kind.name}"


@dataclass(frozen=True)
class Skipped:
    case_id: str
    kind: str
    reason: str


def generate(
    cases: Sequence[LoadedCase], kinds: Sequence[MutationKind] = KINDS
) -> tuple[list[Variant], list[Skipped]]:
    variants: list[Variant] = []
    skipped: list[Skipped] = []
    for loaded in cases:
        script = load_script(loaded)
        facts = case_facts(loaded)
        for kind in kinds:
            try:
                mutated = kind.apply(loaded, script, facts)
            except NotApplicable as exc:
                skipped.append(Skipped(loaded.case.id, kind.name, str(exc)))
                continue
            if mutated.script == script:  # a mutation that changed nothing is no variant
                skipped.append(Skipped(loaded.case.id, kind.name, "nothing to change"))
                continue
            variants.append(Variant(loaded, kind, mutated.script, mutated.post_play))
    return variants, skipped


@dataclass
class VariantOutcome:
    variant: Variant
    grades: list[Grade]
    run: ConversationRun | None = None  # kept when played in this process

    @property
    def failed(self) -> list[Grade]:
        return [g for g in self.grades if not g.passed]

    @property
    def caught_by(self) -> list[str]:
        """The kind's graders that failed the variant (as violations where the kind asks)."""
        return [
            g.grader
            for g in self.failed
            if g.grader in self.variant.kind.graders and (g.safety or not self.variant.kind.safety)
        ]

    @property
    def caught(self) -> bool:
        return bool(self.caught_by)


def play(variant: Variant) -> VariantOutcome:
    script = variant.script
    run = run_case(variant.case, lambda _: ScriptedProvider.from_turns(script))
    if variant.post_play is not None:
        variant.post_play(run)
    return VariantOutcome(variant, grade(variant.case.case, run), run)


def _grades(variant: Variant) -> list[Grade]:
    """Play one variant in a worker process; only the grades travel back."""
    return play(variant).grades


@dataclass
class Sensitivity:
    outcomes: list[VariantOutcome] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def caught(self) -> int:
        return sum(o.caught for o in self.outcomes)

    def by_kind(self) -> dict[str, list[VariantOutcome]]:
        found: dict[str, list[VariantOutcome]] = {k: [] for k in KIND_NAMES}
        for outcome in self.outcomes:
            found.setdefault(outcome.variant.kind.name, []).append(outcome)
        return found

    def by_grader(self) -> dict[str, tuple[int, int, int]]:
        """Per grader: variants aimed at it, those it caught, and all variants it failed
        (aimed at it or not)."""
        figures: dict[str, list[int]] = {}
        for outcome in self.outcomes:
            for name in outcome.variant.kind.graders:
                row = figures.setdefault(name, [0, 0, 0])
                row[0] += 1
                row[1] += name in outcome.caught_by
            for g in outcome.failed:
                figures.setdefault(g.grader, [0, 0, 0])[2] += 1
        return {name: (a, c, f) for name, (a, c, f) in sorted(figures.items())}


def measure(
    cases: Sequence[LoadedCase], kinds: Sequence[MutationKind] = KINDS, jobs: int = 2
) -> Sensitivity:
    """Generate and play every variant. Playing is CPU-bound Python, so `jobs` > 1 plays
    in worker processes (threads would share one interpreter lock)."""
    variants, skipped = generate(cases, kinds)
    if jobs <= 1 or len(variants) <= 1:
        return Sensitivity([play(v) for v in variants], skipped)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        graded = list(pool.map(_grades, variants, chunksize=4))
    return Sensitivity(
        [VariantOutcome(v, g) for v, g in zip(variants, graded, strict=True)], skipped
    )


def to_markdown(result: Sensitivity) -> str:
    total = len(result.outcomes)
    lines = [
        "| mutation | generated | caught | not applicable | graders that must catch it |",
        "|---|---|---|---|---|",
    ]
    skipped: dict[str, int] = {}
    for s in result.skipped:
        skipped[s.kind] = skipped.get(s.kind, 0) + 1
    for kind in KINDS:
        runs = result.by_kind().get(kind.name, [])
        caught = sum(o.caught for o in runs)
        lines.append(
            f"| {kind.name} | {len(runs)} | {caught}/{len(runs)} | {skipped.get(kind.name, 0)} "
            f"| {', '.join(sorted(kind.graders))}{' (violation)' if kind.safety else ''} |"
        )
    lines += [
        "",
        "| grader | caught / aimed at it | variants it failed (any kind) |",
        "|---|---|---|",
    ]
    for name, (aimed, caught, failed) in result.by_grader().items():
        lines.append(f"| {name} | {caught}/{aimed} | {failed} |")
    share = result.caught / total if total else 0.0
    lines += ["", f"caught {result.caught} of {total} generated variant(s) ({share:.1%})"]
    for outcome in result.outcomes:
        if not outcome.caught:
            others = ", ".join(g.grader for g in outcome.failed) or "no grader"
            lines.append(f"- MISSED {outcome.variant.id} (failed: {others})")
    return "\n".join(lines) + "\n"


def to_json(result: Sensitivity) -> dict[str, Any]:
    return {
        "generated": len(result.outcomes),
        "caught": result.caught,
        "kinds": {
            name: {
                "generated": len(runs),
                "caught": sum(o.caught for o in runs),
                "not_applicable": [
                    {"case": s.case_id, "reason": s.reason}
                    for s in result.skipped
                    if s.kind == name
                ],
            }
            for name, runs in result.by_kind().items()
        },
        "graders": {
            name: {"aimed": a, "caught": c, "failed_any": f}
            for name, (a, c, f) in result.by_grader().items()
        },
        "variants": [
            {
                "case": o.variant.case.case.id,
                "kind": o.variant.kind.name,
                "caught": o.caught,
                "caught_by": o.caught_by,
                "failed": [g.grader for g in o.failed],
            }
            for o in result.outcomes
        ],
    }
