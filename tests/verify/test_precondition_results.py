"""Each precondition reader's result, word for word, for every outcome it can give: the
verdicts `verify` prints and `verify --format json` writes are built from these."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from agent.safety.model import Precondition
from agent.verify import PreconditionResult, _one, _Reads

NODE = "i-00000000000000001"
OTHER = "i-00000000000000002"


class _FakeReads:
    """What `_Reads` answers, fixed: one check's output, the node statuses, the controller."""

    def __init__(self, output: Any = None, controller: set[str] | None = None) -> None:
        self.output = output
        self.controller = controller or set()

    def check(self, check_id: str, node: str | None) -> Any:
        if self.output is None:
            raise PermissionError("the check could not be read")
        return self.output

    def statuses(self) -> dict[str, str]:
        return {NODE: "Running", OTHER: "Failure"}

    def controller_names(self) -> set[str]:
        return self.controller


def _output(*statuses: str, skipped: str | None = None) -> Any:
    findings = [
        SimpleNamespace(status=SimpleNamespace(value=s), resources=[f"hyperpod-{NODE}"])
        for s in statuses
    ]
    return SimpleNamespace(
        findings=findings, skipped=[SimpleNamespace(reason=skipped)] if skipped else []
    )


def _result(reads: _FakeReads, pre: Precondition) -> tuple[str, str | None, str | None, str]:
    got: PreconditionResult = _one(cast(_Reads, reads), pre)
    assert got.precondition == pre
    return (got.outcome, got.then, got.now, got.detail)


FINDING = Precondition(kind="finding", check="gpu-xid", resource=NODE, expected="FAIL")


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            _output("WARN", "FAIL"),
            ("holds", "FAIL", "FAIL", f"gpu-xid still reports FAIL on {NODE}"),
        ),
        (
            _output("WARN"),
            ("changed", "FAIL", "WARN", f"gpu-xid reported FAIL on {NODE}; it now reports WARN"),
        ),
        (
            _output(),
            (
                "changed",
                "FAIL",
                "absent",
                f"gpu-xid reported FAIL on {NODE}; it no longer reports it",
            ),
        ),
        (
            _output(skipped="AccessDenied"),
            ("unknown", "FAIL", None, "gpu-xid could not run: AccessDenied"),
        ),
    ],
)
def test_a_finding_precondition(output: Any, expected: tuple[str, ...]) -> None:
    assert _result(_FakeReads(output), FINDING) == expected


def test_a_node_status_precondition() -> None:
    still = Precondition(kind="node-status", resource=NODE, expected="Running")
    assert _result(_FakeReads(), still) == (
        "holds",
        "Running",
        "Running",
        f"{NODE} is still Running",
    )
    was = Precondition(kind="node-status", resource=OTHER, expected="Running")
    assert _result(_FakeReads(), was) == (
        "changed",
        "Running",
        "Failure",
        f"{OTHER} was Running; it is now Failure",
    )


def test_a_not_controller_precondition() -> None:
    pre = Precondition(kind="not-slurm-controller", resource=NODE)
    assert _result(_FakeReads(), pre) == (
        "holds",
        "not the controller",
        "not the controller",
        f"{NODE} is not the Slurm controller",
    )
    assert _result(_FakeReads(controller={f"hyperpod-{NODE}"}), pre) == (
        "changed",
        "not the controller",
        "the Slurm controller",
        f"{NODE} is now the Slurm controller",
    )


def test_a_read_that_fails_leaves_the_precondition_unknown() -> None:
    outcome, then, now, detail = _result(_FakeReads(output=None), FINDING)
    assert (outcome, then, now) == ("unknown", "FAIL", None)
    assert "the check could not be read" in detail
