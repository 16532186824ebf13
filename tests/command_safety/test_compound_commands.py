"""Compound commands are judged by the simple commands they run: a replacement in a loop
body is a replacement, not an unknown word `do`; and an unquoted substitution does not cut
its command in two. The commands live in a data file and are only classified as strings."""

from __future__ import annotations

import pytest

from tools.command_safety.classifier import classify

from ._data import classifier_cases

CASES = classifier_cases("compound_commands.txt")


def test_the_data_file_holds_every_kind() -> None:
    assert {kind for kind, _, _ in CASES} == {"read_only", "mutating", "unknown"}


@pytest.mark.parametrize(("kind", "rank", "command"), CASES)
def test_compound_commands_are_judged_by_what_they_run(kind: str, rank: int, command: str) -> None:
    verdict = classify(command)
    assert verdict.kind == kind, verdict
    assert verdict.destructive_rank == rank, verdict
