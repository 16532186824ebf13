"""Run many cases, each possibly several times, with a bound on parallelism; summarise.

pass rate: the share of runs whose every grade passed. pass^k: the share of cases that
passed in all of their k repeats (a case that passes one time in three is not reliable);
pass^j for j < k reads the first j repeats of each case, so one run with --repeat 4 gives
the whole curve. A safety violation in any run fails the whole suite, whatever the pass
rate.

The no-fault set is the cases on a healthy cluster whose right answer suggests nothing
(`expect.healthy`): any grader failing one of their good conversations is a false positive,
reported as its own figure so that graders made stricter to catch bad answers are seen
when they start failing good ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from evals.agent_eval.case import LoadedCase
from evals.agent_eval.graders import Grade, grade
from evals.agent_eval.judge import judge
from evals.agent_eval.run import ConversationRun, ProviderFactory, run_case


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens; None when unknown (cost is then not estimated)."""

    input: float | None = None
    output: float | None = None

    def cost(self, input_tokens: int, output_tokens: int) -> float | None:
        if self.input is None or self.output is None:
            return None
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


@dataclass
class RunOutcome:
    case_id: str
    repeat: int
    grades: list[Grade]
    run: ConversationRun
    cost: float | None = None
    no_fault: bool = False  # the case's cluster is healthy and the right answer changes nothing

    @property
    def passed(self) -> bool:
        return self.run.error is None and all(g.passed for g in self.grades)

    @property
    def violations(self) -> list[Grade]:
        return [g for g in self.grades if g.safety and not g.passed]


@dataclass
class SuiteResult:
    outcomes: list[RunOutcome] = field(default_factory=list)
    repeats: int = 1

    @property
    def runs(self) -> int:
        return len(self.outcomes)

    @property
    def pass_rate(self) -> float:
        return sum(o.passed for o in self.outcomes) / self.runs if self.outcomes else 0.0

    def by_case(self) -> dict[str, list[RunOutcome]]:
        cases: dict[str, list[RunOutcome]] = {}
        for outcome in self.outcomes:
            cases.setdefault(outcome.case_id, []).append(outcome)
        return cases

    @property
    def pass_hat_k(self) -> float:
        cases = self.by_case()
        if not cases:
            return 0.0
        return sum(all(o.passed for o in runs) for runs in cases.values()) / len(cases)

    def pass_hat(self, j: int) -> float:
        """The share of cases whose first `j` repeats all passed."""
        cases = self.by_case()
        if not cases:
            return 0.0
        passed = 0
        for runs in cases.values():
            first = sorted(runs, key=lambda o: o.repeat)[:j]
            passed += all(o.passed for o in first)
        return passed / len(cases)

    def no_fault_cases(self) -> dict[str, list[RunOutcome]]:
        return {case: runs for case, runs in self.by_case().items() if runs[0].no_fault}

    @property
    def false_positives(self) -> list[str]:
        """No-fault cases a grader failed in any of their runs."""
        return sorted(
            case for case, runs in self.no_fault_cases().items() if any(not o.passed for o in runs)
        )

    @property
    def false_positive_rate(self) -> float | None:
        cases = self.no_fault_cases()
        return len(self.false_positives) / len(cases) if cases else None

    @property
    def violations(self) -> list[tuple[RunOutcome, Grade]]:
        return [(o, g) for o in self.outcomes for g in o.violations]

    @property
    def errors(self) -> list[RunOutcome]:
        return [o for o in self.outcomes if o.run.error]


def run_suite(
    cases: Sequence[LoadedCase],
    make_provider: ProviderFactory,
    *,
    repeats: int = 1,
    jobs: int = 4,
    prices: Prices | None = None,
    judge_provider: ProviderFactory | None = None,
) -> SuiteResult:
    """Every case `repeats` times, at most `jobs` at once. With `judge_provider`, a judge
    model also grades each run against its case's rubric (deterministic graders first)."""
    prices = prices or Prices()
    work = [(loaded, repeat) for loaded in cases for repeat in range(1, repeats + 1)]

    def one(item: tuple[LoadedCase, int]) -> RunOutcome:
        loaded, repeat = item
        run = run_case(loaded, make_provider, repeat)
        usage = run.usage
        grades = grade(loaded.case, run)
        if judge_provider is not None:
            grades.append(judge(loaded.case, run, judge_provider(loaded)))
        return RunOutcome(
            case_id=loaded.case.id,
            repeat=repeat,
            grades=grades,
            run=run,
            cost=prices.cost(usage.input_tokens, usage.output_tokens),
            no_fault=loaded.case.expect.healthy,
        )

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = list(pool.map(one, work))
    return SuiteResult(outcomes=outcomes, repeats=repeats)
