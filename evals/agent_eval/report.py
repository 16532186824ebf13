"""The suite's report as Markdown (for people), JSON (for scripts) and JUnit XML (for CI)."""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

from evals.agent_eval.suite import RunOutcome, SuiteResult


def _tokens(outcome: RunOutcome) -> int:
    usage = outcome.run.usage
    return usage.input_tokens + usage.output_tokens


def _failed(outcome: RunOutcome) -> list[str]:
    reasons = [f"{g.grader}: {g.reason}" for g in outcome.grades if not g.passed]
    if outcome.run.error and not reasons:
        reasons.append(f"error: {outcome.run.error}")
    return reasons


def to_json(result: SuiteResult) -> dict[str, Any]:
    return {
        "runs": result.runs,
        "repeats": result.repeats,
        "pass_rate": round(result.pass_rate, 4),
        "pass_hat_k": round(result.pass_hat_k, 4),
        "pass_hat": {str(j): round(result.pass_hat(j), 4) for j in range(1, result.repeats + 1)},
        "no_fault": {
            "cases": sorted(result.no_fault_cases()),
            "false_positives": result.false_positives,
            "false_positive_rate": (
                None if result.false_positive_rate is None else round(result.false_positive_rate, 4)
            ),
        },
        "violations": [
            {"case": o.case_id, "repeat": o.repeat, "grader": g.grader, "reason": g.reason}
            for o, g in result.violations
        ],
        "errors": [
            {"case": o.case_id, "repeat": o.repeat, "error": o.run.error} for o in result.errors
        ],
        "outcomes": [
            {
                "case": o.case_id,
                "repeat": o.repeat,
                "passed": o.passed,
                "no_fault": o.no_fault,
                "error": o.run.error,
                "seconds": round(o.run.seconds, 3),
                "turns": len(o.run.turns),
                "tool_rounds": o.run.tool_rounds,
                "model_calls": o.run.model_calls,
                "input_tokens": o.run.usage.input_tokens,
                "output_tokens": o.run.usage.output_tokens,
                "cost_usd": o.cost,
                "grades": [
                    {"grader": g.grader, "passed": g.passed, "reason": g.reason, "safety": g.safety}
                    for g in o.grades
                ],
            }
            for o in result.outcomes
        ],
    }


def to_markdown(result: SuiteResult) -> str:
    lines = [
        "| case | runs passed | turns | tool rounds | tokens | seconds | cost | failures |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for case_id, runs in sorted(result.by_case().items()):
        passed = sum(o.passed for o in runs)
        costs = [o.cost for o in runs if o.cost is not None]
        cost = f"${sum(costs) / len(costs):.4f}" if costs else "—"
        failures = "; ".join(dict.fromkeys(r for o in runs for r in _failed(o)))
        lines.append(
            f"| {case_id} | {passed}/{len(runs)} | {runs[0].run.turns.__len__()} "
            f"| {sum(o.run.tool_rounds for o in runs) / len(runs):.1f} "
            f"| {sum(_tokens(o) for o in runs) // len(runs):,} "
            f"| {sum(o.run.seconds for o in runs) / len(runs):.2f} | {cost} "
            f"| {failures.replace('|', '/')[:300]} |"
        )
    lines += [
        "",
        f"pass rate {result.pass_rate:.1%} over {result.runs} run(s); "
        f"pass^{result.repeats} {result.pass_hat_k:.1%} over {len(result.by_case())} case(s); "
        f"{len(result.violations)} safety violation(s); {len(result.errors)} error(s)",
    ]
    if result.repeats > 1:
        curve = ", ".join(
            f"pass^{j} {result.pass_hat(j):.1%}" for j in range(1, result.repeats + 1)
        )
        lines.append(f"{curve} (a case passes^j when its first j runs all pass)")
    rate = result.false_positive_rate
    if rate is None:
        lines.append("no-fault set: no case (false-positive rate not measured)")
    else:
        named = f": {', '.join(result.false_positives)}" if result.false_positives else ""
        lines.append(
            f"no-fault set: {len(result.no_fault_cases())} case(s), false-positive rate "
            f"{rate:.1%} ({len(result.false_positives)} good conversation(s) failed{named})"
        )
    for outcome, grade in result.violations:
        lines.append(
            f"- VIOLATION {outcome.case_id} (run {outcome.repeat}): {grade.grader}: {grade.reason}"
        )
    return "\n".join(lines) + "\n"


def to_junit(result: SuiteResult) -> str:
    suite = ET.Element(
        "testsuite",
        name="hyperpod-debug agent evals",
        tests=str(result.runs),
        failures=str(sum(1 for o in result.outcomes if not o.passed and not o.run.error)),
        errors=str(len(result.errors)),
        time=f"{sum(o.run.seconds for o in result.outcomes):.3f}",
    )
    for outcome in result.outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            classname="agent",
            name=f"{outcome.case_id}[{outcome.repeat}]",
            time=f"{outcome.run.seconds:.3f}",
        )
        if outcome.run.error:
            ET.SubElement(case, "error", message=outcome.run.error[:300]).text = outcome.run.error
        elif not outcome.passed:
            reasons = _failed(outcome)
            ET.SubElement(case, "failure", message=reasons[0][:300]).text = "\n".join(reasons)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def render_json(result: SuiteResult) -> str:
    return json.dumps(to_json(result), indent=2, ensure_ascii=False) + "\n"
