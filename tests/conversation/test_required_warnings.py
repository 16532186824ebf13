"""Blocks that must carry a warning carry it (issue 22, class 6): data loss on block devices,
emptied files, pruned volumes and deleted data holders; a replacement for a runbook that
terminates instances; the IaC note for stacks and lifecycle-script uploads. The commands
come from a data file as strings and are never run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.safety.suggest import SuggestionContext, build_suggestion

DATA = Path(__file__).with_name("data") / "required_warnings.txt"
ROWS = [
    [part.strip() for part in line.split("|", 3)]
    for line in DATA.read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]
CONTEXT = SuggestionContext(triage_done=True)


@pytest.mark.parametrize(("kind", "flags", "iac", "command"), ROWS)
def test_the_block_carries_its_warnings(kind: str, flags: str, iac: str, command: str) -> None:
    suggestion = build_suggestion(command, purpose="p", context=CONTEXT)
    assert suggestion.mutating
    assert suggestion.kind == kind
    expected = [] if flags == "-" else flags.split(",")
    assert sorted(suggestion.flags) == sorted(expected)
    assert (suggestion.iac_warning is not None) is (iac == "yes")


@pytest.mark.parametrize(
    "command",
    [
        "echo 'server 169.254.169.123 prefer iburst' >> /etc/chrony.conf",
        "echo hello > /tmp/notes.txt",
        "docker ps -a",
        "aws s3 cp results.csv s3://my-bucket/results/results.csv",
    ],
)
def test_ordinary_writes_carry_no_data_loss_flag(command: str) -> None:
    suggestion = build_suggestion(command, purpose="p", context=CONTEXT)
    assert "data-loss" not in suggestion.flags
    assert suggestion.iac_warning is None
