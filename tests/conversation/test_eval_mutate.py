"""Generated bad variants (evals/agent_eval/mutate.py): every kind of mistake, made in the
bundled cases' good scripts, must be caught by the graders named for it.

The whole cross product (every case × every kind) takes minutes with the scripted provider
on two cores: `hyperpod-debug eval agent --mutate` runs it. Here a deterministic subset runs,
each kind on two cases spread over the bundle (the n-th kind starts three cases after the
one before, so the kinds do not all land on the same case; the second in the other language
where one applies), plus the generation itself on every case.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from evals.agent_eval import mutate
from evals.agent_eval.case import case_folders, load_case
from evals.agent_eval.report import to_markdown
from evals.agent_eval.suite import RunOutcome, SuiteResult

PER_KIND = 2  # variants of each kind the test plays

CASES = [load_case(folder) for folder in case_folders()]
# Generated once at collection (gathering a case's facts reads its whole recording):
# the subset below and the generation test both read it.
VARIANTS, SKIPPED = mutate.generate(CASES)


def _subset() -> list[mutate.Variant]:
    chosen: list[mutate.Variant] = []
    for number, kind in enumerate(mutate.KINDS):
        start = (number * 3) % len(CASES)
        # The kind's variants with the cases taken from the start-th one on, round the end.
        place = {id(case): (i - start) % len(CASES) for i, case in enumerate(CASES)}
        variants = sorted((v for v in VARIANTS if v.kind is kind), key=lambda v: place[id(v.case)])
        # The first variant, then one in the other language where a case offers it (a
        # Chinese conversation is where language and claim graders have failed before).
        first = variants[:1]
        other = [
            v
            for v in variants[1:]
            if first and v.case.case.expect.language != first[0].case.case.expect.language
        ]
        chosen.extend((first + other + variants[1:])[:PER_KIND])
    return chosen


SUBSET = _subset()


@pytest.mark.parametrize("variant", [pytest.param(v, id=v.id) for v in SUBSET])
def test_a_generated_variant_is_caught(variant: mutate.Variant) -> None:
    outcome = mutate.play(variant)
    failed = {g.grader: g.reason for g in outcome.failed}
    assert outcome.caught, (
        f"{variant.id}: none of {sorted(variant.kind.graders)} failed it"
        f"{' as a violation' if variant.kind.safety else ''}; failed: {failed}"
    )


def test_every_kind_is_generated_and_played_in_the_subset() -> None:
    assert {v.kind.name for v in SUBSET} == set(mutate.KIND_NAMES)


def test_generation_covers_every_case_and_changes_only_model_turns() -> None:
    variants, skipped = VARIANTS, SKIPPED
    by_case = {v.case.case.id for v in variants}
    assert by_case == {c.case.id for c in CASES}, "a case with no bad variant at all"
    for variant in variants:
        good = mutate.load_script(variant.case)
        assert variant.script != good, variant.id
        # The variant is only a script: the case (user turns, recordings, expectations)
        # is the good case's own object.
        assert variant.case in CASES
    reasons = {(s.case_id, s.kind): s.reason for s in skipped}
    assert all(reasons.values()), "a kind skipped without saying why"
    assert ("healthy-slurm", "nothing-wrong") in reasons  # right on a healthy cluster
    assert any(k == "followed-injection" for _, k in reasons)  # no planted text in most cases


def test_mutations_edit_the_script_they_claim_to() -> None:
    loaded = load_case(case_folders(pattern="gpu-xid79-missing-gpu")[0])
    good = mutate.load_script(loaded)
    facts = mutate.case_facts(loaded)
    swapped = json.dumps(mutate.replace_before_reboot(loaded, good, facts).script)
    assert "batch-replace-cluster-nodes" in swapped
    assert "batch-reboot" not in swapped
    claimed = mutate.claim_applied(loaded, good, facts).script
    assert (
        "I've applied that change to hyperpod-i-00000000000000001"
        in claimed[mutate.user_turns(good)[0][-1]]["text"]
    )
    moved = mutate.missed_failing_node(loaded, good, facts).script
    commands = [c for _, _, c in mutate.suggested_commands(moved)]
    assert commands
    assert not any("i-00000000000000001" in c for c in commands)
    # The reads still ran on the failing node: only the model's answer moved.
    assert moved[0]["tool_calls"][0]["input"] == {"instance_id": "i-00000000000000001"}
    assert mutate.user_turns(good) == [[0, 1, 2, 3], [4, 5, 6]]


def _outcome(case: str, repeat: int, passed: bool, no_fault: bool) -> RunOutcome:
    from evals.agent_eval.graders import Grade
    from evals.agent_eval.run import ConversationRun

    return RunOutcome(
        case_id=case,
        repeat=repeat,
        grades=[Grade("facts_stated", passed, "x")],
        run=ConversationRun(case_id=case, repeat=repeat),
        no_fault=no_fault,
    )


def test_pass_hat_curve_and_no_fault_false_positive_rate() -> None:
    runs = [
        # a steady case, one that fails its third run, a no-fault case failed once
        *(_outcome("steady", r, True, False) for r in range(1, 5)),
        *(_outcome("flaky", r, r != 3, False) for r in range(1, 5)),
        *(_outcome("healthy-a", r, r != 4, True) for r in range(1, 5)),
        *(_outcome("healthy-b", r, True, True) for r in range(1, 5)),
    ]
    result = SuiteResult(outcomes=runs, repeats=4)
    assert [result.pass_hat(j) for j in (1, 2, 3, 4)] == [1.0, 1.0, 0.75, 0.5]
    assert result.pass_hat(4) == result.pass_hat_k
    assert result.false_positives == ["healthy-a"]
    assert result.false_positive_rate == 0.5
    assert SuiteResult(outcomes=runs[:8], repeats=4).false_positive_rate is None


def test_the_cli_reports_sensitivity_and_refuses_unknown_kinds(tmp_path: Path) -> None:
    runner = CliRunner()
    report = tmp_path / "m.json"
    args = ["eval", "agent", "--mutate", "--cases", "efa-sg-egress-missing", "--jobs", "1"]
    done = runner.invoke(app, [*args, "--mutation", "claim-applied", "--json", str(report)])
    assert done.exit_code == 0, done.output
    assert "| claim-applied | 1 | 1/1 | 0 |" in done.output
    assert "caught 1 of 1 generated variant(s) (100.0%)" in done.output
    data = json.loads(report.read_text())
    assert data["variants"][0]["caught_by"] == ["no_claim_to_have_acted"]
    refused = runner.invoke(app, [*args, "--mutation", "made-up"])
    assert refused.exit_code == 2
    assert "unknown mutation" in refused.output
    live = runner.invoke(app, [*args, "--provider", "anthropic"])
    assert live.exit_code == 2


def test_the_suite_report_states_the_no_fault_figure() -> None:
    runs = [_outcome("healthy-a", 1, False, True), _outcome("broken", 1, True, False)]
    text = to_markdown(SuiteResult(outcomes=runs, repeats=1))
    assert "no-fault set: 1 case(s), false-positive rate 100.0%" in text
    assert "healthy-a" in text.splitlines()[-1]
