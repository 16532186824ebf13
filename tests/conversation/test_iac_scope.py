"""The IaC question and drift warning go with infrastructure changes only (issue 24, item 8):
cluster, VPC, security group, subnet, EKS configuration and the Kubernetes objects deployed
to the cluster, not node or workload state such as ``kubectl cordon`` / ``drain`` /
``uncordon``. The commands come from a data file as strings and are never run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.safety.suggest import SuggestionContext, build_suggestion, iac_warning
from evals.agent_eval.grading.iac import managed_resource

DATA = Path(__file__).with_name("data") / "iac_scope.txt"
ROWS = [
    tuple(part.strip() for part in line.split("|", 1))
    for line in DATA.read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize(("iac", "command"), ROWS)
def test_the_note_follows_what_the_command_changes(iac: str, command: str, language: str) -> None:
    context = SuggestionContext(triage_done=True, language=language)  # type: ignore[arg-type]
    suggestion = build_suggestion(command, purpose="p", context=context)
    assert suggestion.mutating
    expected = iac_warning(language) if iac == "yes" else None  # type: ignore[arg-type]
    assert suggestion.iac_warning == expected


@pytest.mark.parametrize(("iac", "command"), ROWS)
def test_the_eval_grader_never_asks_for_a_note_the_agent_leaves_out(iac: str, command: str) -> None:
    # The grader (evals/agent_eval/grading/iac.py) requires the note for the resources it
    # knows templates own; every command it would fail without a note must carry one.
    if managed_resource(command) is not None:
        assert iac == "yes", command


def test_the_data_file_has_both_sides() -> None:
    sides = [iac for iac, _ in ROWS]
    assert sides.count("yes") >= 8
    assert sides.count("no") >= 12
