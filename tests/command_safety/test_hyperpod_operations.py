"""The cluster-operation commands the reference suggests or uses to confirm: the reads
(list-cluster-operations, describe-cluster-operation) are read-only, and
start-cluster-health-check (nodes leave service; failing ones are rebooted or replaced) is
mutating, ranked with the replacements, and suggested with the data-loss flag though it is
no replacement itself. The commands live in a data file and are only ever classified (or
judged as suggestions) as strings."""

from __future__ import annotations

import pytest

from agent.safety.model import FLAG_DATA_LOSS, FLAG_REPLACE_BEFORE_REBOOT
from agent.safety.suggest import SuggestionContext, build_suggestion
from tools.command_safety.classifier import classify

from ._data import classifier_cases

CASES = classifier_cases("hyperpod_operations.txt")


def test_the_data_file_holds_both_kinds() -> None:
    kinds = {kind for kind, _, _ in CASES}
    assert kinds == {"read_only", "mutating"}


@pytest.mark.parametrize(("kind", "rank", "command"), CASES)
def test_cluster_operation_commands_are_classified(kind: str, rank: int, command: str) -> None:
    verdict = classify(command)
    assert verdict.kind == kind, verdict
    assert verdict.destructive_rank == rank, verdict


def test_start_cluster_health_check_says_what_it_does() -> None:
    command = next(c for k, _, c in CASES if "start-cluster-health-check" in c)
    reason = classify(command).reason
    assert "deep health checks" in reason
    assert "rebooted or replaced" in reason


@pytest.mark.parametrize("command", [c for _, _, c in CASES if "start-cluster-health-check" in c])
def test_start_cluster_health_check_is_suggested_with_the_data_loss_flag(command: str) -> None:
    suggestion = build_suggestion(
        command, purpose="Re-test the node.", context=SuggestionContext(triage_done=True)
    )
    assert suggestion.mutating
    assert FLAG_DATA_LOSS in suggestion.flags
    # It may replace failing nodes but replaces none by itself: not a replacement.
    assert suggestion.kind == "node"
    assert FLAG_REPLACE_BEFORE_REBOOT not in suggestion.flags
    assert "rebooted or replaced" in suggestion.blast_radius
    assert suggestion.blast_radius.startswith("may destroy data on ")
