"""Read-only commands are read-only and their mutating neighbours are not (issue 22,
class 9): find, nc -z, cd, sacctmgr show, aws logs tail. Commands from a data file."""

from __future__ import annotations

import pytest

from tools.command_safety import classify

from ._data import classifier_cases

ROWS = classifier_cases("counter_cases.txt")


@pytest.mark.parametrize(("kind", "rank", "command"), ROWS)
def test_counter_case(kind: str, rank: int, command: str) -> None:
    verdict = classify(command)
    assert (verdict.kind, verdict.destructive_rank) == (kind, rank), verdict.reason
