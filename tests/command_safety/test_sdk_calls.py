"""AWS SDK calls in inline code are read as the aws CLI operations they name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.command_safety.sdk import sdk_operations

_DATA = Path(__file__).parent / "data" / "sdk_calls.txt"


def _cases() -> list[tuple[list[str], str]]:
    cases: list[tuple[list[str], str]] = []
    for line in _DATA.read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, code = line.split("|", 1)
        expected = [] if head.strip() == "-" else [e.strip() for e in head.split(";")]
        cases.append((expected, code.strip()))
    return cases


@pytest.mark.parametrize(("expected", "code"), _cases())
def test_operations_named_in_code(expected: list[str], code: str) -> None:
    assert [" ".join(words) for words in sdk_operations(code)] == expected


def test_calls_are_bounded() -> None:
    code = "boto3.client('ec2')" + ".delete_security_group(GroupId='sg-1')" * 5000
    assert len(sdk_operations(code)) == 32
