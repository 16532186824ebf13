"""Compound commands are judged by the simple commands they run: a replacement in a loop
body is a replacement, not an unknown word `do`; and an unquoted substitution does not cut
its command in two. The commands live in a data file and are only classified as strings."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.command_safety.classifier import classify

DATA = Path(__file__).parent / "data" / "compound_commands.txt"


def _cases() -> list[tuple[str, int, str]]:
    cases: list[tuple[str, int, str]] = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, command = line.split(" | ", 1)
        kind, rank = head.split()
        cases.append((kind, int(rank), command))
    return cases


CASES = _cases()


def test_the_data_file_holds_every_kind() -> None:
    assert {kind for kind, _, _ in CASES} == {"read_only", "mutating", "unknown"}


@pytest.mark.parametrize(("kind", "rank", "command"), CASES)
def test_compound_commands_are_judged_by_what_they_run(kind: str, rank: int, command: str) -> None:
    verdict = classify(command)
    assert verdict.kind == kind, verdict
    assert verdict.destructive_rank == rank, verdict
