"""Score `explain` on labelled cases: top-1 and top-3 accuracy, overall, per language and
for the held-out cases.

    python -m evals.explain.score [--cases FILE] [--misses]

"exact" counts a case when the expected section is among the top k; "acceptable" also
accepts the case's listed alternatives. Held-out cases were kept aside while the
signatures were written; their figure is the honest one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from tools.explain import explain
from tools.sections import SECTIONS

CASES_PATH = Path(__file__).with_name("cases.jsonl")
GROUPS = ("overall", "en", "zh", "dev", "holdout")


class Case(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    text: str
    expected_section: str
    acceptable: list[str]
    lang: Literal["en", "zh"]
    source: str
    holdout: bool = False

    @field_validator("expected_section")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in SECTIONS:
            raise ValueError(f"unknown section {value!r}")
        return value

    @field_validator("acceptable")
    @classmethod
    def _all_known(cls, values: list[str]) -> list[str]:
        unknown = [v for v in values if v not in SECTIONS]
        if unknown:
            raise ValueError(f"unknown sections {unknown}")
        return values


@dataclass(frozen=True)
class Outcome:
    case: Case
    ranked: tuple[str, ...]

    def hit(self, k: int, *, acceptable: bool) -> bool:
        wanted = {self.case.expected_section}
        if acceptable:
            wanted |= set(self.case.acceptable)
        return bool(wanted & set(self.ranked[:k]))


@dataclass(frozen=True)
class Tally:
    total: int
    top1_exact: float
    top1_acceptable: float
    top3_exact: float
    top3_acceptable: float


def load_cases(path: Path = CASES_PATH) -> list[Case]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Case.model_validate_json(line) for line in lines if line.strip()]


def run(cases: Iterable[Case]) -> list[Outcome]:
    return [
        Outcome(case, tuple(m.section for m in explain(case.text, top=3).matches)) for case in cases
    ]


def _in_group(outcome: Outcome, group: str) -> bool:
    case = outcome.case
    return {
        "overall": True,
        "en": case.lang == "en",
        "zh": case.lang == "zh",
        "dev": not case.holdout,
        "holdout": case.holdout,
    }[group]


def tally(outcomes: Sequence[Outcome]) -> Tally:
    n = len(outcomes)

    def rate(k: int, acceptable: bool) -> float:
        return sum(o.hit(k, acceptable=acceptable) for o in outcomes) / n if n else 0.0

    return Tally(n, rate(1, False), rate(1, True), rate(3, False), rate(3, True))


def score(cases: Iterable[Case]) -> dict[str, Tally]:
    outcomes = run(cases)
    return {group: tally([o for o in outcomes if _in_group(o, group)]) for group in GROUPS}


def render(report: dict[str, Tally]) -> str:
    header = ("group", "cases", "top1 exact", "top1 ok", "top3 exact", "top3 ok")
    lines = [
        f"{header[0]:<9}{header[1]:>6}{header[2]:>12}{header[3]:>10}{header[4]:>12}{header[5]:>10}"
    ]
    for group, t in report.items():
        lines.append(
            f"{group:<9}{t.total:>6}{t.top1_exact:>12.2f}{t.top1_acceptable:>10.2f}"
            f"{t.top3_exact:>12.2f}{t.top3_acceptable:>10.2f}"
        )
    return "\n".join(lines) + "\n"


def render_misses(outcomes: Iterable[Outcome]) -> str:
    lines = []
    for o in outcomes:
        if not o.hit(1, acceptable=True):
            mark = "top3" if o.hit(3, acceptable=True) else "MISS"
            lines.append(
                f"{mark} {o.case.id}: expected {o.case.expected_section}, got {list(o.ranked)}"
            )
    return "\n".join(lines) + ("\n" if lines else "")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.explain.score", description=__doc__)
    parser.add_argument("--cases", type=Path, default=CASES_PATH)
    parser.add_argument("--misses", action="store_true", help="List cases not ranked first.")
    args = parser.parse_args(argv)
    cases = load_cases(args.cases)
    sys.stdout.write(render(score(cases)))
    if args.misses:
        sys.stdout.write(render_misses(run(cases)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
