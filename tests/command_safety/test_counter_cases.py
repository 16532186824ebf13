"""Read-only commands are read-only and their mutating neighbours are not (issue 22,
class 9): find, nc -z, cd, sacctmgr show, aws logs tail. Commands from a data file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.command_safety import classify

DATA = Path(__file__).parent / "data" / "counter_cases.txt"
ROWS = [
    (head.split()[0], int(head.split()[1]), command.strip())
    for head, command in (
        line.split("|", 1)
        for line in DATA.read_text("utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    )
]


@pytest.mark.parametrize(("kind", "rank", "command"), ROWS)
def test_counter_case(kind: str, rank: int, command: str) -> None:
    verdict = classify(command)
    assert (verdict.kind, verdict.destructive_rank) == (kind, rank), verdict.reason
